"""fp16 matmul C = A @ B with fp32 accumulation and fp16 output, on a plain 2-D grid of tiles."""
import torch
import triton
import triton.language as tl


@triton.jit
def matmul_fp16_kernel(a_ptr,  # Pointer to A (fp16), shape (M, K).
                       b_ptr,  # Pointer to B (fp16), shape (K, N).
                       c_ptr,  # Pointer to C (fp16), shape (M, N).
                       M,  # Rows of A and C.
                       N,  # Columns of B and C.
                       K,  # Columns of A, rows of B.
                       stride_am,  # Elements between two rows of A.
                       stride_ak,  # Elements between two columns of A.
                       stride_bk,  # Elements between two rows of B.
                       stride_bn,  # Elements between two columns of B.
                       stride_cm,  # Elements between two rows of C.
                       stride_cn,  # Elements between two columns of C.
                       BLOCK_M: tl.constexpr,  # Rows of the C tile per program.
                       BLOCK_N: tl.constexpr,  # Columns of the C tile per program.
                       BLOCK_K: tl.constexpr,  # Depth of one K step.
                       ):
    pid_m = tl.program_id(axis=0)
    pid_n = tl.program_id(axis=1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & (offs_n[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c = acc.to(tl.float16)
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, c, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def matmul_fp16(a: torch.Tensor, b: torch.Tensor):
    assert a.shape[1] == b.shape[0] and a.dtype == torch.float16 and b.dtype == torch.float16
    M, K = a.shape
    _, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    grid = lambda meta: (triton.cdiv(M, meta['BLOCK_M']), triton.cdiv(N, meta['BLOCK_N']))
    matmul_fp16_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                             c.stride(0), c.stride(1), BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)
    return c


if __name__ == "__main__":
    torch.manual_seed(0)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    a = torch.randn(100, 80, device=device, dtype=torch.float16)
    b = torch.randn(80, 120, device=device, dtype=torch.float16)
    expected = (a.float() @ b.float()).half()
    result = matmul_fp16(a, b)
    print(f"max abs diff: {torch.max(torch.abs(expected.float() - result.float()))}")
    assert torch.allclose(result.float(), expected.float(), rtol=1e-2, atol=1e-2)
