"""A library of Triton kernels with no launch site: callers elsewhere pick the constexprs.

Written for tileport's tests (each constexpr kind a real library uses): a flag, a string
enum, a float, module-level constexprs (annotated and wrapped), dtype dispatch on a pointer's
element type, and a @triton.jit helper that only kernels call.
"""
import triton
import triton.language as tl

NEG_SLOPE: tl.constexpr = 0.125
CLIP = tl.constexpr(4.0)


@triton.jit
def _leaky(x):
    return tl.where(x > 0, x, x * NEG_SLOPE)


@triton.jit
def bias_act_kernel(x_ptr, b_ptr, y_ptr, n, HAS_BIAS: tl.constexpr, ACT: tl.constexpr,
                    BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    if HAS_BIAS:
        x += tl.load(b_ptr + offs, mask=mask)
    if ACT == "leaky":
        x = _leaky(x)
    elif ACT == "clip":
        x = tl.minimum(tl.maximum(x, -CLIP), CLIP)
    tl.store(y_ptr + offs, x, mask=mask)


@triton.jit
def row_rms_kernel(x_ptr, y_ptr, n_cols, stride, eps: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        acc += x * x
    rms = tl.sqrt(tl.sum(acc, axis=0) / n_cols + eps)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        y = x / rms
        if y_ptr.dtype.element_ty == tl.float16:
            y = y.to(tl.float16)
        tl.store(y_ptr + row * stride + cols, y, mask=cols < n_cols)
