"""Tiled matrix transpose: load a (BLOCK_M, BLOCK_N) tile, tl.trans it, store it at the mirrored place."""
import torch
import triton
import triton.language as tl


@triton.jit
def transpose_kernel(x_ptr,  # Pointer to the input matrix (M, N).
                     out_ptr,  # Pointer to the output matrix (N, M).
                     M,  # Rows of the input.
                     N,  # Columns of the input.
                     stride_xm,  # Elements between two input rows.
                     stride_xn,  # Elements between two input columns.
                     stride_om,  # Elements between two output rows.
                     stride_on,  # Elements between two output columns.
                     BLOCK_M: tl.constexpr,  # Input rows per tile.
                     BLOCK_N: tl.constexpr,  # Input columns per tile.
                     ):
    pid_m = tl.program_id(axis=0)
    pid_n = tl.program_id(axis=1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    in_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tile = tl.load(x_ptr + offs_m[:, None] * stride_xm + offs_n[None, :] * stride_xn, mask=in_mask, other=0.)
    tile_t = tl.trans(tile)
    out_mask = (offs_n[:, None] < N) & (offs_m[None, :] < M)
    tl.store(out_ptr + offs_n[:, None] * stride_om + offs_m[None, :] * stride_on, tile_t, mask=out_mask)


def transpose(x: torch.Tensor):
    M, N = x.shape
    out = torch.empty((N, M), device=x.device, dtype=x.dtype)
    grid = lambda meta: (triton.cdiv(M, meta['BLOCK_M']), triton.cdiv(N, meta['BLOCK_N']))
    transpose_kernel[grid](x, out, M, N, x.stride(0), x.stride(1), out.stride(0), out.stride(1),
                           BLOCK_M=64, BLOCK_N=32)
    return out


if __name__ == "__main__":
    torch.manual_seed(0)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    x = torch.randn(150, 90, device=device)
    expected = x.t()
    result = transpose(x)
    print(f"max abs diff: {torch.max(torch.abs(expected - result))}")
    assert torch.equal(result, expected)
