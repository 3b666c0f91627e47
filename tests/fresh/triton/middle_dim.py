# Reductions over the middle dimension of a contiguous (M, N, K) tensor: each program takes a
# block of M and one index k of the last dimension, and walks N. A max over N written for
# every (m, k), and the sum of a column block of a (A, B, C) tensor at one (a, c).
import torch
import triton
import triton.language as tl


@triton.jit
def middle_max_kernel(x_ptr, out_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    k = tl.program_id(1)
    m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    best = tl.full([BLOCK_M, BLOCK_N], float("-inf"), dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        n = start + tl.arange(0, BLOCK_N)
        offs = m[:, None] * N * K + n[None, :] * K + k
        mask = (m[:, None] < M) & (n[None, :] < N)
        x = tl.load(x_ptr + offs, mask=mask, other=float("-inf"))
        best = tl.maximum(best, x)
    tl.store(out_ptr + m * K + k, tl.max(best, axis=1), mask=m < M)


@triton.jit
def column_block_sum_kernel(x_ptr, out_ptr, B, C, BLOCK: tl.constexpr):
    a = tl.program_id(0)
    pid_b = tl.program_id(1)
    c = tl.program_id(2)
    rows = pid_b * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x_ptr + a * B * C + rows * C + c, mask=rows < B, other=0.0)
    tl.store(out_ptr + (a * tl.num_programs(1) + pid_b) * C + c, tl.sum(v, axis=0))


def middle_max(x: torch.Tensor) -> torch.Tensor:
    m, n, k = x.shape
    out = torch.empty((m, k), dtype=torch.float32, device=x.device)
    middle_max_kernel[(triton.cdiv(m, 16), k)](x, out, m, n, k, BLOCK_M=16, BLOCK_N=32)
    return out


def column_block_sums(x: torch.Tensor) -> torch.Tensor:
    a, b, c = x.shape
    blocks = triton.cdiv(b, 64)
    out = torch.empty((a, blocks, c), dtype=torch.float32, device=x.device)
    column_block_sum_kernel[(a, blocks, c)](x, out, b, c, BLOCK=64)
    return out
