"""An integer local given a new value in straight-line code is a new local from there on.

    int x = bx * 32 + tx;  a[x + y * w] = ...;  x = by * 32 + tx;  b[x + y * h] = ...;
 -> int x = bx * 32 + tx;  a[x + y * w] = ...;  int x_1 = by * 32 + tx;  b[x_1 + y * h] = ...;

(NVIDIA's transpose samples reuse xIndex so.) Analyses that read through locals with one
value (buffer extents, verify's sizes) then see each value; before, the local had none and
the buffers it indexes no extent. A local also assigned inside a loop or branch of its block
keeps one name: its value there depends on the path taken. Values (floats) keep their names:
nothing sizes buffers by them, and the rules name tiles after them.
"""

from __future__ import annotations

from porter.ir.nodes import Assign, Decl, Var, is_float
from porter.ir.walk import map_stmts, walk_stmts


def split_reassigned(stmts: list, fresh) -> list:
    """fresh(name) -> a local name not taken yet."""
    inner = [b for s in stmts for f in ("then", "orelse", "body") if isinstance(b := getattr(s, f, None), list)]
    nested = {s.var.name for b in inner for s in walk_stmts(b) if isinstance(s, Assign)}  # assigned below this level
    for s in walk_stmts(stmts):
        var = getattr(s, "var", None)
        if isinstance(var, Var) and not isinstance(s, (Assign, Decl)):
            nested.add(var.name)  # a loop variable
    declared, valued, renamed, out = set(), set(), {}, []  # valued: declared with a value, or given one

    def rename(e):
        return renamed.get(e.name) if isinstance(e, Var) else None

    for s in stmts:
        (s,) = map_stmts([s], rename)
        if isinstance(s, Decl):
            declared.add(s.var.name)
            if s.init is not None:
                valued.add(s.var.name)
        elif isinstance(s, Assign) and s.var.name in declared and s.var.name not in nested and \
                not is_float(s.var.dtype):
            if s.var.name in valued:
                new = Var(fresh(s.var.name), s.var.dtype)
                renamed[s.var.name] = new
                s = Decl(new, s.value, s.loc)
            valued.add(s.var.name)  # `float r; r = f(x);`: its first value, no new local
        out.append(_split_bodies(s, fresh))
    return out


def _split_bodies(s, fresh):
    """The same split inside each nested block (a loop body is split per trip)."""
    import dataclasses

    for field in ("then", "orelse", "body"):
        body = getattr(s, field, None)
        if isinstance(body, list):
            s = dataclasses.replace(s, **{field: split_reassigned(body, fresh)})
    return s
