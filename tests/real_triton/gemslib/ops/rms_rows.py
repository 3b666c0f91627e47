import torch
import triton
import triton.language as tl

from gemslib.utils import libentry, shim
from gemslib.utils import language as tle
from ..utils import language as lang
import gemslib.utils.language as tl_ext

rsqrt = shim.rsqrt


@libentry()
@triton.jit
def rms_rows_kernel(x_ptr, y_ptr, n_cols, inv_n, eps, BLOCK: tl.constexpr):
    row = tle.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    mean = tl.sum(lang.square(x), axis=0) * inv_n
    y = x * rsqrt(mean + eps)
    tl.store(y_ptr + tl_ext.program_id(0) * n_cols + cols, y, mask=mask)


def rms_rows(x, eps=1e-6):
    y = torch.empty_like(x)
    rms_rows_kernel[(x.shape[0],)](x, y, x.shape[1], 1.0 / x.shape[1], eps, BLOCK=triton.next_power_of_2(x.shape[1]))
    return y
