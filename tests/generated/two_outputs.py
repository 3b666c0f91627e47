import triton
import triton.language as tl

from mylib import utils


@utils.pointwise_dynamic(num_outputs=2, promotion_methods=[(0, "DEFAULT"), (0, 1, "DEFAULT")])
@triton.jit
def split_scale(x, y):
    whole = tl.floor(x)
    return whole, (x - whole) * y


def frac_parts(x, y):
    return split_scale(x, y)
