# Floating-point bits handled as integers: |x| by clearing the sign bit, the sign bit itself,
# a half's bits flipped through int16, and the exponent field of each value.
import torch
import triton
import triton.language as tl


@triton.jit
def bit_tricks(x_ptr, h_ptr, abs_ptr, neg_ptr, hflip_ptr, exp_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    live = offs < n
    x = tl.load(x_ptr + offs, mask=live, other=1.0)
    bits = x.to(tl.int32, bitcast=True)
    tl.store(abs_ptr + offs, (bits & 0x7FFFFFFF).to(tl.float32, bitcast=True), mask=live)
    tl.store(neg_ptr + offs, (bits >> 31) & 1, mask=live)
    h = tl.load(h_ptr + offs, mask=live, other=0.0)
    hb = tl.cast(h, tl.int16, bitcast=True) ^ -32768  # 0x8000: the sign of a half
    tl.store(hflip_ptr + offs, tl.cast(hb, tl.float16, bitcast=True), mask=live)
    ub = x.to(tl.uint32, bitcast=True)
    tl.store(exp_ptr + offs, ((ub >> 23) & 255).to(tl.int32), mask=live)


def tricks(x: torch.Tensor, h: torch.Tensor):
    n = x.numel()
    absx, neg = torch.empty_like(x), torch.empty(n, dtype=torch.int32, device=x.device)
    hflip, expo = torch.empty_like(h), torch.empty(n, dtype=torch.int32, device=x.device)
    bit_tricks[(triton.cdiv(n, 128),)](x, h, absx, neg, hflip, expo, n, BLOCK=128)
    return absx, neg, hflip, expo
