"""Whole-tile copies between fragments that hold one value become one fragment.

The front ends give every new tile value a fresh fragment (Triton values are immutable), so
a loop-carried accumulator reaches the port as a chain of copies:

    acc_1[i, j] = acc[i, j] * alpha[i]          acc[i, j] = acc[i, j] * alpha[i]
    acc_5[i, j] = acc_1[i, j]            ->     T.gemm(p, v, acc)
    T.gemm(p, v, acc_5)
    acc[i, j] = acc_5[i, j]   (loop end)

A TileLang author writes the right-hand side: one fragment updated in place, under the
user's name, with no extra registers. A copy `dst = src` merges the two fragments when their
values never need to exist at once (no statement other than the copy writes one while the
other is still to be read), and when no statement that reads one and writes the other would
then read an element another iteration writes (an element-wise step is in place only when
it reads the element it stores). The name declared first survives: the loop-carried one,
or the caller's name for a helper's parameter.
"""

from __future__ import annotations

import dataclasses

from porter.ir.nodes import For, If, Var, While
from porter.ir.tiles import Copy, CopyOut, Cumsum, Fill, Gemm, ParallelFor, Reduce, TileBuffer, TileLoad, TileStore
from porter.ir.walk import map_stmts, rewrite_stmts, stmt_exprs, walk_expr, walk_stmts


def coalesce_tile_copies(body: list) -> list:
    """The body with every mergeable whole-fragment copy merged (see the module docstring).
    Each round reads liveness once and merges every copy whose two fragments no other merge
    of the round touches (their checks do not depend on each other)."""
    for _ in range(64):  # a round merges all it can; chains need a few
        tiles = {s.name: s for s in walk_stmts(body) if isinstance(s, TileBuffer)}
        order = {name: n for n, name in enumerate(tiles)}
        facts = _Facts(body, tiles)
        renames, touched = {}, set()
        for src, dst in _copies(body, tiles):
            if {src, dst} & touched or not _mergeable(facts, src, dst):
                continue
            keep, gone = (src, dst) if order[src] < order[dst] else (dst, src)
            renames[gone] = keep
            touched |= {src, dst}
        if not renames:
            return body
        body = _renamed(body, renames)
    return body


def _copies(body: list, tiles: dict) -> list:
    """(src, dst) of each `dst[i, j] = src[i, j]` over the whole of two like fragments."""
    pairs = []
    for s in walk_stmts(body):
        pair = _copy_pair(s)
        if pair is None or pair[0] == pair[1]:
            continue
        src, dst = tiles.get(pair[0]), tiles.get(pair[1])
        if src is None or dst is None or src.scope != "fragment" or dst.scope != "fragment":
            continue
        if src.dtype == dst.dtype and tuple(src.shape) == tuple(dst.shape) == tuple(s.extents):
            pairs.append(pair)
    return pairs


def _copy_pair(s):
    """(src, dst) when `s` is `for ... in T.Parallel: dst[i, j] = src[i, j]` (each element
    onto the same element), else None."""
    if not (isinstance(s, ParallelFor) and len(s.body) == 1 and isinstance(s.body[0], TileStore)):
        return None
    store = s.body[0]
    if isinstance(store.value, TileLoad) and _is_identity(store.indices, s.vars) and \
            _is_identity(store.value.indices, s.vars):
        return store.value.buffer, store.buffer
    return None


def _is_identity(indices, variables) -> bool:
    return len(indices) == len(variables) and all(
        isinstance(i, Var) and i.name == v.name for i, v in zip(indices, variables))


# ----------------------------------------------------------------------- effects


def _tile_reads(s) -> set:
    """Tiles a statement (nested statements included) reads."""
    reads = set()
    for t in [s, *(_nested(s))]:
        reads |= _tile_reads_of_exprs(t)
        if isinstance(t, Gemm):
            reads |= {t.a, t.b} | (set() if t.clear else {t.c})
        elif isinstance(t, (Reduce, Cumsum)):
            reads.add(t.src)
        elif isinstance(t, CopyOut):
            reads.add(t.tile)
    return reads


def _tile_writes(s) -> set:
    writes = set()
    for t in [s, *(_nested(s))]:
        if isinstance(t, (TileStore, Fill)):
            writes.add(t.buffer)
        elif isinstance(t, Gemm):
            writes.add(t.c)
        elif isinstance(t, (Reduce, Cumsum)):
            writes.add(t.dst)
        elif isinstance(t, Copy):
            writes.add(t.tile)
    return writes


def _kills(s, tiles: dict) -> set:
    """Tiles a simple statement overwrites whole (their old value is then dead)."""
    if isinstance(s, (Fill, Reduce, Cumsum, Copy)):
        return _tile_writes(s)
    if isinstance(s, Gemm) and s.clear:
        return {s.c}
    if isinstance(s, ParallelFor):
        return {t.buffer for t in s.body if isinstance(t, TileStore) and t.buffer in tiles
                and tuple(tiles[t.buffer].shape) == tuple(s.extents) and _is_identity(t.indices, s.vars)}
    return set()


def _nested(s) -> list:
    if isinstance(s, If):
        return list(walk_stmts(s.then)) + list(walk_stmts(s.orelse))
    if isinstance(s, (For, While, ParallelFor)):
        return list(walk_stmts(s.body))
    return []


# ----------------------------------------------------------------------- liveness


class _Facts:
    """Liveness of a body's fragments, indexed for the merge checks: per tile, the simple
    statements (not an If or loop) that write it, each with the tiles live after it, the
    tiles it reads and those it writes; and the tiles read before any write."""

    def __init__(self, body: list, tiles: dict):
        self.writers: dict = {}
        effects: dict = {}  # id(statement) -> (reads, kills, writes), each found once

        def block(stmts: list, live: set, record: bool) -> set:
            for s in reversed(stmts):
                live = stmt(s, live, record)
            return live

        def stmt(s, live: set, record: bool) -> set:
            if isinstance(s, If):
                return block(s.then, live, record) | block(s.orelse, live, record) | _tile_reads_of_exprs(s)
            if isinstance(s, (For, While)):
                around = set(live)
                while True:  # live across the back edge: what the body reads before it writes
                    inner = block(s.body, around, False) | _tile_reads_of_exprs(s)
                    if inner | live == around:
                        break
                    around = inner | live
                block(s.body, around, record)
                return around
            if id(s) not in effects:
                effects[id(s)] = (_tile_reads(s), _kills(s, tiles), _tile_writes(s))
            reads, kills, writes = effects[id(s)]
            if record:
                fact = (s, frozenset(live), reads, writes)
                for name in writes:
                    self.writers.setdefault(name, []).append(fact)
            return (live - kills) | reads

        self.entry = frozenset(block(body, set(), True))


def _tile_reads_of_exprs(s) -> set:
    return {x.buffer for e in stmt_exprs(s) for x in walk_expr(e) if isinstance(x, TileLoad)}


def _mergeable(facts: _Facts, src: str, dst: str) -> bool:
    pair = {src, dst}
    if pair & facts.entry:  # one of them is read before it is written
        return False
    for s, live, all_reads, all_writes in facts.writers.get(src, []) + facts.writers.get(dst, []):
        writes, reads = all_writes & pair, all_reads & pair
        if _is_the_copy(s, src, dst):
            continue
        if any((other in live) for w in writes for other in pair - {w}):
            return False
        if reads and (writes | reads) == pair and not _in_place(s, pair):
            return False
    return True


def _is_the_copy(s, src: str, dst: str) -> bool:
    return _copy_pair(s) == (src, dst)


def _in_place(s, pair: set) -> bool:
    """Whether a statement that reads one of the pair and writes the other stays right with
    both one fragment: an element-wise step that reads only the elements it stores."""
    if not isinstance(s, ParallelFor):
        return False
    stores = [t for t in walk_stmts(s.body) if isinstance(t, TileStore) and t.buffer in pair]
    if len(stores) != 1 or stores[0] not in s.body:
        return False
    index = tuple(stores[0].indices)
    for t in walk_stmts(s.body):
        for e in stmt_exprs(t):
            for x in walk_expr(e):
                if isinstance(x, TileLoad) and x.buffer in pair and tuple(x.indices) != index:
                    return False
    return True


# ----------------------------------------------------------------------- renaming


def _renamed(body: list, renames: dict) -> list:
    """Each fragment in `renames` under the name it maps to (the one declared first); copies
    of a fragment onto itself go."""

    def name(n: str) -> str:
        return renames.get(n, n)

    def load(e):
        return dataclasses.replace(e, buffer=renames[e.buffer]) \
            if isinstance(e, TileLoad) and e.buffer in renames else None

    def rename(s):
        if isinstance(s, TileBuffer):
            return None if s.name in renames else s
        if isinstance(s, (TileStore, Fill)):
            return dataclasses.replace(s, buffer=name(s.buffer))
        if isinstance(s, Gemm):
            return dataclasses.replace(s, a=name(s.a), b=name(s.b), c=name(s.c))
        if isinstance(s, (Reduce, Cumsum)):
            return dataclasses.replace(s, src=name(s.src), dst=name(s.dst))
        if isinstance(s, (Copy, CopyOut)):
            return dataclasses.replace(s, tile=name(s.tile))
        return s

    def self_copy(s) -> bool:
        pair = _copy_pair(s)
        return pair is not None and pair[0] == pair[1]

    body = rewrite_stmts(map_stmts(body, load), rename)
    return rewrite_stmts(body, lambda s: None if self_copy(s) else s)
