"""Launch geometry when no launch site gives it: from --block/--grid, or from the guards.

`i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n)` says the grid covers n elements on x,
so grid.x = ceildiv(n, block.x).
"""

from __future__ import annotations

from porter.diagnostics import TileportError
from porter.ir.nodes import Assign, BinOp, Builtin, Call, Cast, Const, Decl, For, If, Kernel, Launch, Var
from porter.ir.walk import walk_expr, walk_stmts


def default_block(kernel: Kernel) -> tuple:
    axes = {e.axis for s in walk_stmts(kernel.body) for e in _exprs(s)
            if isinstance(e, Builtin) and e.kind in ("thread_idx", "block_dim")}
    if 2 in axes:
        return (8, 8, 4)
    if 1 in axes:
        return (16, 16)
    return (256,)


def _exprs(s):
    from porter.ir.walk import stmt_exprs
    for e in stmt_exprs(s):
        yield from walk_expr(e)


def _expand(e, defs: dict, depth: int = 0):
    """Yield e and, through single-definition locals, everything it is computed from."""
    for sub in walk_expr(e):
        yield sub
        if isinstance(sub, Var) and sub.name in defs and depth < 20:
            yield from _expand(defs[sub.name], defs, depth + 1)


def _guard_sizes(kernel: Kernel) -> dict:
    """axis -> the bound U of the first guard `x < U` where x depends on blockIdx on that axis."""
    assigned = {s.var.name for s in walk_stmts(kernel.body) if isinstance(s, Assign)}
    defs = {s.var.name: s.init for s in walk_stmts(kernel.body)
            if isinstance(s, Decl) and s.init is not None and s.var.name not in assigned}
    for s in walk_stmts(kernel.body):
        if isinstance(s, For):
            defs.setdefault(s.var.name, s.start)
    sizes: dict = {}
    conds = [s.cond for s in walk_stmts(kernel.body) if isinstance(s, (If, For))]
    for cond in conds:
        for c in walk_expr(cond):
            if not isinstance(c, BinOp) or c.op not in ("<", ">", "<=", ">="):
                continue
            x, u = (c.a, c.b) if c.op in ("<", "<=") else (c.b, c.a)
            if any(isinstance(t, Builtin) for t in walk_expr(u)):
                continue
            axes = {t.axis for t in _expand(x, defs) if isinstance(t, Builtin) and t.kind == "block_idx"}
            if len(axes) == 1:
                while isinstance(u, Cast):
                    u = u.a
                if c.op in ("<=", ">="):
                    u = BinOp("+", u, Const(1, u.dtype), u.dtype)
                sizes.setdefault(axes.pop(), u)
    return sizes


def infer_launch(kernel: Kernel, block=None, grid=None) -> Launch:
    block = tuple(block) if block else default_block(kernel)
    if grid:
        return Launch(tuple(Const(int(g), "int32") for g in grid), block, 0, "given")
    sizes = _guard_sizes(kernel)
    uses_grid = {e.axis for s in walk_stmts(kernel.body) for e in _exprs(s)
                 if isinstance(e, Builtin) and e.kind in ("block_idx", "grid_dim")}
    counts = {}
    for axis, size in sizes.items():
        size = size if size.dtype == "int32" else Cast("int32", size)
        counts[axis] = Call("ceildiv", (size, Const(block[axis] if axis < len(block) else 1, "int32")),
                            "int32")
    dims = assemble_grid(kernel, counts, uses_grid, "TP160", "has no launch site", "guards")
    origin = "given-block" if block and block != default_block(kernel) else "inferred"
    return Launch(dims, block, 0, origin)


def assemble_grid(kernel: Kernel, counts: dict, used: set, code: str, why: str, source: str) -> tuple:
    """Grid dims from per-axis program counts; an axis the kernel indexes but no count covers
    is a diagnostic (pass --grid), an axis it never indexes is 1."""
    dims = []
    for axis in range(max(used | {0}) + 1):
        if axis in counts:
            dims.append(counts[axis])
        elif axis in used:
            raise TileportError(code, f"kernel '{kernel.name}' {why} and its grid on axis "
                                f"{'xyz'[axis]} cannot be inferred from its {source}; pass --grid",
                                kernel.loc)
        else:
            dims.append(Const(1, "int32"))
    return tuple(dims)
