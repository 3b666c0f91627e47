"""Class ids loaded as a block, then used to address another tensor (cross-entropy's
`inp_ptr + pid_n * C * D + tgt * D + offset_d`) in a kernel of 2-D tiles: the ids are a
fragment whose values verify draws below its index limit, so the gathered tensor's extent
follows from the sizes."""

import torch
import triton
import triton.language as tl


@triton.jit
def margin_to_max_kernel(x_ptr, ids_ptr, w_ptr, out_ptr, ignore_index, C, D, BLOCK_C: tl.constexpr,
                         BLOCK_D: tl.constexpr):
    pid_d = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_d = pid_d * BLOCK_D + tl.arange(0, BLOCK_D)
    mask = offs_d < D
    ids = tl.load(ids_ptr + pid_n * D + offs_d, mask=mask, other=0)
    best = tl.full([BLOCK_C, BLOCK_D], -float("inf"), dtype=tl.float32)
    for off in range(0, C, BLOCK_C):
        offs_c = off + tl.arange(0, BLOCK_C)
        x = tl.load(x_ptr + pid_n * C * D + offs_c[:, None] * D + offs_d[None, :],
                    mask=(offs_c[:, None] < C) & mask[None, :], other=-float("inf"))
        best = tl.maximum(best, x)
    top = tl.max(best, axis=0)
    picked = tl.load(x_ptr + pid_n * C * D + ids * D + offs_d, mask=mask, other=0.0)
    w = tl.load(w_ptr + ids, mask=mask & (ids != ignore_index), other=0.0)
    tl.store(out_ptr + pid_n * D + offs_d, (top - picked) * w, mask=mask)


def margin_to_max(x, ids, w, ignore_index=-100):
    N, C, D = x.shape
    out = torch.empty((N, D), dtype=torch.float32, device=x.device)
    margin_to_max_kernel[(triton.cdiv(D, 32), N)](x, ids, w, out, ignore_index, C, D, BLOCK_C=16, BLOCK_D=32)
    return out
