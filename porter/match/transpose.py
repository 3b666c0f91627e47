"""Rule `transpose`: threads exchange data through a shared tile, each writes its own elements
(transpose, permute, copy with a layout change) -> a shared tile filled and read by T.Parallel.

Before (32x32 tiles, 32x8 threads, padded shared tile):

    for (j = 0; j < 32; j += 8) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
    __syncthreads();
    for (j = 0; j < 32; j += 8) out[(y' + j) * height + x'] = tile[threadIdx.x][threadIdx.y + j];

After (the tile as the block fills it, then the block's stores reading it):

    tile = T.alloc_shared((32, 33), T.float32)   # the original's padding kept
    for r, c in T.Parallel(32, 32): tile[r, c] = in[(by * 32 + r) * width + bx * 32 + c] if in bounds
    for i, j in T.Parallel(8, 32): if in bounds: out[...] = tile[j, i + 0]
    ... one T.Parallel per store the threads made ...

Each element of the tile must be one formula of its position (the summary checks every
thread's stores agree), and every read must stay inside what the block filled.
"""

from __future__ import annotations

import dataclasses

from porter.ir.nodes import Builtin, If, Kernel, Launch, Store, Var
from porter.ir.tiles import ParallelFor, TileBuffer, TileStore
from porter.ir.walk import walk_expr
from porter.match.formulas import Miss, Partial, RowReduce, Sum, substitute_builtins
from porter.match.summary import Summarizer

NAME = "transpose"
SUMMARY = ("threads exchange data through a shared tile and each stores its own elements "
           "(transpose, permute, copy with a layout change)")
PRODUCES = "a T.alloc_shared tile filled by T.Parallel, T.Parallel stores reading it"


def match(kernel: Kernel) -> Kernel:
    s = Summarizer(kernel)
    s.materialize = True
    s.run(kernel.body, {}, None)
    if not s.tiles:
        raise Miss("no shared tile is exchanged")
    if not s.writes:
        raise Miss("the kernel writes no global memory")
    for w in s.writes:
        exprs = [w.index, w.value] + ([w.guard] if w.guard is not None else [])
        if w.domain is not None or any(isinstance(n, (Sum, RowReduce, Partial)) for e in exprs
                                       for n in walk_expr(e)):
            raise Miss("a store of a sum or a reduction (not a pure exchange)")
    dx, dy = s.block[0], s.block[1]
    loc = kernel.loc
    body = []
    for buf, (rows, cols, r, c, value) in s.tiles.items():
        if any(isinstance(n, Builtin) and n.kind == "thread_idx" for n in walk_expr(value)):
            raise Miss(f"the tile '{buf}' depends on the thread otherwise than through its position")
        dtype = s.shared[buf].dtype
        body += [TileBuffer(buf, dtype, _declared_shape(s.shared[buf], rows, cols), "shared", loc),
                 ParallelFor((r, c), (rows, cols), [TileStore(buf, (r, c), value, loc)], loc)]
    i, j = Var("i", "int32"), Var("j", "int32")
    lanes = {("thread_idx", 0): j, ("thread_idx", 1): i}
    for w in s.writes:
        index, value = substitute_builtins(w.index, lanes), substitute_builtins(w.value, lanes)
        store = Store(w.buffer, index, value, w.loc)
        stmt = If(substitute_builtins(w.guard, lanes), [store], [], w.loc) if w.guard is not None else store
        if dy > 1:
            body.append(ParallelFor((i, j), (dy, dx), [stmt], w.loc))
        else:
            body.append(ParallelFor((j,), (dx,), [stmt], w.loc))
    launch = Launch(kernel.launch.grid, (1,), 0, kernel.launch.origin, kernel.launch.loc, dx * dy)
    return dataclasses.replace(kernel, body=body, launch=launch)


def _declared_shape(alloc, rows: int, cols: int) -> tuple:
    """The tile as the original declared it when that holds what the block fills: a padded
    `tile[32][33]` keeps its extra column, which puts a column walk on 33 different banks
    (a (32, 32) tile would put all 32 reads of a transposed column on one bank)."""
    shape = tuple(alloc.shape)
    if len(shape) == 2 and all(isinstance(d, int) for d in shape) and shape[0] >= rows and shape[1] >= cols:
        return shape
    return (rows, cols)
