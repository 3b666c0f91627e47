# Keeps a band of each row block (|row - col| <= width): the row indices, their mask and the
# advanced pointers are computed once before the loop over column blocks, and read inside it
# (a lane's index crossing into the loop); a second kernel scales rows the same way with the
# row offsets kept as an int64 local.
import torch
import triton
import triton.language as tl


@triton.jit
def band_kernel(x_ptr, y_ptr, M, N, stride, width, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BM + tl.arange(0, BM)
    row_ok = rows[:, None] < M
    x_ptr += rows[:, None] * stride
    y_ptr += rows[:, None] * stride
    for start in range(0, N, BN):
        cols = start + tl.arange(0, BN)[None, :]
        inside = row_ok & (cols < N)
        x = tl.load(x_ptr + cols, mask=inside, other=0.0)
        near = tl.abs(rows[:, None] - cols) <= width
        tl.store(y_ptr + cols, tl.where(near, x, 0.0), mask=inside)


@triton.jit
def scale_rows_kernel(x_ptr, s_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs_m = pid * BM + tl.arange(0, BM)
    base = offs_m[:, None] * N
    scale = tl.load(s_ptr + offs_m, mask=offs_m < M, other=0.0)
    for n0 in range(0, N, BN):
        offs_n = n0 + tl.arange(0, BN)
        keep = (offs_m[:, None] < M) & (offs_n[None, :] < N)
        x = tl.load(x_ptr + base + offs_n[None, :], mask=keep, other=0.0)
        tl.store(y_ptr + base + offs_n[None, :], x * scale[:, None], mask=keep)


def band(x, width):
    M, N = x.shape
    y = torch.empty_like(x)
    band_kernel[(triton.cdiv(M, 16),)](x, y, M, N, x.stride(0), width, BM=16, BN=32)
    return y


def scale_rows(x, s):
    M, N = x.shape
    y = torch.empty_like(x)
    scale_rows_kernel[(triton.cdiv(M, 8),)](x, s, y, M, N, BM=8, BN=64)
    return y
