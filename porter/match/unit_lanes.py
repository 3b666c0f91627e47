"""Blocks with a dimension of one, as the blocks of the other dimensions.

Triton keeps a reduction's dimension as a 1 to broadcast it back (`acc[:, None]`,
`tl.sum(x, axis=1)[:, None]`, `tl.arange(0, BLOCK)[None, :]`), and the front end prints such a
block as a tile of shape (BLOCK, 1) filled by `T.Parallel(BLOCK, 1)`. A TileLang author writes
the (BLOCK,) tile and one lane: `for i in T.Parallel(BLOCK)`, which is also what a copy into or
out of a view of one dimension needs (FlagGems' mv stores `acc[:, None]` into a column vector).

A T.Parallel lane of extent 1 only takes the value 0: it is dropped and 0 put where it was
read. A tile with a dimension of one whose every element access (TileLoad, TileStore) reads it
at index 0, and that no tile operation (copy, gemm, reduction) names, loses that dimension. A
tile of ones only, or a loop of ones only, stays as it is.
"""

from __future__ import annotations

import dataclasses

from porter.ir.nodes import Const, Var
from porter.ir.tiles import Fill, ParallelFor, TileBuffer, TileLoad, TileStore
from porter.ir.walk import all_exprs, map_stmts, rewrite_stmts, walk_stmts


def squeezed_unit_lanes(body: list) -> list:
    """`body` with lanes of extent 1 dropped and tiles of a dimension of one squeezed."""
    body = rewrite_stmts(body, _without_unit_lanes)
    squeeze = _squeezable(body)
    if not squeeze:
        return body

    def index(e):
        if isinstance(e, TileLoad) and e.buffer in squeeze:
            return dataclasses.replace(e, indices=_kept(e.indices, squeeze[e.buffer]))
        return None

    def statement(s):
        if isinstance(s, TileBuffer) and s.name in squeeze:
            return dataclasses.replace(s, shape=_kept(s.shape, squeeze[s.name]))
        if isinstance(s, TileStore) and s.buffer in squeeze:
            return dataclasses.replace(s, indices=_kept(s.indices, squeeze[s.buffer]))
        return s
    return rewrite_stmts(map_stmts(body, index), statement)


def _without_unit_lanes(s):
    if not (isinstance(s, ParallelFor) and 1 in s.extents and any(e != 1 for e in s.extents)):
        return s
    gone = {v.name for v, e in zip(s.vars, s.extents) if e == 1}

    def zero(e):
        return Const(0, e.dtype) if isinstance(e, Var) and e.name in gone else None
    kept = [(v, e) for v, e in zip(s.vars, s.extents) if e != 1]
    return dataclasses.replace(s, vars=tuple(v for v, _ in kept), extents=tuple(e for _, e in kept),
                               body=map_stmts(s.body, zero))


def _squeezable(body: list) -> dict:
    """tile -> the positions of its dimensions of one that every element access reads at 0,
    for tiles no tile operation names."""
    tiles = {s.name: s for s in walk_stmts(body) if isinstance(s, TileBuffer)}
    candidates = {name: {d for d, n in enumerate(t.shape) if n == 1} for name, t in tiles.items()
                  if 1 in t.shape and any(n != 1 for n in t.shape)}
    for s in walk_stmts(body):
        if isinstance(s, (TileBuffer, ParallelFor)):
            continue
        if isinstance(s, TileStore):
            _keep_zeros(candidates, s.buffer, s.indices)
        elif not isinstance(s, Fill):
            for value in vars(s).values():  # a tile operation names its tiles by fields
                if isinstance(value, str):
                    candidates.pop(value, None)
    for e in all_exprs(body):
        if isinstance(e, TileLoad):
            _keep_zeros(candidates, e.buffer, e.indices)
    return {name: dims for name, dims in candidates.items() if dims}


def _keep_zeros(candidates: dict, tile: str, indices: tuple) -> None:
    if tile in candidates:
        candidates[tile] = {d for d in candidates[tile]
                            if d < len(indices) and isinstance(indices[d], Const) and indices[d].value == 0}


def _kept(items: tuple, dropped: set) -> tuple:
    return tuple(x for d, x in enumerate(items) if d not in dropped)
