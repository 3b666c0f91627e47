"""Remove early `return`s by nesting what follows them under the opposite condition.

TileLang bodies (inside `T.Parallel`) cannot return; `if (i >= n) return; rest` becomes
`if not (i >= n): rest`. A return inside a loop sets a flag and breaks out of every loop
around it; what follows the loop runs only when the flag is still clear:

    for (...) { if (hit) return; work; }  rest
 -> returned = 0; for (...) { if (hit) { returned = 1; break; } work; }  if (returned == 0) { rest }
"""

from __future__ import annotations

import itertools

from porter.ir.nodes import Assign, BinOp, Break, Const, Decl, For, If, Return, UnaryOp, Var, While
from porter.ir.walk import walk_stmts


def _has_return(s) -> bool:
    return any(isinstance(x, Return) for x in walk_stmts([s]))


def eliminate_returns(stmts: list, in_function: bool = False, loc=None, fresh=None) -> list:
    """fresh(name) -> a local name not yet taken (the front end's), for the flag of a return
    inside a loop."""
    fresh = fresh or _numbered()
    for i, s in enumerate(stmts):
        if not _has_return(s):
            continue
        if isinstance(s, Return):
            return stmts[:i]
        rest = stmts[i + 1:]
        if isinstance(s, If):
            then = eliminate_returns(s.then + rest, in_function, loc, fresh)
            orelse = eliminate_returns(s.orelse + rest, in_function, loc, fresh)
            if not then and orelse:
                cond = s.cond.a if isinstance(s.cond, UnaryOp) and s.cond.op == "!" else \
                    UnaryOp("!", s.cond, "bool")
                return stmts[:i] + [If(cond, orelse, [], s.loc)]
            return stmts[:i] + [If(s.cond, then, orelse, s.loc)]
        if isinstance(s, (For, While)):
            flag = Var(fresh("returned"), "int32")
            loop = _break_out(s, flag)
            after = eliminate_returns(rest, in_function, loc, fresh)
            clear = BinOp("==", flag, Const(0, "int32"), "bool")
            return stmts[:i] + [Decl(flag, Const(0, "int32"), s.loc), loop] + \
                ([If(clear, after, [], s.loc)] if after else [])
    return stmts


def _break_out(loop, flag: Var):
    """The loop with each return in it (at any depth) setting flag and breaking out; a loop
    nested in it breaks again right after, when the flag is set."""
    body = _returns_to_breaks(loop.body, flag)
    if isinstance(loop, For):
        return For(loop.var, loop.start, loop.cond, loop.step, body, loop.loc)
    return While(loop.cond, body, loop.loc)


def _returns_to_breaks(stmts: list, flag: Var) -> list:
    out = []
    for s in stmts:
        if isinstance(s, Return):
            return out + [Assign(flag, Const(1, "int32"), s.loc), Break(s.loc)]  # the rest is dead
        if not _has_return(s):
            out.append(s)
        elif isinstance(s, If):
            out.append(If(s.cond, _returns_to_breaks(s.then, flag), _returns_to_breaks(s.orelse, flag), s.loc))
        elif isinstance(s, (For, While)):
            set_ = BinOp("!=", flag, Const(0, "int32"), "bool")
            out += [_break_out(s, flag), If(set_, [Break(s.loc)], [], s.loc)]
        else:
            out.append(s)
    return out


def _numbered():
    counter = itertools.count()
    return lambda name: f"{name}_{next(counter)}"
