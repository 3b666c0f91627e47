import triton
import triton.language as tl

from mylib.utils.pointwise_dynamic import pointwise_dynamic


@pointwise_dynamic(is_tensor=[True, False, False], promotion_methods=[(0, 1, 2, "DEFAULT")])
@triton.jit
def clamp_scalars(x, lo, hi):
    return tl.minimum(hi, tl.maximum(lo, x))


@pointwise_dynamic(dtypes=[None, float], promotion_methods=[(0, 1, "ALWAYS_BOOL")])
@triton.jit
def above(x, threshold):
    return x > threshold


def clamp(x, lo, hi):
    return clamp_scalars(x, lo, hi)
