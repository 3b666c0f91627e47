"""Calls in a Triton kernel body: `tl.*` functions, Python builtins, math and libdevice,
casts, random numbers, block pointers and tensor descriptors, and the tile operations (a mixin
of KernelConverter, kernels.py)."""

from __future__ import annotations

import ast
import dataclasses
import math

from porter.builtins import TRITON_BUILTINS
from porter.frontends.triton.random import normal, philox_words, uniform
from porter.frontends.triton.constexpr_functions import Dtype, evaluate
from porter.frontends.triton.retry import _Retype
from porter.frontends.triton.tables import (
    _FP32_ONLY, _LIBDEVICE_EXTRA, _LIBDEVICE_FP32_ONLY, _LIBDEVICE_PREDICATES,
    _MISSING,
)
from porter.frontends.triton.combine import reduce_with
from porter.frontends.triton.reshape import relane
from porter.frontends.triton.tiles import TILE_OPS, NeedTiles
from porter.frontends.triton.tl_functions import TlFunctions
from porter.tables.triton_calls import REFUSAL
from porter.frontends.triton.values import (
    BlockPointerValue, DTypeValue, FnV, PointerValue, StaticValue, SlotRef, TileRef, TL_DTYPES, TL_UNSUPPORTED_DTYPES, RuntimeValue, TupleV,
    cast, computation_type, const_of, dtype_predicate, pyconst_dtype, remap,
)
from porter.ir.fold import fold
from porter.ir.nodes import Builtin, Call, Cast, Const, Load, Select, Var, dtype_bits, is_float
from porter.ir.walk import map_expr, walk_expr


class TritonCalls(TlFunctions):
    """`tl.*` and builtin calls of KernelConverter."""

    # ------------------------------------------------------------------ calls

    def call(self, node, env):
        f = self.value_of(node.func, env)
        if isinstance(f, FnV) and f.kind in ("tl", "method") and f.name not in TILE_OPS:
            self._refuse(f.name, node)
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            raise self.err("TP217", "*args / **kwargs in calls are not supported", node)
        args = [self.value_of(a, env) for a in node.args]
        kwargs = {k.arg: self.value_of(k.value, env) for k in node.keywords}
        if isinstance(f, DTypeValue) and len(args) == 1 and not kwargs:
            return self.to(args[0], [f], {}, node)  # `tl.float32(-float("inf"))`: a typed scalar
        if not isinstance(f, FnV):
            raise self.err("TP217", "this value is not callable in a kernel", node)
        if f.kind == "jit":
            return self.inline(f.node, args, kwargs, node, f.bound)
        if f.kind == "compile_time":
            return self.compile_time_call(f, args, kwargs, node)
        if f.kind == "py":
            return self.python_builtin(f.name, args, kwargs, node)
        if f.kind == "pymath":
            if all(isinstance(a, StaticValue) for a in args) and hasattr(math, f.name):
                return StaticValue(getattr(math, f.name)(*(a.value for a in args)))
            raise self.err("TP217", f"math.{f.name} on runtime values; use tl.* functions", node)
        if f.kind == "libdevice":
            return self.math_call(f.name, args, node, libdevice=True)
        if f.kind == "dtype_pred":
            return StaticValue(bool(dtype_predicate(f.bound.dtype, f.name)))
        if f.kind == "method":
            if f.name == "to":
                return self.to(f.bound, args, kwargs, node)
            return self.tl_call(f.name, [f.bound] + args, kwargs, node)
        return self.tl_call(f.name, args, kwargs, node)

    def _refuse(self, name, node):
        """The refusing row of `tl.<name>` (porter/tables/triton_calls.py) raised, if it has one;
        any atomic the table does not name is refused as the bitwise ones are."""
        row = REFUSAL.get(name) or (REFUSAL["atomic_and"] if name.startswith("atomic_") else None)
        if row is not None:
            raise self.err(row.code, f"tl.{name} {row.why}", node)

    @staticmethod
    def _arg(args, kwargs, i, name, default=_MISSING):
        if i is not None and i < len(args):
            return args[i]
        if name in kwargs:
            return kwargs[name]
        return default

    def _need(self, args, kwargs, i, name, node, fname):
        v = self._arg(args, kwargs, i, name)
        if v is _MISSING:
            raise self.err("TP217", f"{fname}: missing argument '{name}'", node)
        return v

    def _const_int(self, v, what, node) -> int:
        if isinstance(v, StaticValue) and isinstance(v.value, int) and not isinstance(v.value, bool):
            return v.value
        raise self.err("TP217", f"{what} must be a compile-time integer", node)

    def _shape_arg(self, v, node) -> tuple:
        if isinstance(v, TupleV):
            return tuple(self._const_int(i, "a block shape", node) for i in v.items)
        if isinstance(v, StaticValue) and isinstance(v.value, (tuple, list)):
            return tuple(int(i) for i in v.value)
        if isinstance(v, StaticValue) and isinstance(v.value, int):
            return (v.value,)
        raise self.err("TP217", "a block shape must be a tuple of compile-time integers", node)

    def _dtype_arg(self, v, node) -> str:
        if isinstance(v, DTypeValue) and v.dtype in TL_UNSUPPORTED_DTYPES:
            raise self.err("TP225", f"tl.{v.dtype} (fp8) is not supported yet", node)
        if isinstance(v, DTypeValue):
            return v.dtype
        if isinstance(v, StaticValue) and isinstance(v.value, str) and v.value in TL_DTYPES:
            return TL_DTYPES[v.value]
        raise self.err("TP217", "expected a dtype (tl.float32, ...)", node)

    def python_builtin(self, name, args, kwargs, node):
        if name in ("print", "isinstance"):
            return StaticValue(None)
        if all(isinstance(a, StaticValue) for a in args) and not kwargs:
            try:
                fn = {"min": min, "max": max, "abs": abs, "int": int, "float": float, "bool": bool,
                      "len": len, "round": round}[name]
                return StaticValue(fn(*(a.value for a in args)))
            except Exception as exc:
                raise self.err("TP217", f"{name}(...) on these constants: {exc}", node) from exc
        if name == "len" and args and isinstance(args[0], TupleV):
            return StaticValue(len(args[0].items))
        if name == "abs" and len(args) == 1 and isinstance(args[0], RuntimeValue):
            return self.math_call("abs", args, node)
        if name in ("min", "max") and len(args) >= 2 and not kwargs:
            # Triton's builtin min/max on tensors: tl.minimum/maximum, left to right
            out = args[0]
            for a in args[1:]:
                out = self.min_max(name, out, a, node)
            return out
        if name == "range":
            raise self.err("TP210", "loops are not supported yet", node)
        raise self.err("TP217", f"Python {name}() on runtime values is not supported", node)

    @staticmethod
    def _items(v):
        """The items of a tuple value (a TupleV, or a compile-time tuple as StaticValue items); None
        for anything else."""
        return v.items if isinstance(v, TupleV) else \
            tuple(StaticValue(x) for x in v.value) if isinstance(v, StaticValue) and isinstance(v.value, (tuple, list)) else None

    def _values(self, v, n, what, node) -> tuple:
        """A tuple of n scalar runtime values (RuntimeValue or StaticValue)."""
        items = self._items(v)
        if items is None or len(items) != n or not all(
                isinstance(x, StaticValue) or (isinstance(x, RuntimeValue) and x.shape == ()) for x in items):
            raise self.err("TP218", f"{what} must be a tuple of {n} scalars", node)
        return tuple(items)

    def make_block_ptr(self, args, kwargs, node):
        base = self._need(args, kwargs, 0, "base", node, "tl.make_block_ptr")
        block = self._shape_arg(self._need(args, kwargs, 4, "block_shape", node, "tl.make_block_ptr"), node)
        base = self._pointer(base, node, "tl.make_block_ptr")
        if base.shape != ():
            raise self.err("TP218", "tl.make_block_ptr needs a scalar base pointer", node)
        dims = len(block)
        shape, strides, offsets = (
            self._values(self._need(args, kwargs, i, key, node, "tl.make_block_ptr"), dims,
                         f"tl.make_block_ptr {key}", node)
            for i, key in ((1, "shape"), (2, "strides"), (3, "offsets")))
        self._note_fastest_stride(base.buffer, strides, self._arg(args, kwargs, 5, "order", None))
        return BlockPointerValue(base.buffer, base.offset, shape, strides, offsets, block, base.elem)

    def _note_fastest_stride(self, buffer, strides, order):
        """`order` lists a block pointer's dimensions from the fastest-varying: its first names
        the dimension whose stride the source declares contiguous (`order=(0, 1)`: K read as
        (HEAD_DIM, BLOCK_N) with the head dimension innermost). The copy rule reads it to
        stage such a tile transposed, rows contiguous (copies._transposed_gathers)."""
        items = self._items(order) or ()
        if len(items) != len(strides) or not all(isinstance(x, StaticValue) and isinstance(x.value, int) for x in items):
            return
        stride = strides[items[0].value] if 0 <= items[0].value < len(strides) else None
        if isinstance(stride, RuntimeValue) and isinstance(stride.expr, Var) and stride.expr.name in self.scalar_dtypes:
            self.evidence.fastest_strides.setdefault(buffer, set()).add(stride.expr.name)

    def make_tensor_descriptor(self, args, kwargs, node):
        """A tensor descriptor: a block pointer whose window offsets each load/store names,
        always bounds-checked (zero padding) as TMA does."""
        base = self._pointer(self._need(args, kwargs, 0, "base", node, "tl.make_tensor_descriptor"),
                             node, "tl.make_tensor_descriptor")
        block = self._shape_arg(self._need(args, kwargs, 3, "block_shape", node,
                                           "tl.make_tensor_descriptor"), node)
        if base.shape != ():
            raise self.err("TP218", "tl.make_tensor_descriptor needs a scalar base pointer", node)
        shape, strides = (
            self._values(self._need(args, kwargs, i, key, node, "tl.make_tensor_descriptor"), len(block),
                         f"tl.make_tensor_descriptor {key}", node)
            for i, key in ((1, "shape"), (2, "strides")))
        return BlockPointerValue(base.buffer, base.offset, shape, strides, None, block, base.elem)

    def _descriptor_window(self, desc, offsets, node):
        offsets = self._values(offsets, len(desc.block), "the descriptor offsets", node)
        return dataclasses.replace(desc, offsets=offsets), StaticValue(tuple(range(len(desc.block))))

    def _block_window(self, bp, check, node, what):
        """A block pointer as (element pointer block, mask or None) for tl.load / tl.store."""
        rank = len(bp.block)
        dims = ()
        if check not in (None, _MISSING) and not (isinstance(check, StaticValue) and check.value is None):
            dims = tuple(self._const_int(d, "a boundary_check dim", node) for d in (
                check.items if isinstance(check, TupleV) else
                (StaticValue(x) for x in check.value) if isinstance(check, StaticValue) and isinstance(check.value, (tuple, list))
                else (check,)))
        ptr = PointerValue(bp.buffer, bp.base, (), bp.elem)
        mask = None
        for d in range(rank):
            lane_shape = tuple(bp.block[d] if j == d else 1 for j in range(rank))
            lane = RuntimeValue(Builtin("thread_idx", rank - 1 - d, "int32"), lane_shape)
            index = self.binop("+", bp.offsets[d], lane, node)
            ptr = self.binop("+", ptr, self.binop("*", index, _wide(bp.strides[d]), node), node)
            if d in dims:
                inside = self.binop("<", index, bp.shape[d], node)
                start = bp.offsets[d]
                if not (isinstance(start, StaticValue) and start.value >= 0):
                    inside = self.binop("&", self.binop(">=", index, StaticValue(0), node), inside, node)
                mask = inside if mask is None else self.binop("&", mask, inside, node)
        if ptr.shape != bp.block:
            ptr = PointerValue(ptr.buffer, ptr.offset, bp.block, ptr.elem)
        return ptr, mask

    def random(self, name, args, kwargs, node):
        """tl.rand & co.: Triton's Philox stream, computed exactly (random.py)."""
        seed = self._need(args, kwargs, 0, "seed", node, f"tl.{name}")
        offset = self._need(args, kwargs, 1, "offset", node, f"tl.{name}")
        rounds = self._arg(args, kwargs, 2, "n_rounds", StaticValue(10))
        if not (isinstance(rounds, StaticValue) and rounds.value == 10):
            raise self.err("TP213", f"tl.{name} with n_rounds other than 10 is not supported", node)
        for v, what in ((seed, "seed"), (offset, "offset")):
            if not (isinstance(v, RuntimeValue) or (isinstance(v, StaticValue) and isinstance(v.value, int))) or \
                    is_float(self._dt(v)):
                raise self.err("TP213", f"the {what} of tl.{name} must be an integer", node)
        if self._shape(seed) != ():
            raise self.err("TP213", f"the seed of tl.{name} must be a scalar", node)
        shape = self._shape(offset)
        scratch = {}

        def bind(hint, expr):
            self.bind(hint, RuntimeValue(fold(expr), shape), scratch, node, materialize=True)
            return scratch[hint].expr

        words = philox_words(self._as_expr(seed, self._dt(seed)),
                             self._as_expr(offset, self._dt(offset)), bind)
        if name == "randint":
            return RuntimeValue(Cast("int32", words(0)), shape)
        if name == "randint4x":
            return TupleV(tuple(RuntimeValue(Cast("int32", words(i)), shape) for i in range(4)))
        if name == "rand":
            return RuntimeValue(uniform(words(0)), shape)
        if name == "rand4x":
            return TupleV(tuple(RuntimeValue(uniform(words(i)), shape) for i in range(4)))
        return RuntimeValue(normal(uniform(words(0)), uniform(words(1))), shape)

    def tile_call(self, name, args, kwargs, node):
        """Reductions, scans and tl.dot: tile operations (tiles.py), in tile mode only."""
        if not self.tile_mode:
            raise NeedTiles()
        ops = self.tile_ops
        if name == "reduce":
            keep = self._arg(args, kwargs, 3, "keep_dims", StaticValue(False))
            return reduce_with(self, self._need(args, kwargs, 0, "input", node, "tl.reduce"),
                               self._need(args, kwargs, 1, "axis", node, "tl.reduce"),
                               self._need(args, kwargs, 2, "combine_fn", node, "tl.reduce"),
                               bool(keep.value) if isinstance(keep, StaticValue) else False, node)
        x = self._need(args, kwargs, 0, "input", node, f"tl.{name}")
        keep = self._arg(args, kwargs, None, "keep_dims", StaticValue(False))
        keep = bool(keep.value) if isinstance(keep, StaticValue) else False
        if name == "dot":
            b = self._need(args, kwargs, 1, "other", node, "tl.dot")
            acc = self._arg(args, kwargs, 2, "acc", None)
            if isinstance(acc, StaticValue) and acc.value is None:
                acc = None
            if acc is not None and not isinstance(acc, RuntimeValue):
                raise self.err("TP211", "tl.dot acc must be a block tensor", node)
            out = self._arg(args, kwargs, None, "out_dtype", None)
            out = self._dtype_arg(out, node) if isinstance(out, DTypeValue) else None
            return ops.dot(x, b, acc, out, node, _dot_precision(self._arg(args, kwargs, 3, "input_precision", None),
                                                                self._arg(args, kwargs, 4, "allow_tf32", None)))
        axis = self._arg(args, kwargs, 1, "axis", None)
        dtype = self._arg(args, kwargs, None, "dtype", None)
        dtype = self._dtype_arg(dtype, node) if isinstance(dtype, DTypeValue) else None
        if name == "cumsum":
            rev = self._arg(args, kwargs, 2, "reverse", StaticValue(False))
            return ops.cumsum(x, axis, bool(rev.value) if isinstance(rev, StaticValue) else False, node, dtype)
        if name in ("argmax", "argmin"):
            return ops.arg_reduce(name[3:], x, axis, keep, node)
        if name in ("max", "min"):
            indices = self._arg(args, kwargs, 2, "return_indices", StaticValue(False))
            if isinstance(indices, StaticValue) and indices.value:
                return TupleV((ops.reduce(name, x, axis, keep, node),
                               ops.arg_reduce(name, x, axis, keep, node)))
        return ops.reduce(name, x, axis, keep, node, dtype)

    def min_max(self, fname, a, b, node):
        if isinstance(a, StaticValue) and isinstance(b, StaticValue):
            return StaticValue(max(a.value, b.value) if fname == "max" else min(a.value, b.value))
        for v in (a, b):
            self._check_operand(v, node)
        dt = computation_type(self._dt(a), isinstance(a, StaticValue), self._dt(b), isinstance(b, StaticValue))
        self._note_float(dt, a, b)
        return RuntimeValue(fold(Call(fname, (self._as_expr(a, dt), self._as_expr(b, dt)), dt)),
                  self._bshape(node, a, b))

    def math_call(self, name, args, node, libdevice: bool = False):
        if libdevice and name in _LIBDEVICE_PREDICATES and len(args) == 1:
            return self._float_predicate(name, args[0], node)
        entry = TRITON_BUILTINS.get(name)
        if entry is None and libdevice and name in _LIBDEVICE_EXTRA:
            entry = ("math", _LIBDEVICE_EXTRA[name])
        if entry is None:
            where = "libdevice" if libdevice else "tl"
            raise self.err("TP215", f"{where}.{name} is not supported yet", node)
        kind, canonical = entry
        if kind == "binop":
            return self.tl_call("fdiv", args[:2], {}, node)
        for v in args:
            self._check_operand(v, node)
        if not args:
            raise self.err("TP217", f"{name}() needs arguments", node)
        if len(args) == 1:
            dt = self._dt(args[0])
        else:
            dt = self._dt(args[0])
            tensor_seen = not isinstance(args[0], StaticValue)
            for v in args[1:]:
                dt = computation_type(dt, not tensor_seen, self._dt(v), isinstance(v, StaticValue))
                tensor_seen = tensor_seen or not isinstance(v, StaticValue)
        fp_only = name in _FP32_ONLY or canonical in _FP32_ONLY or \
            (libdevice and name in _LIBDEVICE_FP32_ONLY)
        if fp_only and dt not in ("float32", "float64"):
            if isinstance(args[0], StaticValue) and len(args) == 1:
                dt = pyconst_dtype(float(args[0].value))
            elif not is_float(dt) and self._params_in_vals(*args):
                self._note_float("float32", *args)
                dt = "float32"
            else:
                fn = f"{'libdevice' if libdevice else 'tl'}.{name}"
                raise self.err("TP225", f"{fn} expects float32 or float64 input, got {dt}; cast "
                               "with .to(tl.float32)", node)
        else:
            self._note_float(dt, *args)
        exprs = tuple(self._as_expr(v, dt) for v in args)
        return RuntimeValue(Call(canonical, exprs, dt), self._bshape(node, *args))

    def compile_time_call(self, f, args, kwargs, node):
        """`@tl.constexpr def f(dtype)` called in the kernel: run at convert time, as Triton
        runs it at compile time (constexpr_functions.py), on constexprs and dtypes."""
        if kwargs:
            raise self.err("TP217", f"keyword arguments to the compile-time function '{f.name}'", node)
        values = []
        for a in args:
            if isinstance(a, StaticValue):
                values.append(a.value)
            elif isinstance(a, DTypeValue) and a.param is None:
                values.append(Dtype(a.dtype))
            else:
                raise self.err("TP217", f"the compile-time function '{f.name}' takes constexprs and "
                               "dtypes only", node)
        result = evaluate(f.node, values, f.bound.compile_time_lookup,
                          lambda message, where: self.err("TP217", message, node))
        if isinstance(result, Dtype):
            return DTypeValue(result.name)
        if isinstance(result, (int, float, bool)) or result is None:
            return StaticValue(result)
        raise self.err("TP217", f"the compile-time function '{f.name}' returned a value tileport "
                       "cannot use", node)

    def _as_bool(self, v, node):
        """A logical operand: int1 as it is, any other value tested against zero."""
        if isinstance(v, RuntimeValue) and self._dt(v) == "bool":
            return v
        return self.binop("!=", v, StaticValue(0), node)

    def _float_predicate(self, name, x, node):
        """libdevice's int32 predicates on floats (`isnan(x)`), as Triton returns them."""
        self._check_operand(x, node)
        if not isinstance(x, RuntimeValue):
            raise self.err("TP217", f"libdevice.{name} of a non-tensor", node)
        test = Call(_LIBDEVICE_PREDICATES[name], (x.expr,), "bool")
        return RuntimeValue(cast(test, "int32"), x.shape)

    def bitcast(self, x, dtype, node):
        """`x.to(tl.int32, bitcast=True)`: the same bits read as another type of their width."""
        if not isinstance(x, RuntimeValue):
            raise self.err("TP225", "a bitcast needs a tensor (not a constant or a pointer)", node)
        if dtype_bits(x.dtype) != dtype_bits(dtype) and dtype_bits(dtype) == 16:
            self.retype_loaded(x, "float16")  # loaded from a buffer of guessed float32: 16-bit
        if dtype_bits(x.dtype) != dtype_bits(dtype) or "bool" in (x.dtype, dtype):
            raise self.err("TP225", f"a bitcast from {x.dtype} to {dtype} changes the width; Triton "
                           "needs the same number of bits", node)
        if x.dtype == dtype:
            return x
        return RuntimeValue(Call("bitcast", (x.expr,), dtype), x.shape)

    def to(self, x, args, kwargs, node):
        target = self._arg(args, kwargs, 0, "dtype")
        if target is _MISSING:
            raise self.err("TP217", ".to() needs a dtype", node)
        dtype = self._dtype_arg(target, node)
        bitcast = self._arg(args, kwargs, 2, "bitcast", StaticValue(False))
        if not isinstance(bitcast, StaticValue):
            raise self.err("TP225", "bitcast= must be a compile-time constant", node)
        if bitcast.value:
            return self.bitcast(x, dtype, node)
        if isinstance(x, StaticValue):
            return RuntimeValue(const_of(x.value, dtype))
        if isinstance(x, PointerValue):
            raise self.err("TP224", "pointer casts are not supported yet", node)
        if not isinstance(x, RuntimeValue):
            raise self.err("TP217", ".to() of a non-tensor", node)
        # a scalar argument made float (`eps.to(tl.float32)`) is one, unless it is also an integer
        self._note_float(dtype, x)
        if dtype in ("float32", "float64"):
            buf = self._loaded_buffer(x.expr)
            if buf is not None and self.buffer_dtypes.get(buf) in ("float32", "float16"):
                self.evidence.buffer_hints.setdefault(buf, "float16")
        return RuntimeValue(cast(x.expr, dtype), x.shape)

    def _explicit_cast(self, e):
        while isinstance(e, SlotRef) and self.slots[e.slot].expr is not None:
            e = self.slots[e.slot].expr
        return e if isinstance(e, Cast) else None

    def retype_loaded(self, v, dtype):
        """When `v` was loaded from a buffer whose dtype is only a guess (float32: nothing in the
        file says), suggest `dtype` for it and convert again (raises _Retype): the other tl.dot
        operand's 16-bit type, or int32 for a value used as a pointer offset."""
        buf = self._loaded_buffer(getattr(v, "expr", None))
        if buf is None and hasattr(v, "expr"):
            buf = self._tile_source(v.expr)
        if buf is None and hasattr(v, "expr"):  # `end - start`, both loaded: through the locals
            sources = self._sources(v.expr)
            buf = sources.pop() if len(sources) == 1 else None
        if buf is None or buf not in self.guessed or self.buffer_dtypes.get(buf) != "float32" or \
                dtype not in ("float16", "bfloat16", "int32") or self.evidence.buffer_hints.get(buf) == dtype:
            return
        self.evidence.buffer_hints[buf] = dtype
        raise _Retype()

    @staticmethod
    def _tile_source(e):
        """The buffer a value was loaded from, when its expression loads from one buffer only."""
        buffers = {sub.buffer for sub in walk_expr(e) if isinstance(sub, Load)} if e is not None else set()
        return buffers.pop() if len(buffers) == 1 else None

    def split(self, x, node):
        """`tl.split(a)`: a's last dimension, of size 2, as two blocks (`re, im =
        tl.split(pairs)`): a's expression with that lane read at 0 and at 1, the lanes to its
        left one axis lower. Locals are read through their values, and a block held in a
        fragment (tile mode) at a constant index of its last dimension."""
        if not isinstance(x, RuntimeValue) or not x.shape or x.shape[-1] != 2:
            raise self.err("TP223", "tl.split needs a block whose last dimension is 2", node)
        expr = self._through_locals(x.expr, node)
        shape = x.shape[:-1]

        def half(c):  # lane 0 fixed at c, the lanes to its left one axis lower
            lanes = {0: Const(c, "int32")} | {a: Builtin("thread_idx", a - 1, "int32")
                                              for a in range(1, len(x.shape))}
            return RuntimeValue(fold(relane(expr, lanes)), shape)
        return TupleV((half(0), half(1)))

    def _through_locals(self, e, node, depth: int = 0):
        """The expression with each local replaced by its value at the referencing lanes (a
        fragment's by a read of the fragment)."""
        def step(n):
            if isinstance(n, SlotRef):
                slot = self.slots[n.slot]
                if slot.tile is not None and slot.shape:
                    k = len(slot.shape)
                    return TileRef(slot.tile, tuple(n.axes[k - 1 - j] for j in range(k)), slot.dtype)
                if slot.expr is None or slot.phi or depth > 8:
                    raise self.err("TP223", f"tl.split of '{slot.name}', a value assigned in a loop "
                                   "or branch, is not supported yet", node)
                return self._through_locals(remap(slot.expr, dict(enumerate(n.axes))), node, depth + 1)
            return None
        return map_expr(e, step)

    def _sources(self, e, depth: int = 0) -> set:
        """The buffers an expression loads from, read through its locals' values."""
        found = set()
        for sub in walk_expr(e):
            if isinstance(sub, Load):
                found.add(sub.buffer)
            elif isinstance(sub, SlotRef) and depth < 8 and self.slots[sub.slot].expr is not None:
                found |= self._sources(self.slots[sub.slot].expr, depth + 1)
        return found

    def _loaded_buffer(self, e):
        if isinstance(e, SlotRef):
            slot = self.slots[e.slot]
            return self._loaded_buffer(slot.expr) if slot.expr is not None else None
        if isinstance(e, Select) and isinstance(e.a, Load):
            return e.a.buffer
        if isinstance(e, Load):
            return e.buffer
        return None


def _dot_precision(input_precision, allow_tf32) -> str:
    """What a tl.dot of fp32 blocks computes in: Triton's default on NVIDIA is TF32 (tensor
    cores); `input_precision="ieee"` (or "tf32x3", three TF32 products that approach fp32) and
    `allow_tf32=False` ask for fp32 products. A value tileport cannot read counts as fp32, the
    precise side."""
    if isinstance(allow_tf32, StaticValue) and allow_tf32.value is False:
        return "ieee"
    if input_precision is None or (isinstance(input_precision, StaticValue) and input_precision.value is None):
        return "tf32"
    if isinstance(input_precision, StaticValue) and input_precision.value == "tf32":
        return "tf32"
    return "ieee"


def _wide(stride):
    """A block pointer's run-time stride as Triton holds it, in 64 bits (make_block_ptr takes
    int64 strides), so an offset times the stride cannot overflow 32 bits."""
    if isinstance(stride, RuntimeValue) and stride.shape == () and stride.expr.dtype in ("int32", "int16", "int8"):
        return RuntimeValue(fold(Cast("int64", stride.expr)), ())
    return stride
