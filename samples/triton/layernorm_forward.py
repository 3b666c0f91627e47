"""LayerNorm forward: one program per row, mean and variance over a loop of column chunks."""
import torch
import triton
import triton.language as tl


@triton.jit
def layernorm_fwd_kernel(x_ptr,  # Pointer to the input matrix.
                         y_ptr,  # Pointer to the output matrix.
                         w_ptr,  # Pointer to the weight vector (N).
                         b_ptr,  # Pointer to the bias vector (N).
                         mean_ptr,  # Pointer to the per-row mean (output).
                         rstd_ptr,  # Pointer to the per-row 1/std (output).
                         x_row_stride,  # Elements between two input rows.
                         y_row_stride,  # Elements between two output rows.
                         N,  # Number of columns.
                         eps,  # Added to the variance before the square root.
                         BLOCK_SIZE: tl.constexpr,  # Columns per chunk.
                         ):
    row = tl.program_id(axis=0)
    x_row = x_ptr + row * x_row_stride
    y_row = y_ptr + row * y_row_stride
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_row + cols, mask=cols < N, other=0.).to(tl.float32)
        acc += x
    mean = tl.sum(acc, axis=0) / N
    acc_var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_row + cols, mask=cols < N, other=0.).to(tl.float32)
        d = tl.where(cols < N, x - mean, 0.)
        acc_var += d * d
    var = tl.sum(acc_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(w_ptr + cols, mask=mask, other=0.)
        b = tl.load(b_ptr + cols, mask=mask, other=0.)
        x = tl.load(x_row + cols, mask=mask, other=0.).to(tl.float32)
        y = (x - mean) * rstd * w + b
        tl.store(y_row + cols, y, mask=mask)


def layernorm_forward(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float = 1e-5):
    M, N = x.shape
    y = torch.empty_like(x)
    mean = torch.empty(M, device=x.device, dtype=torch.float32)
    rstd = torch.empty(M, device=x.device, dtype=torch.float32)
    layernorm_fwd_kernel[(M, )](x, y, weight, bias, mean, rstd, x.stride(0), y.stride(0), N, eps,
                                BLOCK_SIZE=256)
    return y, mean, rstd


if __name__ == "__main__":
    torch.manual_seed(0)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    x = torch.randn(19, 1000, device=device) * 2 + 0.5
    w = torch.randn(1000, device=device)
    b = torch.randn(1000, device=device)
    expected = torch.nn.functional.layer_norm(x, (1000, ), w, b, 1e-5)
    result, mean, rstd = layernorm_forward(x, w, b)
    print(f"max abs diff: {torch.max(torch.abs(expected - result))}")
    assert torch.allclose(result, expected, rtol=1e-4, atol=1e-4)
    assert torch.allclose(mean, x.mean(dim=1), rtol=1e-5, atol=1e-5)
    assert torch.allclose(rstd, 1 / torch.sqrt(x.var(dim=1, unbiased=False) + 1e-5), rtol=1e-4, atol=1e-5)
