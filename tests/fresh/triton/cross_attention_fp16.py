# Cross-attention forward in half precision: queries of one sequence attend over the keys and
# values of another, of a different length. Neither length needs to be a multiple of a block:
# every tile load is masked by its own sequence's length.
import math

import torch
import triton
import triton.language as tl


@triton.jit
def cross_attn_fwd(Q, K, V, Out, scale, len_q, len_kv,
                   q_bh, q_row, kv_bh, kv_row, o_bh, o_row,
                   TILE_Q: tl.constexpr, TILE_KV: tl.constexpr, DIM: tl.constexpr):
    tile = tl.program_id(0)
    bh = tl.program_id(1)
    rows = tile * TILE_Q + tl.arange(0, TILE_Q)
    dims = tl.arange(0, DIM)
    q_live = rows < len_q
    q = tl.load(Q + bh * q_bh + rows[:, None] * q_row + dims[None, :],
                mask=q_live[:, None], other=0.0)
    best = tl.full([TILE_Q], float("-inf"), tl.float32)
    norm = tl.zeros([TILE_Q], tl.float32)
    mix = tl.zeros([TILE_Q, DIM], tl.float32)
    for kv0 in range(0, len_kv, TILE_KV):
        keys = kv0 + tl.arange(0, TILE_KV)
        kv_live = keys < len_kv
        k = tl.load(K + bh * kv_bh + keys[:, None] * kv_row + dims[None, :],
                    mask=kv_live[:, None], other=0.0)
        v = tl.load(V + bh * kv_bh + keys[:, None] * kv_row + dims[None, :],
                    mask=kv_live[:, None], other=0.0)
        s = tl.dot(q, tl.trans(k)) * scale
        s = tl.where(kv_live[None, :], s, float("-inf"))
        new_best = tl.maximum(best, tl.max(s, axis=1))
        w = tl.exp(s - new_best[:, None])
        shrink = tl.exp(best - new_best)
        norm = norm * shrink + tl.sum(w, axis=1)
        mix = mix * shrink[:, None] + tl.dot(w.to(tl.float16), v)
        best = new_best
    mix = mix / norm[:, None]
    tl.store(Out + bh * o_bh + rows[:, None] * o_row + dims[None, :], mix.to(tl.float16),
             mask=q_live[:, None])


def cross_attention(q: torch.Tensor, kv_k: torch.Tensor, kv_v: torch.Tensor) -> torch.Tensor:
    """q: (batch * heads, len_q, 64) fp16; kv_k, kv_v: (batch * heads, len_kv, 64) fp16."""
    assert q.dtype == torch.float16 and kv_k.dtype == torch.float16 and kv_v.dtype == torch.float16
    bh, len_q, dim = q.shape
    len_kv = kv_k.shape[1]
    out = torch.empty_like(q)
    grid = (triton.cdiv(len_q, 64), bh)
    cross_attn_fwd[grid](q, kv_k, kv_v, out, 1.0 / math.sqrt(dim), len_q, len_kv,
                         q.stride(0), q.stride(1), kv_k.stride(0), kv_k.stride(1),
                         out.stride(0), out.stride(1),
                         TILE_Q=64, TILE_KV=32, DIM=64, num_warps=4)
    return out
