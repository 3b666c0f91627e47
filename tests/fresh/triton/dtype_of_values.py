# Casts and block dtypes named by the values they follow: a parameter's `.type.element_ty`, a
# pointer's `.dtype.element_ty`, a block's `.dtype`, and a block pointer's `.dtype.element_ty`.
import torch
import triton
import triton.language as tl


@triton.jit
def scaled_copy(x_ptr, out_ptr, acc_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    live = offs < n
    kind = x_ptr.type.element_ty
    x = tl.load(x_ptr + offs, mask=live, other=0.0)
    acc = tl.zeros((BLOCK,), dtype=acc_ptr.dtype.element_ty)
    one = tl.full((BLOCK,), 1, dtype=x.dtype)
    acc += (x * 2.0 + one).to(acc.dtype)
    tl.store(acc_ptr + offs, acc, mask=live)
    tl.store(out_ptr + offs, (acc - 0.5).to(kind).to(out_ptr.type.element_ty), mask=live)


@triton.jit
def window_triple(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    start = tl.program_id(0) * BLOCK
    src = tl.make_block_ptr(x_ptr, (n,), (1,), (start,), (BLOCK,), (0,))
    dst = tl.make_block_ptr(out_ptr, (n,), (1,), (start,), (BLOCK,), (0,))
    b = tl.load(src, boundary_check=(0,)).to(tl.float32)
    tl.store(dst, (b * 3.0).to(dst.dtype.element_ty), boundary_check=(0,))


def scaled(x: torch.Tensor):
    """x: float16 vector; returns its float16 copy and the float32 accumulator."""
    n = x.numel()
    out = torch.empty_like(x)
    acc = torch.empty(n, dtype=torch.float32, device=x.device)
    scaled_copy[(triton.cdiv(n, 128),)](x, out, acc, n, BLOCK=128)
    return out, acc


def tripled(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    window_triple[(triton.cdiv(x.numel(), 64),)](x, out, x.numel(), BLOCK=64)
    return out
