"""A helper chosen at import by what the installed Triton has (flash-linear-attention's
`make_tensor_descriptor`): `hasattr(triton.language, ...)` tests, the first naming a builtin no
Triton has, and a `@triton.jit` fallback in the `else`. tileport asks the installed Triton, as
the import does."""

import triton
import triton.language as tl

if hasattr(triton.language, "_tileport_sample_builtin_no_triton_has"):
    magnitude = triton.language._tileport_sample_builtin_no_triton_has
elif hasattr(tl, "abs"):
    magnitude = tl.abs
else:
    """Before Triton had tl.abs."""

    @triton.jit
    def magnitude(x):
        return tl.where(x < 0, -x, x)


@triton.jit
def magnitude_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, magnitude(x) * 2.0, mask=mask)


def magnitudes(x):
    out = torch.empty_like(x)
    n = x.numel()
    magnitude_kernel[(triton.cdiv(n, 128),)](x, out, n, BLOCK=128)
    return out
