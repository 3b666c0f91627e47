"""SwiGLU-style gating: out = silu(a) * b, fp16 in/out with fp32 math."""
import torch
import triton
import triton.language as tl


@triton.jit
def silu_mul_kernel(a_ptr, b_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    a = tl.load(a_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    silu_a = a * tl.sigmoid(a)
    out = silu_a * b
    tl.store(out_ptr + offsets, out.to(tl.float16), mask=mask)


def silu_mul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    assert a.shape == b.shape
    out = torch.empty_like(a)
    n_elements = out.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta['BLOCK_SIZE']), )
    silu_mul_kernel[grid](a, b, out, n_elements, BLOCK_SIZE=512)
    return out


if __name__ == "__main__":
    torch.manual_seed(0)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    a = torch.randn(4097, device=device, dtype=torch.float16)
    b = torch.randn(4097, device=device, dtype=torch.float16)
    ref = (torch.nn.functional.silu(a.float()) * b.float()).half()
    out = silu_mul(a, b)
    print(f"max abs diff: {(out.float() - ref.float()).abs().max().item()}")
