"""Loop rewrites shared by the front ends and the emitter."""

from __future__ import annotations

import dataclasses

from porter.ir.nodes import Assign, BinOp, Const, Continue, Decl, For, If, Var, While
from porter.util.names import fresh_name


def insert_before_continue(body: list, stmts: list) -> list:
    """Run `stmts` (a loop's increment) before every `continue` of this loop, not of inner ones.

    Needed when a C for-loop becomes `while cond: body; increment`: a bare continue would
    skip the increment.
    """
    out = []
    for s in body:
        if isinstance(s, Continue):
            out += list(stmts) + [s]
        elif isinstance(s, If):
            out.append(dataclasses.replace(s, then=insert_before_continue(s.then, stmts),
                                           orelse=insert_before_continue(s.orelse, stmts)))
        else:
            out.append(s)  # For/While bodies own their continues
    return out


def has_continue(body: list) -> bool:
    for s in body:
        if isinstance(s, Continue):
            return True
        if isinstance(s, If) and (has_continue(s.then) or has_continue(s.orelse)):
            return True
    return False


__all__ = ["insert_before_continue", "has_continue", "For", "While"]


def unit_step_loops(body: list) -> list:
    """`for (s = a; s < n; s += S)` of a constant step S > 1 (Triton's `range(a, n, S)`)
    becomes a unit-step loop over the steps, `for t in 0..ceildiv(n - a, S): s = a + t * S;
    ...`: T.Pipelined takes only unit-step loops, and `T.serial(T.ceildiv(n - a, S))` is how
    TileLang writes a strided loop (the port printed a `while` over a `T.alloc_var`, which
    TileLang neither pipelines nor unrolls). Loops whose variable, bound or start the body
    changes are left as they are."""
    from porter.ir.fold import try_int
    from porter.ir.nodes import Assign, BinOp, Call, Const, Decl, Var
    from porter.ir.walk import walk_expr, walk_stmts

    names = {s.var.name for s in walk_stmts(body) if isinstance(s, (Decl, For))}
    out = []
    for s in body:
        if isinstance(s, If):
            s = dataclasses.replace(s, then=unit_step_loops(s.then), orelse=unit_step_loops(s.orelse))
        elif isinstance(s, (For, While)):
            s = dataclasses.replace(s, body=unit_step_loops(s.body))
        if isinstance(s, For) and isinstance(s.step, Const) and isinstance(s.step.value, int) \
                and s.step.value > 1 and isinstance(s.cond, BinOp) and s.cond.op == "<" and s.cond.a == s.var:
            changed = {x.var.name for x in walk_stmts(s.body) if isinstance(x, (Assign, Decl, For))}
            reads = {n.name for e in (s.start, s.cond.b) for n in walk_expr(e) if isinstance(n, Var)}
            if s.var.name not in changed and not (reads & changed) and not has_continue(s.body):
                dtype = s.var.dtype
                index = Var(fresh_name(f"{s.var.name}_step", names, numbered=False, claim=False), dtype)
                names.add(index.name)
                from_zero = try_int(s.start) == 0
                span = s.cond.b if from_zero else BinOp("-", s.cond.b, s.start, dtype)
                steps = Call("ceildiv", (span, s.step), dtype)
                offset = BinOp("*", index, s.step, dtype)
                value = offset if from_zero else BinOp("+", s.start, offset, dtype)
                s = dataclasses.replace(s, var=index, start=Const(0, dtype), cond=BinOp("<", index, steps, "bool"),
                                        step=Const(1, dtype), body=[Decl(s.var, value, s.loc)] + s.body)
        out.append(s)
    return out


def pipeline_stages(body: list) -> int:
    """The most stages a loop of the body is pipelined over (0: none is)."""
    from porter.ir.walk import walk_stmts

    return max((s.stages for s in walk_stmts(body) if isinstance(s, For) and s.stages), default=0)


def until_break(body: list, flag: Var, loc=None) -> list:
    """A loop left only by `break` (`do {...} while (c)`, `while (--n)` with the condition's
    statements in the body): TileLang 0.1.15 refuses `while True` ("Infinite while loop
    detected"), so it tests a flag that is never cleared: a variable set after its declaration,
    which TileLang cannot fold to a constant."""
    return [Decl(flag, None, loc), Assign(flag, Const(1, "int32"), loc),
            While(BinOp("==", flag, Const(1, "int32"), "bool"), body, loc)]
