"""Generic traversal and rewriting of IR expressions and statements."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator

from porter.ir.nodes import (
    Alloc, Assign, Atomic, BinOp, Call, Cast, Decl, For, If, Load, Select, Store, UnaryOp, While,
)
from porter.ir.tiles import Copy, Fill, ParallelFor, TileBuffer, TileLoad, TileStore


def children(e) -> tuple:
    if isinstance(e, BinOp):
        return (e.a, e.b)
    if isinstance(e, (UnaryOp, Cast)):
        return (e.a,)
    if isinstance(e, Call):
        return tuple(e.args)
    if isinstance(e, Select):
        return (e.cond, e.a, e.b)
    if isinstance(e, Load):
        return (e.index,)
    if isinstance(e, TileLoad):
        return tuple(e.indices)
    return ()


def walk_expr(e) -> Iterator:
    """Pre-order: e, then its sub-expressions."""
    yield e
    for c in children(e):
        yield from walk_expr(c)


def map_expr(e, fn: Callable):
    """Rebuild bottom-up; fn(node) returns a replacement or None to keep the node. A node
    whose operands all come back unchanged is kept as it is (not copied)."""
    if isinstance(e, BinOp):
        a, b = map_expr(e.a, fn), map_expr(e.b, fn)
        if a is not e.a or b is not e.b:
            e = dataclasses.replace(e, a=a, b=b)
    elif isinstance(e, (UnaryOp, Cast)):
        a = map_expr(e.a, fn)
        if a is not e.a:
            e = dataclasses.replace(e, a=a)
    elif isinstance(e, Call):
        args = tuple(map_expr(a, fn) for a in e.args)
        if any(new is not old for new, old in zip(args, e.args)):
            e = dataclasses.replace(e, args=args)
    elif isinstance(e, Select):
        cond, a, b = map_expr(e.cond, fn), map_expr(e.a, fn), map_expr(e.b, fn)
        if cond is not e.cond or a is not e.a or b is not e.b:
            e = dataclasses.replace(e, cond=cond, a=a, b=b)
    elif isinstance(e, Load):
        index = map_expr(e.index, fn)
        if index is not e.index:
            e = dataclasses.replace(e, index=index)
    elif isinstance(e, TileLoad):
        indices = tuple(map_expr(i, fn) for i in e.indices)
        if any(new is not old for new, old in zip(indices, e.indices)):
            e = dataclasses.replace(e, indices=indices)
    out = fn(e)
    return e if out is None else out


def stmt_exprs(s) -> tuple:
    """The expressions a statement evaluates itself (not those of nested statements)."""
    if isinstance(s, Decl):
        return (s.init,) if s.init is not None else ()
    if isinstance(s, Assign):
        return (s.value,)
    if isinstance(s, Store):
        return (s.index, s.value)
    if isinstance(s, If):
        return (s.cond,)
    if isinstance(s, For):
        return (s.start, s.cond, s.step)
    if isinstance(s, While):
        return (s.cond,)
    if isinstance(s, Atomic):
        return (s.index, s.value)
    if isinstance(s, TileStore):
        return (*s.indices, s.value)
    if isinstance(s, Fill):
        return (s.value,)
    if isinstance(s, Copy):
        return tuple(s.origin)
    return ()


def walk_stmts(stmts) -> Iterator:
    """Pre-order over a statement list and all nested bodies."""
    for s in stmts:
        yield s
        if isinstance(s, If):
            yield from walk_stmts(s.then)
            yield from walk_stmts(s.orelse)
        elif isinstance(s, (For, While, ParallelFor)):
            yield from walk_stmts(s.body)


def declared_names(stmts) -> Iterator:
    """The names a body declares, in order: locals and loop variables, arrays and tiles, the
    variables of parallel loops."""
    for s in walk_stmts(stmts):
        if isinstance(s, (Decl, For)):
            yield s.var.name
        elif isinstance(s, (Alloc, TileBuffer)):
            yield s.name
        elif isinstance(s, ParallelFor):
            yield from (var.name for var in s.vars)


def fixed_locals(stmts) -> dict:
    """name -> value of each local declared with a value and never assigned again (`pid_m`,
    `num_pid_k = cdiv(K, 64)`): what analyses may read through."""
    assigned = {s.var.name for s in walk_stmts(stmts) if isinstance(s, Assign)}
    return {s.var.name: s.init for s in walk_stmts(stmts)
            if isinstance(s, Decl) and s.init is not None and s.var.name not in assigned}


def all_exprs(stmts) -> Iterator:
    for s in walk_stmts(stmts):
        for e in stmt_exprs(s):
            yield from walk_expr(e)


def map_stmts(stmts: list, fn: Callable) -> list:
    """Rebuild statements with every expression passed through fn (a map_expr step)."""
    import dataclasses as dc

    from porter.ir.nodes import Atomic as _Atomic, While as _While

    out = []
    for s in stmts:
        if isinstance(s, Decl):
            s = dc.replace(s, init=map_expr(s.init, fn) if s.init is not None else None)
        elif isinstance(s, Assign):
            s = dc.replace(s, value=map_expr(s.value, fn))
        elif isinstance(s, Store):
            s = dc.replace(s, index=map_expr(s.index, fn), value=map_expr(s.value, fn))
        elif isinstance(s, _Atomic):
            s = dc.replace(s, index=map_expr(s.index, fn), value=map_expr(s.value, fn))
        elif isinstance(s, If):
            s = dc.replace(s, cond=map_expr(s.cond, fn), then=map_stmts(s.then, fn),
                           orelse=map_stmts(s.orelse, fn))
        elif isinstance(s, For):
            s = dc.replace(s, start=map_expr(s.start, fn), cond=map_expr(s.cond, fn),
                           step=map_expr(s.step, fn), body=map_stmts(s.body, fn))
        elif isinstance(s, _While):
            s = dc.replace(s, cond=map_expr(s.cond, fn), body=map_stmts(s.body, fn))
        elif isinstance(s, ParallelFor):
            s = dc.replace(s, body=map_stmts(s.body, fn))
        elif isinstance(s, TileStore):
            s = dc.replace(s, indices=tuple(map_expr(i, fn) for i in s.indices),
                           value=map_expr(s.value, fn))
        elif isinstance(s, Fill):
            s = dc.replace(s, value=map_expr(s.value, fn))
        elif isinstance(s, Copy):
            s = dc.replace(s, origin=tuple(map_expr(o, fn) for o in s.origin))
        out.append(s)
    return out


def rewrite_stmts(stmts: list, fn: Callable) -> list:
    """Rebuild statement lists, nested bodies included: fn(s) returns the statement to keep
    (s itself, or a replacement, whose own bodies are then rewritten too) or None to drop s."""
    import dataclasses as dc

    out = []
    for s in stmts:
        s = fn(s)
        if s is None:
            continue
        if isinstance(s, If):
            s = dc.replace(s, then=rewrite_stmts(s.then, fn), orelse=rewrite_stmts(s.orelse, fn))
        elif isinstance(getattr(s, "body", None), list):  # For, While, ParallelFor
            s = dc.replace(s, body=rewrite_stmts(s.body, fn))
        out.append(s)
    return out


def store_counts(stmts) -> dict:
    """How many tile stores (`tile[i, j] = ...`) of each tile the statements hold."""
    counts: dict = {}
    for s in walk_stmts(stmts):
        if isinstance(s, TileStore):
            counts[s.buffer] = counts.get(s.buffer, 0) + 1
    return counts


def read_counts(stmts, kind) -> dict:
    """How many reads of each buffer (`kind`: Load for global memory, TileLoad for tiles) the
    statements' text holds."""
    counts: dict = {}
    for e in all_exprs(stmts):
        if isinstance(e, kind):
            counts[e.buffer] = counts.get(e.buffer, 0) + 1
    return counts
