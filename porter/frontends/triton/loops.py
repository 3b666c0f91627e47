"""Loops of a @triton.jit body as IR loops (a mixin of KernelConverter, kernels.py).

`for i in range(...)` / `tl.range(...)` with scalar bounds is an IR `For`; `tl.static_range`
with constant bounds is unrolled; `while` on a scalar condition is an IR `While`. A name bound
before a loop and reassigned in it is loop-carried (a phi: declared before, `Assign`ed at the
end of each iteration); a pointer or block pointer advanced by a multiple of the step has a
closed form over the loop variable."""

from __future__ import annotations

import ast
import dataclasses
from typing import ClassVar

from porter.frontends.triton.tiles import TileRef
from porter.frontends.triton.values import (
    BlockPointerValue, DeclMarker, FnV, LoopMarker, PhiAssign, PointerValue, RuntimeValue, Slot, SlotRef,
    StaticValue, _numeric, broadcast_shapes, cast, identity_axes,
)
from porter.ir.fold import fold, try_int
from porter.ir.nodes import BinOp, Builtin, Call, Cast, Const, Load, is_float
from porter.ir.walk import walk_expr


class TritonLoops:
    """Mixed into KernelConverter: reads its env, bind, block and err."""

    def _range_args(self, it, env):
        """(kind, start, stop, step) of `range(...)` / `tl.range` / `tl.static_range`, else None."""
        if not isinstance(it, ast.Call):
            return None
        f = self.value_of(it.func, env)
        if not isinstance(f, FnV):
            return None
        if f.kind == "py" and f.name == "range":
            kind = "range"
        elif f.kind == "tl" and f.name in ("range", "static_range"):
            kind = f.name
        else:
            return None
        if any(isinstance(a, ast.Starred) for a in it.args) or any(k.arg is None for k in it.keywords):
            raise self.err("TP210", "*args / **kwargs in a loop range are not supported", it)
        args = [self.value_of(a, env) for a in it.args]
        kwargs = {k.arg: self.value_of(k.value, env) for k in it.keywords}
        a1 = self._arg(args, kwargs, 0, "arg1", None)
        a2 = self._arg(args, kwargs, 1, "arg2", None)
        step = self._arg(args, kwargs, 2, "step", None)
        if a1 is None:
            raise self.err("TP210", "range() needs bounds", it)
        none = lambda v: v is None or (isinstance(v, StaticValue) and v.value is None)  # noqa: E731
        start, stop = (StaticValue(0), a1) if none(a2) else (a1, a2)
        step = StaticValue(1) if none(step) else step
        for v in (start, stop, step):
            if isinstance(v, StaticValue) and isinstance(v.value, int) and not isinstance(v.value, bool):
                continue
            if isinstance(v, RuntimeValue) and v.shape == () and not is_float(v.dtype):
                continue
            if isinstance(v, RuntimeValue) and v.shape != ():
                raise self.err("TP210", "loop bounds must be scalars, not block tensors", it)
            if isinstance(v, RuntimeValue):  # loaded from a buffer whose dtype was only a guess: ints
                self.retype_loaded(v, "int32")
            raise self.err("TP210", "loop bounds must be integers", it)
        if isinstance(step, StaticValue) and step.value == 0:
            raise self.err("TP210", "range() step must not be zero", it)
        return kind, start, stop, step

    def _carried(self, body, env, exclude=()) -> list:
        """Names bound before the loop and reassigned in its body, in order of appearance."""
        names = []
        for s in body:
            for n in ast.walk(s):
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id in env and \
                        n.id not in exclude and n.id not in names:
                    names.append(n.id)
        return names

    def _loop_phis(self, names, env, st) -> list:
        """Declare a mutable variable per loop-carried name; (name, slot) pairs."""
        loc = self.loc(st)
        phis = []
        for name in names:
            v = env[name]
            if isinstance(v, PointerValue):
                # a pointer advanced in the loop: its element offset is the loop-carried value
                offset = v.offset if v.offset is not None else Const(0, "int32")
                idx = len(self.slots)
                self.slots.append(Slot(name, None, v.shape, offset.dtype, loc, phi=True))
                self._tile_for_phi(idx)
                self.pointer_slots[idx] = v.buffer
                self.phi_init[idx] = offset
                self.out.append(DeclMarker(idx, loc))
                self.out.append(PhiAssign(idx, offset, loc))
                env[name] = PointerValue(v.buffer, SlotRef(idx, identity_axes(len(v.shape)), offset.dtype),
                                 v.shape, v.elem)
                phis.append((name, idx))
                continue
            if isinstance(v, BlockPointerValue):
                # a block pointer advanced in the loop: its window offsets are carried scalars
                slots, offsets = [], []
                for d, off in enumerate(v.offsets):
                    idx = len(self.slots)
                    self.slots.append(Slot(f"{name}_off{d}", None, (), "int32", loc, phi=True))
                    init = self._as_expr(off, "int32")
                    self.phi_init[idx] = init
                    self.out.append(DeclMarker(idx, loc))
                    self.out.append(PhiAssign(idx, init, loc))
                    slots.append(idx)
                    offsets.append(RuntimeValue(SlotRef(idx, (), "int32")))
                env[name] = dataclasses.replace(v, offsets=tuple(offsets), slots=tuple(slots))
                self.block_pointer_slots[slots[0]] = env[name]
                phis.append((name, slots[0]))
                continue
            if not _numeric(v):
                raise self.err("TP210", f"'{name}' is reassigned in a loop but is not a number or a "
                               "tensor; not supported", st)
            dt, shape = self._dt(v), self._shape(v)
            idx = len(self.slots)
            self.slots.append(Slot(name, None, shape, dt, loc, phi=True))
            self._tile_for_phi(idx)
            self.phi_init[idx] = self._as_expr(v, dt)
            self.out.append(DeclMarker(idx, loc))
            self.out.append(PhiAssign(idx, self._as_expr(v, dt), loc))
            env[name] = RuntimeValue(SlotRef(idx, identity_axes(len(shape)), dt), shape)
            phis.append((name, idx))
        return phis

    def _tile_for_phi(self, idx):
        slot = self.slots[idx]
        if self.tile_mode and slot.shape:
            slot.tile = self.tile_ops.new_tile(slot.name, slot.shape, slot.dtype, loc=slot.loc)

    def _closed_form(self, idx, new, induction, first_slot):
        """A loop-carried integer (or pointer offset) advanced by a loop-invariant amount each
        iteration of a counted loop is `start + iteration * step` in closed form: nothing is
        carried, and the extent analysis sees its bounds. Returns its value after the loop (an
        expression), or None when `new` is not `carried + invariant`."""
        if induction is None:
            return None
        var, start_e, stop_e, step, _closed = induction
        terms, stack = [], [new]
        while stack:
            e = stack.pop()
            if isinstance(e, BinOp) and e.op == "+":
                stack += [e.a, e.b]
            elif isinstance(e, Cast) and isinstance(e.a, BinOp) and e.a.op == "+" and \
                    e.dtype == self.slots[idx].dtype:
                stack.append(e.a)
            else:
                terms.append(e)
        mine = [t for t in terms if isinstance(t, SlotRef) and t.slot == idx]
        rest = [t for t in terms if not (isinstance(t, SlotRef) and t.slot == idx)]
        if len(mine) != 1 or not rest or not isinstance(step, StaticValue) or step.value <= 0:
            return None
        for t in rest:  # the amount is the same every iteration: no load, nothing the loop assigns
            for n in walk_expr(t):
                if isinstance(n, (Load, TileRef)) or (isinstance(n, SlotRef) and (
                        n.slot >= first_slot or n.slot == var.slot or self.slots[n.slot].phi)):
                    return None
        slot = self.slots[idx]
        dt = slot.dtype
        inc = rest[0]
        for t in rest[1:]:
            inc = BinOp("+", inc, t, dt)
        inc = cast(inc, dt)
        init = self.phi_init[idx]
        count = var if isinstance(start_e, Const) and start_e.value == 0 else \
            BinOp("-", var, start_e, "int32")
        per_step = _per_step(inc, step.value)
        if per_step is not None:  # advanced by the loop's own step (times m): (var - start) * m
            if per_step == 0:  # a dimension the pointer does not move along
                slot.expr = fold(init)
            elif per_step == 1 and _plus_zero(fold(init)) == fold(start_e):  # from the loop's own start
                slot.expr = cast(var, dt)
            else:
                advanced = cast(count, dt)
                if per_step != 1:
                    factor = Const(per_step, dt) if isinstance(per_step, int) else per_step
                    advanced = BinOp("*", advanced, factor, dt)
                slot.expr = fold(BinOp("+", init, advanced, dt))
        else:
            if step.value != 1:
                count = BinOp("/", count, self._as_expr(step, "int32"), "int32")
            slot.expr = fold(BinOp("+", init, BinOp("*", cast(count, dt), inc, dt), dt))
        slot.phi, slot.inline, slot.tile = False, True, None
        span = stop_e if try_int(start_e) == 0 else fold(BinOp("-", stop_e, start_e, "int32"))
        if step.value != 1:
            span = fold(Call("ceildiv", (span, self._as_expr(step, "int32")), "int32"))
        trips = Call("max", (Const(0, "int32"), span), "int32")
        return fold(BinOp("+", init, BinOp("*", cast(trips, dt), inc, dt), dt))

    def _body_value(self, e, first_slot):
        """A carried value as the loop body computed it: a local the body assigned once (`a_1 = a
        + 3` for `a += 3`, a tile's `offsets_1 = offsets + BLOCK`) read through to its
        definition, so that _closed_form sees `carried + invariant`. A local assigned in both
        branches of an if (a phi) is no one definition and stays."""
        while isinstance(e, SlotRef) and e.slot >= first_slot:
            slot = self.slots[e.slot]
            if slot.phi or slot.inline or slot.expr is None or e.axes != identity_axes(len(slot.shape)):
                break
            e = slot.expr
        return e

    def _closed_init(self, idx) -> bool:
        """Whether a carried integer's value before the loop may be read anywhere in it, as its
        closed form does: a scalar's always (an SSA local), a block's only when it is index
        arithmetic (`rows[:, None] * N + cols`), no load or fragment whose contents could
        change."""
        if self.slots[idx].shape == ():
            return True
        return not any(isinstance(n, (Load, TileRef)) or (isinstance(n, SlotRef) and self.slots[n.slot].phi)
                       for n in walk_expr(self.phi_init[idx]))

    def _loop_body(self, st, body_env, phis, induction=None) -> list:
        saved = self.out
        first_slot = len(self.slots)
        self.out = body_out = []
        try:
            term = self.block(st.body, body_env)
        finally:
            self.out = saved
        if term:
            raise self.err("TP210", "'return' inside a loop is not supported yet", st)
        loc = self.loc(st)
        for name, idx in phis:
            slot = self.slots[idx]
            v = body_env.get(name)
            if isinstance(v, RuntimeValue) and isinstance(v.expr, SlotRef) and v.expr.slot == idx and \
                    v.expr.axes == identity_axes(len(slot.shape)):
                continue
            if isinstance(v, PointerValue):
                if self.pointer_slots.get(idx) != v.buffer or v.shape != slot.shape:
                    raise self.err("TP210", f"pointer '{name}' points into another buffer or block "
                                   "shape after the loop body", st)
                offset = v.offset if v.offset is not None else Const(0, slot.dtype)
                if isinstance(offset, SlotRef) and offset.slot == idx:
                    continue
                after = self._closed_form(idx, offset, induction, first_slot)
                if after is not None:
                    induction[4][name] = PointerValue(v.buffer, after, v.shape, v.elem)
                    continue
                body_out.append(PhiAssign(idx, cast(offset, slot.dtype), loc))
                continue
            if isinstance(v, BlockPointerValue):
                before = self.block_pointer_slots.get(idx)
                if before is None or v.buffer != before.buffer or v.block != before.block:
                    raise self.err("TP210", f"block pointer '{name}' points into another buffer or "
                                   "block shape after the loop body", st)
                offsets, afters = [], []
                for d, (sidx, off) in enumerate(zip(before.slots, v.offsets)):
                    e = self._as_expr(off, "int32")
                    if isinstance(e, SlotRef) and e.slot == sidx:
                        offsets.append(None)
                        afters.append(RuntimeValue(e))
                        continue
                    after = self._closed_form(sidx, e, induction, first_slot)
                    if after is not None:
                        afters.append(RuntimeValue(after))
                        continue
                    body_out.append(PhiAssign(sidx, cast(e, "int32"), loc))
                    afters.append(None)
                if induction is not None and all(a is not None for a in afters):
                    induction[4][name] = dataclasses.replace(v, offsets=tuple(afters))
                continue
            if not _numeric(v):
                raise self.err("TP210", f"loop-carried '{name}' gets a value that is not a number "
                               "or a tensor", st)
            if broadcast_shapes(self._shape(v), slot.shape) != slot.shape:
                raise self.err("TP222", f"loop-carried '{name}' changes its block shape in the loop "
                               f"({slot.shape} before, {self._shape(v)} after)", st)
            dt = self._dt(v)
            if dt != slot.dtype and not isinstance(v, StaticValue):
                raise self.err("TP225", f"loop-carried '{name}' has type {slot.dtype} before the "
                               f"loop but is reassigned to {dt} in it; initialise it with that "
                               "dtype", st)
            new = self._as_expr(v, slot.dtype)
            if not is_float(slot.dtype) and slot.dtype != "bool" and self._closed_init(idx):
                after = self._closed_form(idx, self._body_value(new, first_slot), induction, first_slot)
                if after is not None:
                    induction[4][name] = RuntimeValue(after, slot.shape)
                    continue
            body_out.append(PhiAssign(idx, new, loc))
        return body_out

    def for_statement(self, st, env) -> bool:
        if st.orelse:
            raise self.err("TP210", "'for ... else' is not supported", st)
        rng = self._range_args(st.iter, env)
        if rng is None:
            raise self.err("TP210", "only 'for' loops over range(), tl.range() or "
                           "tl.static_range() are supported", st.iter)
        kind, start, stop, step = rng
        if not isinstance(st.target, ast.Name):
            raise self.err("TP210", "the loop variable must be a plain name", st.target)
        target = st.target.id
        if all(isinstance(v, StaticValue) for v in (start, stop, step)) and kind == "static_range":
            values = range(start.value, stop.value, step.value)
            if len(values) > 4096:
                raise self.err("TP210", f"tl.static_range of {len(values)} iterations is too long "
                               "to unroll", st.iter)
            for i in values:
                env[target] = StaticValue(i)
                if self.block(st.body, env):
                    return True
            return False
        if kind == "static_range":
            raise self.err("TP210", "tl.static_range bounds must be compile-time constants", st.iter)
        loc = self.loc(st)
        phis = self._loop_phis(self._carried(st.body, env, {target}), env, st)
        after = dict(env)
        idx = len(self.slots)
        self.slots.append(Slot(target, None, (), "int32", loc, phi=True))
        var = SlotRef(idx, (), "int32")
        body_env = dict(env)
        body_env[target] = RuntimeValue(var)
        start_e, stop_e, step_e = (self._as_expr(v, "int32") for v in (start, stop, step))
        closed = {}
        body = self._loop_body(st, body_env, phis, (var, start_e, stop_e, step, closed))
        for name, value in closed.items():
            after[name] = value
        if isinstance(step, StaticValue):
            cond = BinOp("<" if step.value > 0 else ">", var, stop_e, "bool")
        elif _positive(step_e):  # `range(pid, n, tl.num_programs(0))`: a grid-stride loop
            cond = BinOp("<", var, stop_e, "bool")
        else:
            zero = Const(0, "int32")
            cond = BinOp("||", BinOp("&&", BinOp(">", step_e, zero, "bool"),
                                     BinOp("<", var, stop_e, "bool"), "bool"),
                         BinOp("&&", BinOp("<", step_e, zero, "bool"),
                               BinOp(">", var, stop_e, "bool"), "bool"), "bool")
        self.out.append(LoopMarker(idx, start_e, cond, step_e, body, loc))
        env.clear()
        env.update(after)
        return False

    def while_statement(self, st, env) -> bool:
        if st.orelse:
            raise self.err("TP210", "'while ... else' is not supported", st)
        if self._spin_lock(st, env):
            return False
        loc = self.loc(st)
        phis = self._loop_phis(self._carried(st.body, env), env, st)
        after = dict(env)
        saved = self.out
        self.out = extra = []
        try:
            test = self.value_of(st.test, env)
        finally:
            self.out = saved
        if extra:
            raise self.err("TP210", "this while condition is too complex (it calls a helper); "
                           "compute it in a variable", st.test)
        if isinstance(test, StaticValue):
            if not test.value:
                return False
            raise self.err("TP210", "a 'while' loop with a constant true condition needs break, "
                           "which is not supported", st.test)
        if not isinstance(test, RuntimeValue):
            raise self.err("TP210", "unsupported while condition", st.test)
        if test.shape != ():
            raise self.err("TP228", "a 'while' on a block tensor is not allowed in Triton; the "
                           "condition must be a scalar", st.test)
        body = self._loop_body(st, dict(env), phis)
        self.out.append(LoopMarker(None, None, cast(test.expr, "bool"), None, body, loc))
        env.clear()
        env.update(after)
        return False

    # ------------------------------------------------------------------ atomics

    _ATOMIC_OPS: ClassVar[dict] = {"atomic_add": "add", "atomic_max": "max", "atomic_min": "min",
                   "atomic_xchg": "store"}


def _per_step(inc, step: int):
    """inc / step when a loop stepping by `step` advances a value by inc = step * m each
    iteration (`tl.advance(p, (0, BLOCK_N))` in `range(lo, hi, BLOCK_N)`, `a_ptrs += BLOCK_K *
    stride_ak` in `range(0, K, BLOCK_K)`): m (an int when inc is one), so that the value after
    `(var - start) / step` iterations is `(var - start) * m`, without the division. None
    otherwise."""
    if step <= 1:
        return None
    if isinstance(inc, Cast) and not isinstance(inc.a, Const):  # a 64-bit offset advanced by an int32 amount
        m = _per_step(inc.a, step)
        return m if m is None or isinstance(m, int) else Cast(inc.dtype, m)
    value = try_int(inc)
    if value is not None:
        return value // step if value % step == 0 else None
    if isinstance(inc, BinOp) and inc.op == "*":
        for const, other in ((inc.a, inc.b), (inc.b, inc.a)):
            if try_int(const) == step:
                return other
    return None


def _plus_zero(e):
    """`0 + x` (a block pointer advanced from offset 0) as x."""
    while isinstance(e, BinOp) and e.op == "+" and isinstance(e.a, Const) and e.a.value == 0:
        e = e.b
    return e


def _positive(e) -> bool:
    """Whether a loop step is positive whenever the kernel runs: a grid's or block's size (a
    launch of none runs nothing), a positive constant, or sums and products of those."""
    if isinstance(e, Cast):
        return _positive(e.a)
    if isinstance(e, Builtin):
        return e.kind in ("grid_dim", "block_dim")
    if isinstance(e, Const):
        return not isinstance(e.value, bool) and e.value > 0
    return isinstance(e, BinOp) and e.op in ("*", "+") and _positive(e.a) and _positive(e.b)
