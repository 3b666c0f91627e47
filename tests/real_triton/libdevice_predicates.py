"""libdevice predicates on floats and a dtype tested with `is`, written for tileport's tests."""
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def clean_kernel(x_ptr, out_ptr, flags_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    bad = libdevice.isnan(x) | libdevice.isinf(x)
    tl.store(out_ptr + offs, tl.where(libdevice.finitef(x) != 0, x, 0.0), mask=m)
    tl.store(flags_ptr + offs, bad, mask=m)
    if x.dtype is tl.float32:
        tl.store(out_ptr + offs, x * 2.0, mask=m & (bad != 0))
