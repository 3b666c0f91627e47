"""IR expressions -> TileLang (TVMScript) Python source, with minimal parentheses.

TVMScript is typed: every operand pair must agree, so casts the front end made explicit are
printed as `T.Cast`. C's truncating integer `/` and `%` become `T.truncdiv`/`T.truncmod`.
"""

from __future__ import annotations

import math

from porter.builtins import LOG2E, TILELANG_MATH
from porter.emit.exp2 import rounding_hides
from porter.ir.symbolic_ints import SpelledInt
from porter.ir.tiles import TileLoad
from porter.ir.nodes import (
    BinOp, Builtin, Call, Cast, Const, Load, Select, UnaryOp, Var, is_float,
)

# Python operator precedence (higher binds tighter).
_PREC = {"or": 1, "and": 2, "not": 3, "cmp": 4, "|": 5, "^": 6, "&": 7, "<<": 8, ">>": 8,
         "+": 9, "-": 9, "*": 10, "/": 10, "%": 10, "unary": 11, "atom": 13}
_CMP = ("<", "<=", ">", ">=", "==", "!=")
_WARP_CALLS = {"shfl": "T.shfl_sync", "shfl_down": "T.shfl_down", "shfl_up": "T.shfl_up",
               "shfl_xor": "T.shfl_xor", "ballot": "T.ballot_sync", "any": "T.any_sync",
               "all": "T.all_sync"}


def dtype_ref(dtype: str) -> str:
    return f"T.{dtype}" if dtype != "bool" else '"bool"'


class ExprEmitter:
    """Prints expressions; `names` renames IR variables, `builtins` maps geometry to source."""

    def __init__(self, names: dict, builtins: dict, constants=(), exp2_float32: bool = False):
        self.names = names
        self.builtins = builtins
        self.constants = set(constants)  # named constants in scope (Triton constexprs)
        self.exp2_float32 = exp2_float32  # the original computes float32 exp as exp2 (Triton)

    def __call__(self, e) -> str:
        return self.emit(e)[0]

    def emit(self, e):
        if isinstance(e, Const):
            spelled = self.spelled(e)
            return spelled if spelled is not None else (self.const(e), _PREC["atom"])
        if isinstance(e, Var):
            return self.names.get(e.name, e.name), _PREC["atom"]
        if isinstance(e, Builtin):
            text = self.builtins[(e.kind, e.axis)]
            if e.dtype != "int32":
                return f"T.Cast({dtype_ref(e.dtype)}, {text})", _PREC["atom"]
            return text, _PREC["atom"] if text.isidentifier() or text.isdigit() else _PREC["+"]
        if isinstance(e, Load):
            return f"{self.names.get(e.buffer, e.buffer)}[{self(e.index)}]", _PREC["atom"]
        if isinstance(e, TileLoad):
            indices = ", ".join(self(i) for i in e.indices)
            return f"{self.names.get(e.buffer, e.buffer)}[{indices}]", _PREC["atom"]
        if isinstance(e, Cast):
            if _is_exp(e.a) and rounding_hides(e.dtype):
                return f"T.Cast({dtype_ref(e.dtype)}, {self.exp2(e.a)})", _PREC["atom"]
            return f"T.Cast({dtype_ref(e.dtype)}, {self(e.a)})", _PREC["atom"]
        if isinstance(e, Select):
            return f"T.if_then_else({self(e.cond)}, {self(e.a)}, {self(e.b)})", _PREC["atom"]
        if isinstance(e, Call):
            if e.func in _WARP_CALLS:
                # shuffles: (value, lane or delta[, width[, mask]]); votes: (predicate[, mask])
                given = 1 if e.func in ("ballot", "any", "all") else 3
                args = [self(a) for a in e.args[:given]] + [f"mask={self(m)}" for m in e.args[given:]]
                return f"{_WARP_CALLS[e.func]}({', '.join(args)})", _PREC["atom"]
            if e.func == "bitcast":  # the same bits as another type of their width
                return f"T.reinterpret({self(e.args[0])}, {dtype_ref(e.dtype)})", _PREC["atom"]
            if e.func == "ceildiv":
                return f"T.ceildiv({', '.join(self(a) for a in e.args)})", _PREC["atom"]
            if e.func == "philox":  # the module's macro (templates/runtime.py.j2): four words
                *counters, word = e.args
                return f"_philox({', '.join(self(a) for a in counters)})[{int(word.value)}]", _PREC["atom"]
            if e.dtype in ("float16", "bfloat16") and e.func not in ("max", "min"):
                # Half-precision math is computed in float32 and rounded once, as CUDA's h* functions do.
                wide = Call(e.func, tuple(Cast("float32", a) for a in e.args), "float32")
                if e.func == "exp" and rounding_hides(e.dtype):
                    return f"T.Cast({dtype_ref(e.dtype)}, {self.exp2(wide)})", _PREC["atom"]
                return f"T.Cast({dtype_ref(e.dtype)}, {self(wide)})", _PREC["atom"]
            if _is_exp(e) and self.exp2_float32:
                return self.exp2(e), _PREC["atom"]
            if e.func == "round":
                # C's round: halfway cases away from zero, on every target (T.round is not)
                x = self(e.args[0])
                kind = dtype_ref(e.dtype)
                return (f"T.if_then_else(T.abs({x} - T.trunc({x})) >= {kind}(0.5), T.trunc({x}) + "
                        f"T.copysign({kind}(1.0), {x}), T.trunc({x}))"), _PREC["atom"]
            args = ", ".join(self(a) for a in e.args)
            return f"{TILELANG_MATH[e.func]}({args})", _PREC["atom"]
        if isinstance(e, UnaryOp):
            if e.op == "!":
                return f"T.Not({self(e.a)})", _PREC["atom"]
            inner, prec = self.emit(e.a)
            if prec < _PREC["unary"]:
                inner = f"({inner})"
            return f"{e.op}{inner}", _PREC["unary"]
        if isinstance(e, BinOp):
            return self.binop(e)
        raise TypeError(f"cannot emit {e!r}")

    def binop(self, e):
        op = e.op
        if op == "&&":
            return f"T.And({self(e.a)}, {self(e.b)})", _PREC["atom"]
        if op == "||":
            return f"T.Or({self(e.a)}, {self(e.b)})", _PREC["atom"]
        if op in ("/", "%") and not is_float(e.dtype):
            fn = "T.truncdiv" if op == "/" else "T.truncmod"
            return f"{fn}({self(e.a)}, {self(e.b)})", _PREC["atom"]
        if op == "%":
            return f"T.fmod({self(e.a)}, {self(e.b)})", _PREC["atom"]
        prec = _PREC["cmp"] if op in _CMP else _PREC[op]
        left, lp = self.emit(e.a)
        right, rp = self.emit(e.b)
        # comparisons never chain in the output; the right operand of a non-commutative op
        # needs parentheses at equal precedence.
        if lp < prec or (op in _CMP and lp == prec):
            left = f"({left})"
        if rp < prec or (rp == prec and not (op in ("+", "*") and _assoc(e.b, op))):
            right = f"({right})"
        return f"{left} {op} {right}", prec

    def exp2(self, e: Call) -> str:
        """float32 exp(x) as exp2(x * log2 e): see porter/emit/exp2.py for when it may."""
        x, prec = self.emit(e.args[0])
        x = x if prec >= _PREC["*"] else f"({x})"
        return f"T.exp2({x} * T.float32({float_literal(LOG2E)}))"

    def spelled(self, e: Const):
        """(text, precedence) of an integer constant transforms/spelling.py spelled, else None."""
        if not isinstance(e.value, SpelledInt) or e.name in self.constants:
            return None
        if e.dtype == "int32":
            return e.value.text, e.value.precedence
        return f"T.{e.dtype}({e.value.text})", _PREC["atom"]

    def const(self, e: Const) -> str:
        if e.name in self.constants:
            return e.name
        if e.dtype == "bool":
            return "True" if e.value else "False"
        if is_float(e.dtype):
            value = float(e.value)
            if math.isinf(value):
                return f"{'-' if value < 0 else ''}T.infinity({dtype_ref(e.dtype)})"
            if math.isnan(value):
                return f'T.{e.dtype}("{value}")'
            return f"T.{e.dtype}({float_literal(value)})"
        if e.dtype == "int32":
            return str(int(e.value)) if e.value >= 0 else f"({int(e.value)})"
        return f"T.{e.dtype}({int(e.value)})"


def _is_exp(e) -> bool:
    return isinstance(e, Call) and e.func == "exp" and e.dtype == "float32"


def tuple_text(items) -> str:
    """A tuple literal: `(a,)` for one item, `(a, b)` for more (no magic trailing comma)."""
    items = list(items)
    return f"({items[0]},)" if len(items) == 1 else "(" + ", ".join(items) + ")"


def float_literal(value: float) -> str:
    """A float as Python reads it back exactly, spelled as black spells it (`1e38`)."""
    return repr(value).replace("e+", "e")


def _assoc(e, op: str) -> bool:
    """a + (b + c) may print as a + b + c only for integer + and * (float reassociation changes
    rounding, so float operands keep their parentheses)."""
    return isinstance(e, BinOp) and e.op == op and not is_float(e.dtype)
