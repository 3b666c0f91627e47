# Blocks reshaped in registers: a sum/difference stage over neighbouring pairs (reshape, split,
# join, reshape back), two halves of a row interleaved, and a (rows, cols) tile flattened.
import torch
import triton
import triton.language as tl


@triton.jit
def pair_stage(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    a, b = tl.split(tl.reshape(x, (BLOCK // 2, 2)))
    y = tl.join(a + b, (a - b) * 0.5).reshape(BLOCK)
    tl.store(out_ptr + offs, y, mask=offs < n)


@triton.jit
def zip_halves(lo_ptr, hi_ptr, out_ptr, n, HALF: tl.constexpr):
    offs = tl.program_id(0) * HALF + tl.arange(0, HALF)
    lo = tl.load(lo_ptr + offs, mask=offs < n, other=0.0)
    hi = tl.load(hi_ptr + offs, mask=offs < n, other=0.0)
    both = tl.interleave(lo, hi * 2.0)
    dst = tl.program_id(0) * 2 * HALF + tl.arange(0, 2 * HALF)
    tl.store(out_ptr + dst, both, mask=dst < 2 * n)


@triton.jit
def flat_tile(x_ptr, out_ptr, ROWS: tl.constexpr, COLS: tl.constexpr):
    base = tl.program_id(0) * ROWS * COLS
    r = tl.arange(0, ROWS)
    c = tl.arange(0, COLS)
    t = tl.load(x_ptr + base + c[:, None] * ROWS + r[None, :])  # the tile transposed
    flat = tl.view(tl.trans(t), (ROWS * COLS,))
    tl.store(out_ptr + base + tl.arange(0, ROWS * COLS), tl.ravel(flat + 1.0))


def stage(x):
    out = torch.empty_like(x)
    pair_stage[(triton.cdiv(x.numel(), 64),)](x, out, x.numel(), BLOCK=64)
    return out


def zipped(lo, hi):
    out = torch.empty(2 * lo.numel(), dtype=lo.dtype, device=lo.device)
    zip_halves[(triton.cdiv(lo.numel(), 32),)](lo, hi, out, lo.numel(), HALF=32)
    return out


def flattened(x):
    out = torch.empty_like(x)
    flat_tile[(x.numel() // 128,)](x, out, ROWS=8, COLS=16)
    return out
