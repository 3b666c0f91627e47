# Random numbers composed from the raw Philox stream: a uniform float and its complement from
# the last word of each counter, a keep mask and a Box-Muller pair of normals from the first.
import torch
import triton
import triton.language as tl


@triton.jit
def uniform_pairs(out_ptr, n, seed, offset, BLOCK: tl.constexpr):
    s = seed.to(tl.int64)
    base = offset.to(tl.int64)
    c0 = (base & 0xFFFFFFFF).to(tl.uint32) + (tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)).to(tl.uint32)
    c1 = ((base >> 32) & 0xFFFFFFFF).to(tl.uint32)
    zero = c0 * 0
    _, _, _, r3 = tl.philox(s, c0, c1, zero, zero)
    u = tl.uint_to_uniform_float(r3.to(tl.int32, bitcast=True))
    at = tl.program_id(0) * BLOCK * 2 + tl.arange(0, BLOCK)
    tl.store(out_ptr + at, u, mask=at < n)
    tl.store(out_ptr + at + BLOCK, 1.0 - u, mask=at + BLOCK < n)


@triton.jit
def keep_and_normals(x_ptr, y_ptr, z_ptr, n, p, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    live = offs < n
    w0, _, _, _ = tl.philox(seed, offs, 0, 0, 0)
    u0 = tl.uint_to_uniform_float(w0)
    keep = u0 > p
    x = tl.load(x_ptr + offs, mask=live, other=0.0)
    tl.store(y_ptr + offs, tl.where(keep, x / (1 - p), 0.0), mask=live)
    g1, g2 = tl.pair_uniform_to_normal(u0, 1.0 - u0)
    tl.store(z_ptr + offs, g1 + 0.5 * g2, mask=live)


def uniforms(n: int, seed: int, offset: int, device="cuda"):
    out = torch.empty(n, dtype=torch.float32, device=device)
    uniform_pairs[(triton.cdiv(n, 2 * 128),)](out, n, seed, offset, BLOCK=128)
    return out


def dropout_and_noise(x: torch.Tensor, p: float, seed: int):
    y, z = torch.empty_like(x), torch.empty_like(x)
    keep_and_normals[(triton.cdiv(x.numel(), 256),)](x, y, z, x.numel(), p, seed, BLOCK=256)
    return y, z
