"""Inclusive prefix sum along each row with tl.cumsum, one program per row."""
import torch
import triton
import triton.language as tl


@triton.jit
def cumsum_rows_kernel(x_ptr,  # Pointer to the input matrix.
                       out_ptr,  # Pointer to the output matrix.
                       n_cols,  # Number of columns.
                       x_row_stride,  # Elements between two input rows.
                       out_row_stride,  # Elements between two output rows.
                       BLOCK_SIZE: tl.constexpr,  # Power of two >= n_cols.
                       ):
    row = tl.program_id(axis=0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_row_stride + cols, mask=mask, other=0.)
    y = tl.cumsum(x, axis=0)
    tl.store(out_ptr + row * out_row_stride + cols, y, mask=mask)


def cumsum_rows(x: torch.Tensor):
    n_rows, n_cols = x.shape
    out = torch.empty_like(x)
    cumsum_rows_kernel[(n_rows, )](x, out, n_cols, x.stride(0), out.stride(0),
                                   BLOCK_SIZE=triton.next_power_of_2(n_cols))
    return out


if __name__ == "__main__":
    torch.manual_seed(0)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    x = torch.randn(30, 200, device=device)
    expected = torch.cumsum(x, dim=1)
    result = cumsum_rows(x)
    print(f"max abs diff: {torch.max(torch.abs(expected - result))}")
    assert torch.allclose(result, expected, rtol=1e-5, atol=1e-4)
