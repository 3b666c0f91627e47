"""A loop that stores one constant into every element of a tile becomes one Fill.

Before/after:

    for i, j in T.Parallel(BLOCK_M, BLOCK_N): acc[i, j] = 0.0     (acc is BLOCK_M x BLOCK_N)
    T.clear(acc)

T.clear / T.fill is how a TileLang author initializes an accumulator (`tl.zeros`, a running
max's -inf): the same stores, one statement TileLang lowers as it likes.
"""

from __future__ import annotations

from porter.ir.nodes import Const, Var
from porter.ir.tiles import Fill, ParallelFor, TileBuffer, TileStore
from porter.ir.walk import rewrite_stmts, walk_stmts


def whole_tile_fills(body: list) -> list:
    """`body` with every whole-tile constant store loop replaced by a Fill."""
    shapes = {s.name: tuple(s.shape) for s in walk_stmts(body) if isinstance(s, TileBuffer)}

    def fill(s):
        if not (isinstance(s, ParallelFor) and len(s.body) == 1 and isinstance(s.body[0], TileStore)):
            return s
        store = s.body[0]
        whole = (shapes.get(store.buffer) == tuple(s.extents)
                 and len(store.indices) == len(s.vars)
                 and all(isinstance(i, Var) and i.name == v.name for i, v in zip(store.indices, s.vars)))
        if whole and isinstance(store.value, Const):
            return Fill(store.buffer, store.value, store.loc or s.loc)
        return s

    return rewrite_stmts(body, fill)
