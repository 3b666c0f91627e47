"""Column sums of an (M, N) matrix: a program per column block loops over row blocks into a 2-D accumulator."""
import torch
import triton
import triton.language as tl


@triton.jit
def sum_columns_kernel(x_ptr,  # Pointer to the input matrix (M, N).
                       out_ptr,  # Pointer to the output vector, one sum per column.
                       M,  # Number of rows.
                       N,  # Number of columns.
                       stride_m,  # Elements between two rows.
                       stride_n,  # Elements between two columns.
                       BLOCK_M: tl.constexpr,  # Rows per loop step.
                       BLOCK_N: tl.constexpr,  # Columns per program.
                       ):
    pid = tl.program_id(axis=0)
    cols = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    col_mask = cols < N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for start_m in range(0, M, BLOCK_M):
        rows = start_m + tl.arange(0, BLOCK_M)
        mask = (rows[:, None] < M) & col_mask[None, :]
        x = tl.load(x_ptr + rows[:, None] * stride_m + cols[None, :] * stride_n, mask=mask, other=0.)
        acc += x
    total = tl.sum(acc, axis=0)
    tl.store(out_ptr + cols, total, mask=col_mask)


def sum_columns(x: torch.Tensor):
    M, N = x.shape
    out = torch.empty(N, device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(N, meta['BLOCK_N']), )
    sum_columns_kernel[grid](x, out, M, N, x.stride(0), x.stride(1), BLOCK_M=64, BLOCK_N=64)
    return out


if __name__ == "__main__":
    torch.manual_seed(0)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    x = torch.randn(300, 150, device=device)
    expected = x.sum(dim=0)
    result = sum_columns(x)
    print(f"max abs diff: {torch.max(torch.abs(expected - result))}")
    assert torch.allclose(result, expected, rtol=1e-4, atol=1e-4)
