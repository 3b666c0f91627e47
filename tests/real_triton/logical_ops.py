"""The tensor methods logical_and / logical_or on masks and on values (Triton 3.9 has them as
methods only), written for tileport's tests."""
import triton
import triton.language as tl


@triton.jit
def band_kernel(x_ptr, out_ptr, n, lo, hi, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    inside = (x >= lo).logical_and(x <= hi)
    edge = (x == lo).logical_or(x == hi)
    keep = inside.logical_or(edge).logical_and(x.to(tl.int1))
    tl.store(out_ptr + offs, tl.where(keep, x, -x), mask=m)
