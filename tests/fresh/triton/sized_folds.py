# Folds by combine functions over blocks the launcher sizes to the data: an all-true over
# per-block flags whose block is the next power of two of their count, a product of each
# row's elements whose block is the row's width rounded up, and a bitwise-or of each column's
# flags shifted by their row,
# written with tl.reduce, the block's .reduce method and a keyword combine_fn.
import torch
import triton
import triton.language as tl


@triton.jit
def _both(a, b):
    return a & b


@triton.jit
def _product(a, b):
    return a * b


@triton.jit
def _bits(a, b):
    return a | b


@triton.jit
def all_flags_kernel(flags, out, count, BLOCK: tl.constexpr):
    at = tl.arange(0, BLOCK)
    seen = tl.load(flags + at, mask=at < count, other=1).to(tl.int1)
    tl.store(out, tl.reduce(seen, axis=0, combine_fn=_both))


@triton.jit
def row_product_kernel(x, out, cols, WIDTH: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, WIDTH)
    v = tl.load(x + row * cols + c, mask=c < cols, other=1.0)
    tl.store(out + row, v.reduce(0, _product))


@triton.jit
def column_bits_kernel(x, out, rows, cols, ROWS: tl.constexpr):
    col = tl.program_id(0)
    r = tl.arange(0, ROWS)
    v = (tl.load(x + r * cols + col, mask=r < rows, other=0.0) > 0.5).to(tl.int32) << (r % 7)
    tl.store(out + col, tl.reduce(v, 0, _bits))


def all_true(flags: torch.Tensor) -> torch.Tensor:
    out = torch.empty(1, dtype=torch.bool, device=flags.device)
    count = flags.numel()
    all_flags_kernel[(1,)](flags, out, count, BLOCK=triton.next_power_of_2(count))
    return out


def row_products(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty(rows, dtype=x.dtype, device=x.device)
    row_product_kernel[(rows,)](x, out, cols, WIDTH=triton.next_power_of_2(cols))
    return out


def column_bits(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty(cols, dtype=torch.int32, device=x.device)
    column_bits_kernel[(cols,)](x, out, rows, cols, ROWS=triton.next_power_of_2(rows))
    return out
