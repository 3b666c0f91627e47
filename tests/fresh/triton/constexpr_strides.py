# A kernel whose launcher passes the sizes and strides as constexprs (each shape and layout
# compiles its own kernel): a block of a strided matrix scaled by a per-row factor, read and
# written through `rows * stride_m + cols * stride_n`.
import torch
import triton
import triton.language as tl


@triton.jit
def row_scale_2d_kernel(x_ptr, s_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr,
                        stride_m: tl.constexpr, stride_n: tl.constexpr,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    offs = rows[:, None] * stride_m + cols[None, :] * stride_n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    s = tl.load(s_ptr + rows, mask=rows < M, other=0.0)
    tl.store(y_ptr + offs, x * s[:, None], mask=mask)


def row_scale_2d(x: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
    y = torch.empty_like(x)
    m, n = x.shape
    grid = lambda meta: (triton.cdiv(meta["M"], meta["BLOCK_M"]), triton.cdiv(meta["N"], meta["BLOCK_N"]))
    row_scale_2d_kernel[grid](x, s, y, M=m, N=n, stride_m=x.stride(0), stride_n=x.stride(1), BLOCK_M=16, BLOCK_N=32)
    return y
