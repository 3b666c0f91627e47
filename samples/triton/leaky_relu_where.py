"""Leaky ReLU with tl.where and a helper jit function."""
import torch
import triton
import triton.language as tl


@triton.jit
def leaky_relu(x, negative_slope):
    return tl.where(x >= 0, x, x * negative_slope)


@triton.jit
def leaky_relu_kernel(x_ptr, y_ptr, n_elements, negative_slope, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    y = leaky_relu(x, negative_slope)
    tl.store(y_ptr + offsets, y, mask=mask)


def leaky_relu_triton(x: torch.Tensor, negative_slope: float = 0.01) -> torch.Tensor:
    y = torch.empty_like(x)
    n = x.numel()
    BLOCK = 256
    grid = (triton.cdiv(n, BLOCK), )
    leaky_relu_kernel[grid](x, y, n, negative_slope, BLOCK_SIZE=BLOCK)
    return y


if __name__ == "__main__":
    torch.manual_seed(0)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    x = torch.randn(1000, device=device)
    ref = torch.nn.functional.leaky_relu(x, 0.1)
    out = leaky_relu_triton(x, 0.1)
    print(f"max abs diff: {(out - ref).abs().max().item()}")
