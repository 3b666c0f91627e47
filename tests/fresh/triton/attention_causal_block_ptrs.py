# Causal attention forward on (batch, heads, seq, dim) fp16 tensors through block pointers.
# Each query block sweeps its keys twice: the blocks strictly left of the diagonal, then the
# diagonal block with a mask. K is read transposed (order=(0, 1)); the batch and head of a
# program come from one grid axis.
import torch
import triton
import triton.language as tl


@triton.jit
def _sweep(acc, row_sum, row_max, q_tile, k_blk, v_blk, qb, scale,
           BQ: tl.constexpr, BKV: tl.constexpr, DIAGONAL: tl.constexpr):
    if DIAGONAL:
        first, last = qb * BQ, (qb + 1) * BQ
    else:
        first, last = 0, qb * BQ
    k_blk = tl.advance(k_blk, (0, first))
    v_blk = tl.advance(v_blk, (first, 0))
    rows = qb * BQ + tl.arange(0, BQ)
    for kv in range(first, last, BKV):
        kt = tl.load(k_blk)
        s = tl.dot(q_tile, kt) * scale
        if DIAGONAL:
            cols = kv + tl.arange(0, BKV)
            s = tl.where(rows[:, None] >= cols[None, :], s, -1.0e6)
        new_max = tl.maximum(row_max, tl.max(s, 1))
        p = tl.exp(s - new_max[:, None])
        corr = tl.exp(row_max - new_max)
        row_sum = row_sum * corr + tl.sum(p, 1)
        acc = acc * corr[:, None]
        vals = tl.load(v_blk)
        acc = tl.dot(p.to(tl.float16), vals, acc)
        row_max = new_max
        k_blk = tl.advance(k_blk, (0, BKV))
        v_blk = tl.advance(v_blk, (BKV, 0))
    return acc, row_sum, row_max


@triton.jit
def causal_attn(Qp, Kp, Vp, Op, scale, s_b, s_h, s_t, s_d, heads, seq,
                D: tl.constexpr, BQ: tl.constexpr, BKV: tl.constexpr):
    qb = tl.program_id(0)
    bh = tl.program_id(1)
    b = bh // heads
    h = bh % heads
    base = b.to(tl.int64) * s_b + h.to(tl.int64) * s_h
    q_blk = tl.make_block_ptr(Qp + base, shape=(seq, D), strides=(s_t, s_d), offsets=(qb * BQ, 0),
                              block_shape=(BQ, D), order=(1, 0))
    k_blk = tl.make_block_ptr(Kp + base, shape=(D, seq), strides=(s_d, s_t), offsets=(0, 0),
                              block_shape=(D, BKV), order=(0, 1))
    v_blk = tl.make_block_ptr(Vp + base, shape=(seq, D), strides=(s_t, s_d), offsets=(0, 0),
                              block_shape=(BKV, D), order=(1, 0))
    o_blk = tl.make_block_ptr(Op + base, shape=(seq, D), strides=(s_t, s_d), offsets=(qb * BQ, 0),
                              block_shape=(BQ, D), order=(1, 0))
    q_tile = tl.load(q_blk)
    acc = tl.zeros([BQ, D], dtype=tl.float32)
    row_sum = tl.zeros([BQ], dtype=tl.float32)
    row_max = tl.zeros([BQ], dtype=tl.float32) - float("inf")
    acc, row_sum, row_max = _sweep(acc, row_sum, row_max, q_tile, k_blk, v_blk, qb, scale,
                                   BQ, BKV, False)
    acc, row_sum, row_max = _sweep(acc, row_sum, row_max, q_tile, k_blk, v_blk, qb, scale,
                                   BQ, BKV, True)
    tl.store(o_blk, (acc / row_sum[:, None]).to(tl.float16))


HEAD = 32


def causal_attention(q, k, v, scale):
    assert q.dtype == torch.float16 and k.dtype == torch.float16 and v.dtype == torch.float16
    batch, heads, seq, d = q.shape
    assert d == HEAD and seq % 32 == 0
    o = torch.empty_like(q)
    grid = (triton.cdiv(seq, 32), batch * heads)
    causal_attn[grid](q, k, v, o, scale, q.stride(0), q.stride(1), q.stride(2), q.stride(3),
                      heads, seq, D=HEAD, BQ=32, BKV=16)
    return o


if __name__ == "__main__":
    shape = (2, 3, 128, HEAD)
    q = torch.randn(shape, device="cuda", dtype=torch.float16)
    k = torch.randn(shape, device="cuda", dtype=torch.float16)
    v = torch.randn(shape, device="cuda", dtype=torch.float16)
    out = causal_attention(q, k, v, HEAD ** -0.5)
    causal = torch.ones(128, 128, device="cuda", dtype=torch.bool).tril()
    ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=causal)
    print((out - ref).abs().max().item())
