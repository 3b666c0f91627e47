"""A local that only carries a loop variable's next value, inside a pipelined loop, is
folded into the assignment that uses it.

Triton's `curr_m += step` in a loop reaches the IR as a new local and an assignment:

    for k in T.Pipelined(n, num_stages=s):          for k in T.Pipelined(n, num_stages=s):
        ...                                              ...
        curr_m_1 = curr_m + 16                ->         offs[i] = curr_m + i
        offs[i] = curr_m + i                             curr_m = curr_m + 16
        curr_m = curr_m_1

The local prints as a TIR let. TileLang 0.1.15's software pipelining (and the explicit
unrolling of a deep pipeline) moves the loop's trailing statements into its epilogue without
the let that binds the local, and nvcc then stops at `identifier "curr_m_1" is undefined`
(measured on the backward pass of Triton tutorial 06, sm_80 and sm_90a). Folded, nothing
refers to a let across the cut. A local read once, by a plain assignment of the same block,
whose value reads no local written between the two (nor any buffer, unless the two are adjacent),
is folded; other locals stay.
"""

from __future__ import annotations

import dataclasses

from porter.ir.nodes import Assign, Decl, For, Load, Var
from porter.ir.tiles import TileLoad
from porter.ir.walk import all_exprs, rewrite_stmts, walk_expr, walk_stmts


def fold_pipelined_lets(body: list) -> list:
    """Every pipelined loop's body with its next-value locals folded (see the module)."""
    def step(s):
        if isinstance(s, For) and s.stages:
            return dataclasses.replace(s, body=_fold_block(s.body))
        return s
    return rewrite_stmts(body, step)


def _fold_block(stmts: list) -> list:
    uses: dict = {}
    for e in all_exprs(stmts):
        if isinstance(e, Var):
            uses[e.name] = uses.get(e.name, 0) + 1
    out = list(stmts)
    i = 0
    while i < len(out):
        s = out[i]
        j = _only_use(out, i, uses) if isinstance(s, Decl) and s.init is not None else None
        if j is None:
            i += 1
            continue
        out[j] = dataclasses.replace(out[j], value=s.init)
        del out[i]
    return out


def _only_use(stmts: list, i: int, uses: dict):
    """The index of the assignment `x = <local>` that is the local's one read, when the local's
    value is the same there as at its declaration."""
    local = stmts[i].var.name
    if uses.get(local, 0) != 1:
        return None
    reads = {e.name for e in walk_expr(stmts[i].init) if isinstance(e, Var)}
    loads = any(isinstance(e, (Load, TileLoad)) for e in walk_expr(stmts[i].init))
    for j in range(i + 1, len(stmts)):
        s = stmts[j]
        if isinstance(s, Assign) and isinstance(s.value, Var) and s.value.name == local:
            return j
        written = {getattr(x, "var", None) and x.var.name for x in walk_stmts([s])
                   if isinstance(x, (Assign, Decl))}
        if reads & written or loads or local in {e.name for e in all_exprs([s]) if isinstance(e, Var)}:
            return None
    return None
