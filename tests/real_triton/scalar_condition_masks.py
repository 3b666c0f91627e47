"""Masks that combine a block condition with a scalar one (`(offs < W) & (row < rows)`,
`(x < 0) ^ (y < 0)` with a scalar y), and a parameter named `self`: the spellings of
FlagGems' pads and remainders, written for tileport's tests."""
import triton
import triton.language as tl


@triton.jit
def rows_in_range_copy(src_ptr, dst_ptr, rows, width, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = (offs < width) & (row < rows)
    x = tl.load(src_ptr + row * width + offs, mask=mask, other=0.0)
    tl.store(dst_ptr + row * width + offs, x, mask=mask)


@triton.jit
def floored_remainder_by_scalar(x_ptr, out_ptr, n, y, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    live = (offs < n) | (y < 0.0) & (offs < 0)
    x = tl.load(x_ptr + offs, mask=live, other=1.0)
    r = x % y
    flip = (r != 0) & ((x < 0) ^ (y < 0))
    tl.store(out_ptr + offs, tl.where(flip, r + y, r), mask=live)


@triton.jit
def keep_above(self, out_ptr, n, threshold, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(self + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr + offs, tl.where(x > threshold, x, 0.0), mask=offs < n)
