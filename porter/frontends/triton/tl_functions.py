"""`tl.*` functions called in a kernel body: one handler per row of porter/tables/triton_calls.py
(a mixin of KernelConverter, through calls.py's TritonCalls).

A handler takes the call's arguments by Triton's own parameter names, bound by Python's
signature rules (`tl.where(c, x, y=0)` and `tl.where(condition=c, x=x, y=0)` alike); a missing
one is TP217. Handlers registered for a name the table does not list as ported, or the other
way round, fail tests/test_triton_calls_table.py.
"""

from __future__ import annotations

import dataclasses
import inspect

from porter.builtins import TRITON_BUILTINS
from porter.frontends.triton.random_calls import RANDOM_CALLS, random_call
from porter.frontends.triton.reshape import interleave, join, reshape
from porter.frontends.triton.tables import _LIBDEVICE_EXTRA, _LOGICAL, _MISSING
from porter.frontends.triton.tiles import TILE_OPS
from porter.frontends.triton.values import (
    BlockPointerValue, PointerValue, StaticValue, RuntimeValue, TupleV, _is_number, broadcast_shapes, cast, computation_type, const_of,
)
from porter.ir.fold import fold
from porter.ir.nodes import BinOp, Builtin, Call, Const, Sync, is_float
from porter.util.numbers import next_power_of_2

#: tl name -> the handler (an unbound TlFunctions method) that converts its calls.
HANDLERS: dict = {}
#: handler -> its signature, read once at registration (binding runs for every tl.* call).
_SIGNATURES: dict = {}


def handles(*names):
    """Register the decorated method as the handler of `tl.<name>` for each name."""
    def register(method):
        _SIGNATURES[method] = inspect.signature(method)
        for name in names:
            HANDLERS[name] = method
        return method
    return register


class TlFunctions:
    """The `tl.*` handlers of KernelConverter. Each is `(self, node, name, <Triton's params>)`."""

    def tl_call(self, name, args, kwargs, node):
        """`tl.<name>(*args, **kwargs)` converted by its handler; refused rows raise their code
        (calls.py's _refuse), any other name TP215."""
        handler = HANDLERS.get(name)
        if handler is None:
            self._refuse(name, node)
            if name in TRITON_BUILTINS or name in _LIBDEVICE_EXTRA:  # math: porter/builtins.py's rows
                return self.math_call(name, list(args), node, libdevice=name not in TRITON_BUILTINS)
            if name in ("jit", "autotune", "heuristics", "Config"):
                raise self.err("TP217", f"triton.{name} inside a kernel", node)
            raise self.err("TP215", f"tl.{name} is not supported yet", node)
        try:
            _SIGNATURES[handler].bind(self, node, name, *args, **kwargs)
        except TypeError as exc:
            raise self.err("TP217", f"tl.{name}: {exc}", node) from None
        return handler(self, node, name, *args, **kwargs)

    # ------------------------------------------------------------------ handled elsewhere

    @handles(*TILE_OPS)
    def _tile_operation(self, node, name, *args, **kwargs):
        return self.tile_call(name, list(args), kwargs, node)

    @handles(*RANDOM_CALLS)
    def _random_stream(self, node, name, *args, **kwargs):
        return random_call(self, name, list(args), kwargs, node)

    @handles("rand", "randint", "randn", "randint4x", "rand4x")
    def _random_numbers(self, node, name, *args, **kwargs):
        return self.random(name, list(args), kwargs, node)

    @handles("make_block_ptr")
    def _make_block_ptr(self, node, name, *args, **kwargs):
        return self.make_block_ptr(list(args), kwargs, node)

    @handles("make_tensor_descriptor")
    def _make_tensor_descriptor(self, node, name, *args, **kwargs):
        return self.make_tensor_descriptor(list(args), kwargs, node)

    @handles("load")
    def _load(self, node, name, *args, **kwargs):
        return self.load(list(args), kwargs, node)

    @handles("store")
    def _store(self, node, name, *args, **kwargs):
        return self.store(list(args), kwargs, node)

    # ------------------------------------------------------------------ programs and lanes

    @handles("program_id", "num_programs")
    def _program(self, node, name, axis=None):
        axis = 0 if axis is None else self._const_int(axis, "the axis", node)
        if not 0 <= axis <= 2:
            raise self.err("TP217", f"tl.{name} axis must be 0, 1 or 2", node)
        return RuntimeValue(Builtin("block_idx" if name == "program_id" else "grid_dim", axis, "int32"))

    @handles("arange")
    def _arange(self, node, name, start, end):
        start = self._const_int(start, "tl.arange bounds", node)
        end = self._const_int(end, "tl.arange bounds", node)
        size = end - start
        if size <= 0 or size & (size - 1):
            raise self.err("TP217", f"tl.arange({start}, {end}): the range must be a positive power of 2", node)
        if size == 1:
            return RuntimeValue(Const(start, "int32"), (1,))
        e = Builtin("thread_idx", 0, "int32")
        if start:
            e = BinOp("+", e, Const(start, "int32"), "int32")
        return RuntimeValue(e, (size,))

    # ------------------------------------------------------------------ element-wise

    @handles("where")
    def _where(self, node, name, condition, x, y):
        if not (isinstance(condition, RuntimeValue) or _is_number(condition)):
            raise self.err("TP217", "tl.where condition must be a value", node)
        return self.select(condition, x, y, node)

    @handles(*_LOGICAL)
    def _logical(self, node, name, input, other):  # the tensor method `a.logical_and(b)`
        return self.binop(_LOGICAL[name], self._as_bool(input, node), self._as_bool(other, node), node)

    @handles("maximum", "minimum")
    def _extreme(self, node, name, x, y, propagate_nan=None):
        return self.min_max("max" if name == "maximum" else "min", x, y, node)

    @handles("clamp")
    def _clamp(self, node, name, x, min, max, propagate_nan=None):  # noqa: A002 (Triton's names)
        return self.min_max("min", self.min_max("max", x, min, node), max, node)

    @handles("cdiv")
    def _cdiv(self, node, name, x, div):
        if isinstance(x, StaticValue) and isinstance(div, StaticValue):
            return StaticValue(-(-x.value // div.value))
        for v in (x, div):
            self._check_operand(v, node)
        dt = computation_type(self._dt(x), isinstance(x, StaticValue), self._dt(div), isinstance(div, StaticValue), True)
        if is_float(dt):
            raise self.err("TP225", "tl.cdiv needs integers", node)
        return RuntimeValue(fold(Call("ceildiv", (self._as_expr(x, dt), self._as_expr(div, dt)), dt)),
                  self._bshape(node, x, div))

    @handles("fdiv", "div_rn")
    def _true_division(self, node, name, x, y, ieee_rounding=None, rounding_mode=None):
        for v in (x, y):
            self._check_operand(v, node)
        dt = computation_type(self._dt(x), isinstance(x, StaticValue), self._dt(y), isinstance(y, StaticValue), True)
        if not is_float(dt):
            raise self.err("TP225", f"tl.{name} needs floating-point operands", node)
        self._note_float(dt, x, y)
        return RuntimeValue(fold(BinOp("/", self._as_expr(x, dt), self._as_expr(y, dt), dt)), self._bshape(node, x, y))

    @handles("cast")
    def _cast(self, node, name, input, *args, **kwargs):
        return self.to(input, list(args), kwargs, node)

    # ------------------------------------------------------------------ compile-time values

    @handles("next_power_of_2")
    def _next_power_of_2(self, node, name, n):
        return StaticValue(next_power_of_2(self._const_int(n, "the argument", node)))

    @handles("constexpr")
    def _constexpr(self, node, name, value):
        return value

    @handles("static_assert")
    def _static_assert(self, node, name, cond, msg=None):
        if isinstance(cond, StaticValue) and not cond.value:
            text = f": {msg.value}" if isinstance(msg, StaticValue) and msg.value else ""
            raise self.err("TP229", f"tl.static_assert failed{text}", node)
        return StaticValue(None)

    @handles("multiple_of", "max_contiguous", "max_constancy")
    def _hint(self, node, name, input, *values):
        return input

    @handles("static_print", "device_print", "device_assert", "assume", "print")
    def _ignored(self, node, name, *args, **kwargs):
        return StaticValue(None)

    @handles("debug_barrier")
    def _barrier(self, node, name):
        if self.tile_mode:  # threads of a program see each other's global writes only past a barrier
            self.out.append(Sync("block", self.loc(node)))
        return StaticValue(None)

    # ------------------------------------------------------------------ new blocks

    @handles("zeros")
    def _zeros(self, node, name, shape, dtype):
        return RuntimeValue(const_of(0, self._dtype_arg(dtype, node)), self._shape_arg(shape, node))

    @handles("full")
    def _full(self, node, name, shape, value, dtype):
        shape, dtype = self._shape_arg(shape, node), self._dtype_arg(dtype, node)
        if isinstance(value, StaticValue):
            return RuntimeValue(const_of(value.value, dtype), shape)
        if isinstance(value, RuntimeValue) and value.shape == ():
            return RuntimeValue(cast(value.expr, dtype), shape)
        raise self.err("TP217", "tl.full value must be a scalar", node)

    @handles("zeros_like", "ones_like")
    def _constant_like(self, node, name, input, dtype=None):
        return self._filled_like(node, name, input, 0 if name == "zeros_like" else 1, dtype)

    @handles("full_like")
    def _full_like(self, node, name, input, value, dtype=None):
        if not isinstance(value, StaticValue):
            raise self.err("TP217", "tl.full_like value must be a constant", node)
        return self._filled_like(node, name, input, value.value, dtype)

    def _filled_like(self, node, name, input, value, dtype):
        if not isinstance(input, RuntimeValue):
            raise self.err("TP217", f"tl.{name} needs a tensor", node)
        given = dtype is not None and dtype is not _MISSING and not (isinstance(dtype, StaticValue) and dtype.value is None)
        return RuntimeValue(const_of(value, self._dtype_arg(dtype, node) if given else input.dtype), input.shape)

    # ------------------------------------------------------------------ shapes

    @handles("reshape", "view")
    def _reshape_to(self, node, name, input, *shape, **kwargs):
        rest = list(shape) or [kwargs.get("shape")]
        shape = rest[0] if len(rest) == 1 else TupleV(tuple(rest))
        return reshape(self, input, self._shape_arg(shape, node), node)

    @handles("ravel", "flatten")
    def _flatten(self, node, name, input, *rest, **kwargs):
        return reshape(self, input, (-1,), node)

    @handles("expand_dims")
    def _expand_dims(self, node, name, input, axis):
        axes = self._shape_arg(axis, node) if not isinstance(axis, StaticValue) or not isinstance(axis.value, int) \
            else (axis.value,)
        if not isinstance(input, (RuntimeValue, PointerValue)):
            raise self.err("TP217", "tl.expand_dims needs a tensor", node)
        rank = len(input.shape) + len(axes)
        axes = sorted(a + rank if a < 0 else a for a in axes)
        new_shape, dim_map, j = [], {}, 0
        for d in range(rank):
            if d in axes:
                new_shape.append(1)
            else:
                dim_map[j] = d
                new_shape.append(input.shape[j])
                j += 1
        return self._reshape(input, tuple(new_shape), dim_map)

    @handles("broadcast_to")
    def _broadcast_to(self, node, name, input, *shape, **kwargs):
        rest = list(shape) or [kwargs.get("shape")]
        shape = self._shape_arg(rest[0] if len(rest) == 1 else TupleV(tuple(rest)), node)
        x = input if isinstance(input, (RuntimeValue, PointerValue)) else RuntimeValue(self._as_expr(input, self._dt(input)), ())
        if broadcast_shapes(x.shape, shape) != shape:
            raise self.err("TP222", f"cannot broadcast {x.shape} to {shape}", node)
        if isinstance(x, PointerValue):
            return PointerValue(x.buffer, x.offset, shape, x.elem)
        return RuntimeValue(x.expr, shape)

    @handles("broadcast")
    def _broadcast(self, node, name, input, other):
        shape = self._bshape(node, input, other)
        return TupleV(tuple(RuntimeValue(v.expr, shape) if isinstance(v, RuntimeValue) else v for v in (input, other)))

    @handles("trans", "permute")
    def _permute(self, node, name, input, *dims, **kwargs):
        dims = list(dims) or ([kwargs["dims"]] if "dims" in kwargs else [])
        if len(dims) == 1 and not (isinstance(dims[0], StaticValue) and isinstance(dims[0].value, int)):
            dims = self._shape_arg(dims[0], node)
        else:
            dims = tuple(self._const_int(d, "a permutation", node) for d in dims)
        return self.permute(input, dims or None, node)

    @handles("split")
    def _split(self, node, name, a):
        return self.split(a, node)

    @handles("join", "interleave")
    def _join(self, node, name, a, b):
        return (join if name == "join" else interleave)(self, a, b, node)

    @handles("advance")
    def _advance(self, node, name, base, offsets):
        if not isinstance(base, BlockPointerValue):
            raise self.err("TP218", "tl.advance needs a block pointer (tl.make_block_ptr)", node)
        deltas = self._values(offsets, len(base.block), "tl.advance offsets", node)
        return dataclasses.replace(base, offsets=tuple(self.binop("+", o, d, node)
                                                       for o, d in zip(base.offsets, deltas)))
