"""Tile-level conversion of Triton kernels: reductions, `tl.dot`, scans, mixed block shapes.

An element-wise Triton kernel ports as one `T.Parallel` over its block (triton.py's lane
model). A kernel that reduces, multiplies matrices, scans, or stores blocks of different
shapes cannot live in one lane space: it is converted again in tile mode, where

  * a named block value that holds loaded or computed data is a fragment tile, written by its
    own `T.Parallel` where the source defines it (index arithmetic and masks stay inline);
  * `tl.sum/max/min` -> `T.reduce_*` into a smaller fragment; `tl.argmax/argmin` -> a max/min
    reduction, then a min-reduction over the indices that reach it (Triton's first index);
  * `tl.dot(a, b, acc)` -> `a` and `b` staged in shared tiles, `T.gemm` into the accumulator's
    fragment (in place when the accumulator is loop-carried), loops holding a gemm pipelined;
  * `tl.cumsum` -> `T.cumsum`;
  * each store is a `T.Parallel` over its own block shape (masked: a guarded store).

Before/after (softmax of one row):

    x = tl.load(X + row * n + cols, mask=cols < n, other=-inf)
    m = tl.max(x, axis=0)
    e = tl.exp(x - m)
    tl.store(Y + row * n + cols, e / tl.sum(e, axis=0), mask=cols < n)

    x = T.alloc_fragment((BLOCK,)); for i in T.Parallel(BLOCK): x[i] = if_then_else(i < n, ...)
    T.reduce_max(x, x_max, dim=0)
    e = T.alloc_fragment((BLOCK,)); for i in T.Parallel(BLOCK): e[i] = T.exp(x[i] - x_max[0])
    T.reduce_sum(e, e_sum, dim=0)
    for i in T.Parallel(BLOCK): if i < n: Y[row * n + i] = e[i] / e_sum[0]
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from porter.diagnostics import TileportError
from porter.ir.fold import fold
from porter.ir.nodes import (
    Assign, Atomic, BinOp, Builtin, Const, Decl, For, If, Load, Return, Select, Store, Sync, Var, While,
    is_float,
)
from porter.ir.tiles import Cumsum, Gemm, ParallelFor, Reduce, TileBuffer, TileLoad, TileStore
from porter.ir.walk import map_expr, walk_expr
from porter.frontends.triton.values import (
    RuntimeValue, AtomicMarker, DeclMarker, LoopMarker, PhiAssign, StaticValue, SlotRef, TileRef, cast, remap,
)

# Triton reductions and scans handled here, and the TileLang reduction each one uses.
TILE_REDUCTIONS = {"sum": "sum", "max": "max", "min": "min"}
TILE_OPS = {"sum", "max", "min", "argmax", "argmin", "cumsum", "dot", "reduce"}


class NeedTiles(Exception):
    """The kernel needs tile mode: convert it again with `tile_mode=True`."""


# --------------------------------------------------------------------------- markers


@dataclass
class TileInfo:
    hint: str
    shape: tuple
    dtype: str
    scope: str = "fragment"
    loc: object = None


@dataclass
class ShapedStmt:
    """A store (possibly under its mask's If) in lane form, with the block shape it covers."""

    shape: tuple
    stmt: object


@dataclass
class TileDefMarker:
    """Write a lane-form expression into every element of a tile."""

    tile: int
    expr: object
    loc: object = None


@dataclass
class TileOpMarker:
    """A tile primitive (Gemm, Reduce, Cumsum) whose buffer fields hold tile numbers."""

    op: object


def lane_axes(shape: tuple) -> tuple:
    """The lanes of a value of `shape` in its own placement: the last dim is lane axis 0."""
    k = len(shape)
    return tuple(k - 1 - j for j in range(k))


# --------------------------------------------------------------------------- operations


class TileOps:
    """The tile operations a KernelConverter in tile mode performs while it converts."""

    def __init__(self, conv):
        self.conv = conv
        self.tiles: list = []
        self.fragment_only: set = set()  # tiles a reduction or scan reads: they stay fragments

    def new_tile(self, hint, shape, dtype, scope="fragment", loc=None) -> int:
        self.tiles.append(TileInfo(hint, tuple(shape) or (1,), dtype, scope, loc))
        return len(self.tiles) - 1

    def ref(self, tile: int, shape: tuple):
        """A RuntimeValue reading a whole tile in its own placement (a scalar for a (1,) result)."""
        info = self.tiles[tile]
        if shape == ():
            return RuntimeValue(TileRef(tile, (0,), info.dtype), ())
        return RuntimeValue(TileRef(tile, lane_axes(shape), info.dtype), shape)

    def tile_of(self, v, hint, node, scope="fragment", dtype=None) -> int:
        """The tile holding block value v: its own when it already is one, else a new copy."""
        conv = self.conv
        e = v.expr
        dtype = dtype or v.dtype
        if dtype == v.dtype:
            own = None
            if isinstance(e, TileRef) and self.tiles[e.tile].shape == v.shape and \
                    e.lanes == lane_axes(v.shape):
                own = e.tile
            if isinstance(e, SlotRef):
                slot = conv.slots[e.slot]
                if slot.tile is not None and slot.shape == v.shape and not slot.phi and \
                        e.axes == tuple(range(len(v.shape))):
                    own = slot.tile
            if own is not None and self.tiles[own].scope == scope:
                self.fragment_only.add(own) if scope == "fragment" else None
                return own
            if own is not None and scope == "shared" and own not in self.fragment_only and \
                    isinstance(e, SlotRef):
                # a named value staged for T.gemm lives in shared memory from the start
                # (a shared tile serves element-wise steps as a fragment does)
                self.tiles[own].scope = "shared"
                return own
        tile = self.new_tile(hint, v.shape, dtype, scope, conv.loc(node))
        expr = e if e.dtype == dtype else fold(_cast(e, dtype))
        conv.out.append(TileDefMarker(tile, expr, conv.loc(node)))
        return tile

    def _block(self, v, what, node):
        if not isinstance(v, RuntimeValue) or v.shape == ():
            raise self.conv.err("TP212", f"{what} needs a block tensor", node)
        return v

    def _axis(self, axis, rank, node, what):
        if axis is None or (isinstance(axis, StaticValue) and axis.value is None):
            return None
        a = self.conv._const_int(axis, f"the axis of {what}", node)
        if not -rank <= a < rank:
            raise self.conv.err("TP212", f"{what}: axis {a} is out of range for a {rank}-D block", node)
        return a % rank

    def reduce(self, op, x, axis, keep_dims, node, dtype=None):
        """tl.sum / tl.max / tl.min along an axis (None: all of them)."""
        x = self._block(x, f"tl.{op}", node)
        axis = self._axis(axis, len(x.shape), node, f"tl.{op}")
        out_dtype = dtype or _reduce_dtype(op, x.dtype)
        if axis is None:
            v = x
            for a in reversed(range(len(x.shape))):
                v = self._reduce_axis(op, v, a, False, node, out_dtype)
            if keep_dims:
                return type(v)(v.expr, (1,) * len(x.shape)) if v.shape == () else v
            return v
        return self._reduce_axis(op, x, axis, keep_dims, node, out_dtype)

    def _reduce_axis(self, op, x, axis, keep_dims, node, dtype):
        conv = self.conv
        src = self.tile_of(x, "x", node, dtype=dtype)
        rest = x.shape[:axis] + x.shape[axis + 1:]
        dst = self.new_tile(f"{self._hint(src)}_{op}", rest, dtype, loc=conv.loc(node))
        conv.out.append(TileOpMarker(Reduce(op, src, dst, axis, conv.loc(node))))
        return self._reduced_ref(dst, x.shape, axis, keep_dims)

    def _reduced_ref(self, dst, shape, axis, keep_dims):
        rest = shape[:axis] + shape[axis + 1:]
        if not keep_dims:
            return self.ref(dst, rest)
        kept = shape[:axis] + (1,) + shape[axis + 1:]
        lanes = lane_axes(kept)
        tile_lanes = lanes[:axis] + lanes[axis + 1:] if rest else (0,)
        return RuntimeValue(TileRef(dst, tile_lanes, self.tiles[dst].dtype), kept)

    def arg_reduce(self, op, x, axis, keep_dims, node):
        """tl.argmax / tl.argmin: the first index reaching the max / min along the axis."""
        conv = self.conv
        x = self._block(x, f"tl.arg{op}", node)
        axis = self._axis(axis, len(x.shape), node, f"tl.arg{op}")
        if axis is None:
            if len(x.shape) != 1:
                raise conv.err("TP212", f"tl.arg{op} over all axes of a {len(x.shape)}-D block is "
                               "not supported; give an axis", node)
            axis = 0
        src = self.tile_of(x, "x", node)
        best = self._reduce_axis(op, self.ref(src, x.shape), axis, True, node, x.dtype)
        lane = lane_axes(x.shape)[axis]
        index = Builtin("thread_idx", lane, "int32")
        here = self.ref(src, x.shape).expr
        hit = BinOp("==", here, best.expr, "bool")
        if is_float(x.dtype):  # a NaN is the max (Triton propagates it): treat it as a hit
            hit = BinOp("||", hit, BinOp("!=", here, here, "bool"), "bool")
        big = Const(x.shape[axis], "int32")
        candidates = self.new_tile(f"{self._hint(src)}_arg{op}_idx", x.shape, "int32", loc=conv.loc(node))
        conv.out.append(TileDefMarker(candidates, Select(hit, index, big, "int32"), conv.loc(node)))
        return self._reduce_axis("min", self.ref(candidates, x.shape), axis, keep_dims, node, "int32")

    def cumsum(self, x, axis, reverse, node, dtype=None):
        conv = self.conv
        x = self._block(x, "tl.cumsum", node)
        axis = self._axis(axis, len(x.shape), node, "tl.cumsum")
        axis = 0 if axis is None else axis
        out_dtype = dtype or _reduce_dtype("sum", x.dtype)
        src = self.tile_of(x, "x", node, dtype=out_dtype)
        dst = self.new_tile(f"{self._hint(src)}_cumsum", x.shape, out_dtype, loc=conv.loc(node))
        conv.out.append(TileOpMarker(Cumsum(src, dst, axis, reverse, conv.loc(node))))
        return self.ref(dst, x.shape)

    def dot(self, a, b, acc, out_dtype, node, precision: str = "tf32"):
        """tl.dot: operands staged in shared tiles, T.gemm into a fragment accumulator."""
        conv = self.conv
        a = self._block(a, "tl.dot", node)
        b = self._block(b, "tl.dot", node)
        if len(a.shape) != 2 or len(b.shape) != 2 or a.shape[1] != b.shape[0]:
            raise conv.err("TP211", f"tl.dot of {a.shape} and {b.shape} blocks: need (M, K) @ "
                           "(K, N)", node)
        if a.dtype != b.dtype:
            conv.retype_loaded(a, b.dtype)  # a guessed dtype yields to the other operand's
            conv.retype_loaded(b, a.dtype)
            raise conv.err("TP211", f"tl.dot operands differ in type ({a.dtype}, {b.dtype}); cast "
                           "one with .to()", node)
        shape = (a.shape[0], b.shape[1])
        if acc is not None:
            if not isinstance(acc, RuntimeValue):  # a scalar RuntimeValue is a broadcast accumulator
                raise conv.err("TP212", "tl.dot acc needs a block tensor", node)
            dtype = acc.dtype
        else:
            dtype = out_dtype or ("int32" if not is_float(a.dtype) else "float32")
        loc = conv.loc(node)
        sa = self.tile_of(a, "a_shared", node, scope="shared")
        sb = self.tile_of(b, "b_shared", node, scope="shared")
        if acc is not None and isinstance(acc.expr, SlotRef) and acc.shape == shape and \
                conv.slots[acc.expr.slot].tile is not None and conv.slots[acc.expr.slot].phi and \
                acc.expr.axes == (0, 1):
            # the loop-carried accumulator: T.gemm accumulates into its fragment in place
            conv.out.append(TileOpMarker(Gemm(sa, sb, conv.slots[acc.expr.slot].tile, False, loc, precision)))
            return acc
        c = self.new_tile("acc", shape, dtype, loc=loc)
        if acc is not None:
            if acc.shape != shape and acc.shape != ():
                raise conv.err("TP211", f"tl.dot acc is a {acc.shape} block, the product {shape}", node)
            conv.out.append(TileDefMarker(c, acc.expr, loc))
        conv.out.append(TileOpMarker(Gemm(sa, sb, c, acc is None, loc, precision)))
        return self.ref(c, shape)

    def _hint(self, tile: int) -> str:
        return self.tiles[tile].hint


def _reduce_dtype(op: str, dtype: str) -> str:
    """Triton's sum/cumsum widen small integers to 32 bits; max/min keep the type."""
    if op != "sum" or is_float(dtype):
        return dtype
    if dtype == "bool" or dtype in ("int8", "int16"):
        return "int32"
    if dtype in ("uint8", "uint16"):
        return "uint32"
    return dtype


def _cast(e, dtype):
    return cast(e, dtype)


# --------------------------------------------------------------------------- materialization


class TileMaterializer:
    """Lane-form markers -> tile IR: name slots and tiles, resolve references, place each
    element-wise step in its own ParallelFor."""

    def __init__(self, conv, taken: set, unique):
        self.conv = conv
        self.slots = conv.slots
        self.tiles = conv.tile_ops.tiles
        self.taken = set(taken)
        self.unique = unique
        self.slot_names = {}
        for i, slot in enumerate(self.slots):
            self.slot_names[i] = self._name(slot.name)
        self.tile_names = {}
        owners = {}  # tile -> the first slot holding it (one pass: files unroll to thousands)
        for i, slot in enumerate(self.slots):
            if slot.tile is not None:
                owners.setdefault(slot.tile, i)
        for t, info in enumerate(self.tiles):
            owner = owners.get(t)
            self.tile_names[t] = self.slot_names[owner] if owner is not None else self._name(info.hint)
        self.vars = [Var(self._name(n), "int32") for n in ("i", "j", "k", "l")]

    def _name(self, hint: str) -> str:
        name = self.unique(hint, self.taken)
        self.taken.add(name)
        return name

    # ---------------------------------------------------------------- expressions

    def resolve(self, e):
        def step(n):
            if isinstance(n, SlotRef):
                slot = self.slots[n.slot]
                if slot.inline:
                    return self.resolve(remap(slot.expr, dict(enumerate(n.axes))))
                if slot.shape == ():
                    return Var(self.slot_names[n.slot], slot.dtype)
                if slot.tile is not None:
                    k = len(slot.shape)
                    lanes = tuple(n.axes[k - 1 - j] for j in range(k))
                    return self._load(slot.tile, lanes)
                return self.resolve(remap(slot.expr, dict(enumerate(n.axes))))
            if isinstance(n, TileRef):
                return self._load(n.tile, n.lanes)
            return None

        return map_expr(e, step)

    def _load(self, tile: int, lanes: tuple):
        info = self.tiles[tile]
        # a lane may be an index expression (a constant: one half of a tl.split; a loop
        # variable: the step of a tl.reduce fold): that element of the dimension
        idx = tuple(Const(0, "int32") if d == 1 else
                    Builtin("thread_idx", lanes[j], "int32") if isinstance(lanes[j], int) else
                    self.resolve(lanes[j]) for j, d in enumerate(info.shape))
        return TileLoad(self.tile_names[tile], idx, info.dtype)

    def place(self, e, shape: tuple, loc):
        """Lane axes -> the ParallelFor variables of a step over `shape`."""
        rank = len(shape)

        def step(n):
            if isinstance(n, Builtin) and n.kind == "thread_idx":
                if n.axis >= rank:
                    raise TileportError("TP221", f"a {rank}-D step reads a block value along a "
                                        "dimension it does not have; not supported", loc)
                return self.vars[rank - 1 - n.axis]
            return None

        return map_expr(e, step)

    def scalar(self, e, loc):
        return self.place(self.resolve(e), (), loc)

    def element(self, e, shape, loc):
        return self.place(self.resolve(e), shape, loc)

    # ---------------------------------------------------------------- statements

    def write_tile(self, tile: int, expr, loc) -> list:
        """`for i, j in T.Parallel(shape): tile[i, j] = expr` (through a temporary when expr
        reads the tile at other positions)."""
        info = self.tiles[tile]
        name = self.tile_names[tile]
        shape = info.shape
        value = self.element(expr, shape, loc) if expr.dtype == info.dtype else \
            self.element(_cast(expr, info.dtype), shape, loc)
        vars_ = tuple(self.vars[:len(shape)])
        here = tuple(Const(0, "int32") if d == 1 else v for d, v in zip(shape, vars_))
        clash = any(isinstance(n, TileLoad) and n.buffer == name and n.indices != here
                    for n in walk_expr(value))
        if not clash:
            return [ParallelFor(vars_, shape, [TileStore(name, here, value, loc)], loc)]
        temp = self._name(f"{name}_next")
        return [TileBuffer(temp, info.dtype, shape, "fragment", loc),
                ParallelFor(vars_, shape, [TileStore(temp, here, value, loc)], loc),
                ParallelFor(vars_, shape, [TileStore(name, here, TileLoad(temp, here, info.dtype), loc)],
                            loc)]

    def declare(self, tile: int, loc) -> TileBuffer:
        info = self.tiles[tile]
        return TileBuffer(self.tile_names[tile], info.dtype, info.shape, info.scope, info.loc or loc)

    def lane_stmts(self, stmts, shape, loc) -> list:
        """Lane-form SIMT statements (stores, guards, atomics) for one element of `shape`."""
        out = []
        for s in stmts:
            if isinstance(s, Store):
                out.append(Store(s.buffer, self.element(s.index, shape, loc),
                                 self.element(s.value, shape, loc), s.loc))
            elif isinstance(s, Atomic):
                out.append(Atomic(s.op, s.buffer, self.element(s.index, shape, loc),
                                  self.element(s.value, shape, loc), s.loc))
            elif isinstance(s, If):
                out.append(If(self.element(s.cond, shape, loc), self.lane_stmts(s.then, shape, loc),
                              self.lane_stmts(s.orelse, shape, loc), s.loc))
            else:
                raise AssertionError(f"unexpected lane statement {s!r}")
        return out

    def run(self, body) -> list:  # noqa: C901 - one case per marker kind
        out = []
        for s in body:
            loc = getattr(s, "loc", None)
            if isinstance(s, (DeclMarker, PhiAssign)) and self.slots[s.slot].inline:
                continue
            if isinstance(s, DeclMarker):
                slot = self.slots[s.slot]
                if slot.shape == ():
                    init = None if slot.expr is None else self.scalar(slot.expr, s.loc)
                    out.append(Decl(Var(self.slot_names[s.slot], slot.dtype), init, s.loc))
                elif slot.tile is not None:
                    out.append(self.declare(slot.tile, s.loc))
                    if slot.expr is not None:
                        out += self.write_tile(slot.tile, slot.expr, s.loc)
            elif isinstance(s, PhiAssign):
                slot = self.slots[s.slot]
                if slot.shape == ():
                    out.append(Assign(Var(self.slot_names[s.slot], slot.dtype),
                                      self.scalar(s.value, s.loc), s.loc))
                else:
                    out += self.write_tile(slot.tile, s.value, s.loc)
            elif isinstance(s, ShapedStmt):
                if s.shape == ():
                    out += self.lane_stmts([s.stmt], (), loc)
                else:
                    vars_ = tuple(self.vars[:len(s.shape)])
                    out.append(ParallelFor(vars_, s.shape, self.lane_stmts([s.stmt], s.shape, loc), loc))
            elif isinstance(s, AtomicMarker):
                stmt = Atomic(s.op, s.buffer, s.index, s.value, s.loc)
                if s.mask is not None:
                    stmt = If(s.mask, [stmt], [], s.loc)
                shape = s.shape or (1,)
                vars_ = tuple(self.vars[:len(shape)])
                out.append(ParallelFor(vars_, shape, self.lane_stmts([stmt], s.shape, s.loc), s.loc))
            elif isinstance(s, If):
                out.append(If(self.scalar(s.cond, s.loc), self.run(s.then), self.run(s.orelse), s.loc))
            elif isinstance(s, LoopMarker):
                body_ = self.run(s.body)
                if s.slot is None:
                    out.append(While(self.scalar(s.cond, s.loc), body_, s.loc))
                else:
                    var = Var(self.slot_names[s.slot], "int32")
                    stages = self.conv.num_stages if any(isinstance(x, Gemm) for x in body_) else 0
                    out.append(For(var, self.scalar(s.start, s.loc), self.scalar(s.cond, s.loc),
                                   self.scalar(s.step, s.loc), body_, s.loc, stages))
            elif isinstance(s, TileDefMarker):
                out.append(self.declare(s.tile, s.loc))
                out += self.write_tile(s.tile, s.expr, s.loc)
            elif isinstance(s, TileOpMarker):
                out += self.tile_op(s.op)
            elif isinstance(s, (Return, Sync)):
                out.append(s)
            else:
                raise AssertionError(f"unexpected marker {s!r}")
        return out

    def tile_op(self, op) -> list:
        n = self.tile_names
        if isinstance(op, Gemm):
            return [self.declare(op.c, op.loc), replace(op, a=n[op.a], b=n[op.b], c=n[op.c])]
        if isinstance(op, Reduce):
            return [self.declare(op.dst, op.loc), replace(op, src=n[op.src], dst=n[op.dst])]
        if isinstance(op, Cumsum):
            return [self.declare(op.dst, op.loc), replace(op, src=n[op.src], dst=n[op.dst])]
        raise AssertionError(op)


def uses_loads(e, slots) -> bool:
    """Whether a lane-form block expression reads memory or tiles (directly or through named
    block values that do): such values are materialized in tile mode, index arithmetic is
    inlined. Scalars are variables, read as such."""
    for n in walk_expr(e):
        if isinstance(n, (Load, TileRef)):
            return True
        if isinstance(n, SlotRef) and slots[n.slot].tile is not None:
            return True
    return False


def drop_duplicate_declarations(body: list) -> list:
    """A tile declared twice (written in a loop and read after) is declared once."""
    seen = set()

    def walk(stmts):
        out = []
        for s in stmts:
            if isinstance(s, TileBuffer):
                if s.name in seen:
                    continue
                seen.add(s.name)
            elif isinstance(s, If):
                s = replace(s, then=walk(s.then), orelse=walk(s.orelse))
            elif isinstance(s, (For, While, ParallelFor)):
                s = replace(s, body=walk(s.body))
            out.append(s)
        return out

    return walk(body)


__all__ = ["NeedTiles", "TileOps", "TileMaterializer", "ShapedStmt", "TileDefMarker",
           "TileOpMarker", "TILE_OPS", "uses_loads", "drop_duplicate_declarations"]
