# Views with dimensions before the rows: a batch of matrices (stride arguments for each
# dimension, `batch_id * stride_b` added apart from the tile's offsets), a batch of heads
# (`off_hz // H`, `off_hz % H`) read one vector per head, and rows of a 3-D tensor whose
# program ids select batch and row.
import torch
import triton
import triton.language as tl


@triton.jit
def masked_scale_kernel(x_ptr, out_ptr, stride_b, stride_m, stride_n, L, scale,
                        BLOCK: tl.constexpr):
    row_block = tl.program_id(0)
    col_block = tl.program_id(1)
    batch_id = tl.program_id(2)
    rows = row_block * BLOCK + tl.arange(0, BLOCK)
    cols = col_block * BLOCK + tl.arange(0, BLOCK)
    inside = (rows[:, None] < L) & (cols[None, :] < L)
    offs = rows[:, None] * stride_m + cols[None, :] * stride_n
    x = tl.load(x_ptr + batch_id * stride_b + offs, mask=inside, other=0.0)
    tl.store(out_ptr + batch_id * stride_b + offs, x * scale, mask=inside)


@triton.jit
def head_bias_kernel(q_ptr, o_ptr, bias_ptr, stride_z, stride_h, stride_d, H, D,
                     BLOCK_D: tl.constexpr):
    off_hz = tl.program_id(0)
    off_z = off_hz // H
    off_h = off_hz % H
    d = tl.arange(0, BLOCK_D)
    keep = d < D
    q = tl.load(q_ptr + off_z * stride_z + off_h * stride_h + d * stride_d, mask=keep, other=0.0)
    b = tl.load(bias_ptr + d, mask=keep, other=0.0)
    tl.store(o_ptr + off_z * stride_z + off_h * stride_h + d * stride_d, q + b, mask=keep)


@triton.jit
def row_center_kernel(x_ptr, y_ptr, sxb, sxm, syb, sym, N, BLOCK_N: tl.constexpr):
    b = tl.program_id(1)
    m = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    keep = cols < N
    x = tl.load(x_ptr + b * sxb + m * sxm + cols, mask=keep, other=0.0)
    mean = tl.sum(x, axis=0) / N
    tl.store(y_ptr + b * syb + m * sym + cols, x - mean, mask=keep)


def masked_scale(x, scale):
    B, L, _ = x.shape
    out = torch.empty_like(x)
    BLOCK = 16
    grid = (triton.cdiv(L, BLOCK), triton.cdiv(L, BLOCK), B)
    masked_scale_kernel[grid](x, out, x.stride(0), x.stride(1), x.stride(2), L, scale, BLOCK=BLOCK)
    return out


def head_bias(q, bias):
    Z, H, D = q.shape
    o = torch.empty_like(q)
    head_bias_kernel[(Z * H,)](q, o, bias, q.stride(0), q.stride(1), q.stride(2), H, D,
                               BLOCK_D=triton.next_power_of_2(D))
    return o


def row_center(x):
    B, M, N = x.shape
    y = torch.empty_like(x)
    row_center_kernel[(M, B)](x, y, x.stride(0), x.stride(1), y.stride(0), y.stride(1), N,
                              BLOCK_N=triton.next_power_of_2(N))
    return y
