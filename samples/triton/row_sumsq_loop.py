"""Per-row sum of squares: each lane owns one row and loops over its columns."""
import torch
import triton
import triton.language as tl


@triton.jit
def row_sumsq_kernel(x_ptr,  # Pointer to the input matrix (row-major).
                     out_ptr,  # Pointer to the output vector, one value per row.
                     n_rows,  # Number of rows.
                     n_cols,  # Number of columns.
                     stride,  # Elements between the starts of two rows.
                     BLOCK_ROWS: tl.constexpr,  # Rows each program handles, one per lane.
                     ):
    pid = tl.program_id(axis=0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)
    mask = rows < n_rows
    acc = tl.zeros([BLOCK_ROWS], dtype=tl.float32)
    for c in range(0, n_cols):
        x = tl.load(x_ptr + rows * stride + c, mask=mask, other=0.)
        acc += x * x
    tl.store(out_ptr + rows, acc, mask=mask)


def row_sumsq(x: torch.Tensor):
    n_rows, n_cols = x.shape
    out = torch.empty(n_rows, device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(n_rows, meta['BLOCK_ROWS']), )
    row_sumsq_kernel[grid](x, out, n_rows, n_cols, x.stride(0), BLOCK_ROWS=64)
    return out


if __name__ == "__main__":
    torch.manual_seed(0)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    x = torch.randn(100, 37, device=device)
    expected = (x * x).sum(dim=1)
    result = row_sumsq(x)
    print(f"max abs diff: {torch.max(torch.abs(expected - result))}")
    assert torch.allclose(result, expected, rtol=1e-5, atol=1e-5)
