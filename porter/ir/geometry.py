"""Launch geometry when no launch site gives it: from --block/--grid, or from the guards.

`i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n)` says the grid covers n elements on x,
so grid.x = ceildiv(n, block.x).
"""

from __future__ import annotations

from porter.diagnostics import TileportError
from porter.ir.nodes import (
    Alloc, BinOp, Builtin, Call, Cast, Const, For, If, Kernel, Launch, Load, ScalarParam, Store, Var,
)
from porter.ir.walk import fixed_locals, walk_expr, walk_stmts
from porter.util.names import fresh_name


def default_block(kernel: Kernel) -> tuple:
    """The block a kernel without a launch site is written for: a 2-D shared tile stored at
    `[threadIdx.y][threadIdx.x]` gives it (`As[8][8]`: 8 x 8), else 256, 16 x 16 or 8 x 8 x 4
    threads by the axes the kernel reads."""
    axes = {e.axis for s in walk_stmts(kernel.body) for e in _exprs(s)
            if isinstance(e, Builtin) and e.kind in ("thread_idx", "block_dim")}
    if 2 in axes:
        return (8, 8, 4)
    if 1 in axes:
        return _tile_block(kernel) or (16, 16)
    return (256,)


def _tile_block(kernel: Kernel) -> tuple | None:
    """(cols, rows) of the first 2-D shared tile that a thread stores at its own
    `[threadIdx.y][threadIdx.x]` (one element per thread), or of a `__constant__` table it
    reads at `threadIdx.y * cols + threadIdx.x` (dct8x8's 8 x 8 quantization matrix `Q[64]`),
    else None."""
    tiles = {s.name: s.shape for s in walk_stmts(kernel.body)
             if isinstance(s, Alloc) and s.scope == "shared" and len(s.shape) == 2 and not s.dynamic}
    defs = fixed_locals(kernel.body)
    for s in walk_stmts(kernel.body):
        if isinstance(s, Store) and s.buffer in tiles:
            rows, cols = tiles[s.buffer]
            if _terms(_inline(s.index, defs)) == {("thread_idx", 1, cols), ("thread_idx", 0, 1)}:
                return (cols, rows)
    tables = {p.name: p.symbol_count for p in kernel.params if getattr(p, "symbol", "") and p.symbol_count}
    for e in (e for s in walk_stmts(kernel.body) for e in _exprs(s)):
        terms = _terms(_inline(e.index, defs)) if isinstance(e, Load) and e.buffer in tables else None
        if terms and len(terms) == 2 and ("thread_idx", 0, 1) in terms:
            (_, axis, cols), = terms - {("thread_idx", 0, 1)}
            if axis == 1 and cols > 1 and tables[e.buffer] % cols == 0:
                return (cols, tables[e.buffer] // cols)
    return None


def _terms(e) -> set | None:
    """`ty * C + tx` as {(kind, axis, C), (kind, axis, 1)}; None for anything else."""
    while isinstance(e, Cast):
        e = e.a
    if isinstance(e, Builtin):
        return {(e.kind, e.axis, 1)}
    if isinstance(e, BinOp) and e.op == "*":
        for a, b in ((e.a, e.b), (e.b, e.a)):
            inner = _terms(a)
            if isinstance(b, Const) and inner is not None and len(inner) == 1:
                (kind, axis, scale), = inner
                return {(kind, axis, scale * b.value)}
        return None
    if isinstance(e, BinOp) and e.op == "+":
        a, b = _terms(e.a), _terms(e.b)
        return a | b if a is not None and b is not None and not a & b else None
    return None


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


def _inline(e, defs: dict, depth: int = 0):
    """e with single-definition locals replaced by what they are computed from."""
    from porter.ir.walk import map_expr

    if depth > 20:
        return e
    return map_expr(e, lambda n: _inline(defs[n.name], defs, depth + 1)
                    if isinstance(n, Var) and n.name in defs else n)


def _guard_sizes(kernel: Kernel, block: tuple) -> dict:
    """axis -> (U, stride) of the first guard `x < U` (or `if (x >= U) return`) where x depends
    on blockIdx on that axis; stride: how far x moves per block (None: unknown)."""
    defs = fixed_locals(kernel.body)
    locals_ = dict(defs)  # what a bound may be written over: locals, not loop variables
    sizes_known = {p.name for p in kernel.scalars} | set(locals_)  # what a bound may name
    for s in walk_stmts(kernel.body):
        if isinstance(s, For):
            defs.setdefault(s.var.name, s.start)
    sizes: dict = {}
    conds = [s.cond for s in walk_stmts(kernel.body) if isinstance(s, (If, For))]
    for cond in conds:
        for c in walk_expr(cond):
            if not isinstance(c, BinOp) or c.op not in ("<", ">", "<=", ">="):
                continue
            orientations = [(c.a, c.b, c.op == "<=")] if c.op in ("<", "<=") else \
                [(c.b, c.a, c.op == ">="),
                 # `if (idx >= N * T) return;`: the threads that go on have idx < N * T
                 (c.a, c.b, c.op == ">")]
            axes = set()
            for x, u, closed in orientations:
                if any(isinstance(t, Builtin) for t in _expand(u, defs)):
                    continue  # a bound that moves with the thread (`i < own_pos`) sizes no grid
                if any(isinstance(t, Var) and t.name not in sizes_known for t in _expand(u, locals_)):
                    continue  # nor a value a loop changes (shfl_scan's `lane_id >= i`, i = 1, 2, 4, 8)
                axes = {t.axis for t in _expand(x, defs) if isinstance(t, Builtin) and t.kind == "block_idx"}
                if len(axes) == 1:
                    u = _inline(u, locals_)  # `idx < total_threads`, `total_threads = B * NH * T * T`
                    break
            if len(axes) == 1:
                while isinstance(u, Cast):
                    u = u.a
                if closed:
                    u = BinOp("+", u, Const(1, u.dtype), u.dtype)
                axis = axes.pop()
                if axis not in sizes:
                    sizes[axis] = (u, _block_stride(x, locals_, axis, block))
    return sizes


def _block_stride(x, locals_: dict, axis: int, block: tuple):
    """How far x moves from one block to the next on `axis` (blockDim for one element per
    thread; blockDim / 32 for one row per warp), as a number, or None when that depends on
    more than the block shape."""
    from porter.ir.fold import NotConstant, evaluate

    expanded = _inline(x, locals_)
    env = {f"thread_idx.{a}": 0 for a in range(3)}
    if block:
        env.update({f"block_dim.{a}": (block[a] if a < len(block) else 1) for a in range(3)})
    try:
        at = [evaluate(expanded, {**env, **{f"block_idx.{a}": int(a == axis and b) for a in range(3)}})
              for b in (0, 1)]
    except (NotConstant, ValueError, TypeError, ZeroDivisionError):
        return None
    stride = at[1] - at[0]
    return stride if isinstance(stride, int) and stride > 0 else None


def infer_launch(kernel: Kernel, block=None, grid=None, caller_grid: bool = False,
                 why: str = "has no launch site") -> Launch:
    """The launch of a kernel without a usable launch site: block given or default, grid given
    or covering its guards. caller_grid (a library kernel, no launch site at all): an axis no
    guard sizes is the caller's, an extra `grid_y` parameter of the port (not of the original).
    why: what the diagnostic says of the launch site when an axis stays unknown."""
    block = tuple(block) if block else default_block(kernel)
    if grid:
        return Launch(tuple(Const(int(g), "int32") for g in grid), block, 0, "given")
    uses_grid = {e.axis for s in walk_stmts(kernel.body) for e in _exprs(s)
                 if isinstance(e, Builtin) and e.kind in ("block_idx", "grid_dim")}
    counts = {}
    sizes = _guard_sizes(kernel, block)
    for axis, (size, stride) in sizes.items():
        size = size if size.dtype == "int32" else Cast("int32", size)
        per_block = stride if stride is not None else (block[axis] if axis < len(block) else 1)
        counts[axis] = Call("ceildiv", (size, Const(per_block, "int32")), "int32")
    if caller_grid:
        for axis in sorted(uses_grid - set(counts)):
            counts[axis] = _caller_axis(kernel, axis)
    dims = assemble_grid(kernel, counts, uses_grid, "TP160", why, "guards")
    origin = "given-block" if block and block != default_block(kernel) else "inferred"
    if caller_grid and any(getattr(p, "grid_axis", None) is not None for p in kernel.params):
        origin = "caller-axes"
    return Launch(dims, block, 0, origin)


def _caller_axis(kernel: Kernel, axis: int) -> Var:
    """A new port parameter for the size of the grid on `axis` (grid_y, ...)."""
    taken = {p.name for p in kernel.params}
    name = fresh_name(f"grid_{'xyz'[axis]}", taken, numbered=False, claim=False)
    kernel.params.append(ScalarParam(name, "int32", "int", kernel.loc, grid_axis=axis))
    return Var(name, "int32")


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
