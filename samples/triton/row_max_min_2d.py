"""Per-row max and min on 2-D tiles: each program reduces BLOCK_M rows of at most BLOCK_N columns."""
import torch
import triton
import triton.language as tl


@triton.jit
def row_max_min_kernel(x_ptr,  # Pointer to the input matrix.
                       max_ptr,  # Pointer to the per-row maxima (output).
                       min_ptr,  # Pointer to the per-row minima (output).
                       n_rows,  # Number of rows.
                       n_cols,  # Number of columns, at most BLOCK_N.
                       x_row_stride,  # Elements between two input rows.
                       BLOCK_M: tl.constexpr,  # Rows per program.
                       BLOCK_N: tl.constexpr,  # Power of two >= n_cols.
                       ):
    pid = tl.program_id(axis=0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    row_mask = rows < n_rows
    mask = row_mask[:, None] & (cols[None, :] < n_cols)
    ptrs = x_ptr + rows[:, None] * x_row_stride + cols[None, :]
    x_for_max = tl.load(ptrs, mask=mask, other=-float('inf'))
    x_for_min = tl.load(ptrs, mask=mask, other=float('inf'))
    row_max = tl.max(x_for_max, axis=1)
    row_min = tl.min(x_for_min, axis=1)
    tl.store(max_ptr + rows, row_max, mask=row_mask)
    tl.store(min_ptr + rows, row_min, mask=row_mask)


def row_max_min(x: torch.Tensor):
    n_rows, n_cols = x.shape
    out_max = torch.empty(n_rows, device=x.device, dtype=x.dtype)
    out_min = torch.empty(n_rows, device=x.device, dtype=x.dtype)
    grid = lambda meta: (triton.cdiv(n_rows, meta['BLOCK_M']), )
    row_max_min_kernel[grid](x, out_max, out_min, n_rows, n_cols, x.stride(0), BLOCK_M=32,
                             BLOCK_N=triton.next_power_of_2(n_cols))
    return out_max, out_min


if __name__ == "__main__":
    torch.manual_seed(0)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    x = torch.randn(100, 45, device=device)
    res_max, res_min = row_max_min(x)
    exp_max, exp_min = x.max(dim=1).values, x.min(dim=1).values
    print(f"max abs diff: {max(torch.max(torch.abs(exp_max - res_max)), torch.max(torch.abs(exp_min - res_min)))}")
    assert torch.equal(res_max, exp_max) and torch.equal(res_min, exp_min)
