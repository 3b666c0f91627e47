# Loops whose ragged tile is peeled off by hand so the others load without a mask: a row's
# sum of squares with the last tile in a loop of its own, a row scaled from its last tile
# backwards with the first (ragged) one peeled, a matrix-vector product with the last tile's
# statements written out after the loop, and a row's max whose peel is not the last tile
# (whole tiles to n // BLOCK * BLOCK, then the rest): the last stays as written; and a row
# scaled by its root mean square, whose first pass counts tiles and peels the last index,
# its locals taken up again by the second pass; and a running mean per lane whose last
# tile also skips the masked lanes in its update (tl.where, a count of the mask).
import torch
import triton
import triton.language as tl


@triton.jit
def _start_of_last(n, BLOCK: tl.constexpr):
    return tl.cdiv(n, BLOCK) * BLOCK - BLOCK


@triton.jit
def row_sumsq_kernel(x_ptr, out_ptr, n, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_ptr += row * stride
    total = tl.zeros([BLOCK], dtype=tl.float32)
    last = tl.cdiv(n, BLOCK) * BLOCK - BLOCK
    for off in range(0, last, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + cols)
        total += v * v
    for off in range(last, n, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + cols, mask=cols < n, other=0.0)
        total += v * v
    tl.store(out_ptr + row, tl.sum(total, 0))


@triton.jit
def reverse_scale_kernel(x_ptr, y_ptr, scale_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    s = tl.load(scale_ptr + row)
    last = _start_of_last(n, BLOCK)
    for back in range(0, BLOCK, BLOCK):
        cols = (last - back) + tl.arange(0, BLOCK)
        keep = cols < n
        v = tl.load(x_ptr + row * n + cols, mask=keep, other=0.0)
        tl.store(y_ptr + row * n + cols, v * s, mask=keep)
    for back in range(BLOCK, n, BLOCK):
        cols = (last - back) + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + row * n + cols)
        tl.store(y_ptr + row * n + cols, v * s)


@triton.jit
def matvec_kernel(a_ptr, x_ptr, y_ptr, m, k, stride_am, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    acc = tl.zeros([BLOCK_M], dtype=tl.float32)
    tail = _start_of_last(k, BLOCK_K)
    for start in range(0, tail, BLOCK_K):
        ks = (start + tl.arange(0, BLOCK_K)).to(tl.int64)
        a = tl.load(a_ptr + rows[:, None] * stride_am + ks[None, :], mask=(rows < m)[:, None], other=0.0)
        x = tl.load(x_ptr + ks)
        acc += tl.sum(a * x[None, :], 1)
    ks = (tail + tl.arange(0, BLOCK_K)).to(tl.int64)
    in_k = ks < k
    a = tl.load(a_ptr + rows[:, None] * stride_am + ks[None, :], mask=(rows < m)[:, None] & in_k[None, :],
                other=0.0)
    x = tl.load(x_ptr + ks, mask=in_k, other=0.0)
    acc += tl.sum(a * x[None, :], 1)
    tl.store(y_ptr + rows, acc, mask=rows < m)


@triton.jit
def row_max_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    best = tl.full([BLOCK], float("-inf"), dtype=tl.float32)
    whole = n // BLOCK * BLOCK
    for off in range(0, whole, BLOCK):
        best = tl.maximum(best, tl.load(x_ptr + row * n + off + tl.arange(0, BLOCK)))
    cols = whole + tl.arange(0, BLOCK)
    best = tl.maximum(best, tl.load(x_ptr + row * n + cols, mask=cols < n, other=float("-inf")))
    tl.store(out_ptr + row, tl.max(best, 0))


@triton.jit
def row_rms_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    tiles = tl.cdiv(n, BLOCK)
    sq = tl.zeros([BLOCK], dtype=tl.float32)
    for t in range(tiles - 1):
        offs = t * BLOCK + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + row * n + offs)
        sq += v * v
    offs = (tiles - 1) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x_ptr + row * n + offs, mask=offs < n, other=0.0)
    sq += v * v
    scale = 1.0 / tl.sqrt(tl.sum(sq, 0) / n + 1e-6)
    for t in range(tiles):
        offs = t * BLOCK + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + row * n + offs, mask=offs < n, other=0.0)
        tl.store(out_ptr + row * n + offs, v * scale, mask=offs < n)


@triton.jit
def running_mean_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    tiles = tl.cdiv(n, BLOCK)
    mean = tl.zeros([BLOCK], dtype=tl.float32)
    seen = tl.zeros([BLOCK], dtype=tl.int32)
    for t in range(0, tiles - 1, 1):
        cols = t * BLOCK + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + row * n + cols)
        seen += 1
        mean = mean + (v - mean) / seen
    for t in range(tiles - 1, tiles, 1):
        cols = t * BLOCK + tl.arange(0, BLOCK)
        inside = cols < n
        v = tl.load(x_ptr + row * n + cols, mask=inside)
        seen += inside.to(tl.int32)
        mean = tl.where(inside, mean + (v - mean) / seen, mean)
    tl.store(out_ptr + row, tl.sum(mean * seen, 0) / n)


def row_sumsq(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty(x.shape[0], dtype=torch.float32, device=x.device)
    row_sumsq_kernel[(x.shape[0],)](x, out, x.shape[1], x.stride(0), BLOCK=64)
    return out


def reverse_scale(x: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    y = torch.empty_like(x)
    reverse_scale_kernel[(x.shape[0],)](x, y, scale, x.shape[1], BLOCK=32)
    return y


def matvec(a: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    m, k = a.shape
    y = torch.empty(m, dtype=torch.float32, device=a.device)
    matvec_kernel[(triton.cdiv(m, 16),)](a, x, y, m, k, a.stride(0), BLOCK_M=16, BLOCK_K=32)
    return y


def row_max(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty(x.shape[0], dtype=torch.float32, device=x.device)
    row_max_kernel[(x.shape[0],)](x, out, x.shape[1], BLOCK=32)
    return out


def row_rms(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    row_rms_kernel[(x.shape[0],)](x, out, x.shape[1], BLOCK=32)
    return out


def running_mean(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty(x.shape[0], dtype=torch.float32, device=x.device)
    running_mean_kernel[(x.shape[0],)](x, out, x.shape[1], BLOCK=32)
    return out
