"""The grid a kernel's guards imply when no launch site gives one (`pid * BLOCK + arange < n`
on axis a: ceildiv(n, BLOCK) programs)."""

from __future__ import annotations

from porter.ir.fold import fold
from porter.ir.geometry import assemble_grid
from porter.ir.nodes import BinOp, Builtin, Call, Cast, Const, If, Kernel, Load, Select, UnaryOp, Var
from porter.ir.walk import fixed_locals, stmt_exprs, walk_expr, walk_stmts


def _block_idx_coeff(e, axis: int, defs: dict, depth: int = 0):
    """C when e == block_idx[axis] * C + (terms without block_idx[axis]); 0 if absent; None."""
    if depth > 40:
        return None
    if isinstance(e, Builtin):
        return 1 if e.kind == "block_idx" and e.axis == axis else 0
    if isinstance(e, Const):
        return 0
    if isinstance(e, Var):
        return _block_idx_coeff(defs[e.name], axis, defs, depth + 1) if e.name in defs else 0
    if isinstance(e, Cast):
        return _block_idx_coeff(e.a, axis, defs, depth + 1)
    if isinstance(e, BinOp) and e.op in ("+", "-"):
        a = _block_idx_coeff(e.a, axis, defs, depth + 1)
        b = _block_idx_coeff(e.b, axis, defs, depth + 1)
        if a is None or b is None:
            return None
        return a + b if e.op == "+" else a - b
    if isinstance(e, BinOp) and e.op == "*":
        a = _block_idx_coeff(e.a, axis, defs, depth + 1)
        b = _block_idx_coeff(e.b, axis, defs, depth + 1)
        if a == 0 and b == 0:
            return 0
        ka, kb = fold(e.a), fold(e.b)
        if a and isinstance(kb, Const) and not isinstance(kb.value, float):
            return a * int(kb.value)
        if b and isinstance(ka, Const) and not isinstance(ka.value, float):
            return b * int(ka.value)
        return None
    if isinstance(e, Load):
        return 0
    return 0 if not any(isinstance(x, Builtin) and x.kind == "block_idx" and x.axis == axis
                        for x in walk_expr(e)) else None


_NEGATED = {"<": ">=", "<=": ">", ">": "<=", ">=": "<"}


def _comparisons(cond, negate: bool = False):
    """(op, a, b) for the ordering comparisons in cond, with `!` applied."""
    if isinstance(cond, UnaryOp) and cond.op == "!":
        yield from _comparisons(cond.a, not negate)
    elif isinstance(cond, BinOp) and cond.op in _NEGATED:
        yield (_NEGATED[cond.op] if negate else cond.op), cond.a, cond.b
    elif isinstance(cond, BinOp) and cond.op in ("&&", "||"):
        yield from _comparisons(cond.a, negate)
        yield from _comparisons(cond.b, negate)
    elif isinstance(cond, Cast):
        yield from _comparisons(cond.a, negate)


def infer_grid(kernel: Kernel) -> tuple:
    """Grid from the guards: `offs < n` with offs = pid * BLOCK + arange gives ceildiv(n, BLOCK)."""
    defs = fixed_locals(kernel.body)
    conds = [s.cond for s in walk_stmts(kernel.body) if isinstance(s, If)]
    conds += [e.cond for s in walk_stmts(kernel.body) for x in stmt_exprs(s) for e in walk_expr(x)
              if isinstance(e, Select)]
    used = {e.axis for s in walk_stmts(kernel.body) for x in stmt_exprs(s) for e in walk_expr(x)
            if isinstance(e, Builtin) and e.kind in ("block_idx", "grid_dim")}
    sizes: dict = {}
    for cond in conds:
        for op, a, b in _comparisons(cond):
            x, u = (a, b) if op in ("<", "<=") else (b, a)
            if any(isinstance(t, (Builtin, Load)) for t in walk_expr(u)):
                continue
            if any(isinstance(t, Var) and t.name in defs for t in walk_expr(u)):
                continue
            for axis in sorted(used):
                if axis in sizes:
                    continue
                k = _block_idx_coeff(x, axis, defs)
                if k is None or k <= 0:
                    continue
                others = [a for a in used if a != axis and _block_idx_coeff(x, a, defs) != 0]
                if others:
                    continue
                u2 = u if u.dtype == "int32" else Cast("int32", u)
                if op in ("<=", ">="):
                    u2 = BinOp("+", u2, Const(1, "int32"), "int32")
                sizes[axis] = u2 if k == 1 else Call("ceildiv", (u2, Const(k, "int32")), "int32")
    return assemble_grid(kernel, sizes, used, "TP240", "has no usable launch site", "masks")


