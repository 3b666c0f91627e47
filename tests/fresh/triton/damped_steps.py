"""Damped fixed-point steps with an optional history of every step, in the style kernel
libraries use: strides and step counts as tl.constexpr, the output dtype looked up in a table,
and a flag that turns the history stores on (each step's slab is `stride_step` rows apart)."""

import torch
import triton
import triton.language as tl

_TO_TRITON = {torch.float32: tl.float32, torch.float16: tl.float16, torch.bfloat16: tl.bfloat16}


@triton.jit
def _damped_steps_kernel(
    x_ptr,
    out_ptr,
    hist_ptr,
    n,
    stride_step: tl.constexpr,
    STEPS: tl.constexpr,
    KEEP_HISTORY: tl.constexpr,
    OUT_DTYPE: tl.constexpr,
    BLOCK: tl.constexpr,
):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    for step in tl.static_range(0, STEPS):
        x = 0.5 * x + 1.0
        if KEEP_HISTORY:
            tl.store(hist_ptr + step * stride_step * n + offs, x, mask=mask)
    tl.store(out_ptr + offs, x.to(OUT_DTYPE), mask=mask)


def damped_steps(x: torch.Tensor, steps: int = 3, history: torch.Tensor | None = None):
    out = torch.empty_like(x)
    n = x.numel()
    keep = history is not None
    _damped_steps_kernel[(triton.cdiv(n, 256),)](
        x, out, history if keep else out, n,
        stride_step=history.stride(0) // n if keep else 0,
        STEPS=steps,
        KEEP_HISTORY=keep,
        OUT_DTYPE=_TO_TRITON[x.dtype],
        BLOCK=256,
    )
    return out
