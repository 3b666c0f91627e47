import triton
import triton.language as tl

from mylib.utils import pointwise_dynamic


@pointwise_dynamic(promotion_methods=[(0, 1, "DEFAULT")])
@triton.jit
def mix_bits(a, b):
    return (a & b) ^ (a >> 1)


@pointwise_dynamic(is_tensor=[True, False], promotion_methods=[(0, 1, "INT_TO_FLOAT")])
@triton.jit
def halve_masked(a, m):
    return (a & m).to(tl.float32) * 0.5
