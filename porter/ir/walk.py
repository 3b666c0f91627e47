"""Generic traversal and rewriting of IR expressions and statements."""

from __future__ import annotations

import dataclasses
from typing import Callable, Iterator

from porter.ir.nodes import (
    Assign, BinOp, Call, Cast, Decl, For, If, Load, Select, Store, UnaryOp,
)


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
    return ()


def walk_expr(e) -> Iterator:
    """Pre-order: e, then its sub-expressions."""
    yield e
    for c in children(e):
        yield from walk_expr(c)


def map_expr(e, fn: Callable):
    """Rebuild bottom-up; fn(node) returns a replacement or None to keep the node."""
    if isinstance(e, BinOp):
        e = dataclasses.replace(e, a=map_expr(e.a, fn), b=map_expr(e.b, fn))
    elif isinstance(e, (UnaryOp, Cast)):
        e = dataclasses.replace(e, a=map_expr(e.a, fn))
    elif isinstance(e, Call):
        e = dataclasses.replace(e, args=tuple(map_expr(a, fn) for a in e.args))
    elif isinstance(e, Select):
        e = dataclasses.replace(e, cond=map_expr(e.cond, fn), a=map_expr(e.a, fn), b=map_expr(e.b, fn))
    elif isinstance(e, Load):
        e = dataclasses.replace(e, index=map_expr(e.index, fn))
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
    return ()


def walk_stmts(stmts) -> Iterator:
    """Pre-order over a statement list and all nested bodies."""
    for s in stmts:
        yield s
        if isinstance(s, If):
            yield from walk_stmts(s.then)
            yield from walk_stmts(s.orelse)
        elif isinstance(s, For):
            yield from walk_stmts(s.body)


def all_exprs(stmts) -> Iterator:
    for s in walk_stmts(stmts):
        for e in stmt_exprs(s):
            yield from walk_expr(e)
