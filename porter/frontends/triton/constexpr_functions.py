"""Python functions Triton runs while it compiles a kernel: `@tl.constexpr def f(dtype)` and
`@triton.constexpr_function`, called in a kernel body with constexprs and dtypes:

    @tl.constexpr
    def scan_accum_type(dtype):
        if dtype.is_bf16() or dtype.is_fp16():
            return tl.float32
        return tl.int64 if dtype.is_int() else dtype

    acc_dtype: tl.constexpr = scan_accum_type(in_ptr.type.element_ty)

tileport evaluates such a function at convert time, as Triton does, over a small subset of
Python (assignments, `if`, `return`, arithmetic, comparisons, `and`/`or`/`not`, conditional
expressions) and dtype values with Triton's dtype methods. Anything else is TP217 naming the
construct. Nothing of the user's is run: the body is read from the AST.
"""

from __future__ import annotations

import ast
import operator
from dataclasses import dataclass

from porter.diagnostics import TileportError
from porter.frontends.triton.values import TL_DTYPES, dtype_predicate

# decorator names (last part) that make a function run at compile time
DECORATORS = ("constexpr", "constexpr_function")
# helpers of triton that only unwrap a constexpr: the identity here
_UNWRAP = ("unwrap_if_constexpr", "_unwrap_if_constexpr", "_constexpr_to_value")

_BITS = {"bool": 1, "int8": 8, "uint8": 8, "int16": 16, "uint16": 16, "float16": 16, "bfloat16": 16,
         "int32": 32, "uint32": 32, "float32": 32, "int64": 64, "uint64": 64, "float64": 64}
_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.LShift: operator.lshift,
           ast.RShift: operator.rshift, ast.BitAnd: operator.and_, ast.BitOr: operator.or_,
           ast.BitXor: operator.xor, ast.Div: operator.truediv, ast.Pow: operator.pow}
_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
            ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.eq, ast.IsNot: operator.ne}


@dataclass(frozen=True)
class Dtype:
    """A Triton dtype as the function sees it (IR name: float32, bfloat16, int64, bool); its
    predicates (`is_bf16()`, `is_int()`) are values.dtype_predicate's."""
    name: str

    @property
    def primitive_bitwidth(self):
        return _BITS[self.name]

    @property
    def int_bitwidth(self):
        return _BITS[self.name]


def _int_dtype(bits, signed):
    return Dtype("bool" if bits == 1 else f"{'' if signed else 'u'}int{bits}")


class _Return(Exception):
    def __init__(self, value):
        self.value = value


class Evaluator:
    """Runs one compile-time function; `lookup(name)` gives the module's names as Python values
    (ints, bools, `Dtype`, the `tl` module as the string "tl") or raises KeyError."""

    def __init__(self, lookup, err):
        self.lookup, self.err = lookup, err

    def call(self, fn: ast.FunctionDef, args: list, depth: int = 0):
        if depth > 16:
            raise self.err(f"'{fn.name}' calls itself too deeply to evaluate", fn)
        params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
        defaults = fn.args.defaults
        if len(args) > len(params):
            raise self.err(f"'{fn.name}' takes {len(params)} arguments", fn)
        env = dict(zip(params, args))
        for p, d in zip(params[len(params) - len(defaults):], defaults):
            env.setdefault(p, self.expr(d, {}, depth))
        missing = [p for p in params if p not in env]
        if missing:
            raise self.err(f"'{fn.name}' is missing arguments {missing}", fn)
        try:
            self.block(fn.body, env, depth)
        except _Return as r:
            return r.value
        return None

    def block(self, body, env, depth):
        for st in body:
            if isinstance(st, ast.Return):
                raise _Return(None if st.value is None else self.expr(st.value, env, depth))
            if isinstance(st, ast.Assign) and all(isinstance(t, ast.Name) for t in st.targets):
                value = self.expr(st.value, env, depth)
                for t in st.targets:
                    env[t.id] = value
            elif isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and st.value:
                env[st.target.id] = self.expr(st.value, env, depth)
            elif isinstance(st, ast.If):
                self.block(st.body if self.expr(st.test, env, depth) else st.orelse, env, depth)
            elif isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant):
                continue  # a docstring
            elif isinstance(st, (ast.Pass, ast.Assert)):
                continue
            else:
                raise self.err(f"'{type(st).__name__}' statement in a compile-time function", st)

    def expr(self, e, env, depth):
        if isinstance(e, ast.Constant):
            return e.value
        if isinstance(e, ast.Name):
            if e.id in env:
                return env[e.id]
            try:
                return self.lookup(e.id)
            except KeyError:
                raise self.err(f"unknown name '{e.id}' in a compile-time function", e) from None
        if isinstance(e, ast.Attribute):
            return self.attribute(self.expr(e.value, env, depth), e)
        if isinstance(e, ast.BinOp) and type(e.op) in _BINARY:
            return _BINARY[type(e.op)](self.expr(e.left, env, depth), self.expr(e.right, env, depth))
        if isinstance(e, ast.UnaryOp):
            v = self.expr(e.operand, env, depth)
            return {ast.Not: operator.not_, ast.USub: operator.neg, ast.UAdd: operator.pos,
                    ast.Invert: operator.invert}[type(e.op)](v)
        if isinstance(e, ast.BoolOp):
            values = (self.expr(v, env, depth) for v in e.values)
            return all(values) if isinstance(e.op, ast.And) else any(values)
        if isinstance(e, ast.Compare):
            left = self.expr(e.left, env, depth)
            for op, comp in zip(e.ops, e.comparators):
                right = self.expr(comp, env, depth)
                if type(op) not in _COMPARE or not _COMPARE[type(op)](left, right):
                    return False
                left = right
            return True
        if isinstance(e, ast.IfExp):
            return self.expr(e.body if self.expr(e.test, env, depth) else e.orelse, env, depth)
        if isinstance(e, ast.Call) and not e.keywords:
            return self.apply(e, [self.expr(a, env, depth) for a in e.args], env, depth)
        raise self.err(f"'{type(e).__name__}' in a compile-time function", e)

    def attribute(self, base, e):
        if base in ("tl", "tl.core") and e.attr in TL_DTYPES:
            return Dtype(TL_DTYPES[e.attr])
        if base == "tl" and e.attr == "core":
            return "tl.core"
        if base in ("tl", "tl.core"):
            return f"{base}.{e.attr}"
        if isinstance(base, Dtype) and dtype_predicate(base.name, e.attr) is not None:
            return lambda d=base, n=e.attr: dtype_predicate(d.name, n)
        if isinstance(base, Dtype) and hasattr(base, e.attr):
            return getattr(base, e.attr)
        raise self.err(f"'.{e.attr}' in a compile-time function", e)

    def apply(self, e, args, env, depth):
        f = e.func
        name = f.id if isinstance(f, ast.Name) else None
        if name in _UNWRAP or (isinstance(f, ast.Attribute) and f.attr in _UNWRAP):
            return args[0]
        if name in ("int", "bool", "float", "min", "max", "abs") and name not in env:
            return {"int": int, "bool": bool, "float": float, "min": min, "max": max, "abs": abs}[name](*args)
        target = self.expr(f, env, depth)
        if target in ("tl.core.get_int_dtype", "tl.get_int_dtype"):
            return _int_dtype(*args)
        if target == "tl.constexpr":
            return args[0]
        if callable(target):
            return target(*args)
        if isinstance(target, ast.FunctionDef):
            return self.call(target, args, depth + 1)
        raise self.err("a call in a compile-time function that tileport cannot evaluate", e)


def evaluate(fn: ast.FunctionDef, args: list, lookup, make_error) -> object:
    """The value of `fn(*args)`; make_error(message, node) builds the TP217 to raise."""
    return Evaluator(lookup, lambda message, node: make_error(message, node)).call(fn, args)


def is_compile_time(fn: ast.FunctionDef, qualname) -> bool:
    """Whether a module-level def is one of Triton's compile-time functions."""
    return any(qualname(d.func if isinstance(d, ast.Call) else d).split(".")[-1] in DECORATORS
               for d in fn.decorator_list)


def error_factory(err):
    """make_error for `evaluate` from a front end's `err(code, message, node)`."""
    return lambda message, node: err("TP217", message, node)


__all__ = ["Dtype", "evaluate", "is_compile_time", "error_factory", "TileportError"]
