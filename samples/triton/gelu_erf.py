"""Exact GELU, 0.5*x*(1+erf(x/sqrt(2))), on a matrix with a 2-D grid (rows, column blocks)."""
import torch
import triton
import triton.language as tl


@triton.jit
def gelu_erf_kernel(x_ptr,  # Pointer to the input matrix.
                    out_ptr,  # Pointer to the output matrix.
                    n_cols,  # Number of columns.
                    x_row_stride,  # Elements between two input rows.
                    out_row_stride,  # Elements between two output rows.
                    BLOCK_SIZE: tl.constexpr,  # Columns each program handles.
                    ):
    row = tl.program_id(axis=0)
    pid_c = tl.program_id(axis=1)
    cols = pid_c * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_row_stride + cols, mask=mask, other=0.)
    y = 0.5 * x * (1.0 + tl.erf(x * 0.7071067811865476))
    tl.store(out_ptr + row * out_row_stride + cols, y, mask=mask)


def gelu(x: torch.Tensor):
    n_rows, n_cols = x.shape
    out = torch.empty_like(x)
    grid = lambda meta: (n_rows, triton.cdiv(n_cols, meta['BLOCK_SIZE']))
    gelu_erf_kernel[grid](x, out, n_cols, x.stride(0), out.stride(0), BLOCK_SIZE=256)
    return out


if __name__ == "__main__":
    torch.manual_seed(0)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    x = torch.randn(12, 700, device=device) * 3
    expected = torch.nn.functional.gelu(x)
    result = gelu(x)
    print(f"max abs diff: {torch.max(torch.abs(expected - result))}")
    assert torch.allclose(result, expected, rtol=1e-5, atol=1e-5)
