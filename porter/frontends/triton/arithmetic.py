"""Operators of a @triton.jit body as IR (a mixin of KernelConverter, kernels.py): binary and unary
operators with Triton's type promotion, pointer arithmetic, comparisons, `and`/`or`/`not`,
conditional expressions and `tl.where`; the checks that refuse an operand with no port."""

from __future__ import annotations

import ast
import dataclasses

from porter.frontends.triton.retry import _Retype
from porter.frontends.triton.tables import _CMPOPS, _PY_BINOPS
from porter.frontends.triton.values import (
    DTypeValue, PointerValue, RuntimeValue, SlotRef, StaticValue, _is_number, broadcast_shapes, cast,
    computation_type, const_of, pyconst_dtype,
)
from porter.ir.fold import fold
from porter.ir.nodes import BinOp, Builtin, Const, Load, Select, UnaryOp, Var, is_float
from porter.ir.walk import walk_expr


class TritonArithmetic:
    """Mixed into KernelConverter: reads its env, value_of and err."""

    def _dt(self, v) -> str:
        return pyconst_dtype(v.value) if isinstance(v, StaticValue) else v.dtype

    @staticmethod
    def _shape(v) -> tuple:
        return v.shape if isinstance(v, (RuntimeValue, PointerValue)) else ()

    def _as_expr(self, v, dtype):
        if isinstance(v, StaticValue):
            const = const_of(v.value, dtype)
            if v.name and isinstance(const, Const) and const.value == v.value:
                const = dataclasses.replace(const, name=v.name)
            return const
        return cast(v.expr, dtype)

    def _bshape(self, node, *vals):
        shape = ()
        for v in vals:
            shape = broadcast_shapes(shape, self._shape(v))
            if shape is None:
                raise self.err("TP222", "incompatible block shapes: " +
                               " vs ".join(str(self._shape(x)) for x in vals), node)
        return shape

    def _note_float(self, dt, *vals):
        """Evidence: int-typed unknown scalars meeting float data are float."""
        if not is_float(dt):
            return
        for v in vals:
            if isinstance(v, RuntimeValue) and not is_float(v.dtype) and not self._is_index(v.expr):
                self.evidence.float_params |= self._params_in(v.expr)

    def _note_int(self, dt, a, b):
        """Evidence: an unknown scalar compared with integer offsets (`cols < N`, lanes or program
        ids) is an integer, whatever float math it also meets (`tl.sum(x * x) / N`)."""
        if is_float(dt):
            return
        for v, other in ((a, b), (b, a)):
            if isinstance(v, RuntimeValue) and isinstance(other, RuntimeValue) and self._is_index(other.expr) and \
                    not self._is_index(v.expr):
                self.evidence.int_params |= self._params_in(v.expr)

    def _is_index(self, e, depth: int = 0) -> bool:
        """Does e depend on program ids, lanes or loaded data (then it is not a plain scalar)?"""
        if depth > 50:
            return True
        for x in walk_expr(e):
            if isinstance(x, (Builtin, Load)):
                return True
            if isinstance(x, SlotRef) and (self.slots[x.slot].expr is None or
                                           self._is_index(self.slots[x.slot].expr, depth + 1)):
                return True
        return False

    def _params_in(self, e, depth: int = 0) -> set:
        out = set()
        if depth > 50:
            return out
        for x in walk_expr(e):
            if isinstance(x, Var) and x.name in self.unknown:
                out.add(x.name)
            elif isinstance(x, SlotRef) and self.slots[x.slot].expr is not None:
                out |= self._params_in(self.slots[x.slot].expr, depth + 1)
        return out

    def _check_operand(self, v, node):
        if isinstance(v, RuntimeValue) or _is_number(v):
            return
        if isinstance(v, PointerValue):
            raise self.err("TP224", "unsupported arithmetic on a pointer", node)
        what = type(v).__name__
        if isinstance(v, StaticValue):
            what = f"the constant {v.value!r}"
        raise self.err("TP217", f"unsupported operand ({what})", node)

    def binop(self, op, a, b, node):
        if op is None or op in ("**", "@"):
            if op == "**" and isinstance(a, StaticValue) and isinstance(b, StaticValue):
                _check_size("**", a.value, b.value, lambda: self.err("TP225", "the constant power is too large "
                                                                     "for any machine type", node))
                try:
                    return StaticValue(a.value ** b.value)
                except (OverflowError, ZeroDivisionError, TypeError, ValueError) as exc:
                    raise self.err("TP225", f"cannot evaluate constant expression: {exc}", node) from None
            if op == "@":  # Triton's `a @ b` is tl.dot(a, b)
                return self.tile_call("dot", [a, b], {}, node)
            raise self.err("TP217", "unsupported operator", node)
        if isinstance(a, StaticValue) and isinstance(b, StaticValue):
            _check_size(op, a.value, b.value, lambda: self.err("TP225", f"the constant '{op}' is too large for "
                                                               "any machine type", node))
            try:
                return StaticValue(_PY_BINOPS[op](a.value, b.value))
            except Exception as exc:
                raise self.err("TP225", f"cannot evaluate constant expression: {exc}", node) from exc
        if isinstance(a, PointerValue) or isinstance(b, PointerValue):
            return self.pointer_arith(op, a, b, node)
        self._check_operand(a, node)
        self._check_operand(b, node)
        return self.arith(op, a, b, node)

    def pointer_arith(self, op, a, b, node):
        if op == "+" and isinstance(b, PointerValue) and not isinstance(a, PointerValue):
            a, b = b, a
        if not isinstance(a, PointerValue) or isinstance(b, PointerValue) or op not in ("+", "-"):
            raise self.err("TP224", f"unsupported pointer arithmetic ('{op}')", node)
        if isinstance(b, RuntimeValue) and is_float(self._dt(b)):
            self.retype_loaded(b, "int32")  # `table + tl.load(idx_ptr + offs)`: idx_ptr holds indices
            self._integer_params(b)  # `x_ptr + row * N` after `tl.sum(x) / N`: N is a size
        if not (isinstance(b, RuntimeValue) or _is_number(b)) or is_float(self._dt(b)):
            raise self.err("TP224", "pointer offsets must be integers", node)
        if isinstance(b, RuntimeValue):  # a pointer offset is an integer, whatever float math it meets
            self.evidence.int_params |= self._params_in(b.expr)
        shape = self._bshape(node, a, b)
        delta = self._as_expr(b, self._dt(b))
        if delta.dtype == "bool":
            delta = cast(delta, "int32")
        if op == "-":
            delta = fold(UnaryOp("-", delta, delta.dtype))
        if a.offset is None:
            off = delta
        else:
            dt = computation_type(a.offset.dtype, False, delta.dtype, isinstance(b, StaticValue))
            off = fold(BinOp("+", cast(a.offset, dt), cast(delta, dt), dt))
        return PointerValue(a.buffer, off, shape, a.elem)

    def _integers_loaded(self, *operands):
        """An integer-only operator (`//`, `&`, `<<` ...) on a value loaded from a buffer whose
        float32 dtype is only a guess: the buffer holds integers (raises _Retype)."""
        for v in operands:
            if not isinstance(v, StaticValue) and is_float(self._dt(v)):
                self.retype_loaded(v, "int32")
                self._integer_params(v)

    def _integer_params(self, v):
        """Scalar parameters typed float only because they met float data (`x / N`), read
        where only integers go (a pointer offset, `//`): they are integers (raises _Retype)."""
        guessed = {p for p in self._params_in(v.expr) if is_float(self.scalar_dtypes.get(p, ""))}
        if guessed - self.evidence.int_params:
            self.evidence.int_params |= guessed
            raise _Retype()

    def arith(self, op, a, b, node):
        a_s, b_s = isinstance(a, StaticValue), isinstance(b, StaticValue)
        ad, bd = self._dt(a), self._dt(b)
        shape = self._bshape(node, a, b)
        if op in ("&", "|", "^", "<<", ">>"):
            dt = computation_type(ad, a_s, bd, b_s)
            if is_float(dt):
                self._integers_loaded(a, b)
                raise self.err("TP225", f"bitwise '{op}' on floating-point values", node)
            ea, eb = self._as_expr(a, dt), self._as_expr(b, dt)
            if dt == "bool" and op in ("&", "|", "^"):
                cop = {"&": "&&", "|": "||", "^": "!="}[op]
                return RuntimeValue(fold(BinOp(cop, ea, eb, "bool")), shape)
            return RuntimeValue(fold(BinOp(op, ea, eb, dt)), shape)
        if op in ("<", "<=", ">", ">=", "==", "!="):
            dt = computation_type(ad, a_s, bd, b_s)
            self._note_int(dt, a, b)
            self._note_float(dt, a, b)
            return RuntimeValue(fold(BinOp(op, self._as_expr(a, dt), self._as_expr(b, dt), "bool")), shape)
        if op in ("+", "-", "*"):
            dt = computation_type(ad, a_s, bd, b_s)
            self._note_float(dt, a, b)
            if dt == "bool":
                dt = "int32" if op != "*" else "bool"
            return RuntimeValue(fold(BinOp(op, self._as_expr(a, dt), self._as_expr(b, dt), dt)), shape)
        if op == "/":
            dt = computation_type(ad, a_s, bd, b_s, div_or_mod=True)
            if not is_float(dt):
                dt = "float32"
            self._note_float(dt, a, b)
            return RuntimeValue(fold(BinOp("/", self._as_expr(a, dt), self._as_expr(b, dt), dt)), shape)
        if op in ("//", "%"):
            dt = computation_type(ad, a_s, bd, b_s, div_or_mod=True)
            if op == "//" and is_float(dt):
                self._integers_loaded(a, b)
                raise self.err("TP225", "'//' on floating-point values is not supported by Triton",
                               node)
            self._note_float(dt, a, b)
            cop = "/" if op == "//" else "%"
            return RuntimeValue(fold(BinOp(cop, self._as_expr(a, dt), self._as_expr(b, dt), dt)), shape)
        raise self.err("TP217", f"unsupported operator '{op}'", node)

    def _params_in_vals(self, *vals) -> bool:
        return any(isinstance(v, RuntimeValue) and self._params_in(v.expr) for v in vals)

    def unary(self, op, a, node):
        if isinstance(a, StaticValue):
            try:
                return StaticValue({ast.USub: lambda v: -v, ast.UAdd: lambda v: +v, ast.Not: lambda v: not v,
                            ast.Invert: lambda v: ~v}[type(op)](a.value))
            except Exception as exc:
                raise self.err("TP225", f"cannot evaluate constant expression: {exc}", node) from exc
        if not isinstance(a, RuntimeValue):
            raise self.err("TP217", "unsupported operand of a unary operator", node)
        e = a.expr
        if isinstance(op, ast.UAdd):
            return a
        if isinstance(op, ast.USub):
            if e.dtype == "bool":
                e = cast(e, "int32")
            return RuntimeValue(fold(UnaryOp("-", e, e.dtype)), a.shape)
        if isinstance(op, ast.Not):
            return RuntimeValue(fold(UnaryOp("!", cast(e, "bool"), "bool")), a.shape)
        if isinstance(op, ast.Invert):
            if is_float(e.dtype):
                raise self.err("TP225", "'~' on a floating-point value", node)
            if e.dtype == "bool":
                return RuntimeValue(fold(UnaryOp("!", e, "bool")), a.shape)
            return RuntimeValue(fold(UnaryOp("~", e, e.dtype)), a.shape)
        raise self.err("TP217", "unsupported unary operator", node)

    def boolop(self, node, env):
        is_and = isinstance(node.op, ast.And)
        terms, last = [], None
        for sub in node.values:
            v = self.value_of(sub, env)
            if isinstance(v, StaticValue):
                decides = (not v.value) if is_and else bool(v.value)
                if not terms:
                    if decides:
                        return v
                    last = v
                elif decides:
                    return StaticValue(not is_and)
                continue
            if not isinstance(v, RuntimeValue):
                raise self.err("TP217", "unsupported operand of 'and'/'or'", sub)
            terms.append(v)
        if not terms:
            return last
        result = RuntimeValue(cast(terms[0].expr, "bool"), terms[0].shape)
        for v in terms[1:]:
            shape = self._bshape(node, result, v)
            result = RuntimeValue(BinOp("&&" if is_and else "||", result.expr, cast(v.expr, "bool"), "bool"),
                        shape)
        return result

    def compare(self, node, env):
        left = self.value_of(node.left, env)
        result = None
        for op, comp in zip(node.ops, node.comparators):
            right = self.value_of(comp, env)
            if isinstance(op, (ast.Is, ast.IsNot)):
                if isinstance(left, StaticValue) and isinstance(right, StaticValue):
                    r = StaticValue((left.value is right.value) == isinstance(op, ast.Is))
                elif isinstance(left, DTypeValue) and isinstance(right, DTypeValue):  # `dtype is tl.bfloat16`
                    r = StaticValue((left.dtype == right.dtype) == isinstance(op, ast.Is))
                else:
                    none_side = (isinstance(left, StaticValue) and left.value is None) or \
                        (isinstance(right, StaticValue) and right.value is None)
                    if not none_side:
                        raise self.err("TP217", "'is' on runtime values", node)
                    r = StaticValue(not isinstance(op, ast.Is))
            elif isinstance(op, (ast.In, ast.NotIn)):
                if not (isinstance(left, StaticValue) and isinstance(right, StaticValue)):
                    raise self.err("TP217", "'in' on runtime values", node)
                r = StaticValue((left.value in right.value) == isinstance(op, ast.In))
            elif isinstance(left, DTypeValue) and isinstance(right, DTypeValue) and \
                    isinstance(op, (ast.Eq, ast.NotEq)):
                # `x_ptr.dtype.element_ty == tl.float16`: dispatch on a buffer's dtype, at convert time
                r = StaticValue((left.dtype == right.dtype) == isinstance(op, ast.Eq))
            else:
                r = self.binop(_CMPOPS[type(op)], left, right, node)
            if result is None:
                result = r
            elif isinstance(result, StaticValue) and isinstance(r, StaticValue):
                result = StaticValue(result.value and r.value)
            elif isinstance(result, StaticValue):
                result = r if result.value else result
            elif isinstance(r, StaticValue):
                result = result if r.value else r
            else:
                result = RuntimeValue(BinOp("&&", result.expr, r.expr, "bool"), self._bshape(node, result, r))
            left = right
        return result

    def ifexp(self, node, env):
        test = self.value_of(node.test, env)
        if isinstance(test, StaticValue):
            return self.value_of(node.body if test.value else node.orelse, env)
        if not isinstance(test, RuntimeValue) or test.shape != ():
            raise self.err("TP228", "a conditional expression on a block tensor; use tl.where", node)
        a, b = self.value_of(node.body, env), self.value_of(node.orelse, env)
        return self.select(test, a, b, node)

    def select(self, c, a, b, node):
        for v in (a, b):
            self._check_operand(v, node)
        cond = self._as_expr(c, "bool") if isinstance(c, StaticValue) else cast(c.expr, "bool")
        dt = computation_type(self._dt(a), isinstance(a, StaticValue), self._dt(b), isinstance(b, StaticValue))
        self._note_float(dt, a, b)
        shape = self._bshape(node, c, a, b)
        return RuntimeValue(fold(Select(cond, self._as_expr(a, dt), self._as_expr(b, dt), dt)), shape)

    # ------------------------------------------------------------------ inlining


def _check_size(op: str, a, b, error) -> None:
    """Refuse a constant `**` or `<<` whose result would be past 4096 bits before computing it
    (`2 ** 10 ** 9` would take Python minutes and gigabytes); error() makes the diagnostic."""
    import math

    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (a, b)):
        return
    if op == "<<" and b > 4096:
        raise error()
    if op == "**" and b > 0 and abs(a) > 1 and b * math.log2(abs(a)) > 4096:
        raise error()
