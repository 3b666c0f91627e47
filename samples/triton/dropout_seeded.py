"""Seeded dropout: the keep mask comes from tl.rand(seed, offsets), kept values scaled by 1/(1-p)."""
import torch
import triton
import triton.language as tl


@triton.jit
def dropout_kernel(x_ptr,  # Pointer to the input vector.
                   out_ptr,  # Pointer to the output vector.
                   n_elements,  # Number of elements.
                   p,  # Probability of dropping an element.
                   seed,  # Seed of the random stream.
                   BLOCK_SIZE: tl.constexpr,  # Elements each program handles.
                   ):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.)
    r = tl.rand(seed, offsets)
    keep = r > p
    y = tl.where(keep, x / (1 - p), 0.)
    tl.store(out_ptr + offsets, y, mask=mask)


def dropout(x: torch.Tensor, p: float, seed: int):
    out = torch.empty_like(x)
    n_elements = x.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta['BLOCK_SIZE']), )
    dropout_kernel[grid](x, out, n_elements, p, seed, BLOCK_SIZE=4096)
    return out


if __name__ == "__main__":
    torch.manual_seed(0)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    p = 0.3
    x = torch.rand(10000, device=device) + 1.0  # strictly positive, so zero means dropped
    out = dropout(x, p, seed=123)
    kept = out != 0
    # Kept values are exactly the scaled inputs.
    diff = torch.max(torch.abs(out[kept] - x[kept] / (1 - p)))
    print(f"max abs diff on kept: {diff}, kept fraction: {kept.float().mean().item():.4f}")
    assert torch.allclose(out[kept], x[kept] / (1 - p), rtol=1e-6, atol=1e-6)
    assert abs(kept.float().mean().item() - (1 - p)) < 0.03
    # Same seed gives the same mask; another seed gives a different one.
    assert torch.equal(dropout(x, p, seed=123), out)
    assert not torch.equal(dropout(x, p, seed=124) != 0, kept)
