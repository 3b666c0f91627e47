"""
out = x * alpha + y * beta + gamma    (elementwise, any dtype, fp32 accumulation)
"""
import torch
import triton
import triton.language as tl


@triton.jit
def fma_scalar_kernel(
    x_ptr, y_ptr, out_ptr,
    N,
    alpha, beta, gamma,
    BLOCK_N: tl.constexpr,
):
    pid = tl.program_id(axis=0)
    cols = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    in_bounds = cols < N
    xv = tl.load(x_ptr + cols, mask=in_bounds, other=0.0)
    yv = tl.load(y_ptr + cols, mask=in_bounds, other=0.0)
    acc = xv.to(tl.float32) * alpha + yv.to(tl.float32) * beta + gamma
    tl.store(out_ptr + cols, acc.to(out_ptr.dtype.element_ty), mask=in_bounds)


def mul_add_scalar(x: torch.Tensor, y: torch.Tensor, alpha: float, beta: float, gamma: float):
    assert x.is_contiguous() and y.is_contiguous() and x.numel() == y.numel()
    out = torch.empty_like(x)
    N = x.numel()
    grid = lambda META: (triton.cdiv(N, META["BLOCK_N"]),)
    fma_scalar_kernel[grid](x, y, out, N, alpha, beta, gamma, BLOCK_N=128)
    return out


if __name__ == "__main__":
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    for dt in (torch.float32, torch.float16):
        a = torch.randn(1000, device=dev).to(dt)
        b = torch.randn(1000, device=dev).to(dt)
        ref = (a.float() * 0.5 + b.float() * -2.0 + 3.0).to(dt)
        got = mul_add_scalar(a, b, 0.5, -2.0, 3.0)
        print(dt, "max err:", float((got.float() - ref.float()).abs().max()))
