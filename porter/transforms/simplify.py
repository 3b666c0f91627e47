"""Make IR read like the TileLang a person would write, without changing what it computes.

CUDA's builtin indices are unsigned, so `blockIdx.x * blockDim.x + threadIdx.x` is uint32
arithmetic that C then converts to int. TileLang's block and lane indices are int32 already;
such index arithmetic (builtins, non-negative constants, + and *) is printed in int32, which
gives the same values for every launch that fits in 2^31 threads.
"""

from __future__ import annotations

import dataclasses

from porter.ir.nodes import BinOp, Builtin, Call, Cast, Const, UnaryOp, Var, is_float
from porter.ir.fold import fold
from porter.ir.walk import children, map_expr, map_stmts


def _demoted(e):
    """e rewritten in int32 when it is unsigned index arithmetic, else None."""
    if isinstance(e, Builtin) and e.dtype in ("uint32", "int32"):
        return dataclasses.replace(e, dtype="int32")
    if isinstance(e, Const) and e.dtype in ("uint32", "int32") and 0 <= int(e.value) < 2 ** 31:
        return Const(int(e.value), "int32")
    if isinstance(e, Var) and e.dtype == "int32":
        return e  # + - * agree modulo 2**32 whatever the signedness
    if isinstance(e, Cast) and e.dtype in ("uint32", "uint64", "int64") and e.a.dtype in ("int32", "uint32"):
        inner = _demoted(e.a)
        return inner
    # + - * wrap modulo 2^32 alike in signed and unsigned arithmetic, so the converted result
    # is the same either way. 64-bit arithmetic does not wrap there: `(size_t)row * cols` is the
    # original's way of saying "this product may pass 2^31", and it stays 64-bit.
    if isinstance(e, BinOp) and e.op in ("+", "-", "*") and e.dtype in ("uint32", "int32"):
        a, b = _demoted(e.a), _demoted(e.b)
        if a is not None and b is not None:
            return BinOp(e.op, a, b, "int32")
    return None


def _ceildiv(e):
    """`(x + (c - 1)) / c` and `((x + c) - 1) / c` are how C spells ceildiv(x, c)."""
    if not (isinstance(e, BinOp) and e.op == "/" and isinstance(e.b, Const) and e.dtype == "int32"):
        return None
    c = int(e.b.value)
    num = e.a
    if isinstance(num, BinOp) and num.op == "-" and isinstance(num.b, Const) and int(num.b.value) == 1 \
            and isinstance(num.a, BinOp) and num.a.op == "+" and isinstance(num.a.b, Const) \
            and int(num.a.b.value) == c:
        return Call("ceildiv", (num.a.a, e.b), "int32")
    if isinstance(num, BinOp) and num.op == "+" and isinstance(num.b, Const) and int(num.b.value) == c - 1 \
            and c > 1:
        return Call("ceildiv", (num.a, e.b), "int32")
    return None


def simplify_grid(e):
    """Grid sizes print as T.ceildiv where the source computed a rounded-up division."""
    return map_expr(simplify_expr(e), _ceildiv)


def _signed64(e):
    """`(size_t)row * cols` (uint64) as `T.Cast(T.int64, row) * cols`: the same value for the
    non-negative index arithmetic it is used for, in the dtype TileLang indexes with; one cast
    per product is enough, TVM widens the other operand."""
    def wide(x):
        if isinstance(x, Cast) and x.dtype in ("uint64", "int64") and x.a.dtype in ("int32", "uint32"):
            inner = _demoted(x.a)
            return Cast("int64", inner if inner is not None else x.a)
        return x

    a, b = wide(e.a), wide(e.b)
    if a.dtype not in ("int64",) or b.dtype not in ("int64",):
        return None
    if isinstance(b, Cast) and isinstance(a, (BinOp, Cast)):
        b = b.a
    elif isinstance(a, Cast) and isinstance(b, BinOp):
        a = a.a
    return BinOp(e.op, a, b, "int64")


def _step(e):
    if isinstance(e, BinOp) and e.dtype == "uint64" and e.op in ("+", "-", "*"):
        return _signed64(e)
    if isinstance(e, BinOp) and e.op in _INVERSE and e.a.dtype == "uint32" and e.b.dtype == "uint32":
        # `threadIdx.x < RADIUS` compares unsigned index arithmetic: in int32 it is the same
        # comparison (TVM 0.1.15 drops `T.Cast(T.uint32, tx) < T.uint32(3)` as always true)
        a, b = _demoted(e.a), _demoted(e.b)
        if a is not None and b is not None:
            return BinOp(e.op, a, b, "bool")
    if isinstance(e, Cast) and e.dtype == "int32":
        inner = _demoted(e.a)
        if inner is not None:
            return inner
    if isinstance(e, Cast) and e.dtype in ("int64", "uint64", "uint32") and not isinstance(e.a, Builtin):
        inner = _demoted(e.a)
        if inner is not None and inner != e.a:
            return Cast(e.dtype, inner)
    if isinstance(e, BinOp) and e.dtype == "uint32" and e.op in ("+", "-", "*"):
        inner = _demoted(e)
        if inner is not None:
            return Cast(e.dtype, inner)
    if isinstance(e, Cast) and isinstance(e.a, Cast) and e.dtype == e.a.a.dtype and \
            e.a.dtype in ("uint32", "int64", "uint64") and e.dtype == "int32":
        return e.a.a
    if isinstance(e, Cast) and e.a.dtype == e.dtype:
        return e.a
    if isinstance(e, UnaryOp) and e.op == "!" and isinstance(e.a, BinOp) and e.a.op in _INVERSE \
            and not is_float(e.a.a.dtype):
        return BinOp(_INVERSE[e.a.op], e.a.a, e.a.b, "bool")  # exact for integers (no NaN)
    return None


_INVERSE = {"<": ">=", ">=": "<", ">": "<=", "<=": ">", "==": "!=", "!=": "=="}


def simplify_expr(e):
    return map_expr(e, _step)


def simplify_stmts(stmts: list) -> list:
    return drop_unread_locals(map_stmts(stmts, _step))


def drop_unread_locals(stmts: list) -> list:
    """Locals declared with a value that nothing reads or assigns (the last Philox round's
    unused counter words), and fragments only ever written (a loop-carried offset block once
    its closed form replaced every read): an expression has no side effects in the IR, so the
    port drops them, as a linter would ask (ruff F841), until none is left; a T.Parallel or
    loop left with nothing to do goes with them."""
    from porter.ir.nodes import Assign, Decl, For, Var
    from porter.ir.walk import all_exprs, rewrite_stmts, walk_stmts

    while True:
        read = {e.name for e in all_exprs(stmts) if isinstance(e, Var)}
        assigned = {s.var.name for s in walk_stmts(stmts) if isinstance(s, (Assign, For))}
        dead = {s.var.name for s in walk_stmts(stmts) if isinstance(s, Decl) and s.init is not None
                and s.var.name not in read and s.var.name not in assigned}
        dead |= _written_only_tiles(stmts)
        if not dead:
            return _without_empty_loops(stmts)
        stmts = rewrite_stmts(stmts, lambda s, dead=dead: None if _declares_or_stores(s, dead) else s)


def _written_only_tiles(stmts: list) -> set:
    """Fragments declared and stored to element by element, never read: no TileLoad of them, and
    no other statement (a copy, a reduction, a GEMM, a fill) names them."""
    from porter.ir.tiles import TileBuffer, TileLoad, TileStore
    from porter.ir.walk import read_counts, walk_stmts

    declared = {s.name for s in walk_stmts(stmts) if isinstance(s, TileBuffer) and s.scope == "fragment"}
    used = set(read_counts(stmts, TileLoad))
    for s in walk_stmts(stmts):
        if not isinstance(s, (TileBuffer, TileStore)) and dataclasses.is_dataclass(s):
            used |= {v for v in vars(s).values() if isinstance(v, str)}
    return declared - used


def _declares_or_stores(s, names: set) -> bool:
    from porter.ir.nodes import Decl
    from porter.ir.tiles import TileBuffer, TileStore

    return (isinstance(s, Decl) and s.var.name in names) or (isinstance(s, TileBuffer) and s.name in names) or \
        (isinstance(s, TileStore) and s.buffer in names)


def _without_empty_loops(stmts: list) -> list:
    """The statements without T.Parallel or serial loops whose bodies are empty, innermost
    first (a loop whose body held only such a loop goes too)."""
    from porter.ir.nodes import For
    from porter.ir.tiles import ParallelFor
    from porter.ir.walk import BODIES

    out = []
    for s in stmts:
        bodies = BODIES.get(type(s), ())
        if bodies:
            s = dataclasses.replace(s, **{name: _without_empty_loops(getattr(s, name)) for name in bodies})
        if isinstance(s, (ParallelFor, For)) and not s.body:
            continue
        out.append(s)
    return out


def substitute_block_dims(stmts: list, block: tuple) -> list:
    """blockDim is a launch constant: write it as a number and fold what it makes constant."""
    def step(e):
        if isinstance(e, Builtin) and e.kind == "block_dim":
            return Const(block[e.axis] if e.axis < len(block) else 1, e.dtype)
        if isinstance(e, Builtin) and e.kind == "thread_idx" and e.axis >= len(block):
            return Const(0, e.dtype)
        if isinstance(e, BinOp) and e.op in ("+", "*") and not is_float(e.dtype):
            for x, y in ((e.a, e.b), (e.b, e.a)):
                if isinstance(y, Const) and int(y.value) == (0 if e.op == "+" else 1):
                    return x
                if e.op == "*" and isinstance(y, Const) and int(y.value) == 0:
                    return y
        if isinstance(e, (BinOp, Cast)) and all(isinstance(c, Const) for c in children(e)):
            return fold(e)
        return None

    return map_stmts(stmts, step)


def builtin_aliases(stmts: list):
    """Drop top-level `int tid = threadIdx.x;` (never reassigned) and use `tid` as the handle name.

    Returns the body with such variables replaced by the builtin, and {(kind, axis): name}.
    """
    from porter.ir.nodes import Assign, Decl, Var
    from porter.ir.walk import walk_stmts

    assigned = {s.var.name for s in walk_stmts(stmts) if isinstance(s, Assign)}
    aliases, replaced, body = {}, {}, []
    for s in stmts:
        init = s.init if isinstance(s, Decl) else None
        while isinstance(init, Cast) and init.dtype in ("int32", "uint32"):
            init = init.a
        if isinstance(init, Builtin) and init.kind in ("thread_idx", "block_idx") and \
                s.var.name not in assigned and s.var.dtype in ("int32", "uint32") and \
                (init.kind, init.axis) not in aliases and s.var.name.isidentifier():
            aliases[(init.kind, init.axis)] = s.var.name
            replaced[s.var.name] = Builtin(init.kind, init.axis, s.var.dtype)
            continue
        body.append(s)

    def step(e):
        return replaced.get(e.name) if isinstance(e, Var) else None

    return (map_stmts(body, step) if replaced else body), aliases
