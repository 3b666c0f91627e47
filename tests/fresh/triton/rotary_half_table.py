# A rotary embedding in Liger's style: each program rotates one token's heads by the cos/sin
# row of its position; the table holds ROT // 2 angles a row (a bound the constexprs fold to a
# number), and the table's row is picked by `tl.where` on a constexpr (one table for the batch).
import torch
import triton
import triton.language as tl


@triton.jit
def rotate_heads_kernel(q_ptr, q_row_stride, cos_ptr, sin_ptr, table_stride, seq_len,
                        TABLE_BATCHES: tl.constexpr, HEADS: tl.constexpr, HEAD_DIM: tl.constexpr,
                        ROT: tl.constexpr, PAD_HEADS: tl.constexpr, PAD_HALF: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    pos = pid % seq_len
    row = tl.where(TABLE_BATCHES == 1, pos * table_stride, pid * table_stride)
    half = tl.arange(0, PAD_HALF)
    cos = tl.load(cos_ptr + row + half, mask=half < ROT // 2, other=0.0)
    sin = tl.load(sin_ptr + row + half, mask=half < ROT // 2, other=0.0)
    heads = tl.arange(0, PAD_HEADS)[:, None]
    first = q_ptr + pid * q_row_stride + heads * HEAD_DIM + half[None, :]
    mask = (heads < HEADS) & (half[None, :] < ROT // 2)
    x1 = tl.load(first, mask=mask, other=0.0)
    x2 = tl.load(first + ROT // 2, mask=mask, other=0.0)
    tl.store(first, x1 * cos[None, :] - x2 * sin[None, :], mask=mask)
    tl.store(first + ROT // 2, x2 * cos[None, :] + x1 * sin[None, :], mask=mask)


def rotate_heads(q, cos, sin):
    """q: (tokens, heads, head_dim) rotated in place over its first 2 * (rot // 2) dims; cos and
    sin: (seq_len, rot // 2) shared by every sequence of the batch."""
    tokens, heads, head_dim = q.shape
    seq_len, half = cos.shape
    rotate_heads_kernel[(tokens,)](q, q.stride(0), cos, sin, cos.stride(0), seq_len,
                                   TABLE_BATCHES=1, HEADS=heads, HEAD_DIM=head_dim, ROT=2 * half + 1,
                                   PAD_HEADS=triton.next_power_of_2(heads),
                                   PAD_HALF=triton.next_power_of_2(half))
    return q
