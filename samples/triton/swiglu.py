"""SwiGLU: out = silu(gate) * up, fp16 in and out, fp32 math inside."""
import torch
import triton
import triton.language as tl


@triton.jit
def swiglu_kernel(gate_ptr,  # Pointer to the gate input (fp16).
                  up_ptr,  # Pointer to the up input (fp16).
                  out_ptr,  # Pointer to the output (fp16).
                  n_elements,  # Number of elements.
                  BLOCK_SIZE: tl.constexpr,  # Elements each program handles.
                  ):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    g = tl.load(gate_ptr + offsets, mask=mask, other=0.).to(tl.float32)
    u = tl.load(up_ptr + offsets, mask=mask, other=0.).to(tl.float32)
    y = g * tl.sigmoid(g) * u
    tl.store(out_ptr + offsets, y.to(tl.float16), mask=mask)


def swiglu(gate: torch.Tensor, up: torch.Tensor):
    assert gate.shape == up.shape
    out = torch.empty_like(gate)
    n_elements = out.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta['BLOCK_SIZE']), )
    swiglu_kernel[grid](gate, up, out, n_elements, BLOCK_SIZE=2048)
    return out


if __name__ == "__main__":
    torch.manual_seed(0)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    gate = torch.randn(64, 129, device=device, dtype=torch.float16)
    up = torch.randn(64, 129, device=device, dtype=torch.float16)
    expected = (torch.nn.functional.silu(gate.float()) * up.float()).half()
    result = swiglu(gate, up)
    print(f"max abs diff: {torch.max(torch.abs(expected.float() - result.float()))}")
    assert torch.allclose(result.float(), expected.float(), rtol=1e-3, atol=1e-3)
