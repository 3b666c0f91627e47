"""A Triton 1-D launch over output tiles as TileLang's 2-D tile grid (with `T.use_swizzle`
for Triton's grouped `GROUP_M` order).

Triton matmuls launch `ceildiv(M, BM) * ceildiv(N, BN)` programs on one axis and turn the
program id into a tile, often in "grouped" order so that neighbouring programs share operand
tiles in L2:

    pid = tl.program_id(0)
    num_pid_in_group = GROUP_M * num_pid_n
    first_pid_m = (pid // num_pid_in_group) * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m
    pid_n = (pid % num_pid_in_group) // group_size_m

TileLang writes the same launch as `T.Kernel(ceildiv(N, BN), ceildiv(M, BM)) as (pid_n,
pid_m)`, plus `T.use_swizzle(GROUP_M)` for the grouped order (a block rasterization in
panels of GROUP_M block rows, applied on the GPU).

The port is the same computation when the two tile indices are all the body reads of the
program id and they take every (row, column) tile exactly once: each program is then known
by its tile alone, and the GPU runs programs in any order either way. That is checked by
evaluating the indices (every never-reassigned top-level local inlined) for every program of
a set of problem sizes (partial groups, one group, many groups). The swizzle is added when
the order is Triton's grouped one, in its current spelling or the older `first_pid_m +
pid % group_size_m`; a plain row-major split (`pid // num_pid_n`, `pid % num_pid_n`) gets
the 2-D grid alone.
"""

from __future__ import annotations

import dataclasses
import itertools

from porter.ir.fold import NotConstant, evaluate
from porter.ir.nodes import Assign, BinOp, Builtin, Call, Const, Decl, Kernel, Var
from porter.ir.walk import all_exprs, map_expr, stmt_exprs, walk_expr, walk_stmts

_OPS = {"+", "-", "*", "/", "%"}  # what tile-index arithmetic is made of (with min, max, ceildiv)


def tile_grid_launch(kernel: Kernel, launched: bool = True) -> Kernel:
    """The kernel on a 2-D tile grid (`launch.tile_grid`, `launch.swizzle`), or the kernel
    unchanged when its program id is not split into a row and a column tile (see above).
    `launched`: the kernel's launch grid is the one its constexprs were launched with (false
    for a generic port's stand-in conversion, whose host grid kept the real values); the tile
    grid must then count as many programs."""
    found = _find(kernel, launched)
    if found is None:
        return kernel
    row_name, col_name, rows, cols, group = found
    body = []
    for s in kernel.body:
        if isinstance(s, Decl) and s.var.name == row_name:
            s = dataclasses.replace(s, init=Builtin("block_idx", 1, s.var.dtype))
        elif isinstance(s, Decl) and s.var.name == col_name:
            s = dataclasses.replace(s, init=Builtin("block_idx", 0, s.var.dtype))
        body.append(s)
    dropped = set(_inlined_locals(kernel.body)) - {row_name, col_name}
    body = _without_unread_locals(body, dropped)
    launch = dataclasses.replace(kernel.launch, tile_grid=(cols, rows), swizzle=group)
    return dataclasses.replace(kernel, body=body, launch=launch)


def _find(kernel: Kernel, launched: bool):
    """(row local, column local, row tiles, column tiles, GROUP_M as a Const or None) or None."""
    launch = kernel.launch
    if kernel.language != "triton" or len(launch.grid) != 1 or launch.tile_grid:
        return None
    if any(getattr(p, "grid_axis", None) is not None for p in kernel.params):
        return None
    grid = launch.grid[0]
    if _reads_program(grid):
        return None
    inlined = _inlined_locals(kernel.body)
    indices = {name for name, e in inlined.items() if _reads_program(e)}
    read = _names_read_outside(kernel.body, indices)
    if len(read) != 2 or _program_read_outside(kernel.body, indices):
        return None
    scalars = {p.name for p in kernel.scalars}
    pair = sorted(read)
    if any(not _tile_arithmetic(inlined[n], scalars) for n in pair):
        return None
    consts = {}  # value > 1 -> its Const, by the constexpr's name where the source used one
    for e in (e for n in pair for e in walk_expr(inlined[n]) if isinstance(e, Const)):
        if isinstance(e.value, int) and not isinstance(e.value, bool) and e.value > 1 and \
                (e.value not in consts or (e.name and not consts[e.value].name)):
            consts[e.value] = e
    counts = _tile_counts(kernel.body, grid, inlined, indices, scalars)
    found = []  # (grouped, column index first, the match)
    for rows, cols in itertools.permutations(counts, 2):
        sizes = sorted({x.name for e in (rows, cols, *(inlined[n] for n in pair)) for x in walk_expr(e)
                        if isinstance(x, Var)})
        if launched and not _same_count(grid, rows, cols, sizes):
            continue
        for row_name, col_name in (pair, pair[::-1]):
            order = _order(inlined[row_name], inlined[col_name], rows, cols, sorted(consts), sizes)
            if order is not None:
                group, col_first = order
                found.append((group > 0, col_first, (row_name, col_name, rows, cols, consts.get(group))))
    # a one-to-one split also reads as its mirror image (rows for columns): the grouped order
    # tells which is which, else the index that moves first is the column, blockIdx.x
    return max(found, key=lambda f: f[:2])[2] if found else None


def _tile_counts(body: list, grid, inlined: dict, indices: set, scalars: set) -> list:
    """What may count the row and the column tiles: the factors of a grid `R * C`, then the
    program-independent locals the tile-index arithmetic reads (`num_pid_m = cdiv(M, BM)`),
    each over scalar parameters only."""
    out = [grid.a, grid.b] if isinstance(grid, BinOp) and grid.op == "*" else []
    inits = {s.var.name: s.init for s in body if isinstance(s, Decl) and s.init is not None}
    read, todo = set(), list(indices)
    while todo:  # the locals the index locals read, through the locals those read
        for x in walk_expr(inits.get(todo.pop(), Const(0, "int32"))):
            if isinstance(x, Var) and x.name in inlined and x.name not in read:
                read.add(x.name)
                todo.append(x.name)
    for name in sorted(read - indices):
        e = inlined.get(name)
        if e is not None and _tile_arithmetic(e, scalars) and not _reads_program(e) and e not in out:
            out.append(e)
    return out


def _same_count(grid, rows, cols, sizes: list) -> bool:
    """Whether the launch grid is rows * cols programs, over a few problem sizes."""
    for value in (1, 17, 100, 1000, 4097):
        env = {n: value + 7 * i for i, n in enumerate(sizes)}
        try:
            if evaluate(grid, env) != evaluate(rows, env) * evaluate(cols, env):
                return False
        except (NotConstant, ValueError, OverflowError, ZeroDivisionError):
            return False
    return True


def _inlined_locals(body: list) -> dict:
    """Top-level locals declared with a value and never reassigned -> that value, with the
    earlier such locals substituted into it."""
    assigned = {s.var.name for s in walk_stmts(body) if isinstance(s, Assign)}
    values: dict = {}
    for s in body:
        if isinstance(s, Decl) and s.init is not None and s.var.name not in assigned:
            values[s.var.name] = map_expr(s.init, lambda x: values.get(x.name) if isinstance(x, Var) else None)
    return values


def _reads_program(e) -> bool:
    return any(isinstance(x, Builtin) and x.kind in ("block_idx", "grid_dim") for x in walk_expr(e))


def _program_read_outside(body: list, indices: set) -> bool:
    """Whether a statement other than the index locals' declarations reads the program id or
    the grid size."""
    return any(_reads_program(e) for s in _outside(body, indices) for e in stmt_exprs(s))


def _names_read_outside(body: list, indices: set) -> set:
    """The index locals that statements other than their declarations read."""
    return {x.name for s in _outside(body, indices) for e in stmt_exprs(s) for x in walk_expr(e)
            if isinstance(x, Var) and x.name in indices}


def _outside(body: list, indices: set):
    """Every statement but the top-level declarations of `indices`."""
    top = {id(s) for s in body}
    for s in walk_stmts(body):
        if not (isinstance(s, Decl) and s.var.name in indices and id(s) in top):
            yield s


def _tile_arithmetic(e, sizes: set) -> bool:
    """Integer arithmetic over the program id, the grid's sizes and constants only."""
    for x in walk_expr(e):
        if isinstance(x, Var) and x.name not in sizes:
            return False
        if isinstance(x, BinOp) and x.op not in _OPS:
            return False
        if isinstance(x, Call) and x.func not in ("min", "max", "ceildiv"):
            return False
        if isinstance(x, Builtin) and (x.kind, x.axis) != ("block_idx", 0):
            return False
        if not isinstance(x, (Var, BinOp, Call, Const, Builtin)):
            return False
    return True


def _order(row, col, rows, cols, groups: list, sizes: list):
    """None unless (row, col) takes every tile of the rows x cols grid exactly once, for each
    of a set of problem sizes; then (the GROUP_M, one of `groups`, whose grouped order it is,
    or 0 for another order; whether col is the index that moves first, from program 0 to 1).
    The sizes make 1, 2, 3, G - 1, G + 1, 2G - 1 and 2G + 3 tiles on a side (whole tiles, or
    one element short), which tells the two grouped spellings apart from each other and from
    row- or column-major."""
    tiles = [int(c.value) for c in (*walk_expr(rows), *walk_expr(cols)) if isinstance(c, Const)]
    scale = max(tiles + [1])
    top = max([g for g in groups if g not in tiles] or groups or [2])  # GROUP_M, not a tile size
    shapes = [(1, 1), (2, 3), (3, 2), (top + 1, 2), (2 * top + 3, 3), (2, 2 * top + 3), (top, top + 1),
              (2 * top - 1, 1), (2 * top - 1, 3), (top - 1, 5)]
    row_at, col_at, rows_of, cols_of = (_function(e) for e in (row, col, rows, cols))
    alive = {(g, order) for g in groups for order in (_grouped, _grouped_early)}
    col_first = None
    tried = 0
    for shape in shapes:
        for whole in (False, True):
            env = {n: max(1, scale * shape[i % 2] - (0 if whole or i % 2 else 1)) for i, n in enumerate(sizes)}
            try:
                r, c = rows_of(env), cols_of(env)
                if r <= 0 or c <= 0 or r * c > 1 << 14:
                    continue
                tiles_seen = []
                for pid in range(r * c):
                    env[_PID] = pid
                    tiles_seen.append((row_at(env), col_at(env)))
            except ZeroDivisionError:
                return None
            if len(set(tiles_seen)) != r * c or not all(0 <= a < r and 0 <= b < c for a, b in tiles_seen):
                return None
            alive = {(g, o) for g, o in alive if all(o(pid, r, c, g) == t for pid, t in enumerate(tiles_seen))}
            if col_first is None and r > 1 and c > 1:
                col_first = tiles_seen[1][1] != tiles_seen[0][1]
            tried += 1
    if not tried:
        return None
    return next((g for g in groups if any(a == g for a, _ in alive)), 0), bool(col_first)


_PID = "program id"
_C_OPS = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": lambda a, b: (abs(a) // abs(b)) * (1 if (a >= 0) == (b > 0) else -1),  # C truncates
    "%": lambda a, b: a - (abs(a) // abs(b)) * (1 if (a >= 0) == (b > 0) else -1) * b,
}
_C_CALLS = {"min": min, "max": max, "ceildiv": lambda a, b: -(-a // b)}


def _function(e):
    """Tile-index arithmetic (see _tile_arithmetic) as a Python function of {size: value,
    _PID: program id}: the evaluation _order repeats for thousands of programs."""
    if isinstance(e, Const):
        value = int(e.value)
        return lambda env: value
    if isinstance(e, Var):
        name = e.name
        return lambda env: env[name]
    if isinstance(e, Builtin):
        return lambda env: env[_PID]
    if isinstance(e, BinOp):
        a, b, op = _function(e.a), _function(e.b), _C_OPS[e.op]
        return lambda env: op(a(env), b(env))
    args, call = [_function(x) for x in e.args], _C_CALLS[e.func]
    return lambda env: call(*(f(env) for f in args))


def _grouped(pid: int, rows: int, cols: int, group: int) -> tuple:
    """Triton's grouped order: program pid's (row tile, column tile)."""
    per_group = group * cols
    first = (pid // per_group) * group
    size = min(rows - first, group)
    return first + (pid % per_group) % size, (pid % per_group) // size


def _grouped_early(pid: int, rows: int, cols: int, group: int) -> tuple:
    """The grouped order as early Triton tutorials spelled it (`first_pid_m + pid % size`): the
    same groups, another order inside a partial one."""
    per_group = group * cols
    first = (pid // per_group) * group
    size = min(rows - first, group)
    return first + pid % size, (pid % per_group) // size


def _without_unread_locals(body: list, names: set) -> list:
    """Drop the top-level declarations of `names` that nothing reads any more (the tile-index
    arithmetic)."""
    while True:
        read = {x.name for e in all_exprs(body) for x in walk_expr(e) if isinstance(x, Var)}
        unread = [s for s in body if isinstance(s, Decl) and s.var.name in names and s.var.name not in read]
        if not unread:
            return body
        body = [s for s in body if not any(s is u for u in unread)]
