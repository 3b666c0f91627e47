# Softmax over the last dim in ONE pass over memory per row for the statistics:
# running max + running sum of exp (the "online softmax" trick), then a second sweep to
# write the normalized values. Rows can be much wider than CHUNK.
import torch
import triton
import triton.language as tl

CHUNK = 128
NEG_INF = tl.constexpr(float("-inf"))  # globals read inside @triton.jit must be constexpr


@triton.jit
def _online_softmax(X, Y, ncols, sx, sy, CHUNK: tl.constexpr):
    r = tl.program_id(0)
    X += r * sx
    Y += r * sy
    run_max = tl.full([CHUNK], NEG_INF, tl.float32)
    run_sum = tl.zeros([CHUNK], tl.float32)
    for c0 in range(0, ncols, CHUNK):
        c = c0 + tl.arange(0, CHUNK)
        v = tl.load(X + c, mask=c < ncols, other=NEG_INF).to(tl.float32)
        new_max = tl.maximum(run_max, v)
        # lanes that have only seen padding keep a zero sum: shift by 0 instead of -inf
        # (avoids -inf - -inf = nan)
        shift = tl.where(new_max == NEG_INF, 0.0, new_max)
        corr = tl.exp(run_max - shift)
        e = tl.exp(v - shift)
        run_sum = run_sum * corr + e
        run_max = new_max
    m = tl.max(run_max, 0)
    s = tl.sum(run_sum * tl.exp(run_max - m), 0)
    inv = 1.0 / s
    for c0 in range(0, ncols, CHUNK):
        c = c0 + tl.arange(0, CHUNK)
        v = tl.load(X + c, mask=c < ncols, other=NEG_INF).to(tl.float32)
        tl.store(Y + c, (tl.exp(v - m) * inv).to(Y.dtype.element_ty), mask=c < ncols)


def softmax_online(x):
    assert x.ndim == 2 and x.stride(1) == 1
    y = torch.empty_like(x)
    _online_softmax[(x.shape[0],)](x, y, x.shape[1], x.stride(0), y.stride(0), CHUNK=CHUNK)
    return y


if __name__ == "__main__":
    torch.manual_seed(1)
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    # 1000 columns: the last chunk is ragged, and some lanes only ever see the padding
    inp = torch.randn(17, 1000, device=dev) * 5
    torch.testing.assert_close(softmax_online(inp), torch.softmax(inp, dim=-1))
    # a row narrower than one chunk
    inp2 = torch.randn(5, 37, device=dev)
    torch.testing.assert_close(softmax_online(inp2), torch.softmax(inp2, dim=-1))
    print("softmax_online: ok")
