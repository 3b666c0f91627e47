"""Integer index expressions as sympy polynomials, and back.

The matcher asks algebraic questions of index arithmetic ("is this `row * K + k` for some row
and k?", "does `t * 16 + k` cancel after renaming?"). Converting the IR's integer `+ - *`
over names and thread/block indices to sympy answers them; anything else (division, loads,
calls) is not affine and stops the conversion with NotAffine.
"""

from __future__ import annotations

import importlib

from porter.ir.nodes import BinOp, Builtin, Cast, Const, Var, is_float


class _OnFirstUse:
    """A module imported when first used: sympy costs 0.4-0.6 s at startup, and conversions
    whose kernels no rule needs algebra for (element-wise ones) never touch it."""

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attr):
        return getattr(importlib.import_module(self._name), attr)


sympy = _OnFirstUse("sympy")


class NotAffine(Exception):
    """The expression is not integer `+ - *` arithmetic over names."""


_BUILTIN = {"thread_idx": "tid", "block_idx": "bid", "block_dim": "bdim", "grid_dim": "gdim"}


def builtin_symbol(kind: str, axis: int) -> sympy.Symbol:
    return sympy.Symbol(f"{_BUILTIN[kind]}_{'xyz'[axis]}", integer=True)


def var_symbol(name: str) -> sympy.Symbol:
    return sympy.Symbol(name, integer=True)


def to_sympy(e):
    """IR integer expression -> sympy expression (raises NotAffine)."""
    if isinstance(e, Const) and not is_float(e.dtype) and e.dtype != "bool":
        return sympy.Integer(int(e.value))
    if isinstance(e, Var) and not is_float(e.dtype):
        return var_symbol(e.name)
    if isinstance(e, Builtin):
        return builtin_symbol(e.kind, e.axis)
    if isinstance(e, Cast) and not is_float(e.dtype) and not is_float(e.a.dtype):
        return to_sympy(e.a)
    if isinstance(e, BinOp) and e.op in ("+", "-", "*") and not is_float(e.dtype):
        a, b = to_sympy(e.a), to_sympy(e.b)
        return a + b if e.op == "+" else a - b if e.op == "-" else a * b
    raise NotAffine(e)


def from_sympy(s, names: dict, dtype: str = "int32"):
    """sympy polynomial -> IR; `names` maps symbol names to IR expressions."""
    s = sympy.expand(s)
    if s.is_Integer:
        return Const(int(s), dtype)
    if s.is_Symbol:
        return names[s.name]
    if s.is_Add:
        terms = sorted(s.args, key=lambda t: (t.is_Integer, sympy.default_sort_key(t)))
        out = from_sympy(terms[0], names, dtype)
        for t in terms[1:]:
            coeff, rest = t.as_coeff_Mul()
            if coeff < 0:
                out = BinOp("-", out, from_sympy(-t, names, dtype), dtype)
            else:
                out = BinOp("+", out, from_sympy(t, names, dtype), dtype)
        return out
    if s.is_Mul:
        factors = sorted(s.args, key=lambda t: (not t.is_Integer, sympy.default_sort_key(t)))
        coeff = factors[0] if factors[0].is_Integer else None
        rest = factors[1:] if coeff is not None else factors
        out = from_sympy(rest[0], names, dtype)
        for f in rest[1:]:
            out = BinOp("*", out, from_sympy(f, names, dtype), dtype)
        if coeff is not None:
            if coeff == -1:
                return BinOp("-", Const(0, dtype), out, dtype)
            out = BinOp("*", out, Const(int(coeff), dtype), dtype)
        return out
    if s.is_Pow and s.exp.is_Integer and s.exp > 0:
        base = from_sympy(s.base, names, dtype)
        out = base
        for _ in range(int(s.exp) - 1):
            out = BinOp("*", out, base, dtype)
        return out
    raise NotAffine(s)


def affine_in(expr, symbols: list):
    """expr = sum(coeff[s] * s) + rest, with coefficients and rest free of `symbols`; None when
    expr is not linear in them."""
    expr = sympy.expand(expr)
    coeffs = {}
    rest = expr
    for s in symbols:
        c = sympy.expand(expr).coeff(s, 1)
        if any(c.has(t) for t in symbols):
            return None
        coeffs[s] = c
        rest = sympy.expand(rest - c * s)
    if any(rest.has(s) for s in symbols):
        return None
    return coeffs, rest
