# Elementwise functions written as scalar bodies under a kernel-generating decorator.
import triton
import triton.language as tl

from mylib.utils import pointwise_dynamic


@pointwise_dynamic(promotion_methods=[(0, "DEFAULT")])
@triton.jit
def erf_gelu(x):
    x32 = x.to(tl.float32)
    return 0.5 * x32 * (1 + tl.erf(x32 * 0.7071067811))


@pointwise_dynamic(num_inputs=1, promotion_methods=[(0, "INT_TO_FLOAT")])
@triton.jit
def soft_sign(x):
    return x / (1.0 + tl.abs(x))


def gelu(a):
    return erf_gelu(a)


def gelu_(a):
    erf_gelu(a, out0=a)
    return a
