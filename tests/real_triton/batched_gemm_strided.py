"""A batched fp32 GEMM as libraries publish it (FlagGems' bmm): the batch is the grid's third
axis, every operand is read through its strides, the tiles load without a mask when the
sizes divide them (DIVISIBLE flags a heuristic sets), and the grid is a lambda over the
launch's keywords, `meta["M"]` being the argument M."""

import torch
import triton
import triton.language as tl


@triton.jit
def batched_gemm_kernel(A, B, O, M, N, K, stride_ab, stride_am, stride_ak, stride_bb, stride_bk, stride_bn,
                        stride_ob, stride_om, stride_on, TILE_M: tl.constexpr, TILE_N: tl.constexpr,
                        TILE_K: tl.constexpr, DIVISIBLE_MN: tl.constexpr):
    pid_b = tl.program_id(2)
    A += pid_b * stride_ab
    B += pid_b * stride_bb
    O += pid_b * stride_ob
    offs_m = tl.program_id(0) * TILE_M + tl.arange(0, TILE_M)
    offs_n = tl.program_id(1) * TILE_N + tl.arange(0, TILE_N)
    offs_k = tl.arange(0, TILE_K)
    a_ptrs = A + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = B + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((TILE_M, TILE_N), dtype=tl.float32)
    for _ in range(tl.cdiv(K, TILE_K)):
        if DIVISIBLE_MN:
            a = tl.load(a_ptrs)
            b = tl.load(b_ptrs)
        else:
            a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < K), other=0.0)
            b = tl.load(b_ptrs, mask=(offs_k[:, None] < K) & (offs_n[None, :] < N), other=0.0)
        acc += tl.dot(a, b, allow_tf32=False)
        offs_k += TILE_K
        a_ptrs += TILE_K * stride_ak
        b_ptrs += TILE_K * stride_bk
    o_ptrs = O + offs_m[:, None] * stride_om + offs_n[None, :] * stride_on
    tl.store(o_ptrs, acc, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def batched_gemm(a, b):
    batch, M, K = a.shape
    N = b.shape[2]
    out = torch.empty((batch, M, N), dtype=a.dtype, device=a.device)
    grid = lambda meta: (triton.cdiv(meta["M"], meta["TILE_M"]), triton.cdiv(meta["N"], meta["TILE_N"]), batch)
    batched_gemm_kernel[grid](a, b, out, M, N, K, a.stride(0), a.stride(1), a.stride(2), b.stride(0),
                              b.stride(1), b.stride(2), out.stride(0), out.stride(1), out.stride(2),
                              TILE_M=16, TILE_N=32, TILE_K=32, DIVISIBLE_MN=M % 16 == 0 and N % 32 == 0
                              and K % 32 == 0)
    return out
