"""libdevice math by module attribute, through a module-level alias and by imported name: the
Triton interpreter runs none of them by itself (verify gives it numpy evaluations)."""
import triton
import triton.language as tl
from triton.language.extra import libdevice
from triton.language.extra.libdevice import hypot, pow

shim = libdevice
atan2 = shim.atan2


@triton.jit
def angles_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=1.0)
    y = tl.load(y_ptr + offs, mask=m, other=1.0)
    r = atan2(y, x) + libdevice.tan(x * 0.25) + libdevice.sinh(y * 0.125)
    r += hypot(x, y) + libdevice.trunc(x * 3.0) + pow(x, 3.0) + shim.acos(tl.minimum(tl.maximum(y * 0.1, -1.0), 1.0))
    tl.store(out_ptr + offs, r, mask=m)


def angles(x, y, out):
    n = x.numel()
    angles_kernel[(triton.cdiv(n, 256),)](x, y, out, n, BLOCK=256)
