# Multiply interleaved complex numbers (re, im pairs in one float32 buffer) by a complex
# factor per row, with the pairs loaded as one (BLOCK, 2) block and taken apart by tl.split.
import torch
import triton
import triton.language as tl


@triton.jit
def complex_rotate(z_ptr, w_ptr, out_ptr, n_pairs, row_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    pair = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    live = pair < n_pairs
    both = pair[:, None] * 2 + tl.arange(0, 2)[None, :]
    z = tl.load(z_ptr + row * row_stride + both, mask=live[:, None], other=0.0)
    re, im = tl.split(z)
    w_re = tl.load(w_ptr + row * 2)
    w_im = tl.load(w_ptr + row * 2 + 1)
    tl.store(out_ptr + row * row_stride + pair * 2, re * w_re - im * w_im, mask=live)
    tl.store(out_ptr + row * row_stride + pair * 2 + 1, re * w_im + im * w_re, mask=live)


def rotate(z: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """z: (rows, 2 * n) float32, interleaved pairs; w: (rows, 2) float32."""
    rows, width = z.shape
    out = torch.empty_like(z)
    n_pairs = width // 2
    complex_rotate[(rows, triton.cdiv(n_pairs, 64))](z, w, out, n_pairs, z.stride(0), BLOCK=64)
    return out
