"""The Triton converter's tables: operators, math names by how they lower, and the names a port
reserves. Which `tl.*` calls are ported or refused is porter/tables/triton_calls.py."""

from __future__ import annotations

import ast

from porter.util.names import PORT_MODULE_NAMES, PYTHON_RESERVED, fresh_name

_MISSING = object()

_LOGICAL = {"logical_and": "&", "logical_or": "|"}
# math functions Triton only accepts on fp32/fp64 (`_check_dtype` in triton/language/math.py)
_FP32_ONLY = {"exp", "exp2", "log", "log2", "cos", "sin", "sqrt", "rsqrt", "erf", "floor",
              "ceil", "sigmoid", "sqrt_rn", "log1p"}
# libdevice names beyond TRITON_BUILTINS, onto canonical names of porter.builtins.TILELANG_MATH
_LIBDEVICE_EXTRA = {"tanh": "tanh", "pow": "pow", "fmod": "fmod", "log10": "log10", "fabs": "abs",
                    "fmax": "max", "fmin": "min", "fast_expf": "exp", "fast_logf": "log",
                    "expf": "exp", "logf": "log", "sqrtf": "sqrt", "rint": "nearbyint",
                    "nearbyint": "nearbyint", "round": "round",
                    **{n: n for n in ("tan", "atan", "atan2", "asin", "acos", "sinh", "cosh",
                                      "trunc", "hypot", "log1p", "log2", "exp2", "erf")}}
_LIBDEVICE_FP32_ONLY = set(_LIBDEVICE_EXTRA) - {"fabs", "fmax", "fmin"}
# libdevice's int32 predicates on floats -> the canonical bool predicate (porter.builtins)
_LIBDEVICE_PREDICATES = {"isnan": "isnan", "isinf": "isinf", "finitef": "isfinite",
                         "isfinited": "isfinite"}

_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
           ast.Mod: "%", ast.LShift: "<<", ast.RShift: ">>", ast.BitAnd: "&", ast.BitOr: "|",
           ast.BitXor: "^", ast.Pow: "**", ast.MatMult: "@"}
_CMPOPS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}
_PY_BINOPS = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": lambda a, b: a / b, "//": lambda a, b: a // b, "%": lambda a, b: a % b,
    "<<": lambda a, b: a << b, ">>": lambda a, b: a >> b, "&": lambda a, b: a & b,
    "|": lambda a, b: a | b, "^": lambda a, b: a ^ b, "**": lambda a, b: a ** b,
    "<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
}

# Names the emitted TileLang reserves (lane/program indices, the module alias, Python keywords).
_RESERVED = PORT_MODULE_NAMES | PYTHON_RESERVED


def _unique(name: str, taken: set) -> str:
    return fresh_name(name, taken, claim=False)
