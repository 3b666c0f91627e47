"""Constant folding and concrete evaluation of IR expressions, with C integer semantics.

Used to turn launch-site expressions into numbers (block sizes must be constants) and to
evaluate grids and buffer extents once verify has chosen concrete sizes.
"""

from __future__ import annotations

import math

from porter.ir.nodes import BinOp, Builtin, Call, Cast, Const, Load, Select, UnaryOp, Var, is_float
from porter.ir.walk import children, map_expr
from porter.util.numbers import next_power_of_2


class NotConstant(Exception):
    pass


def _c_div(a, b):
    if isinstance(a, float) or isinstance(b, float):
        return a / b
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _c_mod(a, b):
    if isinstance(a, float) or isinstance(b, float):
        return math.fmod(a, b)
    return a - _c_div(a, b) * b


_BINARY = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": _c_div, "%": _c_mod, "<<": lambda a, b: a << b, ">>": lambda a, b: a >> b,
    "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
    "<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
    "&&": lambda a, b: bool(a) and bool(b), "||": lambda a, b: bool(a) or bool(b),
}

_CALLS = {
    "max": max, "min": min, "abs": abs, "exp": math.exp, "sqrt": math.sqrt, "log": math.log,
    "ceildiv": lambda a, b: -(-a // b), "floor": math.floor, "ceil": math.ceil,
    "pow": math.pow,
    "next_power_of_2": next_power_of_2,  # triton's
}


def _convert(value, dtype: str):
    if dtype == "bool":
        return bool(value)
    if is_float(dtype):
        return float(value)
    value = int(value)
    bits = int("".join(ch for ch in dtype if ch.isdigit()) or 32)
    value &= (1 << bits) - 1
    if not dtype.startswith("uint") and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


def evaluate(e, env: dict | None = None, exact: bool = False):
    """Evaluate to a Python number; env maps Var names (and Builtin keys) to values. Integers
    wrap to their dtype as the kernel computes them, or, `exact`, never (a buffer's true extent)."""
    env = env or {}
    if isinstance(e, Const):
        return e.value
    if isinstance(e, Var):
        if e.name in env:
            return env[e.name]
        raise NotConstant(e.name)
    if isinstance(e, Builtin):
        key = f"{e.kind}.{e.axis}"
        if key in env:
            return env[key]
        raise NotConstant(key)
    convert = _unwrapped if exact else _convert
    if isinstance(e, BinOp):
        a, b = evaluate(e.a, env, exact), evaluate(e.b, env, exact)
        if e.op in ("/", "%") and b == 0:
            raise NotConstant("division by zero")
        return convert(_BINARY[e.op](a, b), e.dtype)
    if isinstance(e, UnaryOp):
        a = evaluate(e.a, env, exact)
        value = {"-": lambda v: -v, "!": lambda v: not v, "~": lambda v: ~v, "+": lambda v: v}[e.op](a)
        return convert(value, e.dtype)
    if isinstance(e, Cast):
        return convert(evaluate(e.a, env, exact), e.dtype)
    if isinstance(e, Select):
        return evaluate(e.a, env, exact) if evaluate(e.cond, env, exact) else evaluate(e.b, env, exact)
    if isinstance(e, Call) and e.func in _CALLS:
        return convert(_CALLS[e.func](*(evaluate(a, env, exact) for a in e.args)), e.dtype)
    if isinstance(e, Load):
        raise NotConstant(f"load from {e.buffer}")
    raise NotConstant(type(e).__name__)


def _unwrapped(value, dtype: str):
    """An exact evaluation's value: integers as computed, floats and bools as _convert makes them."""
    if isinstance(value, int) and not isinstance(value, bool) and not is_float(dtype) and dtype != "bool":
        return value
    return _convert(value, dtype)


def fold(e):
    """Replace every constant sub-expression by its value."""

    def step(node):
        # bottom-up: a node folds only when its operands already did (one look per node, not a
        # walk of each subtree, which made long sums cubic); a Select with a constant condition
        # is the operand it picks
        if isinstance(node, (Const, Var, Builtin, Load)):
            return None
        if isinstance(node, Select):
            if not isinstance(node.cond, Const):
                return None
            picked = node.a if node.cond.value else node.b
            if not isinstance(picked, Const):
                # `tl.where(cos_bs == 1, a, b)` on a constexpr (Liger's rope): the operand it picks
                return picked if getattr(picked, "dtype", None) == node.dtype else None
        elif not all(isinstance(c, Const) for c in children(node)):
            return None
        try:
            return Const(evaluate(node), node.dtype)
        except (NotConstant, ValueError, OverflowError, ZeroDivisionError, KeyError):
            return None

    return map_expr(e, step)


def try_int(e, env: dict | None = None):
    """The integer value of e, or None when it is not a constant."""
    try:
        v = evaluate(e, env)
    except (NotConstant, ValueError, OverflowError, ZeroDivisionError, KeyError):
        return None
    return int(v) if not isinstance(v, float) or v.is_integer() else None
