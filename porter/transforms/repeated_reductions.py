"""A reduction the body already computed is read from the first result, not computed again.

Triton's `m = tl.max(x, 0)` next to `i = tl.argmax(x, 0)` (whose lowering takes the maximum
first) reaches the port as two `T.reduce_max(x, ...)` of one tile; a TileLang author reduces
once:

    T.reduce_max(x, x_max, dim=0)            T.reduce_max(x, x_max, dim=0)
    T.reduce_max(x, x_max_1, dim=0)    ->    ...x_max[0]...
    ...x_max_1[0]...

A repeat is the same op over the same tile and dimension into a tile of the same shape and
dtype, in the same statement list with no write to the source or either result between them;
each result is written once in the whole body (by its reduction), so reading the first in
place of the second reads the same values everywhere.
"""

from __future__ import annotations

import dataclasses

from porter.ir.tiles import Reduce, TileBuffer, TileLoad
from porter.ir.walk import BODIES, map_expr, map_stmts, rewrite_stmts, walk_stmts
from porter.transforms.tile_copies import _tile_writes


def reduce_once(body: list) -> list:
    """The body with every repeated reduction read from its first (see the module docstring)."""
    tiles = {s.name: s for s in walk_stmts(body) if isinstance(s, TileBuffer)}
    writes: dict = {}
    for s in walk_stmts(body):
        for name in _tile_writes(s) if not BODIES.get(type(s)) else ():
            writes[name] = writes.get(name, 0) + 1
    renames: dict = {}
    _scan(body, tiles, writes, renames, body)
    if not renames:
        return body
    gone = set(renames)

    def read(e):
        if isinstance(e, TileLoad) and e.buffer in renames:
            return dataclasses.replace(e, buffer=renames[e.buffer])
        return None

    def keep(s):
        if isinstance(s, TileBuffer) and s.name in gone:
            return None
        if isinstance(s, Reduce) and s.dst in gone:
            return None
        if isinstance(s, Reduce) and s.src in renames:
            return dataclasses.replace(s, src=renames[s.src])
        return s
    return map_stmts(rewrite_stmts(body, keep), lambda e: map_expr(e, read))


def _scan(stmts: list, tiles: dict, writes: dict, renames: dict, stmts_all: list) -> None:
    seen: dict = {}  # (op, src, dim) -> the first result
    for s in stmts:
        for field in BODIES.get(type(s), ()):
            _scan(getattr(s, field), tiles, writes, renames, stmts_all)
        if isinstance(s, Reduce):
            key = (s.op, s.src, s.dim)
            first = seen.get(key)
            if first is not None and _alike(tiles.get(first), tiles.get(s.dst)) and \
                    writes.get(s.dst) == 1 and writes.get(first) == 1 and _only_read(s.dst, stmts_all):
                renames[s.dst] = first
                continue
        written = set()
        for x in walk_stmts([s]):
            written |= _tile_writes(x) if not BODIES.get(type(x)) else set()
        seen = {k: v for k, v in seen.items() if k[1] not in written and v not in written}
        if isinstance(s, Reduce) and (s.op, s.src, s.dim) not in seen and s.src != s.dst:
            seen[(s.op, s.src, s.dim)] = s.dst


def _only_read(tile: str, body: list) -> bool:
    """Whether a result is used only as element reads and by its own reduction (no tile
    statement names it)."""
    for s in walk_stmts(body):
        if isinstance(s, Reduce) and s.dst == tile:
            continue
        if tile in {getattr(s, f, None) for f in ("a", "b", "c", "src", "dst", "tile", "buffer")} and \
                not isinstance(s, TileBuffer):
            return False
    return True


def _alike(a, b) -> bool:
    return a is not None and b is not None and a.dtype == b.dtype and tuple(a.shape) == tuple(b.shape) and \
        a.scope == b.scope
