"""Vector addition, as in the Triton tutorial."""
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr,  # Pointer to first input vector.
               y_ptr,  # Pointer to second input vector.
               output_ptr,  # Pointer to output vector.
               n_elements,  # Size of the vector.
               BLOCK_SIZE: tl.constexpr,  # Number of elements each program should process.
               ):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    output = x + y
    tl.store(output_ptr + offsets, output, mask=mask)


def add(x: torch.Tensor, y: torch.Tensor):
    output = torch.empty_like(x)
    n_elements = output.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta['BLOCK_SIZE']), )
    add_kernel[grid](x, y, output, n_elements, BLOCK_SIZE=1024)
    return output


if __name__ == "__main__":
    torch.manual_seed(0)
    size = 98432
    device = "cuda" if torch.cuda.is_available() else "cpu"
    x = torch.rand(size, device=device)
    y = torch.rand(size, device=device)
    output_torch = x + y
    output_triton = add(x, y)
    print(f"max abs diff: {torch.max(torch.abs(output_torch - output_triton))}")
