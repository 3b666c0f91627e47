# Reductions by combine functions: a product along rows, the first index of the largest value
# (value/index pairs, smaller index on ties), any-nonzero per column, and a Welford mean/M2
# merge, each written with tl.reduce and a @triton.jit combine function.
import torch
import triton
import triton.language as tl


@triton.jit
def _times(a, b):
    return a * b


@triton.jit
def _pick_larger(va, ia, vb, ib):
    take_b = (vb > va) | ((vb == va) & (ib < ia))
    return tl.where(take_b, vb, va), tl.where(take_b, ib, ia)


@triton.jit
def _either(a, b):
    return a | b


@triton.jit
def _welford_merge(mean_a, m2_a, n_a, mean_b, m2_b, n_b):
    n = n_a + n_b
    frac = tl.where(n == 0.0, 0.0, n_b / tl.maximum(n, 1.0))
    delta = mean_b - mean_a
    return mean_a + delta * frac, m2_a + m2_b + delta * delta * n_a * frac, n


@triton.jit
def row_products(x_ptr, out_ptr, rows, cols, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    r = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    c = tl.arange(0, BLOCK_C)
    live = (r[:, None] < rows) & (c[None, :] < cols)
    x = tl.load(x_ptr + r[:, None] * cols + c[None, :], mask=live, other=1.0)
    p = tl.reduce(x, 1, _times)
    tl.store(out_ptr + r, p, mask=r < rows)


@triton.jit
def first_argmax(x_ptr, val_ptr, idx_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.load(x_ptr + tl.program_id(0) * n + offs, mask=offs < n, other=-float("inf"))
    best, where = tl.reduce((v, offs), 0, _pick_larger)
    tl.store(val_ptr + tl.program_id(0), best)
    tl.store(idx_ptr + tl.program_id(0), where)


@triton.jit
def column_any(x_ptr, out_ptr, rows, cols, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    c = tl.program_id(0) * BLOCK_C + tl.arange(0, BLOCK_C)
    r = tl.arange(0, BLOCK_R)
    live = (r[:, None] < rows) & (c[None, :] < cols)
    x = tl.load(x_ptr + r[:, None] * cols + c[None, :], mask=live, other=0.0)
    hit = (x != 0.0).to(tl.int32)
    seen = hit.reduce(0, _either, keep_dims=True)
    tl.store(out_ptr + c[None, :], seen, mask=c[None, :] < cols)


@triton.jit
def welford_rows(x_ptr, mean_ptr, var_ptr, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    live = c < cols
    x = tl.load(x_ptr + row * cols + c, mask=live, other=0.0)
    count = live.to(tl.float32)
    m2 = tl.zeros((BLOCK,), dtype=tl.float32)
    mean, m2, n = tl.reduce((x, m2, count), axis=0, combine_fn=_welford_merge)
    tl.store(mean_ptr + row, mean)
    tl.store(var_ptr + row, m2 / n)


def products(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty(rows, dtype=x.dtype, device=x.device)
    row_products[(triton.cdiv(rows, 16),)](x, out, rows, cols, BLOCK_R=16, BLOCK_C=32)
    return out


def argmax_rows(x: torch.Tensor):
    rows, n = x.shape
    val = torch.empty(rows, dtype=x.dtype, device=x.device)
    idx = torch.empty(rows, dtype=torch.int32, device=x.device)
    first_argmax[(rows,)](x, val, idx, n, BLOCK=128)
    return val, idx


def any_columns(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty(cols, dtype=torch.int32, device=x.device)
    column_any[(triton.cdiv(cols, 32),)](x, out, rows, cols, BLOCK_R=64, BLOCK_C=32)
    return out


def mean_var(x: torch.Tensor):
    rows, cols = x.shape
    mean = torch.empty(rows, dtype=torch.float32, device=x.device)
    var = torch.empty(rows, dtype=torch.float32, device=x.device)
    welford_rows[(rows,)](x, mean, var, cols, BLOCK=64)
    return mean, var
