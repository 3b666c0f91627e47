"""Python functions Triton runs while compiling (`@tl.constexpr def`, `@triton.constexpr_function`)
called in a kernel with constexprs and dtypes, written for tileport's tests."""
import triton
import triton.language as tl
from triton.language.core import _unwrap_if_constexpr


@tl.constexpr
def accum_type(dtype):
    if dtype.is_bf16() or dtype.is_fp16():
        return tl.float32
    if dtype.is_int():
        return tl.int64
    return dtype


@tl.constexpr
def top_bit(num_bits: tl.constexpr) -> int:
    num_bits = _unwrap_if_constexpr(num_bits)
    return 1 << (num_bits - 1)


@triton.constexpr_function
def lanes(block, width):
    return block // width if block > width else 1


@triton.jit
def scaled_sum_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    acc_t: tl.constexpr = accum_type(tl.float16)
    total = tl.sum(x.to(acc_t), axis=0) * lanes(BLOCK, 32)
    tl.store(out_ptr, total + (top_bit(8) - 128))
