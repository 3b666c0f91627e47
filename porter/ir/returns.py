"""Remove early `return`s by nesting what follows them under the opposite condition.

TileLang bodies (inside `T.Parallel`) cannot return; `if (i >= n) return; rest` becomes
`if not (i >= n): rest`. A return inside a loop would need a flag and is refused for now.
"""

from __future__ import annotations

from porter.diagnostics import TileportError
from porter.ir.nodes import For, If, Return, UnaryOp, While
from porter.ir.walk import walk_stmts


def _has_return(s) -> bool:
    return any(isinstance(x, Return) for x in walk_stmts([s]))


def eliminate_returns(stmts: list, in_function: bool = False, loc=None) -> list:
    for i, s in enumerate(stmts):
        if not _has_return(s):
            continue
        if isinstance(s, Return):
            return stmts[:i]
        rest = stmts[i + 1:]
        if isinstance(s, If):
            then = eliminate_returns(s.then + rest, in_function, loc)
            orelse = eliminate_returns(s.orelse + rest, in_function, loc)
            if not then and orelse:
                cond = s.cond.a if isinstance(s.cond, UnaryOp) and s.cond.op == "!" else \
                    UnaryOp("!", s.cond, "bool")
                return stmts[:i] + [If(cond, orelse, [], s.loc)]
            return stmts[:i] + [If(s.cond, then, orelse, s.loc)]
        if isinstance(s, (For, While)):
            raise TileportError("TP115", "'return' inside a loop is not supported yet",
                                s.loc if s.loc else loc)
    return stmts
