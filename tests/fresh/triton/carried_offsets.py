# Loops that walk a row by advancing their offsets instead of computing them from the loop
# variable: a block of rows summed with its flat offsets and columns advanced by BLOCK_N each
# iteration (`offsets += BLOCK_N`), a row scaled in place with a scalar start advanced by
# BLOCK, and a row's prefix count whose running total and offsets both advance.
import torch
import triton
import triton.language as tl


@triton.jit
def rows_sum_kernel(x_ptr, out_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    offsets = rows[:, None] * N + cols[None, :]
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for _ in range(0, N, BLOCK_N):
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        tile = tl.load(x_ptr + offsets, mask=mask, other=0.0)
        acc += tile * tile
        cols += BLOCK_N
        offsets += BLOCK_N
    tl.store(out_ptr + rows, tl.sum(acc, 1), mask=rows < M)


@triton.jit
def row_scale_kernel(x_ptr, y_ptr, n, stride, scale, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    start = 0
    for _ in range(tl.cdiv(n, BLOCK)):
        cols = start + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + row * stride + cols, mask=cols < n, other=0.0)
        tl.store(y_ptr + row * stride + cols, v * scale, mask=cols < n)
        start += BLOCK


@triton.jit
def row_shift_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = row * n + tl.arange(0, BLOCK)
    cols = tl.arange(0, BLOCK)
    seen = 0
    for k in range(0, n, BLOCK):
        v = tl.load(x_ptr + offs, mask=cols < n, other=0.0)
        tl.store(y_ptr + offs, v + seen, mask=cols < n)
        offs += BLOCK
        cols += BLOCK
        seen += 1


def rows_sum(x: torch.Tensor) -> torch.Tensor:
    m, n = x.shape
    out = torch.empty(m, dtype=torch.float32, device=x.device)
    rows_sum_kernel[(triton.cdiv(m, 16),)](x, out, m, n, BLOCK_M=16, BLOCK_N=32)
    return out


def row_scale(x: torch.Tensor, scale: float) -> torch.Tensor:
    y = torch.empty_like(x)
    row_scale_kernel[(x.shape[0],)](x, y, x.shape[1], x.stride(0), scale, BLOCK=32)
    return y


def row_shift(x: torch.Tensor) -> torch.Tensor:
    y = torch.empty_like(x)
    row_shift_kernel[(x.shape[0],)](x, y, x.shape[1], BLOCK=32)
    return y
