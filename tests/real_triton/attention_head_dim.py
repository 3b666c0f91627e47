"""Fused attention forward in the tutorial's style: the head dimension is the tensors' own
(`HEAD_DIM=q.shape[-1]`), so the port must be built with whatever the caller's tensors have."""
import math

import torch
import triton
import triton.language as tl


@triton.jit
def attention_fwd_kernel(q_ptr,  # Pointer to Q, shape (batch*heads, seq, HEAD_DIM).
                         k_ptr,  # Pointer to K, same shape as Q.
                         v_ptr,  # Pointer to V, same shape as Q.
                         o_ptr,  # Pointer to the output, same shape as Q.
                         sm_scale,  # Scale applied to Q @ K^T before the softmax.
                         seq_len,  # Sequence length.
                         stride_qh,  # Elements between two heads of Q.
                         stride_qs,  # Elements between two positions of Q.
                         stride_kh,  # Elements between two heads of K.
                         stride_ks,  # Elements between two positions of K.
                         stride_vh,  # Elements between two heads of V.
                         stride_vs,  # Elements between two positions of V.
                         stride_oh,  # Elements between two heads of O.
                         stride_os,  # Elements between two positions of O.
                         BLOCK_M: tl.constexpr,  # Query rows per program.
                         BLOCK_N: tl.constexpr,  # Key rows per loop step.
                         HEAD_DIM: tl.constexpr,  # Head dimension (power of two).
                         ):
    pid_m = tl.program_id(axis=0)
    head = tl.program_id(axis=1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + head * stride_qh + offs_m[:, None] * stride_qs + offs_d[None, :],
                mask=offs_m[:, None] < seq_len, other=0.)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float('inf')
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    for start_n in range(0, seq_len, BLOCK_N):
        offs_n = start_n + tl.arange(0, BLOCK_N)
        kv_mask = offs_n[:, None] < seq_len
        k = tl.load(k_ptr + head * stride_kh + offs_n[:, None] * stride_ks + offs_d[None, :],
                    mask=kv_mask, other=0.)
        v = tl.load(v_ptr + head * stride_vh + offs_n[:, None] * stride_vs + offs_d[None, :],
                    mask=kv_mask, other=0.)
        qk = tl.dot(q, tl.trans(k), input_precision="ieee") * sm_scale
        qk = tl.where(offs_n[None, :] < seq_len, qk, -float('inf'))
        m_new = tl.maximum(m_i, tl.max(qk, axis=1))
        alpha = tl.exp(m_i - m_new)
        p = tl.exp(qk - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None]
        acc = tl.dot(p, v, acc, input_precision="ieee")
        m_i = m_new
    out = acc / l_i[:, None]
    tl.store(o_ptr + head * stride_oh + offs_m[:, None] * stride_os + offs_d[None, :], out,
             mask=offs_m[:, None] < seq_len)


def attention_fwd(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, sm_scale: float):
    # q, k, v: (batch, heads, seq, head_dim), contiguous in the last dimension.
    batch, heads, seq_len, head_dim = q.shape
    HEAD_DIM_K = q.shape[-1]
    q3 = q.reshape(batch * heads, seq_len, head_dim)
    k3 = k.reshape(batch * heads, seq_len, head_dim)
    v3 = v.reshape(batch * heads, seq_len, head_dim)
    o3 = torch.empty_like(q3)
    grid = lambda meta: (triton.cdiv(seq_len, meta['BLOCK_M']), batch * heads)
    attention_fwd_kernel[grid](q3, k3, v3, o3, sm_scale, seq_len,
                               q3.stride(0), q3.stride(1), k3.stride(0), k3.stride(1),
                               v3.stride(0), v3.stride(1), o3.stride(0), o3.stride(1),
                               BLOCK_M=32, BLOCK_N=16, HEAD_DIM=HEAD_DIM_K)
    return o3.reshape(batch, heads, seq_len, head_dim)
