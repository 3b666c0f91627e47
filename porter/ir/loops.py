"""Loop rewrites shared by the front ends and the emitter."""

from __future__ import annotations

import dataclasses

from porter.ir.nodes import Continue, For, If, While


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
