"""The last IR -> IR steps, after the rules: each form of a kernel as its port prints it.

The printer (emit/) decides no IR; it prints `kernel.printable`, which these steps make, in
this order, on every form a kernel carries (its generic print, variants, launch values):

    thread handles    `int tid = threadIdx.x;` (never reassigned) is dropped and `tid` names
                      the lane handle (simplify.builtin_aliases)
    vector lanes      the lanes of a float4 access one `T.vectorized` access (vector_lanes.py)
    block sizes       `blockDim.x` as the launch's number, and what it makes constant folded
    index arithmetic  unsigned index arithmetic in int32, `(n + 255) / 256` as T.ceildiv
                      (simplify.py)
    tile level only   a chain of whole-tile copies as one fragment updated in place
                      (tile_copies.py), a repeated reduction read from its first
                      (repeated_reductions.py), a fill of a whole tile as T.fill (whole_tile_fills.py),
                      a pipelined loop's next-value lets folded into their uses
                      (pipelined_lets.py), a masked load that is cast as a guarded statement
                      (guarded_loads.py), a Triton row kernel's rows several per block
                      (rows_per_block.py, when every form of the kernel takes them), a
                      library-generated elementwise kernel's body over element values
                      (elementwise_body.py)
    spelling          the integers the port prints by name marked with their text
                      (`BLOCK_M`, a generic template's `BLOCK * 2`: spelling.py)

and the level the port takes: "tile" (tile statements), "thread" (barriers, shared memory,
shuffles, atomics need real threads) or "lanes" (one T.Parallel over the block).

    before  Decl(tid, Builtin(thread_idx, 0)); Store(y, Var(tid), ...)      level unknown
    after   Printable(body=[Store(y, Builtin(thread_idx, 0), ...)], level="lanes",
                      thread_names={("thread_idx", 0): "tid"}, port_grid=(...))
"""

from __future__ import annotations

import dataclasses
import math

from porter.ir.forms import forms, rebuilt
from porter.ir.nodes import BufferParam, Var
from porter.ir.tile_queries import is_tile_level, needs_threads
from porter.ir.walk import declared_names
from porter.util.names import fresh_name
from porter.transforms.elementwise_body import elementwise_body
from porter.transforms.guarded_loads import guard_cast_loads
from porter.transforms.pipelined_lets import fold_pipelined_lets
from porter.transforms.repeated_reductions import reduce_once
from porter.transforms.rows_per_block import rows_per_block
from porter.transforms.simplify import builtin_aliases, simplify_grid, simplify_stmts, substitute_block_dims
from porter.transforms.spelling import default_spellings, spell_integers
from porter.transforms.tile_copies import coalesce_tile_copies
from porter.transforms.vector_lanes import vectorize_lanes
from porter.transforms.whole_tile_fills import whole_tile_fills


@dataclasses.dataclass(frozen=True)
class Printable:
    """One form of a kernel as its port prints it."""

    body: list  # the statements inside `with T.Kernel(...)`
    level: str  # "tile", "thread" or "lanes"
    thread_names: dict  # ("thread_idx" | "block_idx", axis) -> the user's name for that handle
    # the T.Kernel grid (the tile grid when a rule made one), ceildivs spelled; a Triton port
    # that takes the caller's grid has that grid's parameters (`grid_x`)
    port_grid: tuple
    declared: tuple  # the locals the printer names first: those declared once lanes are grouped
    block: tuple = ()  # a thread-level port's block
    threads: int = 0  # the T.Kernel's thread count
    lanes: tuple = ()  # a lanes-level port's T.Parallel extents (the block)
    alloc_sizes: dict = dataclasses.field(default_factory=dict)  # an array's name -> its element count
    swizzle: object = None  # T.use_swizzle's panel size (Triton's GROUP_M order)
    # several rows per block (rows_per_block.py): (ROWS, the widest row tile it divides the
    # threads by), and the views the wrapper narrows to the grid's rows
    rows: tuple = ()
    narrowed: tuple = ()
    # a library-generated elementwise kernel's body over element values (elementwise_body.py):
    # the port prints that body for the launch helpers' elementwise program
    elementwise: object = None


def printable(kernel):
    """The kernel with every form it carries ready to print (`printable` set on each); several
    rows per block only when every form takes them (they share one program)."""
    ready = {id(f): _ready(f, kernel.generated) for f in forms(kernel)}
    if len({bool(r.printable.rows) for r in ready.values()}) > 1:
        ready = {id(f): _ready(f, kernel.generated, batch=False) for f in forms(kernel)}
    return rebuilt(kernel, ready)


def printable_module(module):
    """The module with each kernel's forms ready to print."""
    return dataclasses.replace(module, kernels=[printable(k) for k in module.kernels])


def _ready(kernel, generated: dict | None, batch: bool = True):
    """One form ready to print; `generated`: the kernel's library host (its forms carry none)."""
    body, names = builtin_aliases(kernel.body)
    body = vectorize_lanes(body, {p.name for p in kernel.params} | set(declared_names(body)))
    declared = tuple(declared_names(body))
    body = simplify_stmts(substitute_block_dims(body, tuple(kernel.launch.block)))
    if is_tile_level(body):
        body = fold_pipelined_lets(whole_tile_fills(reduce_once(coalesce_tile_copies(body))))
        body = guard_cast_loads(body, {p.name for p in kernel.params if isinstance(p, BufferParam)})
        level = "tile"
    else:
        level = "thread" if needs_threads(kernel) else "lanes"
    launch = kernel.launch
    if kernel.language == "triton" and not launch.tile_grid:
        grid = tuple(Var(f"grid_{'xyz'[axis]}", "int32") for axis in range(len(launch.grid)))
    else:
        grid = tuple(simplify_grid(g) for g in (launch.tile_grid or launch.grid))
    # the launch numbers the program prints: a thread-level port's block, a lanes-level port's
    # T.Parallel extents, the thread count (a Triton factory's default num_warps * 32)
    threads = launch.threads or math.prod(int(b) for b in launch.block)
    batched = rows_per_block(kernel, body, threads) if batch and level == "tile" else None
    rows, narrowed = (), ()
    if batched is not None:
        body, rows, narrowed = batched.body, (batched.rows, batched.widest), batched.narrowed
        handle = names.get(("block_idx", 0))
        if handle is not None:  # the block's handle is no longer a row
            names = {**names, ("block_idx", 0): fresh_name(f"{handle}_block", set(declared_names(body)) |
                                                           {p.name for p in kernel.params})}
    ready = Printable(body, level, names, grid, declared, block=tuple(launch.block) if level == "thread" else (),
                      threads=threads, lanes=tuple(launch.block) if level == "lanes" else (),
                      swizzle=launch.swizzle, rows=rows, narrowed=narrowed,
                      elementwise=elementwise_body(kernel, body, generated) if level == "tile" and not rows else None)
    return spell_integers(dataclasses.replace(kernel, printable=ready), *default_spellings(kernel))
