"""One data-only table of source builtins and what they become.

Front ends look names up here (CUDA functions, Triton `tl.*` calls) to get a canonical IR
operation; the emitter looks canonical names up to get the TileLang spelling; the docs and
diagnostics are generated from the same rows. Nothing here holds logic.

Row kinds:
  math      -> IR Call(canonical, args)             e.g. expf -> exp
  binop     -> IR BinOp(canonical operator, a, b)   e.g. __hadd -> +
  unop      -> IR UnaryOp(canonical operator, a)    e.g. __hneg -> -
  cast      -> IR Cast(result type of the call, a)  e.g. __half2float
  cmp       -> IR BinOp(comparison)                 e.g. __hlt -> <
  recip     -> IR BinOp("/", 1, a)
  saturate  -> IR min(max(a, 0), 1)
  ldg       -> IR Load through the pointer argument (cache-hint loads too)
  const     -> IR Const(float(canonical)) of the call's type   e.g. __builtin_inff -> inf
  intrinsic -> IR built by porter/frontends/cuda/intrinsics.py (exact integer semantics), of
               the arguments converted to the intrinsic's parameter types   e.g. __popc
  lanes     -> the scalar row named, applied to each lane of half2 / bfloat162 values   e.g. __hadd2
  pack      -> a vector of the arguments   e.g. __halves2half2;  splat -> one argument in every lane
  convert   -> each lane of a vector converted   e.g. __half22float2
  lane      -> one lane (0 or 1) of a vector, as the result type   e.g. __low2float
"""

from __future__ import annotations

# canonical math name -> TileLang spelling
TILELANG_MATH = {
    "exp": "T.exp", "exp2": "T.exp2", "log": "T.log", "log2": "T.log2", "log10": "T.log10",
    "log1p": "T.log1p", "sqrt": "T.sqrt", "rsqrt": "T.rsqrt", "sin": "T.sin", "cos": "T.cos",
    "tanh": "T.tanh", "erf": "T.erf", "pow": "T.pow", "abs": "T.abs", "floor": "T.floor",
    "ceil": "T.ceil", "max": "T.max", "min": "T.min", "fma": "T.fma", "sigmoid": "T.sigmoid",
    "fmod": "T.fmod", "cosh": "T.cosh", "sinh": "T.sinh", "tan": "T.tan", "atan": "T.atan",
    "asin": "T.asin", "acos": "T.acos", "atan2": "T.atan2", "trunc": "T.trunc",
    "hypot": "T.hypot",
    # bool predicates (`x != x` is folded away where the compiler assumes no NaN)
    "isnan": "T.isnan", "isinf": "T.isinf", "isfinite": "T.isfinite",
    # ties to even on every target (T.round is nearbyintf on CUDA but roundf on HIP and C);
    # C's round (ties away from zero) is spelled out by the emitter (emit/expressions.py)
    "nearbyint": "T.nearbyint",
    # unsigned operands only on 0.1.15 (porter/frontends/cuda/intrinsics.py)
    "popcount": "T.popcount", "clz": "T.clz",
}

LOG2E = 1.4426950408889634  # log2(e): exp(x) = exp2(x * LOG2E)

# CUDA name -> (kind, canonical)
CUDA_BUILTINS = {
    **{n: ("math", "exp") for n in ("expf", "exp", "hexp")},
    # the fast intrinsic is ex2.approx of x * log2(e) (CUDA's programming guide): the port
    # computes it the same way, as exp2 (porter/emit/exp2.py)
    "__expf": ("exp-as-exp2", "exp2"),
    **{n: ("math", "exp2") for n in ("exp2f", "exp2", "hexp2")},
    **{n: ("math", "log") for n in ("logf", "log", "__logf", "hlog")},
    **{n: ("math", "log2") for n in ("log2f", "log2", "__log2f", "hlog2")},
    **{n: ("math", "log10") for n in ("log10f", "log10", "__log10f")},
    **{n: ("math", "log1p") for n in ("log1pf", "log1p")},
    **{n: ("math", "sqrt") for n in ("sqrtf", "sqrt", "__fsqrt_rn", "hsqrt")},
    **{n: ("math", "rsqrt") for n in ("rsqrtf", "rsqrt", "hrsqrt")},
    **{n: ("math", "sin") for n in ("sinf", "sin", "__sinf")},
    **{n: ("math", "cos") for n in ("cosf", "cos", "__cosf")},
    **{n: ("math", "tanh") for n in ("tanhf", "tanh")},
    **{n: ("math", "erf") for n in ("erff", "erf")},
    **{n: ("math", "pow") for n in ("powf", "pow", "__powf")},
    **{n: ("math", "abs") for n in ("fabsf", "fabs", "abs", "habs", "__habs")},
    **{n: ("math", "floor") for n in ("floorf", "floor")},
    **{n: ("math", "ceil") for n in ("ceilf", "ceil")},
    **{n: ("math", "max") for n in ("fmaxf", "fmax", "max", "__hmax")},
    **{n: ("math", "min") for n in ("fminf", "fmin", "min", "__hmin")},
    **{n: ("math", "fma") for n in ("fmaf", "fma", "__fmaf_rn", "__hfma")},
    **{n: ("math", "fmod") for n in ("fmodf", "fmod")},
    **{n: ("math", "nearbyint") for n in ("rintf", "rint", "nearbyintf", "nearbyint", "hrint")},
    **{n: ("math", n.rstrip("f")) for n in ("coshf", "sinhf", "tanf", "atanf", "asinf", "acosf",
                                            "atan2f", "truncf", "roundf", "hypotf")},
    **{n: ("math", n) for n in ("cosh", "sinh", "tan", "atan", "asin", "acos", "atan2", "trunc",
                                "round", "hypot")},
    "__tanf": ("math", "tan"),
    "__hadd": ("binop", "+"), "__hsub": ("binop", "-"), "__hmul": ("binop", "*"),
    "__hdiv": ("binop", "/"), "__fdividef": ("binop", "/"), "__fadd_rn": ("binop", "+"),
    "__fmul_rn": ("binop", "*"),
    "__hneg": ("unop", "-"),
    "__hlt": ("cmp", "<"), "__hgt": ("cmp", ">"), "__hle": ("cmp", "<="), "__hge": ("cmp", ">="),
    "__heq": ("cmp", "=="), "__hne": ("cmp", "!="),
    **{n: ("cast", "") for n in ("__float2half", "__float2half_rn", "__half2float",
                                 "__float2bfloat16", "__float2bfloat16_rn", "__bfloat162float",
                                 "__int2half_rn", "__int2float_rn", "__float2int_rz",
                                 "__int2float_rz", "__uint2float_rn")},
    "__frcp_rn": ("recip", ""),
    "__saturatef": ("saturate", ""),
    **{n: ("ldg", "") for n in ("__ldg", "__ldcs", "__ldca", "__ldcg", "__ldlu", "__ldcv")},
    **{n: ("const", "inf") for n in ("__builtin_inff", "__builtin_inf", "__builtin_huge_valf",
                                     "__builtin_huge_val")},
    **{n: ("const", "nan") for n in ("__builtin_nanf", "__builtin_nan")},
    # CUDA's unsigned / 64-bit min and max: the arguments converted to the result type first
    **{n: ("math", "min") for n in ("umin", "llmin", "ullmin")},
    **{n: ("math", "max") for n in ("umax", "llmax", "ullmax")},
    # half2 / bfloat162: the scalar row each lane applies, or how the pair is built or read
    **{f"{op}2": ("lanes", op) for op in ("__hadd", "__hsub", "__hmul", "__hfma", "__hmax", "__hmin",
                                          "__hneg")},
    "__h2div": ("lanes", "__hdiv"),
    **{n: ("pack", "") for n in ("__halves2half2", "__floats2half2_rn", "__halves2bfloat162",
                                 "__floats2bfloat162_rn")},
    **{n: ("splat", "") for n in ("__float2half2_rn", "__half2half2", "__bfloat162bfloat162",
                                  "__float2bfloat162_rn")},
    **{n: ("convert", "") for n in ("__float22half2_rn", "__half22float2", "__float22bfloat162_rn",
                                    "__bfloat1622float2")},
    **{n: ("lane", "0") for n in ("__low2half", "__low2float", "__low2bfloat16")},
    **{n: ("lane", "1") for n in ("__high2half", "__high2float", "__high2bfloat16")},
    **{n: ("intrinsic", "mul24") for n in ("__mul24", "__umul24")},
    **{n: ("intrinsic", "popc") for n in ("__popc", "__popcll")},
    **{n: ("intrinsic", "clz") for n in ("__clz", "__clzll")},
    **{n: ("intrinsic", "ffs") for n in ("__ffs", "__ffsll")},
    **{n: ("intrinsic", "brev") for n in ("__brev", "__brevll")},
    **{n: ("intrinsic", "ldexp") for n in ("ldexpf", "ldexp")},
}

#: C functions that also write through a pointer argument: name -> the out-parameter's position
#: (calls.py's `out_parameter_call`; intrinsics.py computes both results)
CUDA_OUT_PARAMETER = {"frexpf": 1, "frexp": 1}
# `sincosf(x, &s, &c)` & co.: the math functions whose values go through pointer arguments, in
# order (a `pi` form multiplies x by pi first)
CUDA_OUT_VALUES = {**{n: ("sin", "cos") for n in ("sincosf", "sincos", "__sincosf")},
                   **{n: ("sinpi", "cospi") for n in ("sincospif", "sincospi")}}

# what each "intrinsic" row becomes, for SUPPORTED.md
INTRINSIC_FORMS = {
    "mul24": "the product of the operands' low 24 bits (sign-extended for `__mul24`); a plain "
             "`*` where both provably fit in 24 bits",
    "popc": "`T.popcount` of the unsigned operand, as int",
    "clz": "`T.clz`",
    "ffs": "`T.if_then_else(u == 0, 0, T.popcount(u ^ (u - 1)))` (u: the operand as unsigned)",
    "brev": "shifts and masks (the halves of ever smaller bit blocks swapped)",
    "ldexp": "`x * T.exp2(e // 2) * T.exp2(e - e // 2)` (two exact power-of-two steps)",
}

# Triton `tl.` / `tl.math.` name -> (kind, canonical)
TRITON_BUILTINS = {
    **{n: ("math", n) for n in ("exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sin", "cos",
                                "abs", "erf", "floor", "ceil", "fma", "sigmoid", "log1p")},
    "sqrt_rn": ("math", "sqrt"),
    "maximum": ("math", "max"), "minimum": ("math", "min"),
    "fdiv": ("binop", "/"), "div_rn": ("binop", "/"),
}
