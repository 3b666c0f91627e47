"""When a port may print `exp(x)` as `exp2(x * log2 e)`, TileLang's fast form of it.

exp2 is one hardware instruction on GPUs (ex2.approx on NVIDIA); exp is a library call.
The rewrite costs accuracy: x * log2(e) is rounded to float32 before exp2 sees it, which
scales the result by up to 2^(|x| log2(e) u) for float32's unit roundoff u = 2^-24, a
relative error of about |x| u. exp is finite and normal in float32 only for x in
(-87.4, 88.8), so the error is at most ~88.8 u plus exp2's own (a couple of ulps):
`EXP2_RELATIVE_ERROR` below. The port uses exp2 only where that is within what the
original's result can tell apart:

- a Triton kernel's float32 `tl.exp`: Triton itself lowers it to ex2.approx.f32 of
  x * log2(e) on NVIDIA GPUs (its ExpOpConversionApprox), so exp2 is the original's own
  arithmetic;
- any exp whose float32 result is rounded straight to float16 or bfloat16, where the
  error is far below the half-ulp of the type (`rounding_hides`).

A CUDA `expf` kept in float32 stays `T.exp`: ~88 ulps is more than the original allows. A
CUDA `__expf` is exp2 from the front end on (porter/builtins.py): the intrinsic is ex2.approx
of x * log2(e) itself.
"""

from __future__ import annotations


# float32 unit roundoff times the widest |x| with a normal float32 exp, plus exp2's error
EXP2_RELATIVE_ERROR = 88.8 * 2.0 ** -24 + 2.0 ** -22

UNIT_ROUNDOFF = {"float16": 2.0 ** -11, "bfloat16": 2.0 ** -8, "float32": 2.0 ** -24,
                 "float64": 2.0 ** -53}


def rounding_hides(dtype: str) -> bool:
    """Whether rounding to `dtype` hides exp2's error (it is under the type's own rounding
    error, its unit roundoff)."""
    return EXP2_RELATIVE_ERROR < UNIT_ROUNDOFF.get(dtype, 0.0)
