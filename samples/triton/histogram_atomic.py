"""Histogram of small integer values with tl.atomic_add into int32 bins."""
import torch
import triton
import triton.language as tl


@triton.jit
def histogram_kernel(x_ptr,  # Pointer to the int32 values.
                     bins_ptr,  # Pointer to the int32 bin counts (zeroed by the caller).
                     n_elements,  # Number of values.
                     n_bins,  # Number of bins; values outside [0, n_bins) are ignored.
                     BLOCK_SIZE: tl.constexpr,  # Values each program counts.
                     ):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    values = tl.load(x_ptr + offsets, mask=mask, other=0)
    in_range = mask & (values >= 0) & (values < n_bins)
    tl.atomic_add(bins_ptr + values, 1, mask=in_range)


def histogram(x: torch.Tensor, n_bins: int):
    bins = torch.zeros(n_bins, device=x.device, dtype=torch.int32)
    n_elements = x.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta['BLOCK_SIZE']), )
    histogram_kernel[grid](x, bins, n_elements, n_bins, BLOCK_SIZE=128)
    return bins


if __name__ == "__main__":
    torch.manual_seed(0)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    n_bins = 16
    x = torch.randint(0, n_bins, (1000,), device=device, dtype=torch.int32)
    expected = torch.bincount(x.long(), minlength=n_bins).to(torch.int32)
    result = histogram(x, n_bins)
    print(f"max abs diff: {torch.max(torch.abs(expected - result))}")
    assert torch.equal(result, expected)
