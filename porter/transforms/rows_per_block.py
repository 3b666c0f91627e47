"""Several rows per block: a Triton row kernel's program handles ROWS rows at once.

A Triton row kernel runs one program per row (`row = tl.program_id(0)`) over a block as wide
as the row (`BLOCK = next_power_of_2(n_cols)`): 16 columns on 128 threads leave 7 of 8 lanes
idle. A TileLang author gives each block a tile of rows (tilelang's examples/norm): every
fragment gains a leading dimension of ROWS = max(1, threads // BLOCK) rows, the row's
reductions reduce along its columns, the per-row scalars (`mean`, `rstd`) become (ROWS,)
fragments, and the grid is ceildiv(rows, ROWS):

    with T.Kernel(grid_x) as row:                  with T.Kernel(T.ceildiv(grid_x, ROWS)) as row_block:
        T.copy(x_ptr[row, 0], x)                       T.copy(x_ptr[row_block * ROWS, 0], x)
        T.reduce_sum(x, s, dim=0)                      T.reduce_sum(x, s, dim=1)
        mean = s[0] / n                                for r in T.Parallel(ROWS): mean[r] = s[r] / n
        for i in T.Parallel(BLOCK):                    for r, i in T.Parallel(ROWS, BLOCK):
            y[i] = x[i] - mean                             y[r, i] = x[r, i] - mean[r]
        T.copy(y, out_ptr[row, 0])                     T.copy(y, out_ptr[row_block * ROWS, 0])
        means[row] = mean                              for r in T.Parallel(ROWS):
                                                           if row_block * ROWS + r < grid_x: means[...] = mean[r]

The wrapper narrows each view the rows index to the grid's rows, so a copy of the last block
stops where the programs did (T.copy bounds its region by the view); every other access of
an argument inside the tile steps is guarded by the row being one of the grid's. It applies
when the program id is only a row (every copy's first index is the program id itself, on a
view of as many rows as the tensor holds), the fragments it makes per row are 1-D, and the
control flow at block level reads no per-row value; otherwise the kernel keeps one row per
block.
"""

from __future__ import annotations

import dataclasses

from porter.ir.nodes import Assign, BinOp, Builtin, Cast, Comment, Const, Decl, For, If, Load, Select, Store, Var
from porter.ir.symbolic_ints import DerivedInt
from porter.ir.tiles import Copy, CopyOut, Cumsum, Fill, ParallelFor, Reduce, TileBuffer, TileLoad, TileStore
from porter.ir.walk import (BODIES, EVALUATES, all_exprs, declared_names, map_expr, rewrite_stmts, stmt_exprs, walk_expr,
                            walk_stmts)
from porter.util.names import fresh_name

_PROGRAM = Builtin("block_idx", 0, "int32")
_GRID = Builtin("grid_dim", 0, "int32")


class _Refused(Exception):
    """The kernel is not a row kernel this transform batches."""


@dataclasses.dataclass(frozen=True)
class Batched:
    """A form with several rows per block: its body, the rows' count as the program prints it
    (a DerivedInt, ROWS = max(1, threads // widest)), the widest row tile, and the views the
    wrapper narrows to the grid's rows."""

    body: list
    rows: DerivedInt
    widest: int
    narrowed: tuple


def rows_per_block(kernel, body: list, threads: int) -> Batched | None:
    """The tile-level body of a Triton row kernel with ROWS rows per block, or None."""
    launch = kernel.launch
    if kernel.language != "triton" or launch.tile_grid or kernel.aligned.sizes:
        return None
    # one grid axis of rows (a Triton grid `(M, 1, 1)` is one)
    if any(g != Const(1, "int32") for g in launch.grid[1:]) or \
            any(isinstance(e, Builtin) and e.kind == "block_idx" and e.axis > 0 for e in all_exprs(body)):
        return None
    try:
        return _Batching(kernel, body, threads).batched()
    except _Refused:
        return None


class _Batching:
    def __init__(self, kernel, body: list, threads: int):
        self.body = body
        self.params = {p.name: p for p in kernel.params}
        self.views = {p.name: p for p in kernel.params if getattr(p, "shape", None)}
        self.tiles = {s.name: s for s in walk_stmts(body) if isinstance(s, TileBuffer)}
        if any(t.scope != "fragment" for t in self.tiles.values()):
            raise _Refused
        taken = set(self.params) | set(declared_names(body)) | set(kernel.constexprs)
        self.rows_name = fresh_name("ROWS", taken)
        self.lane = Var(fresh_name("r", taken), "int32")
        self.lets = {s.var.name: s.init for s in walk_stmts(body) if isinstance(s, Decl) and s.init is not None}
        self.assigned = {s.var.name for s in walk_stmts(body) if isinstance(s, Assign)}
        self.rows_vars, self.rows_tiles = set(), set()
        self._find_per_row()
        widths = [int(d) for name in self.rows_tiles for d in self.tiles[name].shape]
        if not self.rows_tiles or any(len(self.tiles[n].shape) != 1 for n in self.rows_tiles):
            raise _Refused
        self.widest = max(widths)
        self.rows = DerivedInt(max(1, threads // self.widest), self.rows_name)
        self.row = BinOp("+", BinOp("*", _PROGRAM, Var(self.rows_name, "int32"), "int32"), self.lane, "int32")
        self.first = BinOp("*", _PROGRAM, Var(self.rows_name, "int32"), "int32")  # the block's first row
        self.narrowed = set()
        self.row_vectors = self._row_vectors()
        # vector views of as many rows as the tensor holds (a strided per-row vector, views.py)
        self.row_views = {name for name, p in self.views.items() if tuple(p.shape) == ("*",)}
        self.taken = taken | {self.rows_name, self.lane.name}

    # ------------------------------------------------------------------ what is per row

    def _mentions(self, e) -> bool:
        for n in walk_expr(e):
            if n == _PROGRAM or (isinstance(n, Var) and n.name in self.rows_vars) or \
                    (isinstance(n, TileLoad) and n.buffer in self.rows_tiles):
                return True
        return False

    def _find_per_row(self) -> None:
        """The locals and fragments whose values differ between rows, to a fixed point."""
        while True:
            before = (len(self.rows_vars), len(self.rows_tiles))
            for s in _block_level(self.body):
                if isinstance(s, (Decl, Assign)):
                    value = s.init if isinstance(s, Decl) else s.value
                    if value is not None and self._mentions(value):
                        self.rows_vars.add(s.var.name)
                elif isinstance(s, ParallelFor):
                    if any(self._mentions(e) for e in all_exprs(s.body)) or \
                            any(isinstance(x, TileStore) and x.buffer in self.rows_tiles for x in walk_stmts(s.body)):
                        self.rows_tiles |= {x.buffer for x in walk_stmts(s.body)
                                            if isinstance(x, TileStore) and x.buffer in self.tiles}
                elif isinstance(s, Copy):
                    if any(self._mentions(o) for o in s.origin):
                        self.rows_tiles.add(s.tile)
                elif isinstance(s, (Reduce, Cumsum)):
                    if s.src in self.rows_tiles:
                        self.rows_tiles.add(s.dst)
                elif isinstance(s, Fill):
                    if self._mentions(s.value):
                        self.rows_tiles.add(s.buffer)
            if (len(self.rows_vars), len(self.rows_tiles)) == before:
                return

    def _row_vectors(self) -> set:
        """Flat arguments read or written only one element per row, at the row's index, by the
        block (`mean_ptr + row`, `labels + row`): their rows are copied, the wrapper cuts them
        to the grid's rows."""
        found, spoiled = set(), set()
        for s in _block_level(self.body):
            if isinstance(s, ParallelFor):  # every element of a tile step: not one a row
                spoiled |= {e.buffer for e in all_exprs(s.body) if isinstance(e, Load)}
                spoiled |= {x.buffer for x in walk_stmts(s.body) if isinstance(x, Store)}
                continue
            accesses = [(e.buffer, e.index) for root in stmt_exprs(s) for e in walk_expr(root) if isinstance(e, Load)]
            if isinstance(s, Store):
                accesses.append((s.buffer, s.index))
            for buffer, index in accesses:
                if not self._is_program(index):
                    spoiled.add(buffer)
                found.add(buffer)
        writes = {s.buffer for s in walk_stmts(self.body) if hasattr(s, "buffer") and not isinstance(s, (Store, TileStore))}
        return {b for b in found - spoiled - writes if b in self.params and b not in self.views}

    def _row_access(self, node) -> bool:
        """Whether a block-level load or store reads or writes the row's element of a per-row
        vector: a flat one at the row's index, or a vector view (rows,) at the row."""
        if isinstance(node, (Load, Store)):
            return node.buffer in self.row_vectors
        if isinstance(node, (TileLoad, TileStore)) and node.buffer in self.row_views:
            return len(node.indices) == 1 and self._is_program(node.indices[0])
        return False

    def _is_program(self, e) -> bool:
        """Whether `e` is the program id itself (through casts and locals that name it)."""
        while True:
            if isinstance(e, Cast):
                e = e.a
            elif isinstance(e, Var) and e.name in self.lets and e.name not in self.assigned:
                e = self.lets[e.name]
            else:
                return e == _PROGRAM

    # ------------------------------------------------------------------ the rewrite

    def batched(self) -> Batched:
        body = _unread_dropped(self._block(self.body), self.rows_vars)
        if not self.narrowed:
            raise _Refused  # no row read or written through a view: not a row kernel
        return Batched(body, self.rows, self.widest, tuple(sorted(self.narrowed)))

    def _block(self, stmts: list) -> list:
        out = []
        for s in stmts:
            out += self._statement(s)
        return out

    def _statement(self, s) -> list:
        if isinstance(s, TileBuffer):
            if s.name not in self.rows_tiles:
                return [s]
            shape = (self.rows,) if tuple(s.shape) == (1,) else (self.rows,) + tuple(s.shape)
            return [dataclasses.replace(s, shape=shape)]
        if isinstance(s, ParallelFor):
            if not any(isinstance(x, TileStore) and x.buffer in self.rows_tiles for x in walk_stmts(s.body)) and \
                    not any(self._mentions(e) for e in all_exprs(s.body)):
                return [s]
            return [ParallelFor((self.lane,) + tuple(s.vars), (self.rows,) + tuple(s.extents),
                                self._lanes(s.body), s.loc)]
        if isinstance(s, (Copy, CopyOut)):
            tile = s.tile
            if tile not in self.rows_tiles and not any(self._mentions(o) for o in s.origin):
                return [s]  # a tile every row shares (a weight vector)
            if tile not in self.rows_tiles or not s.origin or s.spans or not self._is_program(s.origin[0]) or \
                    any(self._mentions(o) for o in s.origin[1:]):
                raise _Refused
            view = self.views.get(s.buffer)
            if view is None or len(view.shape) != 2 or view.shape[0] != "*":
                raise _Refused
            self.narrowed.add(s.buffer)
            first = Cast(s.origin[0].dtype, self.first) if isinstance(s.origin[0], Cast) else self.first
            origin = (first,) + tuple(s.origin[1:])
            return [dataclasses.replace(s, origin=origin)]
        if isinstance(s, (Reduce, Cumsum)):
            if s.src not in self.rows_tiles:
                return [s]
            return [dataclasses.replace(s, dim=s.dim + 1)]
        if isinstance(s, Fill):
            return [s]
        if isinstance(s, (Decl, Assign)):
            value = s.init if isinstance(s, Decl) else s.value
            if s.var.name not in self.rows_vars:
                if value is not None and self._mentions(value):
                    raise _Refused
                return [s]
            out = [TileBuffer(s.var.name, s.var.dtype, (self.rows,), "fragment", s.loc)] if isinstance(s, Decl) else []
            read = value.a if isinstance(value, Cast) else value
            if isinstance(s, Decl) and self._row_access(read):
                # the block's rows of a per-row vector, copied (converted in a step)
                self.narrowed.add(read.buffer)
                if read.dtype == s.var.dtype:
                    return out + [Copy(read.buffer, (self.first,), s.var.name, s.loc)]
                raw = fresh_name(f"{s.var.name}_{read.dtype}", self.taken)
                step = TileStore(s.var.name, (self.lane,), dataclasses.replace(value, a=TileLoad(raw, (self.lane,), read.dtype))
                                 if read is not value else TileLoad(raw, (self.lane,), read.dtype), s.loc)
                return out + [TileBuffer(raw, read.dtype, (self.rows,), "fragment", s.loc),
                              Copy(read.buffer, (self.first,), raw, s.loc), ParallelFor((self.lane,), (self.rows,), [step], s.loc)]
            if value is not None:
                store = TileStore(s.var.name, (self.lane,), self._lane_expr(value), s.loc)
                out.append(ParallelFor((self.lane,), (self.rows,), self._guarded([store]), s.loc))
            return out
        if isinstance(s, (Store, TileStore)):  # a global element the block writes
            indices = (s.index,) if isinstance(s, Store) else tuple(s.indices)
            if not (any(self._mentions(i) for i in indices) or self._mentions(s.value)):
                return [s]
            if self._row_access(s) and s.value.dtype == self.params[s.buffer].dtype:
                # the block's rows of a per-row vector, staged then copied out
                self.narrowed.add(s.buffer)
                value = self._lane_expr(s.value)
                if isinstance(value, TileLoad) and value.indices == (self.lane,):  # a (ROWS,) fragment
                    return [CopyOut(value.buffer, s.buffer, (self.first,), s.loc)]
                staged = fresh_name(f"{s.buffer}_tile", self.taken)
                return [TileBuffer(staged, s.value.dtype, (self.rows,), "fragment", s.loc),
                        ParallelFor((self.lane,), (self.rows,), [TileStore(staged, (self.lane,), value, s.loc)], s.loc),
                        CopyOut(staged, s.buffer, (self.first,), s.loc)]
            if isinstance(s, Store):
                store = dataclasses.replace(s, index=self._lane_expr(s.index), value=self._lane_expr(s.value))
            else:
                store = dataclasses.replace(s, indices=tuple(self._lane_expr(i) for i in s.indices),
                                            value=self._lane_expr(s.value))
            return [ParallelFor((self.lane,), (self.rows,), self._guarded([store]), s.loc)]
        if isinstance(s, (For, If)):
            if any(self._mentions(e) for e in stmt_exprs(s)):
                raise _Refused  # control flow that differs between rows
            return [dataclasses.replace(s, **{f: self._block(getattr(s, f)) for f in BODIES[type(s)]})]
        if isinstance(s, Comment):
            return [s]
        raise _Refused  # a gemm, an atomic, a barrier, an early return: one row per block

    def _lane_expr(self, e):
        """An expression of the tile step for row `r`: the program id its row, a per-row
        local or (1,) fragment its element."""
        def step(n):
            if n == _PROGRAM:
                return self.row
            if isinstance(n, Var) and n.name in self.rows_vars:
                return TileLoad(n.name, (self.lane,), n.dtype)
            if isinstance(n, TileLoad) and n.buffer in self.rows_tiles:
                return dataclasses.replace(n, indices=self._indices(n.buffer, n.indices))
            return None
        return map_expr(e, step)

    def _indices(self, tile: str, indices: tuple) -> tuple:
        return (self.lane,) if tuple(self.tiles[tile].shape) == (1,) else (self.lane,) + tuple(indices)

    def _lanes(self, stmts: list) -> list:
        """A tile step's statements for row `r`, each that touches an argument guarded."""
        out = []
        for s in stmts:
            fields = {}
            for name in EVALUATES.get(type(s), ()):
                value = getattr(s, name)
                if name == "indices":  # a per-row tile's element of row r
                    indices = tuple(self._lane_expr(i) for i in value)
                    fields[name] = self._indices(s.buffer, indices) if s.buffer in self.rows_tiles else indices
                elif value is not None:
                    fields[name] = self._lane_expr(value)
            for name in BODIES.get(type(s), ()):
                fields[name] = self._lanes(getattr(s, name))
            out.append(dataclasses.replace(s, **fields) if fields else s)
        return self._guarded(out)

    def _guarded(self, stmts: list) -> list:
        """Each statement that reads or writes an argument runs only for the grid's rows; a
        local's value is read so (T.if_then_else evaluates one side)."""
        ok = BinOp("<", self.row, _GRID, "bool")
        out = []
        for s in stmts:
            touches = self._touches(s)
            if not touches:
                out.append(s)
            elif isinstance(s, (Decl, Assign)):
                value = s.init if isinstance(s, Decl) else s.value
                zero = Const(0, value.dtype) if value.dtype != "bool" else Const(False, "bool")
                guarded = Select(ok, value, zero, value.dtype)
                out.append(dataclasses.replace(s, **{"init" if isinstance(s, Decl) else "value": guarded}))
            elif isinstance(s, (If, For, ParallelFor)) and not any(self._reads(e) for e in stmt_exprs(s)):
                out.append(s)  # its own statements are guarded already
            else:
                out.append(If(ok, [s], [], getattr(s, "loc", None)))
        return out

    def _reads(self, e) -> bool:
        return any(isinstance(n, (Load, TileLoad)) and n.buffer in self.params for n in walk_expr(e))

    def _touches(self, s) -> bool:
        if isinstance(s, (Store, TileStore)) and s.buffer in self.params:
            return True
        return any(self._reads(e) for e in stmt_exprs(s))


def _block_level(stmts: list):
    """The statements the block runs as one (not those inside a tile step), nested control
    flow's included."""
    for s in stmts:
        yield s
        if isinstance(s, (For, If)):
            for name in BODIES[type(s)]:
                yield from _block_level(getattr(s, name))


def _unread_dropped(body: list, names: set) -> list:
    """The per-row locals' fragments nothing reads any longer (`row = pid.to(tl.int64)`, once
    the copies start at the block's first row), with the steps that fill them."""
    read = {e.buffer for e in all_exprs(body) if isinstance(e, TileLoad)}
    read |= {s.tile for s in walk_stmts(body) if isinstance(s, (Copy, CopyOut))}
    dead = names - read

    def fills_dead(s):
        stores = [x for x in walk_stmts(s.body) if isinstance(x, (TileStore, Store))]
        return stores and all(isinstance(x, TileStore) and x.buffer in dead for x in stores)

    return rewrite_stmts(body, lambda s: None if (isinstance(s, TileBuffer) and s.name in dead) or
                         (isinstance(s, ParallelFor) and fills_dead(s)) else s)
