"""One `@triton.jit` body -> tileport IR statements (KernelConverter); module.py drives it.

Programs and lanes. A Triton program is one IR block; each element of the program's block
tensors is one IR lane. `tl.program_id(a)` is `block_idx` on axis a, `tl.arange(0, B)` is
`thread_idx`, and block shapes broadcast like numpy: the last tensor dim is lane axis 0 (CUDA's
x), the one before it axis 1, so `offs_m[:, None]` reads `thread_idx.y` and `offs_n[None, :]`
reads `thread_idx.x`, and `Launch.block` is the stored block shape reversed. Every stored
block of a kernel must have the same shape (it is the lane space). `Launch.threads` is
`num_warps * 32` (launch site, else the autotune config, else 4).

Values. Pointers are tracked as (buffer, element offset, shape) and never reach the IR
themselves; `tl.load(p, mask, other)` is `Select(mask, Load, other)` and `tl.store(p, v, mask)`
is `If(mask, Store(cast(v)))`. Types follow Triton's promotion rules (values.py).
`x = expr` declares `x` (each reassignment declares a fresh suffixed name); constants,
constexprs, aliases and pointer arithmetic are substituted, and so are boolean masks without
loads (so that the guards stay visible to the extent and grid analyses).

Loops. `for i in range(...)` / `tl.range(...)` with scalar bounds is an IR `For` (int32 loop
variable); `tl.static_range` with constant bounds is unrolled; `while` on a scalar condition is
an IR `While`. A name bound before a loop and reassigned in it (an accumulator) is loop-carried:
a mutable variable declared before the loop and `Assign`ed at the end of each iteration; its
block shape and dtype must not change in the loop (as in Triton). Names first bound inside a
loop are not visible after it. Pointers advanced in a loop, `return`, `break` and `continue`
in loops raise TP210.

Atomics. `tl.atomic_add` / `atomic_max` / `atomic_min` / `atomic_xchg` (op "store") whose
result is unused become `If(mask, [Atomic(...)])`; a block smaller than the lane space (a scalar
atomic) is done by lane 0 of the missing lane axes only, once per program as in Triton. A spin
lock's acquire, `while tl.atomic_cas(lock, 0, 1) == 1: pass`, is Atomic op "lock" followed by a
block barrier, and `tl.debug_barrier()` is a barrier in tile mode. Using a result (and the other
atomics) raises TP214.

Calls (`tl.*`, builtins, math, casts, random numbers, block pointers, tile operations) are
calls.py's, pointers, loads and stores memory.py's, loops loops.py's, operators
arithmetic.py's: mixins of KernelConverter. A construct with no port raises a coded TileportError (TP210-TP229) at its line.
"""

from __future__ import annotations

import ast
from collections import defaultdict

from porter.diagnostics import Loc, TileportError
from porter.frontends.triton.arithmetic import TritonArithmetic
from porter.frontends.triton.calls import TritonCalls
from porter.frontends.triton.loops import TritonLoops
from porter.frontends.triton.memory import TritonMemory
from porter.frontends.triton.peeled import merged_peel
from porter.frontends.triton.retry import _NeedPointer
from porter.frontends.triton.tables import _BINOPS, _MISSING, _RESERVED, _unique
from porter.frontends.triton.tiles import (
    NeedTiles, ShapedStmt, TileMaterializer, TileOps, TileRef, drop_duplicate_declarations,
    uses_loads,
)
from porter.frontends.triton.values import (
    AtomicMarker, BlockPointerValue, DTypeValue, DeclMarker, Evidence, FnV, LoopMarker, ModuleValue, PhiAssign,
    PointerTypeValue, PointerValue, RuntimeValue, Slot, SlotRef, StaticValue, TupleV, _is_number, _numeric,
    broadcast_shapes, cast, computation_type, identity_axes, remap, slot_refs,
)
from porter.ir.nodes import Assign, Atomic, BinOp, Builtin, Const, Decl, For, If, Load, Return, Store, Sync, Var, While
from porter.ir.returns import eliminate_returns
from porter.ir.walk import map_expr, walk_expr


# tl.dot keywords that choose how fp32 products are computed, not what they add up to
_DOT_PRECISION_OPTIONS = frozenset({"allow_tf32", "input_precision"})


def _is_int_const(v, n) -> bool:
    return isinstance(v, StaticValue) and type(v.value) is int and v.value == n


# =============================================================================== kernel bodies


class KernelConverter(TritonCalls, TritonMemory, TritonLoops, TritonArithmetic):
    """One conversion of one kernel under fixed assumptions about its parameters."""

    def __init__(self, fe, fn, runtime, constexprs, scalar_dtypes, buffer_dtypes,
                 unknown, tile_mode: bool = False, num_stages: int = 2):
        self.fe = fe  # the file's TritonFrontend (module.py), which drives this conversion
        self.tile_mode = tile_mode
        self.tile_ops = TileOps(self)
        self.pointer_slots: dict = {}  # slot of a pointer advanced in a loop -> its buffer
        self.phi_init: dict = {}       # slot of a loop-carried value -> its value before the loop
        self.block_pointer_slots: dict = {}  # first offset slot of a carried block pointer -> it
        self.num_stages = num_stages
        self.fn = fn
        self.runtime = runtime
        self.constexprs = constexprs
        self.scalar_dtypes = scalar_dtypes
        self.buffer_dtypes = buffer_dtypes
        self.unknown = unknown
        self.slots: list = []
        self.stores: list = []
        self.evidence = Evidence()
        self.guessed: set = set()  # buffers typed by the float32 default only (set by the front end)
        self.inline_stack: list = []
        self.helpers: list = []  # per inlined call: {"ret": value, "if_depth": int}
        self.out: list = []
        self.lane: tuple = ()

    def loc(self, node) -> Loc:
        return self.fe.loc(node)

    def err(self, code, msg, node):
        return TileportError(code, msg, self.loc(node))

    # ------------------------------------------------------------------ entry

    def convert(self) -> list:
        env = {}
        for name, v in self.constexprs.items():
            env[name] = StaticValue(v.value, name) if isinstance(v, StaticValue) else v
        for name in self.runtime:
            if name in self.buffer_dtypes:
                env[name] = PointerValue(name, None, (), self.buffer_dtypes[name])
            else:
                env[name] = RuntimeValue(Var(name, self.scalar_dtypes[name]))
        self.out = []
        self.block(self.fn.body, env)
        body = self.out
        if self.tile_mode:
            self.lane = ()
            taken = set(self.runtime) | set(self.constexprs) | _RESERVED
            body = TileMaterializer(self, taken, _unique).run(body)
            return drop_duplicate_declarations(eliminate_returns(body))
        try:
            self.lane = self._lane_shape()
            body = self._materialize(body)
        except TileportError as exc:
            if exc.diagnostic.code == "TP221":  # blocks of several shapes: tile mode handles them
                raise NeedTiles() from exc
            raise
        return eliminate_returns(body)

    # ------------------------------------------------------------------ statements

    def block(self, stmts, env) -> bool:
        i = 0
        while i < len(stmts):
            merged = merged_peel(self, stmts, i, env)
            st, i = (merged[0], i + merged[1]) if merged is not None else (stmts[i], i + 1)
            if self.statement(st, env):
                return True
        return False

    def statement(self, st, env) -> bool:
        loc = self.loc(st)
        if isinstance(st, ast.Expr):
            if isinstance(st.value, ast.Constant):
                return False
            if isinstance(st.value, ast.Call) and self._atomic_statement(st.value, env):
                return False
            self.value_of(st.value, env)
            return False
        if isinstance(st, ast.Assign):
            value = self.value_of(st.value, env)
            for t in st.targets:
                self.assign(t, value, env, st)
            return False
        if isinstance(st, ast.AnnAssign):
            if st.value is not None:
                value = self.value_of(st.value, env)
                self.assign(st.target, value, env, st)
            return False
        if isinstance(st, ast.AugAssign):
            if not isinstance(st.target, ast.Name):
                raise self.err("TP216", "augmented assignment to anything but a name is not "
                               "supported", st)
            current = self.lookup(st.target.id, env, st.target)
            if isinstance(st.op, ast.Add) and self.tile_mode and self._is_plain_dot(st.value, env):
                # `acc += tl.dot(a, b)` is `acc = tl.dot(a, b, acc)`: T.gemm accumulates in place
                operands = [st.value.left, st.value.right] if isinstance(st.value, ast.BinOp) \
                    else st.value.args[:2]
                a, b = (self.value_of(x, env) for x in operands)
                value = self.tile_ops.dot(a, b, current, None, st.value)
                self.assign(st.target, value, env, st)
                return False
            accumulating = self._dot_into(st, current, env) if isinstance(st.op, ast.Add) and self.tile_mode \
                else None
            if accumulating is not None:
                self.assign(st.target, self.value_of(accumulating, env), env, st)
                return False
            value = self.binop(_BINOPS[type(st.op)], current, self.value_of(st.value, env), st)
            self.assign(st.target, value, env, st)
            return False
        if isinstance(st, ast.If):
            return self.if_statement(st, env)
        if isinstance(st, ast.Return):
            return self.return_statement(st, env)
        if isinstance(st, ast.Pass):
            return False
        if isinstance(st, ast.For):
            return self.for_statement(st, env)
        if isinstance(st, ast.While):
            return self.while_statement(st, env)
        if isinstance(st, ast.AsyncFor):
            raise TileportError("TP210", "'async for' loops are not supported", loc)
        if isinstance(st, (ast.Break, ast.Continue)):
            raise TileportError("TP210", "break/continue are not supported yet", loc)
        if isinstance(st, ast.Assert):
            test = self.value_of(st.test, env)
            if isinstance(test, StaticValue) and not test.value:
                msg = self._message(st.msg, env)
                raise TileportError("TP229", f"assertion failed at conversion time{msg}", loc)
            return False
        raise TileportError("TP216", f"'{type(st).__name__}' statements are not supported in "
                            "Triton kernels here", loc)

    def _is_plain_dot(self, node, env) -> bool:
        """`tl.dot(a, b)` with no accumulator or options, or `a @ b`."""
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            return True
        return isinstance(node, ast.Call) and len(node.args) == 2 and not node.keywords and \
            self._calls_tl_dot(node, env)

    def _calls_tl_dot(self, call, env) -> bool:
        f = self.value_of(call.func, env)
        return isinstance(f, FnV) and f.kind == "tl" and f.name == "dot"

    def _dot_into(self, st, current, env):
        """`acc += tl.dot(a, b, allow_tf32=False, out_dtype=tl.float32)` as the call
        `tl.dot(a, b, acc=acc, allow_tf32=False)`, so T.gemm accumulates into acc in place as for
        a plain `tl.dot(a, b)`; None unless the product's type is the accumulator's (no
        `out_dtype`, or acc's own) and its other options are precision ones."""
        call = st.value
        if not (isinstance(call, ast.Call) and len(call.args) == 2 and
                {k.arg for k in call.keywords} <= _DOT_PRECISION_OPTIONS | {"out_dtype"}):
            return None
        if not self._calls_tl_dot(call, env) or not isinstance(current, RuntimeValue):
            return None
        keywords = [k for k in call.keywords if k.arg != "out_dtype"]
        out = next((k.value for k in call.keywords if k.arg == "out_dtype"), None)
        if out is not None:
            out = self.value_of(out, env)
            if not isinstance(out, DTypeValue) or self._dtype_arg(out, call) != current.dtype:
                return None
        acc = ast.copy_location(ast.Name(id=st.target.id, ctx=ast.Load()), st.target)
        return ast.copy_location(ast.Call(func=call.func, args=call.args,
                                          keywords=keywords + [ast.keyword(arg="acc", value=acc)]), call)

    def _message(self, node, env) -> str:
        if node is None:
            return ""
        try:
            v = self.value_of(node, env)
        except TileportError:
            return ""
        return f": {v.value}" if isinstance(v, StaticValue) else ""

    def assign(self, target, value, env, st):
        if isinstance(target, ast.Name):
            self.bind(target.id, value, env, st)
            return
        if isinstance(target, (ast.Tuple, ast.List)):
            items = None
            if isinstance(value, TupleV):
                items = value.items
            elif isinstance(value, StaticValue) and isinstance(value.value, (tuple, list)):
                items = tuple(StaticValue(v) for v in value.value)
            if items is None or len(items) != len(target.elts):
                raise self.err("TP216", "cannot unpack this value into "
                               f"{len(target.elts)} names", st)
            for t, v in zip(target.elts, items):
                self.assign(t, v, env, st)
            return
        raise self.err("TP216", "assignment to a subscript or attribute is not supported in "
                       "Triton kernels", st)

    def bind(self, name, value, env, st, materialize: bool = False):
        if isinstance(value, RuntimeValue):
            e = value.expr
            trivial = isinstance(e, (Const, Var, SlotRef, TileRef)) or \
                (value.dtype == "bool" and not any(isinstance(x, Load) for x in walk_expr(e)))
            if not trivial:
                idx = len(self.slots)
                self.slots.append(Slot(name, e, value.shape, value.dtype, self.loc(st)))
                if self.tile_mode and value.shape and (materialize or uses_loads(e, self.slots)):
                    self.slots[idx].tile = self.tile_ops.new_tile(name, value.shape, value.dtype,
                                                                  loc=self.loc(st))
                self.out.append(DeclMarker(idx, self.loc(st)))
                value = RuntimeValue(SlotRef(idx, identity_axes(len(value.shape)), value.dtype), value.shape)
        env[name] = value

    def if_statement(self, st, env) -> bool:
        test = self.value_of(st.test, env)
        if isinstance(test, (StaticValue, DTypeValue, ModuleValue, FnV, TupleV, PointerTypeValue)):
            truth = bool(test.value) if isinstance(test, StaticValue) else True
            return self.block(st.body if truth else st.orelse, env)
        if isinstance(test, PointerValue):
            return self.block(st.body, env)
        if not isinstance(test, RuntimeValue):
            raise self.err("TP217", "unsupported if condition", st.test)
        if test.shape != ():
            raise self.err("TP228", "an 'if' on a block tensor is not allowed in Triton; use "
                           "tl.where or a mask", st.test)
        cond = cast(test.expr, "bool")
        saved = self.out
        then_env, else_env = dict(env), dict(env)
        if self.helpers:
            self.helpers[-1]["if_depth"] += 1
        try:
            self.out = then_out = []
            t_term = self.block(st.body, then_env)
            self.out = else_out = []
            e_term = self.block(st.orelse, else_env)
        finally:
            self.out = saved
            if self.helpers:
                self.helpers[-1]["if_depth"] -= 1
        loc = self.loc(st)
        if t_term and e_term:
            saved.append(If(cond, then_out, else_out, loc))
            return True
        if t_term or e_term:
            env.clear()
            env.update(else_env if t_term else then_env)
            saved.append(If(cond, then_out, else_out, loc))
            return False
        phis = []
        merged = {}
        for name in list(dict.fromkeys(list(then_env) + list(else_env))):
            a, b = then_env.get(name), else_env.get(name)
            if a is None or b is None:
                continue
            if a is b or a == b:
                merged[name] = a
                continue
            if isinstance(a, (RuntimeValue, StaticValue)) and isinstance(b, (RuntimeValue, StaticValue)) and \
                    (isinstance(a, RuntimeValue) or isinstance(b, RuntimeValue)) and _numeric(a) and _numeric(b):
                dt = computation_type(self._dt(a), isinstance(a, StaticValue), self._dt(b), isinstance(b, StaticValue))
                shape = broadcast_shapes(self._shape(a), self._shape(b))
                if shape is None:
                    raise TileportError("TP222", f"'{name}' has incompatible block shapes in the two "
                                        "branches of this if", loc)
                idx = len(self.slots)
                self.slots.append(Slot(name, None, shape, dt, loc, phi=True))
                self._tile_for_phi(idx)
                phis.append(DeclMarker(idx, loc))
                then_out.append(PhiAssign(idx, self._as_expr(a, dt), loc))
                else_out.append(PhiAssign(idx, self._as_expr(b, dt), loc))
                merged[name] = RuntimeValue(SlotRef(idx, identity_axes(len(shape)), dt), shape)
                continue
            raise TileportError("TP216", f"'{name}' gets different kinds of values in the branches "
                                "of this runtime if; not supported yet", loc)
        env.clear()
        env.update(merged)
        saved.extend(phis)
        saved.append(If(cond, then_out, else_out, loc))
        return False

    # ------------------------------------------------------------------ loops

    def _atomic_statement(self, node, env) -> bool:
        """`tl.atomic_add(ptr, val, mask)` as a statement (result unused); False: not one."""
        try:
            f = self.value_of(node.func, env)
        except TileportError:
            return False
        if not (isinstance(f, FnV) and f.kind == "tl" and f.name in self._ATOMIC_OPS):
            return False
        if not self.tile_mode:
            # atomics inside one lane-wide T.Parallel would need thread-level code: tile mode
            # gives each atomic its own T.Parallel over the block it updates
            raise NeedTiles()
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            raise self.err("TP217", "*args / **kwargs in calls are not supported", node)
        args = [self.value_of(a, env) for a in node.args]
        kwargs = {k.arg: self.value_of(k.value, env) for k in node.keywords}
        fname = f"tl.{f.name}"
        ptr = self._pointer(self._need(args, kwargs, 0, "pointer", node, fname), node, fname)
        value = self._need(args, kwargs, 1, "val", node, fname)
        if not (isinstance(value, RuntimeValue) or _is_number(value)):
            raise self.err("TP217", f"unsupported value for {fname}", node)
        sem = self._arg(args, kwargs, 3, "sem", None)
        if isinstance(sem, StaticValue) and sem.value not in (None, "relaxed", "acq_rel", "acquire", "release"):
            raise self.err("TP214", f"{fname} with sem={sem.value!r} is not supported", node)
        mask_v = self._arg(args, kwargs, 2, "mask")
        shape = self._bshape(node, ptr, value)
        if mask_v is not _MISSING and isinstance(mask_v, RuntimeValue):
            shape = self._bshape(node, ptr, value, mask_v)
        mask = self._mask(mask_v, shape, node, fname)
        if mask is False:
            return True
        elem = ptr.elem
        op = self._ATOMIC_OPS[f.name]
        loc = self.loc(node)
        offset = ptr.offset if ptr.offset is not None else Const(0, "int32")
        self.stores.append((shape, loc))
        self.out.append(AtomicMarker(op, ptr.buffer, offset, self._as_expr(value, elem), mask,
                                     shape, loc))
        return True

    def _spin_lock(self, st, env) -> bool:
        """`while tl.atomic_cas(lock, 0, 1) == 1: pass` (or `!= 0`): a spin lock's acquire.

        TileLang has no compare-and-swap; on a lock word that holds 0 (free) or 1 (held),
        `atomic_max(lock, 1)` returns the same old value and leaves the same word, so the port
        spins on that. One lane spins (a scalar atomic runs once per program, as in Triton) and
        the block waits for it. False: the loop is not this idiom."""
        test = st.test
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1
                and isinstance(test.left, ast.Call)):
            return False
        try:
            f = self.value_of(test.left.func, env)
        except TileportError:
            return False
        if not (isinstance(f, FnV) and f.kind == "tl" and f.name == "atomic_cas"):
            return False
        call = test.left
        args = [self.value_of(a, env) for a in call.args]
        kwargs = {k.arg: self.value_of(k.value, env) for k in call.keywords if k.arg is not None}
        right = self.value_of(test.comparators[0], env)
        cmp_, val = self._arg(args, kwargs, 1, "cmp"), self._arg(args, kwargs, 2, "val")
        waits = (isinstance(test.ops[0], ast.Eq) and _is_int_const(right, 1)) or \
            (isinstance(test.ops[0], ast.NotEq) and _is_int_const(right, 0))
        body_empty = all(isinstance(b, ast.Pass) or (isinstance(b, ast.Expr) and
                                                     isinstance(b.value, ast.Constant)) for b in st.body)
        if not (waits and body_empty and _is_int_const(cmp_, 0) and _is_int_const(val, 1)):
            self._refuse("atomic_cas", test)
        if not self.tile_mode:
            raise NeedTiles()
        ptr = self._pointer(self._need(args, kwargs, 0, "pointer", call, "tl.atomic_cas"), call,
                            "tl.atomic_cas")
        if ptr.shape != ():
            raise self.err("TP214", "a spin lock on a block of lock words is not supported "
                           "(lock one scalar word)", call)
        loc = self.loc(st)
        offset = ptr.offset if ptr.offset is not None else Const(0, "int32")
        self.stores.append(((), loc))
        self.out.append(AtomicMarker("lock", ptr.buffer, offset, Const(1, ptr.elem), None, (), loc))
        self.out.append(Sync("block", loc))
        return True

    def return_statement(self, st, env) -> bool:
        if self.helpers:
            ctx = self.helpers[-1]
            if ctx["if_depth"] > 0:
                raise self.err("TP227", "'return' inside a runtime 'if' of an inlined @triton.jit "
                               "function is not supported yet", st)
            ctx["ret"] = self.value_of(st.value, env) if st.value is not None else StaticValue(None)
            return True
        if st.value is not None:
            v = self.value_of(st.value, env)
            if not (isinstance(v, StaticValue) and v.value is None):
                raise self.err("TP216", "a kernel cannot return a value", st)
        self.out.append(Return(self.loc(st)))
        return True

    # ------------------------------------------------------------------ expressions

    def lookup(self, name, env, node):
        if name in env:
            return env[name]
        v = self.fe.global_value(name, node)
        if v is None:
            raise self.err("TP226", f"unknown name '{name}' (only constexprs, module-level "
                           "constants and @triton.jit functions can be used in a kernel)", node)
        return v

    def value_of(self, node, env):
        """The value of a Python expression of the kernel (a runtime, static, pointer... value)."""
        if isinstance(node, ast.Constant):
            return StaticValue(node.value)
        if isinstance(node, ast.Name):
            return self.lookup(node.id, env, node)
        if isinstance(node, ast.Attribute):
            return self.attribute(self.value_of(node.value, env), node.attr, node)
        if isinstance(node, ast.Subscript):
            return self.subscript(self.value_of(node.value, env), node.slice, node, env)
        if isinstance(node, (ast.Tuple, ast.List)):
            return TupleV(tuple(self.value_of(e, env) for e in node.elts))
        if isinstance(node, ast.BinOp):
            op = _BINOPS.get(type(node.op))
            return self.binop(op, self.value_of(node.left, env), self.value_of(node.right, env), node)
        if isinstance(node, ast.UnaryOp):
            return self.unary(node.op, self.value_of(node.operand, env), node)
        if isinstance(node, ast.BoolOp):
            return self.boolop(node, env)
        if isinstance(node, ast.Compare):
            return self.compare(node, env)
        if isinstance(node, ast.IfExp):
            return self.ifexp(node, env)
        if isinstance(node, ast.Call):
            return self.call(node, env)
        if isinstance(node, ast.JoinedStr):
            return StaticValue("")
        raise self.err("TP217", f"unsupported expression ({type(node).__name__})", node)

    def attribute(self, base, name, node):
        if isinstance(base, ModuleValue):
            return self.fe.module_attr(base, name, node)
        if isinstance(base, RuntimeValue):
            if name in ("dtype", "type"):
                e = base.expr
                param = e.name if isinstance(e, Var) and e.name in self.unknown else None
                if name == "type" and param is None:  # a block's type: `.element_ty` is its dtype
                    return PointerTypeValue(base.dtype)
                return DTypeValue(base.dtype, param)
            if name == "shape":
                return StaticValue(tuple(base.shape))
            if name == "T":
                return self.permute(base, None, node)
            return FnV("method", name, bound=base)
        if isinstance(base, PointerValue):
            if name in ("dtype", "type"):  # `Out.type.element_ty` as `Out.dtype.element_ty`
                return PointerTypeValue(base.elem)
            if name == "shape":
                return StaticValue(tuple(base.shape))
            return FnV("method", name, bound=base)
        if isinstance(base, BlockPointerValue) and name in ("load", "store"):
            return FnV("method", name, bound=base)
        if isinstance(base, BlockPointerValue) and name in ("dtype", "type"):  # `p.dtype.element_ty`
            return PointerTypeValue(base.elem)
        if isinstance(base, PointerTypeValue):
            if name == "element_ty" or name == "scalar":  # `x.type.scalar`: a block's element dtype
                return DTypeValue(base.elem)
        if isinstance(base, DTypeValue):
            if name == "element_ty":
                if base.param is not None:
                    raise _NeedPointer(base.param)
                raise self.err("TP224", "'.element_ty' of a non-pointer value", node)
            if name == "primitive_bitwidth":
                return StaticValue(8 if base.dtype == "bool" else int("".join(c for c in base.dtype if c.isdigit())))
            if name.startswith("is_"):
                return FnV("dtype_pred", name, bound=base)
            if name == "scalar":  # a dtype's scalar type is itself
                return base
        if isinstance(base, (StaticValue, DTypeValue)) and name == "value":  # a constexpr's wrapped value
            return base
        raise self.err("TP217", f"unsupported attribute '.{name}'", node)

    def subscript(self, base, index_node, node, env):
        if isinstance(base, (RuntimeValue, PointerValue)):
            items = index_node.elts if isinstance(index_node, ast.Tuple) else [index_node]
            kinds = []
            for it in items:
                if isinstance(it, ast.Slice) and it.lower is None and it.upper is None and it.step is None:
                    kinds.append(":")
                elif isinstance(it, ast.Constant) and it.value is None:
                    kinds.append(None)
                elif isinstance(it, ast.Constant) and it.value is Ellipsis:
                    kinds.append("...")
                else:
                    raise self.err("TP223", "indexing a block tensor is not supported (only [:, None] "
                                   "style broadcasting)", node)
            shape = base.shape
            if kinds.count("...") > 1:
                raise self.err("TP223", "more than one '...' in a subscript", node)
            if "..." in kinds:
                i = kinds.index("...")
                fill = len(shape) - kinds.count(":")
                kinds = kinds[:i] + [":"] * max(fill, 0) + kinds[i + 1:]
            if kinds.count(":") != len(shape):
                raise self.err("TP223", f"subscript does not match the block shape {shape}", node)
            new_shape, dim_map, j = [], {}, 0
            for k in kinds:
                if k == ":":
                    dim_map[j] = len(new_shape)
                    new_shape.append(shape[j])
                    j += 1
                else:
                    new_shape.append(1)
            return self._reshape(base, tuple(new_shape), dim_map)
        idx = self.value_of(index_node, env)
        if isinstance(idx, StaticValue) and isinstance(idx.value, int):
            if isinstance(base, TupleV) and -len(base.items) <= idx.value < len(base.items):
                return base.items[idx.value]
            if isinstance(base, StaticValue) and isinstance(base.value, (tuple, list)) and \
                    -len(base.value) <= idx.value < len(base.value):
                return StaticValue(base.value[idx.value])
        if isinstance(base, StaticValue) and isinstance(base.value, dict) and isinstance(idx, StaticValue):
            if idx.value in base.value:
                return StaticValue(base.value[idx.value])
        raise self.err("TP223", "unsupported subscript", node)

    def _reshape(self, base, new_shape, dim_map):
        """Place old dim j at new dim dim_map[j] (the others are new size-1 dims)."""
        k, k2 = len(base.shape), len(new_shape)
        mapping = {k - 1 - j: k2 - 1 - j2 for j, j2 in dim_map.items()}
        if isinstance(base, PointerValue):
            off = remap(base.offset, mapping) if base.offset is not None else None
            return PointerValue(base.buffer, off, new_shape, base.elem)
        return RuntimeValue(remap(base.expr, mapping), new_shape)

    def permute(self, base, dims, node):
        if not isinstance(base, (RuntimeValue, PointerValue)):
            raise self.err("TP223", "tl.trans/permute of a non-tensor", node)
        k = len(base.shape)
        if dims is None:
            dims = tuple(reversed(range(k)))
        if sorted(dims) != list(range(k)):
            raise self.err("TP223", f"invalid permutation {dims} for shape {base.shape}", node)
        new_shape = tuple(base.shape[d] for d in dims)
        return self._reshape(base, new_shape, {d: i for i, d in enumerate(dims)})

    # ------------------------------------------------------------------ operators

    def inline(self, fn, args, kwargs, node, home=None):
        """Inline a @triton.jit helper; `home` is the front end of the module that defines it
        (its globals are that module's)."""
        home = home or self.fe
        if home is not self.fe:
            saved, self.fe = self.fe, home
            try:
                return self.inline(fn, args, kwargs, node, home)
            finally:
                self.fe = saved
        if fn.name in self.inline_stack:
            raise self.err("TP227", f"recursive @triton.jit function '{fn.name}' cannot be inlined",
                           node)
        a = fn.args
        params = list(a.posonlyargs) + list(a.args)
        if a.vararg or a.kwarg:
            raise self.err("TP227", f"'{fn.name}' has *args/**kwargs; not supported", node)
        defaults = dict(zip([p.arg for p in params[len(params) - len(a.defaults):]], a.defaults))
        for k, d in zip(a.kwonlyargs, a.kw_defaults):
            params.append(k)
            if d is not None:
                defaults[k.arg] = d
        if len(args) > len(params) - len(a.kwonlyargs):
            raise self.err("TP227", f"too many arguments for '{fn.name}'", node)
        env = {}
        for i, p in enumerate(params):
            if i < len(args) and p not in a.kwonlyargs:
                v = args[i]
            elif p.arg in kwargs:
                v = kwargs[p.arg]
            elif p.arg in defaults:
                v = self.fe.from_host(self.fe.host.value(defaults[p.arg], self.fe.info.scopes[0]))
                if v is None:
                    raise self.err("TP227", f"default of '{p.arg}' in '{fn.name}' is not a constant",
                                   node)
            else:
                raise self.err("TP227", f"missing argument '{p.arg}' for '{fn.name}'", node)
            if isinstance(v, RuntimeValue) and not isinstance(v.expr, (Const, Var, SlotRef, Builtin)) and \
                    v.dtype != "bool":
                idx = len(self.slots)
                self.slots.append(Slot(f"{fn.name.strip('_')}_{p.arg}", v.expr, v.shape, v.dtype,
                                       self.loc(node)))
                self.out.append(DeclMarker(idx, self.loc(node)))
                v = RuntimeValue(SlotRef(idx, identity_axes(len(v.shape)), v.dtype), v.shape)
            env[p.arg] = v
        self.inline_stack.append(fn.name)
        self.helpers.append({"ret": None, "if_depth": 0})
        try:
            self.block(fn.body, env)
        finally:
            ctx = self.helpers.pop()
            self.inline_stack.pop()
        return ctx["ret"] if ctx["ret"] is not None else StaticValue(None)

    # ------------------------------------------------------------------ finishing

    def _lane_shape(self) -> tuple:
        lane = None
        for shape, loc in self.stores:
            if shape == ():
                continue
            if lane is None:
                lane = shape
            elif shape != lane:
                raise TileportError("TP221", f"mixed block shapes not supported yet: this store "
                                    f"writes a {shape} block, an earlier one {lane}", loc)
        if lane is None:
            lane = ()
        if len(lane) > 3:
            raise TileportError("TP221", f"{len(lane)}-D blocks are not supported (at most 3 lane "
                                "axes)", self.stores[0][1])
        return lane

    def _check_placement(self, slot, axes):
        lane, k = self.lane, len(slot.shape)
        for j, d in enumerate(slot.shape):
            if d == 1:
                continue
            a = axes[k - 1 - j]
            pos = len(lane) - 1 - a
            if pos < 0 or lane[pos] != d:
                raise TileportError("TP221", f"mixed block shapes not supported yet: '{slot.name}' "
                                    f"is a {slot.shape} block but the kernel stores {lane} blocks",
                                    slot.loc)

    def _materialize(self, body: list) -> list:
        demand = defaultdict(dict)

        def note(e):
            for r in slot_refs(e):
                if self.slots[r.slot].inline:
                    note(remap(self.slots[r.slot].expr, dict(enumerate(r.axes))))
                    continue
                demand[r.slot].setdefault(r.axes, None)

        def scan(stmts):
            for s in stmts:
                if isinstance(s, ShapedStmt):
                    s = s.stmt
                if isinstance(s, Store):
                    note(s.index)
                    note(s.value)
                elif isinstance(s, If):
                    note(s.cond)
                    scan(s.then)
                    scan(s.orelse)
                elif isinstance(s, PhiAssign):
                    note(s.value)
                elif isinstance(s, LoopMarker):
                    for e in (s.start, s.cond, s.step):
                        if e is not None:
                            note(e)
                    scan(s.body)
                elif isinstance(s, AtomicMarker):
                    note(s.index)
                    note(s.value)
                    if s.mask is not None:
                        note(s.mask)

        scan(body)
        maps = {}
        for s in reversed(range(len(self.slots))):
            slot = self.slots[s]
            if slot.inline:
                maps[s] = []
                continue
            ident = identity_axes(len(slot.shape))
            wanted = list(demand.get(s, {})) or [ident]
            wanted.sort(key=lambda m: (m != ident, m))
            if slot.phi and wanted != [ident]:
                raise TileportError("TP221", f"'{slot.name}' is assigned in a runtime if and then "
                                    "re-broadcast ([:, None]); not supported yet", slot.loc)
            for m in wanted:
                self._check_placement(slot, m)
                if slot.expr is not None:
                    note(remap(slot.expr, dict(enumerate(m))))
            maps[s] = wanted
        taken = set(self.runtime) | set(self.constexprs) | _RESERVED
        names = {}
        for s, slot in enumerate(self.slots):
            for m in maps[s]:
                name = _unique(slot.name, taken)
                taken.add(name)
                names[(s, m)] = name

        def resolve(e):
            def step(n):
                if isinstance(n, SlotRef) and self.slots[n.slot].inline:
                    return resolve(remap(self.slots[n.slot].expr, dict(enumerate(n.axes))))
                if isinstance(n, SlotRef):
                    return Var(names[(n.slot, n.axes)], n.dtype)
                return None
            return map_expr(e, step)

        def rebuild(stmts):
            out = []
            for s in stmts:
                if isinstance(s, ShapedStmt):
                    s = s.stmt
                if isinstance(s, (DeclMarker, PhiAssign)) and self.slots[s.slot].inline:
                    continue
                if isinstance(s, DeclMarker):
                    slot = self.slots[s.slot]
                    for m in maps[s.slot]:
                        init = None if slot.expr is None else \
                            resolve(remap(slot.expr, dict(enumerate(m))))
                        out.append(Decl(Var(names[(s.slot, m)], slot.dtype), init, s.loc))
                elif isinstance(s, PhiAssign):
                    slot = self.slots[s.slot]
                    var = Var(names[(s.slot, identity_axes(len(slot.shape)))], slot.dtype)
                    out.append(Assign(var, resolve(s.value), s.loc))
                elif isinstance(s, Store):
                    out.append(Store(s.buffer, resolve(s.index), resolve(s.value), s.loc))
                elif isinstance(s, If):
                    out.append(If(resolve(s.cond), rebuild(s.then), rebuild(s.orelse), s.loc))
                elif isinstance(s, LoopMarker):
                    body = rebuild(s.body)
                    if s.slot is None:
                        out.append(While(resolve(s.cond), body, s.loc))
                    else:
                        var = Var(names[(s.slot, ())], "int32")
                        out.append(For(var, resolve(s.start), resolve(s.cond), resolve(s.step),
                                       body, s.loc))
                elif isinstance(s, AtomicMarker):
                    out.append(self._atomic(s, resolve))
                else:
                    out.append(s)
            return out

        return rebuild(body)

    def _atomic(self, s, resolve):
        """An atomic on a block smaller than the lane space runs on lane 0 of the other axes."""
        stmt = Atomic(s.op, s.buffer, resolve(s.index), resolve(s.value), s.loc)
        cond = None
        lane, k = self.lane, len(s.shape)
        for pos in range(len(lane)):
            j = pos - (len(lane) - k)  # the atomic's own dim at this lane position, right-aligned
            if lane[pos] > 1 and (j < 0 or s.shape[j] == 1):
                axis = len(lane) - 1 - pos
                c = BinOp("==", Builtin("thread_idx", axis, "int32"), Const(0, "int32"), "bool")
                cond = c if cond is None else BinOp("&&", cond, c, "bool")
        if s.mask is not None:
            m = resolve(s.mask)
            cond = m if cond is None else BinOp("&&", cond, m, "bool")
        return If(cond, [stmt], [], s.loc) if cond is not None else stmt
