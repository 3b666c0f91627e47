"""Row-wise softmax: one program per row, the whole row in a single block."""
import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr,  # Pointer to the input matrix.
                   out_ptr,  # Pointer to the output matrix, same shape as the input.
                   n_cols,  # Number of columns (softmax length).
                   x_row_stride,  # Elements between the starts of two input rows.
                   out_row_stride,  # Elements between the starts of two output rows.
                   BLOCK_SIZE: tl.constexpr,  # Power of two >= n_cols.
                   ):
    row = tl.program_id(axis=0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_row_stride + cols, mask=mask, other=-float('inf'))
    x_max = tl.max(x, axis=0)
    num = tl.exp(x - x_max)
    den = tl.sum(num, axis=0)
    y = num / den
    tl.store(out_ptr + row * out_row_stride + cols, y, mask=mask)


def softmax(x: torch.Tensor):
    n_rows, n_cols = x.shape
    out = torch.empty_like(x)
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    softmax_kernel[(n_rows, )](x, out, n_cols, x.stride(0), out.stride(0), BLOCK_SIZE=BLOCK_SIZE)
    return out


if __name__ == "__main__":
    torch.manual_seed(0)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    x = torch.randn(23, 781, device=device)
    expected = torch.softmax(x, dim=1)
    result = softmax(x)
    print(f"max abs diff: {torch.max(torch.abs(expected - result))}")
    assert torch.allclose(result, expected, rtol=1e-5, atol=1e-6)
