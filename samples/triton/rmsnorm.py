"""RMSNorm: one program per row, the whole row in one block, scaled by a weight vector."""
import torch
import triton
import triton.language as tl


@triton.jit
def rmsnorm_kernel(x_ptr,  # Pointer to the input matrix.
                   w_ptr,  # Pointer to the weight vector (N).
                   out_ptr,  # Pointer to the output matrix.
                   x_row_stride,  # Elements between two input rows.
                   out_row_stride,  # Elements between two output rows.
                   N,  # Number of columns.
                   eps,  # Added to the mean square before rsqrt.
                   BLOCK_SIZE: tl.constexpr,  # Power of two >= N.
                   ):
    row = tl.program_id(axis=0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < N
    x = tl.load(x_ptr + row * x_row_stride + cols, mask=mask, other=0.).to(tl.float32)
    ms = tl.sum(x * x, axis=0) / N
    r = tl.rsqrt(ms + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.)
    y = x * r * w
    tl.store(out_ptr + row * out_row_stride + cols, y, mask=mask)


def rmsnorm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6):
    M, N = x.shape
    out = torch.empty_like(x)
    rmsnorm_kernel[(M, )](x, weight, out, x.stride(0), out.stride(0), N, eps,
                          BLOCK_SIZE=triton.next_power_of_2(N))
    return out


if __name__ == "__main__":
    torch.manual_seed(0)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    x = torch.randn(33, 500, device=device)
    w = torch.randn(500, device=device)
    expected = x * torch.rsqrt((x * x).mean(dim=1, keepdim=True) + 1e-6) * w
    result = rmsnorm(x, w)
    print(f"max abs diff: {torch.max(torch.abs(expected - result))}")
    assert torch.allclose(result, expected, rtol=1e-5, atol=1e-5)
