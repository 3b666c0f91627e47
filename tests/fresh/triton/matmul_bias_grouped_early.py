# out = x @ w + bias (fp32, ieee products), one axis of programs walked in groups of
# GROUP row tiles, spelled the way early Triton tutorials did (pid % group rows).
import torch
import triton
import triton.language as tl

TILE_M, TILE_N, TILE_K, GROUP = 16, 32, 16, 3


@triton.jit
def linear_bias_kernel(x, w, bias, out, rows, cols, depth,
                       TILE_M: tl.constexpr, TILE_N: tl.constexpr, TILE_K: tl.constexpr,
                       GROUP: tl.constexpr):
    program = tl.program_id(0)
    row_tiles = (rows + TILE_M - 1) // TILE_M
    col_tiles = (cols + TILE_N - 1) // TILE_N
    per_group = GROUP * col_tiles
    group_start = (program // per_group) * GROUP
    group_rows = min(row_tiles - group_start, GROUP)
    tile_r = group_start + program % group_rows
    tile_c = (program % per_group) // group_rows

    r = tile_r * TILE_M + tl.arange(0, TILE_M)
    c = tile_c * TILE_N + tl.arange(0, TILE_N)
    total = tl.zeros((TILE_M, TILE_N), dtype=tl.float32)
    for k in range(0, depth, TILE_K):
        kk = k + tl.arange(0, TILE_K)
        xs = tl.load(x + r[:, None] * depth + kk[None, :],
                     mask=(r[:, None] < rows) & (kk[None, :] < depth), other=0.0)
        ws = tl.load(w + kk[:, None] * cols + c[None, :],
                     mask=(kk[:, None] < depth) & (c[None, :] < cols), other=0.0)
        total = tl.dot(xs, ws, total, input_precision="ieee")
    total += tl.load(bias + c, mask=c < cols, other=0.0)[None, :]
    tl.store(out + r[:, None] * cols + c[None, :], total,
             mask=(r[:, None] < rows) & (c[None, :] < cols))


def linear_bias(x, w, bias):
    rows, depth = x.shape
    cols = w.shape[1]
    out = torch.empty((rows, cols), dtype=torch.float32, device=x.device)
    grid = (triton.cdiv(rows, TILE_M) * triton.cdiv(cols, TILE_N),)
    linear_bias_kernel[grid](x, w, bias, out, rows, cols, depth,
                             TILE_M=TILE_M, TILE_N=TILE_N, TILE_K=TILE_K, GROUP=GROUP)
    return out
