"""Generic traversal and rewriting of IR expressions and statements."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from operator import attrgetter

from porter.ir.nodes import (
    Alloc, Assign, Atomic, BinOp, Break, Builtin, Call, Cast, Comment, Const, Continue, Decl, For, If, Load,
    Return, Select, Store, Sync, UnaryOp, Var, While,
)
from porter.ir.tiles import Copy, CopyOut, Cumsum, Fill, Gemm, ParallelFor, Reduce, TileBuffer, TileLoad, TileStore


#: Expression node type -> its operand fields, in order (a tuple field holds several: a call's
#: arguments, a tile read's indices); leaves have none. A node type missing here would be
#: walked as a leaf: tests/test_ir_tables.py fails on one.
OPERANDS = {
    BinOp: ("a", "b"), UnaryOp: ("a",), Cast: ("a",), Call: ("args",), Select: ("cond", "a", "b"),
    Load: ("index",), TileLoad: ("indices",), Const: (), Var: (), Builtin: (),
}

#: Statement node type -> the expression fields it evaluates itself (not its nested bodies').
EVALUATES = {
    Decl: ("init",), Assign: ("value",), Store: ("index", "value"), If: ("cond",), For: ("start", "cond", "step"),
    While: ("cond",), Atomic: ("index", "value"), TileStore: ("indices", "value"), Fill: ("value",),
    Copy: ("origin",), CopyOut: ("origin",), Break: (), Continue: (), Return: (), Alloc: (), Sync: (), Comment: (), TileBuffer: (),
    ParallelFor: (), Gemm: (), Reduce: (), Cumsum: (),
}

#: Statement node type -> its nested statement lists.
BODIES = {If: ("then", "orelse"), For: ("body",), While: ("body",), ParallelFor: ("body",)}


def _fields(node, names) -> tuple:
    out = []
    for name in names:
        value = getattr(node, name)
        if isinstance(value, (tuple, list)):
            out.extend(value)
        elif value is not None:
            out.append(value)
    return tuple(out)


def children(e) -> tuple:
    """An expression's operands (none for a leaf, or for a front end's own marker)."""
    get = _GETTERS.get(type(e))
    return get(e) if get is not None else ()


#: The fields that hold several expressions (a call's arguments, a tile's indices, an origin).
_SEQUENCES = {"args", "indices", "origin"}


def _getter(fields: tuple):
    """A fast `node -> tuple of operands` for one node type (walks call it millions of times)."""
    if len(fields) == 1 and fields[0] in _SEQUENCES:
        name = fields[0]
        return lambda e: tuple(getattr(e, name))
    if len(fields) == 1:
        get = attrgetter(fields[0])
        return lambda e: (get(e),)
    return attrgetter(*fields)


_GETTERS = {kind: _getter(fields) for kind, fields in OPERANDS.items() if fields}


def walk_expr(e) -> Iterator:
    """Pre-order: e, then its sub-expressions."""
    yield e
    for c in children(e):
        yield from walk_expr(c)


def map_expr(e, fn: Callable):
    """Rebuild bottom-up; fn(node) returns a replacement or None to keep the node. A node
    whose operands all come back unchanged is kept as it is (not copied)."""
    fields = OPERANDS.get(type(e))
    if fields:
        changed = None
        for name in fields:
            value = getattr(e, name)
            if name in _SEQUENCES:
                new = tuple(map_expr(x, fn) for x in value)
                if any(n is not o for n, o in zip(new, value)):
                    changed = changed or {}
                    changed[name] = new
            else:
                new = map_expr(value, fn)
                if new is not value:
                    changed = changed or {}
                    changed[name] = new
        if changed:
            e = dataclasses.replace(e, **changed)
    out = fn(e)
    return e if out is None else out


def stmt_exprs(s) -> tuple:
    """The expressions a statement evaluates itself (not those of nested statements)."""
    return _fields(s, EVALUATES.get(type(s), ()))


def walk_stmts(stmts) -> Iterator:
    """Pre-order over a statement list and all nested bodies."""
    for s in stmts:
        yield s
        for name in BODIES.get(type(s), ()):
            yield from walk_stmts(getattr(s, name))


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
    """Rebuild statements with every expression passed through fn (a map_expr step); each
    statement with expressions or bodies is a new object."""
    out = []
    for s in stmts:
        fields = {}
        for name in EVALUATES.get(type(s), ()):
            value = getattr(s, name)
            if isinstance(value, (tuple, list)):
                fields[name] = tuple(map_expr(x, fn) for x in value)
            else:
                fields[name] = map_expr(value, fn) if value is not None else None
        for name in BODIES.get(type(s), ()):
            fields[name] = map_stmts(getattr(s, name), fn)
        out.append(dataclasses.replace(s, **fields) if fields else s)
    return out


def rewrite_stmts(stmts: list, fn: Callable) -> list:
    """Rebuild statement lists, nested bodies included: fn(s) returns the statement to keep
    (s itself, or a replacement, whose own bodies are then rewritten too) or None to drop s."""
    out = []
    for s in stmts:
        s = fn(s)
        if s is None:
            continue
        bodies = BODIES.get(type(s), ())
        if bodies:
            s = dataclasses.replace(s, **{name: rewrite_stmts(getattr(s, name), fn) for name in bodies})
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
