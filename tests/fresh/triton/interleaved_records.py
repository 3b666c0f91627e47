# Vectors of interleaved records read and written a field at a time: complex numbers as
# (re, im) pairs (their magnitudes, and their conjugates stored field by field), and RGB
# pixels as triples averaged to gray.
import torch
import triton
import triton.language as tl


@triton.jit
def complex_abs_kernel(z_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    re = tl.load(z_ptr + offs * 2, mask=mask, other=0.0)
    im = tl.load(z_ptr + offs * 2 + 1, mask=mask, other=0.0)
    tl.store(out_ptr + offs, tl.sqrt(re * re + im * im), mask=mask)


@triton.jit
def conjugate_kernel(z_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    pair = offs * 2
    re = tl.load(z_ptr + pair, mask=mask)
    im = tl.load(z_ptr + pair + 1, mask=mask)
    tl.store(out_ptr + pair, re, mask=mask)
    tl.store(out_ptr + pair + 1, -im, mask=mask)


@triton.jit
def rgb_to_gray_kernel(rgb_ptr, gray_ptr, pixels, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < pixels
    r = tl.load(rgb_ptr + 3 * offs, mask=mask, other=0.0)
    g = tl.load(rgb_ptr + 3 * offs + 1, mask=mask, other=0.0)
    b = tl.load(rgb_ptr + 3 * offs + 2, mask=mask, other=0.0)
    tl.store(gray_ptr + offs, 0.299 * r + 0.587 * g + 0.114 * b, mask=mask)


def complex_abs(z: torch.Tensor) -> torch.Tensor:
    pairs = torch.view_as_real(z).contiguous()
    out = torch.empty(z.shape, dtype=pairs.dtype, device=z.device)
    complex_abs_kernel[(triton.cdiv(z.numel(), 64),)](pairs, out, z.numel(), BLOCK=64)
    return out


def conjugate(z: torch.Tensor) -> torch.Tensor:
    pairs = torch.view_as_real(z).contiguous()
    out = torch.empty_like(pairs)
    conjugate_kernel[(triton.cdiv(z.numel(), 64),)](pairs, out, z.numel(), BLOCK=64)
    return torch.view_as_complex(out)


def rgb_to_gray(rgb: torch.Tensor) -> torch.Tensor:
    pixels = rgb.numel() // 3
    gray = torch.empty(pixels, dtype=rgb.dtype, device=rgb.device)
    rgb_to_gray_kernel[(triton.cdiv(pixels, 128),)](rgb, gray, pixels, BLOCK=128)
    return gray
