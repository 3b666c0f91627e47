# A matrix-vector product over 64-bit row offsets whose pointers advance by
# `BLOCK_M * stride_am` each step of the column loop (the block pointer's closed form is then
# the loop variable times the stride, not its step count times the advance); the vector is
# read as a (1, BLOCK_M) block and the sums stored as a (BLOCK_N, 1) one.
import torch
import triton
import triton.language as tl


@triton.jit
def row_dot_kernel(a_ptr, v_ptr, out_ptr, N, M, stride_an, stride_am, BLOCK_N: tl.constexpr,
                   BLOCK_M: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)[:, None]
    cols = tl.arange(0, BLOCK_M)[None, :]
    a_ptrs = a_ptr + rows * stride_an + cols * stride_am
    v_ptrs = v_ptr + cols
    total = tl.zeros((BLOCK_N, BLOCK_M), dtype=tl.float32)
    for m in range(0, M, BLOCK_M):
        inside = m + cols < M
        a = tl.load(a_ptrs, mask=(rows < N) & inside, other=0.0)
        v = tl.load(v_ptrs, mask=inside, other=0.0)
        total += a * v
        a_ptrs += BLOCK_M * stride_am
        v_ptrs += BLOCK_M
    tl.store(out_ptr + rows, tl.sum(total, axis=1)[:, None], mask=rows < N)


def row_dot(a: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    n, m = a.shape
    out = torch.empty(n, dtype=torch.float32, device=a.device)
    row_dot_kernel[(triton.cdiv(n, 16),)](a, v, out, n, m, a.stride(0), a.stride(1), BLOCK_N=16, BLOCK_M=32)
    return out
