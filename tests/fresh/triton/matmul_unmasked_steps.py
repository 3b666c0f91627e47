# out = x @ w with no load masks, a K loop that steps by its tile (`range(0, D, TD)`) and a
# 2-D grid the caller launches: the kernel is only defined for sizes that are whole tiles.
import torch
import triton
import triton.language as tl


@triton.jit
def plain_mm(x, w, out, R, C, D, sxr, sxd, swd, swc, sor, soc,
             TR: tl.constexpr, TC: tl.constexpr, TD: tl.constexpr):
    r = tl.program_id(0)
    c = tl.program_id(1)
    rows = r * TR + tl.arange(0, TR)
    cols = c * TC + tl.arange(0, TC)
    acc = tl.zeros((TR, TC), dtype=tl.float32)
    for d0 in range(0, D, TD):
        ds = d0 + tl.arange(0, TD)
        xt = tl.load(x + rows[:, None] * sxr + ds[None, :] * sxd)
        wt = tl.load(w + ds[:, None] * swd + cols[None, :] * swc)
        acc += tl.dot(xt, wt)
    tl.store(out + rows[:, None] * sor + cols[None, :] * soc, acc)


def mm(x, w):
    R, D = x.shape
    _, C = w.shape
    out = torch.empty((R, C), device=x.device, dtype=torch.float32)
    grid = (triton.cdiv(R, 64), triton.cdiv(C, 64))
    plain_mm[grid](x, w, out, R, C, D, x.stride(0), x.stride(1), w.stride(0), w.stride(1),
                   out.stride(0), out.stride(1), TR=64, TC=64, TD=32)
    return out
