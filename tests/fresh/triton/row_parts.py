# Rows read in parts: GEGLU over a fused projection whose gate is the first H columns of each
# row and whose value is the next H (H an argument), and a fused QKV row split into three D
# wide parts (D a constexpr) with the middle part scaled.
import torch
import triton
import triton.language as tl


@triton.jit
def geglu_rows_kernel(x_ptr, out_ptr, x_stride, out_stride, H, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    keep = cols < H
    gate = tl.load(x_ptr + row * x_stride + cols, mask=keep, other=0.0)
    value = tl.load(x_ptr + row * x_stride + H + cols, mask=keep, other=0.0)
    gelu = 0.5 * gate * (1.0 + tl.erf(gate * 0.7071067811865476))
    tl.store(out_ptr + row * out_stride + cols, gelu * value, mask=keep)


@triton.jit
def split_qkv_kernel(qkv_ptr, q_ptr, k_ptr, v_ptr, stride, scale, D: tl.constexpr,
                     BLOCK_D: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK_D)
    keep = offs < D
    base = qkv_ptr + pid * stride
    q = tl.load(base + offs, mask=keep, other=0.0)
    k = tl.load(base + D + offs, mask=keep, other=0.0)
    v = tl.load(base + 2 * D + offs, mask=keep, other=0.0)
    tl.store(q_ptr + pid * D + offs, q, mask=keep)
    tl.store(k_ptr + pid * D + offs, k * scale, mask=keep)
    tl.store(v_ptr + pid * D + offs, v, mask=keep)


def geglu_rows(x):
    rows, cols = x.shape
    H = cols // 2
    out = torch.empty((rows, H), dtype=x.dtype, device=x.device)
    geglu_rows_kernel[(rows,)](x, out, x.stride(0), out.stride(0), H,
                               BLOCK=triton.next_power_of_2(H))
    return out


def split_qkv(qkv, scale):
    rows, width = qkv.shape
    D = width // 3
    q = torch.empty((rows, D), dtype=qkv.dtype, device=qkv.device)
    k = torch.empty_like(q)
    v = torch.empty_like(q)
    split_qkv_kernel[(rows,)](qkv, q, k, v, qkv.stride(0), scale, D=D,
                              BLOCK_D=triton.next_power_of_2(D))
    return q, k, v
