"""A dtype handed to a @triton.jit helper that reads `.value` (a constexpr when compiled), written
for tileport's tests."""
import triton
import triton.language as tl


@triton.jit
def lowest(dtype):
    d = dtype.value
    if d.is_floating():
        v: tl.constexpr = float("-inf")
        return v
    else:
        w: tl.constexpr = d.int_bitwidth
        v: tl.constexpr = -1 * 2 ** (w - 1)
        return v


@triton.jit
def rowmax_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=lowest(x_ptr.type.element_ty))
    tl.store(out_ptr, tl.max(x, axis=0))
