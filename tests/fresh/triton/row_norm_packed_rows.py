# Normalize rows packed several to a program: the row length n meets float data (`sum / n`)
# and indexes memory (`row * n`), and the launch packs ceil(1024 / next_pow2(n)) rows per program.
import torch
import triton
import triton.language as tl


@triton.jit
def norm_rows(x_ptr, y_ptr, m, n, eps, ROWS: tl.constexpr, COLS: tl.constexpr):
    r = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    c = tl.arange(0, COLS)[None, :]
    live = (r[:, None] < m) & (c < n)
    x = tl.load(x_ptr + r[:, None] * n + c, mask=live, other=0.0)
    mean = tl.sum(x, axis=1) / n
    d = tl.where(live, x - mean[:, None], 0.0)
    var = tl.sum(d * d, axis=1) / n
    tl.store(y_ptr + r[:, None] * n + c, d / tl.sqrt(var + eps)[:, None], mask=live)


def normalize(x: torch.Tensor, eps: float = 1e-5) -> torch.Tensor:
    m, n = x.shape
    y = torch.empty_like(x)
    cols = triton.next_power_of_2(n)
    rows = triton.cdiv(1024, cols)
    norm_rows[(triton.cdiv(m, rows),)](x, y, m, n, eps, ROWS=rows, COLS=cols)
    return y
