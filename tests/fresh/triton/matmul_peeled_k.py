# A matmul whose K loop runs over whole tiles unmasked and peels the ragged last tile into
# statements after the loop, adding each product with `acc += tl.dot(..., allow_tf32=False,
# out_dtype=tl.float32)`; rows and columns past the matrix wrap around with 64-bit offsets.
import torch
import triton
import triton.language as tl


@triton.jit
def peeled_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                         BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0).to(tl.int64)
    pid_n = tl.program_id(1).to(tl.int64)
    rows = ((pid_m * BM + tl.arange(0, BM)) % M).to(tl.int64)
    cols = ((pid_n * BN + tl.arange(0, BN)) % N).to(tl.int64)
    k_last = tl.cdiv(K, BK) * BK - BK
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, k_last, BK):
        ks = k0 + tl.arange(0, BK)
        a = tl.load(a_ptr + rows[:, None] * stride_am + ks[None, :])
        b = tl.load(b_ptr + ks[:, None] * stride_bk + cols[None, :])
        acc += tl.dot(a, b, allow_tf32=False, out_dtype=tl.float32)
    ks = k_last + tl.arange(0, BK)
    a = tl.load(a_ptr + rows[:, None] * stride_am + ks[None, :], mask=ks[None, :] < K, other=0.0)
    b = tl.load(b_ptr + ks[:, None] * stride_bk + cols[None, :], mask=ks[:, None] < K, other=0.0)
    acc += tl.dot(a, b, allow_tf32=False, out_dtype=tl.float32)
    out_rows = pid_m * BM + tl.arange(0, BM)
    out_cols = pid_n * BN + tl.arange(0, BN)
    tl.store(c_ptr + out_rows[:, None] * stride_cm + out_cols[None, :], acc,
             mask=(out_rows[:, None] < M) & (out_cols[None, :] < N))


def peeled_matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), dtype=torch.float32, device=a.device)
    grid = (triton.cdiv(M, 32), triton.cdiv(N, 32))
    peeled_matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), b.stride(0), c.stride(0), BM=32, BN=32, BK=16)
    return c
