import triton
import triton.language as tl

from gemslib.utils import libentry, libtuner


def tile_configs():
    return [triton.Config({"BLOCK": b}, num_warps=w) for b, w in ((64, 2), (256, 4))]


@libentry()
@libtuner(configs=tile_configs(), key=["n"], strategy="log")
@triton.jit
def scale_kernel(x_ptr, y_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * alpha, mask=mask)


def scale(x, y, alpha):
    n = x.numel()
    scale_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, y, n, alpha)
