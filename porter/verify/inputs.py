"""Problem sizes and seeded random inputs, shared by the original's run and the port's.

Sizes: integer scalars that bound buffers, guards or the grid are "sizes"; verify runs two
problem sizes of primes (so no block or tile divides them), the larger one past two of every
chunk a loop, block or tile steps over each size (every loop of the original and of the port
runs at least twice), then one at an exact multiple of those chunks (the unmasked path) and
one just above it. Every buffer, outputs included, starts with the same random data on both
sides, so a skipped write shows.
"""

from __future__ import annotations

import math

import numpy as np

from porter.diagnostics import TileportError
from porter.verify import bf16
from porter.ir.extents import INDEX_LIMIT, index_buffers, program_maxima
from porter.ir.fold import NotConstant, evaluate
from porter.ir.nodes import (
    Assign, Atomic, BinOp, BufferParam, Call, Cast, Const, Decl, For, If, Kernel, Load, ScalarParam, Select,
    Store, Var, While, is_float,
)
from porter.ir.tiles import ParallelFor, TileBuffer
from porter.ir.walk import all_exprs, children, fixed_locals, stmt_exprs, walk_expr, walk_stmts
from porter.util.numbers import next_power_of_2

# Size sets by number of size parameters: each tuple is one problem; all primes, distinct.
_SIZE_SETS = {
    1: [(257,), (1531,)],
    2: [(37, 53), (67, 131)],
    3: [(13, 17, 19), (37, 53, 67)],  # the second spans several 32-deep K steps
}

NUMPY_DTYPES = {
    "float16": np.float16, "float32": np.float32, "float64": np.float64, "bfloat16": np.uint16,
    "int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64, "uint8": np.uint8,
    "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64, "bool": np.bool_,
}


#: a texture's width, height and depth in the first and the other problems
TEXTURE_EXTENTS = ((37, 52), (29, 23), (5, 7))


def size_params(kernel: Kernel) -> list[str]:
    """Integer scalars that bound extents, the grid, or a guard/loop comparison."""
    ints = {p.name for p in kernel.scalars if not is_float(p.dtype) and p.dtype != "bool"
            and getattr(p, "texture_extent", None) is None}  # a texture's own size (TEXTURE_EXTENTS)
    found: list[str] = []

    def note(e):
        for sub in walk_expr(e):
            if isinstance(sub, Var) and sub.name in ints and sub.name not in found:
                found.append(sub.name)

    for p in kernel.buffers:
        if p.extent is not None:
            note(p.extent)
            for sub in walk_expr(p.extent):  # `max(pid_m)`: the sizes the program's tile reads
                if isinstance(sub, Var) and sub.name in kernel.sizing.program_maxima:
                    note(kernel.sizing.program_maxima[sub.name][0])
    for g in kernel.launch.grid:
        note(g)
    defs = fixed_locals(kernel.body)
    for s in walk_stmts(kernel.body):
        if isinstance(s, (If, For, While)):
            for sub in walk_expr(s.cond):
                if isinstance(sub, BinOp) and sub.op in ("<", "<=", ">", ">="):
                    note(sub)
                    # `k < num_pid_k` with `num_pid_k = ceildiv(K, 64)`: K bounds the loop
                    for local in _locals_read(sub, defs):
                        note(defs[local])
    order = [p.name for p in kernel.scalars]
    return sorted(found, key=order.index)


def power_of_two_sizes(kernel: Kernel) -> set:
    """Integer scalars the kernel masks with (`threadIdx.x & (size - 1)`, cuda-samples scan):
    such code is written for a power of two; another size makes threads collide. Also the
    sizes a launch passes as a block shape as they are (`TOPK=topk` with `tl.arange(0, TOPK)`,
    FlagGems' grouped top-k): Triton compiles such a block only at a power of two."""
    ints = {p.name for p in kernel.scalars if not is_float(p.dtype) and p.dtype != "bool"}
    defs = fixed_locals(kernel.body)
    shapes = _tile_extents(kernel)
    passed = {n: _inline_casts(d) for n, d in kernel.derived_constexprs.items() if n in shapes}
    found = {d.name for d in passed.values() if isinstance(d, Var) and d.name in ints}
    for e in all_exprs(kernel.body):
        if isinstance(e, BinOp) and e.op == "&":
            for side in (e.a, e.b):
                side = _inline_casts(side)
                if isinstance(side, BinOp) and side.op == "-" and isinstance(side.b, Const) and side.b.value == 1:
                    name = _inline_casts(side.a)
                    while isinstance(name, Var) and name.name in defs and name.name not in ints:
                        name = _inline_casts(defs[name.name])
                        if isinstance(name, BinOp) and name.op in ("/", ">>") and isinstance(name.b, Const):
                            name = _inline_casts(name.a)  # `size / 4` lanes of uint4: still the size's mask
                    if isinstance(name, Var) and name.name in ints:
                        found.add(name.name)
    return found


def _tile_extents(kernel: Kernel) -> set:
    """The derived constexprs (by name) that size a tile or a T.Parallel loop of the kernel: the
    IR holds a shape as the value the constexpr was converted with, a power of two no other
    constexpr has (module._derived_constexpr)."""
    dims = {d for s in walk_stmts(kernel.body) if isinstance(s, TileBuffer) for d in s.shape}
    dims |= {d for s in walk_stmts(kernel.body) if isinstance(s, ParallelFor) for d in s.extents}
    return {n for n in kernel.derived_constexprs if kernel.constexprs.get(n) in dims}


def _inline_casts(e):
    while isinstance(e, Cast):
        e = e.a
    return e


#: How many times verify doubles a size that leaves the launch grid empty, at most.
GRID_DOUBLINGS = 12


def _fill_grid(kernel: Kernel, scalars: dict, given: dict, earlier: list) -> None:
    """Raise the sizes a launch grid is computed from while it has an empty axis (`len / 256 -
    1`, `pitch / 128`, mergeSort's `(N - N % (2 * stride)) / 128`): each size alone by
    doublings, then all of them together; a problem that became an earlier one (`len` 256
    raised to 512, the next problem's) moves on too. Sizes given with --arg stay."""
    grid = kernel.launch.grid or ()
    names = [n for n in dict.fromkeys(v.name for g in grid for v in walk_expr(g) if isinstance(v, Var))
             if n not in given and type(scalars.get(n)) is int]

    def empty(values) -> bool:
        try:
            return any(int(evaluate(g, values)) < 1 for g in grid)
        except (NotConstant, ValueError, ZeroDivisionError, TypeError):
            return False

    if not empty(scalars) and scalars not in earlier:
        return
    for group in [[n] for n in names] + [names]:
        trial = dict(scalars)
        for _ in range(GRID_DOUBLINGS):
            trial.update({n: 2 * trial[n] for n in group})
            if not empty(trial) and trial not in earlier:
                scalars.update(trial)
                return


def _locals_read(e, defs: dict) -> list:
    """The fixed locals e reads, directly or through other fixed locals' inits."""
    found: list = []
    todo = [e]
    while todo:
        for sub in walk_expr(todo.pop()):
            if isinstance(sub, Var) and sub.name in defs and sub.name not in found:
                found.append(sub.name)
                todo.append(defs[sub.name])
    return found


#: The largest chunk (elements) sizes are raised past: a bigger one keeps its one round.
CHUNK_CAP = 4096
#: The chunk a `next_power_of_2(size)` block counts as: its exact case is a power of two (64).
POW2_CHUNK = 32


def loop_quanta(kernel: Kernel) -> dict:
    """size -> the chunk a loop, block or tile steps over it by: the step of a loop bounded by
    the size (`c += blockDim.x`, a grid-stride round), the C of `ceildiv(size, C)` or
    `size / C`, the tiles the port's program steps by (SizingHints.port_tiles), and POW2_CHUNK for
    a launch's `next_power_of_2(size)` block. A problem below twice the chunk never leaves the
    loop's first round."""
    sizes = set(size_params(kernel))
    env = {f"block_dim.{i}": b for i, b in enumerate(kernel.launch.block)}
    for i, g in enumerate(kernel.launch.grid):
        try:
            env[f"grid_dim.{i}"] = int(evaluate(g, {}))
        except (NotConstant, ValueError, ZeroDivisionError, TypeError):
            pass
    out: dict = {}
    stride = stride_test(kernel)

    def note(name, chunk):
        if name in sizes and not stride(name) and isinstance(chunk, int) and 1 < chunk <= CHUNK_CAP:
            out[name] = max(out.get(name, 1), chunk)

    for name, chunk in kernel.sizing.port_tiles.items():
        note(name, chunk)
    for e in (sub for d in kernel.derived_constexprs.values() for sub in walk_expr(d)):
        # a block of next_power_of_2(size) lanes: a size at a power of two uses the last lane
        if isinstance(e, Call) and e.func == "next_power_of_2" and e.args and isinstance(e.args[0], Var):
            note(e.args[0].name, POW2_CHUNK)
    exprs = list(all_exprs(kernel.body)) + [e for g in kernel.launch.grid for e in walk_expr(g)]
    for e in exprs:
        if isinstance(e, Call) and e.func == "ceildiv" and len(e.args) == 2 and isinstance(e.args[0], Var) \
                and isinstance(e.args[1], Const):
            note(e.args[0].name, e.args[1].value)
        elif isinstance(e, BinOp) and e.op == "/" and isinstance(e.b, Const) and _lone_size(e.a):
            note(_lone_size(e.a), e.b.value)  # `n / 4`, `(n + 127) / 128`
    for s in walk_stmts(kernel.body):
        if isinstance(s, For) and isinstance(s.cond, BinOp) and s.cond.op in ("<", "<=") and \
                isinstance(s.cond.b, Var):
            try:
                note(s.cond.b.name, int(evaluate(s.step, env)))
            except (NotConstant, ValueError, ZeroDivisionError, TypeError):
                pass
    return out


def whole_tile_sizes(kernel: Kernel) -> dict:
    """size -> the tile the original's unmasked loads step over it with (the least common
    multiple of several): the sizes it is only defined at multiples of."""
    out: dict = {}
    for sizes in unmasked_tile_reads(kernel).values():
        for name, tile in sizes.items():
            out[name] = math.lcm(out.get(name, 1), tile)
    return out


def _whole_tiles(scalars: dict, whole: dict, given: dict) -> None:
    """Each size of `whole` (whole_tile_sizes) rounded up to a multiple of its tile, and to
    one no other of them took in this case: the original is undefined at other sizes (it
    reads past them, where a port of views would read outside its tensors), and sizes that
    stay distinct still tell a transposed index from the right one."""
    taken = set()
    for name in sorted(whole):
        value = scalars.get(name)
        if name in given or not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            continue
        value = _round_up(value, whole[name])
        while value in taken:
            value += whole[name]
        scalars[name] = value
        taken.add(value)


def unmasked_tile_reads(kernel: Kernel) -> dict:
    """Buffers the original loads whole tiles of with no mask or guard (`tl.load(a_ptrs)`,
    a kernel only defined for sizes that are multiples of its tiles) -> the sizes those
    reads step over in tiles with each tile: {"a": {"K": 64, "M": 128}}. At other sizes the
    original reads past them; verify's buffers hold those reads (their extents count whole
    tiles), so both sides read the same padding there."""
    chunks = loop_quanta(kernel)
    out: dict = {}

    def unguarded_loads(e, tile_vars):
        if isinstance(e, Select):
            yield from unguarded_loads(e.cond, tile_vars)  # its branches are guarded
            return
        if isinstance(e, Load) and any(isinstance(x, Var) and x.name in tile_vars for x in walk_expr(e.index)):
            yield e
        for child in children(e):
            yield from unguarded_loads(child, tile_vars)

    def visit(stmts, tile_vars):
        for st in stmts:
            if isinstance(st, ParallelFor):
                visit(st.body, tile_vars | {v.name for v in st.vars})
            elif isinstance(st, If):
                continue  # a guarded load
            elif isinstance(st, (For, While)):
                visit(st.body, tile_vars)
            elif tile_vars:
                for e in stmt_exprs(st):
                    for load in unguarded_loads(e, tile_vars):
                        out.setdefault(load.buffer, {})

    visit(kernel.body, frozenset())
    for name in out:
        p = kernel.param(name)
        extent = p.extent if p is not None else None
        if extent is None:
            continue
        read = {x.name for x in walk_expr(extent) if isinstance(x, Var)}
        for atom in [n for n in read if n in kernel.sizing.program_maxima]:
            read |= {x.name for x in walk_expr(kernel.sizing.program_maxima[atom][0]) if isinstance(x, Var)}
        out[name] = {n: chunks[n] for n in sorted(read) if n in chunks}
    return out


def _lone_size(e) -> str | None:
    """The variable of `n`, `n + 127`, `(n + 128) - 1` (one variable plus or minus constants)."""
    while isinstance(e, Cast):
        e = e.a
    if isinstance(e, Var):
        return e.name
    if isinstance(e, BinOp) and e.op in ("+", "-"):
        for var_side, const_side in ((e.a, e.b), (e.b, e.a) if e.op == "+" else (None, None)):
            while isinstance(const_side, Cast):
                const_side = const_side.a
            if var_side is not None and isinstance(const_side, Const):
                return _lone_size(var_side)
    return None


def _next_prime(n: int) -> int:
    def prime(k):
        return k > 1 and all(k % d for d in range(2, int(k ** 0.5) + 1))
    while not prime(n):
        n += 1
    return n


def _size_sets(kernel: Kernel, sizes: list, divisors: dict) -> list:
    """The size tuples, in `sizes` order: two of primes, the larger past twice every chunk
    (loop_quanta), then each chunked size at exactly twice its chunk and one above that."""
    sets = list(_SIZE_SETS.get(len(sizes)) or [tuple(17 + 2 * i for i in range(len(sizes))),
                                               tuple(29 + 2 * i for i in range(len(sizes)))])
    chunks = {s: q for s, q in loop_quanta(kernel).items() if s in sizes and s not in divisors}
    if not chunks:
        return sets
    large = tuple(_next_prime(2 * chunks[s] + 1) if s in chunks and v <= 2 * chunks[s] else v
                  for s, v in zip(sizes, sets[-1]))
    exact = tuple(2 * chunks[s] if s in chunks else v for s, v in zip(sizes, large))
    above = tuple(v + 1 if s in chunks else v for s, v in zip(sizes, exact))
    return sets[:-1] + [large, exact, above]


def problem_sizes(kernel: Kernel, given: dict) -> list[dict]:
    """Scalar values for each problem: sizes from the size sets, others fixed, --arg wins."""
    found = [s for s in size_params(kernel) if s not in given]
    # Strides: a buffer's innermost one small, the others the widest size plus padding, then
    # each spread past what is inside it (_spread_strides): rows never overlap, and a port that
    # assumes contiguous rows or unit steps meets neither.
    strides = _stride_names(kernel, found, given)
    sizes = [s for s in found if s not in strides]
    divisors = _grid_divisors(kernel)
    sets = _size_sets(kernel, sizes, divisors)
    nesting = _stride_nesting(kernel, strides)
    counts = _program_counts(kernel, sizes)
    whole = whole_tile_sizes(kernel)
    rng = np.random.default_rng(1234)
    problems = []

    def problem(number: int, values: tuple) -> dict:
        """The scalars of problem `number` with these size values."""
        first = first_strides(kernel, strides, max(values, default=16))
        scalars = {}
        for p in kernel.scalars:
            if p.name in given:
                scalars[p.name] = _typed(given[p.name], p.dtype)
            elif p.name in divisors and p.name in sizes:
                # the grid floors `N // 128`: a multiple, so that the grid is not empty. A tile
                # (32 and up) takes one and two tiles, each costly on the CPU; a vector width
                # (`n / 8` elements per thread) keeps the usual size, rounded up to its multiple
                d = divisors[p.name]
                scalars[p.name] = d * (min(number, 1) + 1) if d >= 32 else _round_up(values[sizes.index(p.name)], d)
            elif p.name in counts:
                scalars[p.name] = PROGRAM_COUNTS[min(number, 1)][counts.index(p.name) % 4]
            elif getattr(p, "texture_extent", None) is not None:
                # a texture's size: a few dozen texels each way, so that clamped, wrapped and
                # border reads all happen (3-D ones smaller)
                scalars[p.name] = TEXTURE_EXTENTS[p.texture_extent[1]][min(number, 1)]
            elif getattr(p, "grid_axis", None) is not None and kernel.language == "cuda":
                # a CUDA kernel's grid the caller chooses (a library kernel, a grid of host
                # values): a few blocks test the indexing; sizes of 50 made a tiled kernel's
                # buffers span GBs. (A Triton grid often counts programs that share work,
                # which the usual sizes exercise.)
                scalars[p.name] = PROGRAM_COUNTS[min(number, 1)][p.grid_axis % 4]
            elif p.name in sizes:
                scalars[p.name] = values[sizes.index(p.name)]
            elif p.name in strides:
                scalars[p.name] = first[p.name]
            elif is_float(p.dtype):
                scalars[p.name] = float(np.float32(rng.uniform(0.25, 2.0)))
            elif p.dtype == "bool":
                scalars[p.name] = True
            else:
                scalars[p.name] = 3
        ints = [p.name for p in kernel.scalars if not is_float(p.dtype) and p.dtype != "bool"]
        for a, b in _size_quotients(kernel, ints):
            # `hs = C / NH`: a head size of 0 would make the kernel do nothing; C a multiple of NH
            if a not in given and isinstance(scalars.get(a), int) and isinstance(scalars.get(b), int) \
                    and 0 < scalars[a] < scalars[b]:
                scalars[a] *= scalars[b]
        _whole_tiles(scalars, whole, given)
        for name, cap in _array_caps(kernel).items():
            # `for (j...; j < k; ...) s_filter[j]` with `s_filter[15]`: the host keeps k <= 15
            if name not in given and isinstance(scalars.get(name), int) and scalars[name] > cap:
                scalars[name] = cap
        spread_strides(kernel, strides, scalars, given, max(values, default=16))
        for name, nbytes in kernel.sizing.byte_strides.items():
            # a pitch in bytes: the stride it stands for, in rows of that many bytes an element
            if name not in given and isinstance(scalars.get(name), int):
                widest = max([v for v in scalars.values() if isinstance(v, int)] + [scalars[name]])
                scalars[name] = (widest + 3) * nbytes
        for name, lanes in _multiples(kernel).items():
            # a vector access (`reinterpret_cast<float4*>(x + row * P)`) needs aligned addresses
            if name in scalars and name not in given and isinstance(scalars[name], int):
                scalars[name] = _round_up(scalars[name], lanes)
        for name in power_of_two_sizes(kernel):
            # `x & (size - 1)`: the kernel masks by the size, which the host keeps a power of two
            if name not in given and type(scalars.get(name)) is int and scalars[name] > 0:
                scalars[name] = next_power_of_2(scalars[name])
        _fill_grid(kernel, scalars, given, problems)
        if index_buffers(kernel):
            scalars[INDEX_LIMIT] = min(values, default=16)
        return scalars

    for number, values in enumerate(sets):
        scalars = problem(number, values)
        for divisor in (2, 4, 8, 16):
            # many sizes multiplied (a 5-D volume's, or a buffer tileport cannot bound, which is
            # given their product) pass what verify allocates: smaller sizes, the same problem
            if not _too_large(kernel, scalars, given):
                break
            scalars = problem(number, tuple(max(3, v // divisor) for v in values))
        problems.append(scalars)
    aligned_sizes = {n: math.lcm(*m) if isinstance(m, tuple) else m for n, m in kernel.aligned.sizes.items()}
    if (aligned_sizes or kernel.aligned.unit_strides) and problems:
        # the port's aligned program (whole tiles, async copies) runs only when every such size
        # is a multiple (and such stride 1): one more case, two tiles on each of those axes
        extra = dict(problems[0])
        for name in kernel.aligned.unit_strides:
            if name in extra and name not in given:
                extra[name] = 1
        for name, multiple in aligned_sizes.items():
            if name in extra and name not in given and name not in strides:
                extra[name] = 2 * multiple
        widest = max((v for v in extra.values() if isinstance(v, int) and not isinstance(v, bool)), default=16)
        for name, multiple in aligned_sizes.items():
            if name in extra and name not in given and name in strides:
                extra[name] = _odd_multiple(widest + 3, multiple)  # a row stride of aligned rows
        # the larger sizes move every batch stride past its matrix again (batches that overlap
        # make writes race), and an aligned stride stays a multiple
        units = {name: 1 for name in kernel.aligned.unit_strides}  # stay 1: each a contiguous row's step
        _spread_strides(kernel, strides, nesting, extra, {**given, **units})
        for name, multiple in aligned_sizes.items():
            if name in extra and name not in given and name in strides:
                extra[name] = _odd_multiple(extra[name], multiple)
        problems.append(extra)
    unique, seen = [], []
    for number, problem in enumerate(problems):
        ints = {k: v for k, v in problem.items() if isinstance(v, int)}
        if ints in seen:
            continue
        seen.append(ints)
        if number >= 2:  # a chunked case whose buffers cannot be sized blindly is left out
            try:
                buffer_lengths(kernel, problem, given)
            except TileportError:
                continue
        unique.append(problem)
    return unique


def _array_caps(kernel: Kernel) -> dict:
    """size -> the most it may be: a loop bounded by the size (`j < k`) that indexes a fixed
    shared or local array by its variable (`s_filter[j]`) assumes the array holds k elements."""
    from porter.ir.nodes import Alloc

    arrays = {s.name: s.size for s in walk_stmts(kernel.body) if isinstance(s, Alloc) and not s.dynamic}
    ints = {p.name for p in kernel.scalars if not is_float(p.dtype) and p.dtype != "bool"}
    caps: dict = {}
    for loop in walk_stmts(kernel.body):
        c = loop.cond if isinstance(loop, For) else None
        if not (isinstance(c, BinOp) and c.op == "<" and isinstance(c.a, Var) and isinstance(c.b, Var)
                and c.a.name == loop.var.name and c.b.name in ints):
            continue
        accesses = [s for s in walk_stmts(loop.body) if isinstance(s, Store)] + \
            [e for e in all_exprs(loop.body) if isinstance(e, Load)]
        for a in accesses:
            index = a.index
            while isinstance(index, Cast):
                index = index.a
            if a.buffer in arrays and isinstance(index, Var) and index.name == loop.var.name:
                caps[c.b.name] = min(caps.get(c.b.name, arrays[a.buffer]), arrays[a.buffer])
    return caps


def first_strides(kernel: Kernel, strides: list, widest: int) -> dict:
    """Each stride's value before spread_strides: a buffer's innermost one small (not 1: a port
    that assumes contiguous rows or unit steps must meet it), any other past every size."""
    elements = _element_strides(kernel, strides)
    return {n: ELEMENT_STRIDE if n in elements else widest + 3 for n in strides}


def spread_strides(kernel: Kernel, strides: list, scalars: dict, given: dict, widest: int) -> None:
    """Move each stride (first_strides' values in scalars) past what the strides inside it
    span, in place; past STRIDE_CAP (4-D attention tensors of one large size nested apart
    would take GiBs, and the interpreter's memory) every stride takes the widest size plus 3,
    which keeps rows apart within a dimension."""
    _spread_strides(kernel, strides, _stride_nesting(kernel, strides), scalars, given)
    if any(scalars[n] > STRIDE_CAP for n in strides if n not in given and isinstance(scalars.get(n), int)):
        for n in strides:
            if n not in given:
                scalars[n] = widest + 3


def _stride_names(kernel: Kernel, found: list, given: dict) -> list:
    """The strides (by stride_test) among the size parameters `found`, then among the other
    integer scalars not given: a stride that bounds nothing the analyses see (a block
    pointer's, a row loop's) is still a stride, which a size's small value would make rows
    overlap with."""
    stride = stride_test(kernel)
    strides = [s for s in found if stride(s)]
    return strides + [p.name for p in kernel.scalars if stride(p.name) and p.name not in given and
                      p.name not in strides and not is_float(p.dtype) and p.dtype != "bool"]


def contiguous_strides(kernel: Kernel, scalars: dict, given: dict) -> None:
    """Each stride (by stride_test) as contiguous tensors have it, in place: a buffer's
    innermost one 1, each other just past what the buffer's extent says the dimensions inside
    it span (a row-major matrix's row stride is its width, or a little more where the extent
    counts a masked K loop's last tile whole). What a caller passes, for timing
    (bench/benchmark.py); verify's own strides are the adversarial ones of first_strides and
    spread_strides."""
    strides = _stride_names(kernel, [s for s in size_params(kernel) if s not in given], given)
    elements = _element_strides(kernel, strides)
    for name in strides:
        scalars[name] = 1 if name in elements else 0
    _spread_strides(kernel, strides, _stride_nesting(kernel, strides), scalars, given, pad=0)


def _spread_strides(kernel: Kernel, strides: list, nesting: dict, scalars: dict, given: dict,
                    pad: int = 3) -> None:
    """A stride steps past everything the rest of its buffer's index spans: with the stride
    set to 0 the extent (`K * M + batch * strideA - strideA`) is what one step holds, so a
    batch stride gets at least that (plus `pad`) and batches never overlap."""
    maxima: dict = {}  # the program-id locals' maxima (a walk over the grid) per set of values

    def tiles() -> dict:
        key = tuple(scalars.items())
        if key not in maxima:
            maxima[key] = program_maxima(kernel, scalars)
        return maxima[key]

    for name in sorted(strides, key=lambda n: nesting.get(n, 1)):
        if name in given or not isinstance(scalars.get(name), int):
            continue
        for p in kernel.buffers:
            if p.extent is None or not any(isinstance(e, Var) and e.name == name for e in walk_expr(p.extent)):
                continue
            # this stride and every stride at its depth or outside it set to 0: the span of the
            # dimensions inside it
            outer = {o: 0 for o in strides if nesting.get(o, 1) >= nesting.get(name, 1)}
            try:
                rest = int(evaluate(p.extent, {**scalars, **tiles(), **outer}))
            except (NotConstant, ValueError, ZeroDivisionError, TypeError):
                continue
            scalars[name] = max(scalars[name], rest + pad)


def _odd_multiple(value: int, multiple: int) -> int:
    """The least multiple of `multiple` at or above value whose quotient has no factor 2, 3, 5
    or 7: the program may assume `stride % 8 == 0`, and a port that assumed `% 9` or `% 16`
    instead must meet a stride for which that is false."""
    out = _round_up(value, multiple)
    while math.gcd(out // multiple, 210) != 1:
        out += multiple
    return out


def _round_up(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple


#: Values of sizes that only count programs (batch x heads), on the first problem and the others.
PROGRAM_COUNTS = ((2, 3, 5, 7), (3, 5, 7, 2))


def _program_counts(kernel: Kernel, sizes: list) -> list:
    """Sizes that only count programs: factors of a product of two or more sizes on a grid
    axis (`Z * H`: batch and heads) that no guard, loop or chunk reads. Two to seven of each
    test the programs' indexing; primes near 50 each made attention's grid thousands of
    programs, which the Triton interpreter ran past verify's time limit."""
    chunked = set(loop_quanta(kernel))
    defs = fixed_locals(kernel.body)
    compared: set = set()
    for st in walk_stmts(kernel.body):
        if isinstance(st, (If, For, While)):
            for e in [st.cond, *(defs[n] for n in _locals_read(st.cond, defs))]:
                compared |= {x.name for x in walk_expr(e) if isinstance(x, Var)}
    out: list = []
    for g in kernel.launch.grid:
        for e in walk_expr(g):
            if isinstance(e, BinOp) and e.op == "*":
                factors = [x for x in (e.a, e.b) if isinstance(x, Var) and x.name in sizes]
                if len(factors) == 2:
                    out += [x.name for x in factors if x.name not in out]
    return [n for n in out if n not in chunked and n not in compared]


def _size_quotients(kernel: Kernel, names: list) -> list:
    """(a, b) for each `a / b` of two of these integer parameters in the kernel."""
    out = []
    for e in all_exprs(kernel.body):
        if isinstance(e, BinOp) and e.op == "/" and isinstance(e.a, Var) and isinstance(e.b, Var) and \
                e.a.name in names and e.b.name in names and (e.a.name, e.b.name) not in out:
            out.append((e.a.name, e.b.name))
    return out


def _multiples(kernel: Kernel) -> dict:
    """scalar -> what it must be a multiple of: the vector accesses the front end saw
    (SizingHints.alignments), and `assert(T % 4 == 0)` in the kernel (an empty `if` in the IR)."""
    out = dict(kernel.sizing.alignments)
    for s in walk_stmts(kernel.body):
        c = s.cond if isinstance(s, If) and not s.then and not s.orelse else None
        if isinstance(c, BinOp) and c.op == "==" and isinstance(c.b, Const) and c.b.value == 0 and \
                isinstance(c.a, BinOp) and c.a.op == "%" and isinstance(c.a.a, Var) and \
                isinstance(c.a.b, Const) and isinstance(c.a.b.value, int) and c.a.b.value > 1:
            name = c.a.a.name
            out[name] = max(out.get(name, 1), c.a.b.value)
    return out


#: The largest stride spread strides may reach (elements); past it none is spread.
STRIDE_CAP = 1 << 21
#: The stride verify gives the innermost of a buffer's strides (`stride_ak` of `stride_am,
#: stride_ak`): a row stride of P (past every size) there made each matrix P**2 * rows
#: elements, past verify's allocation cap for the matmul tutorial's tiles.
ELEMENT_STRIDE = 3


def _grid_divisors(kernel: Kernel) -> dict:
    """size -> C for grid extents that floor-divide a size by a constant (`N_CTX // 128`): the
    launch assumes a multiple (the host asserts it), and a smaller size launches nothing."""
    out = {}
    for g in kernel.launch.grid:
        for e in walk_expr(g):
            size = _inline_casts(e.a) if isinstance(e, BinOp) else None  # `(int32)matrixDim / 32` too
            if isinstance(e, BinOp) and e.op == "/" and isinstance(size, Var) and isinstance(e.b, Const) \
                    and isinstance(e.b.value, int) and e.b.value > 1:
                out[size.name] = max(out.get(size.name, 1), e.b.value)
    return out


def _buffer_strides(kernel: Kernel, strides: list) -> list:
    """Per buffer with a known extent, the strides it uses, outer first (in parameter order,
    as `x.stride(0), x.stride(1)` are passed)."""
    order = [p.name for p in kernel.scalars]
    return [sorted({e.name for e in walk_expr(p.extent) if isinstance(e, Var) and e.name in strides}, key=order.index)
            for p in kernel.buffers if p.extent is not None]


def _element_strides(kernel: Kernel, strides: list) -> set:
    """The innermost stride of each buffer whose extent uses two or more strides."""
    return {used[-1] for used in _buffer_strides(kernel, strides) if len(used) >= 2}


def _stride_nesting(kernel: Kernel, strides: list) -> dict:
    """How deep each stride sits: in a buffer indexed with strides s1, s2 (outer first, in
    parameter order, as `x.stride(0), x.stride(1)` are passed) s2 is 1 deep and s1 2;
    _spread_strides moves each past the span of those inside it, so that no two elements of
    any problem size share an address."""
    depth: dict = {}
    for used in _buffer_strides(kernel, strides):
        for rank, name in enumerate(used):
            depth[name] = max(depth.get(name, 1), len(used) - rank)
    return depth


def is_stride(name: str) -> bool:
    """A stride by its name (`stride_am`, `lda`, `pitch`)."""
    lowered = name.lower()
    return "stride" in lowered or lowered in ("lda", "ldb", "ldc", "ld", "pitch")


def stride_test(kernel: Kernel):
    """name -> whether it is one of the kernel's strides: by its name, or by its role there
    (stride_params, read once)."""
    roles = stride_params(kernel)
    return lambda name: is_stride(name) or name in roles


def stride_params(kernel: Kernel) -> set:
    """Integer scalars that step between a buffer's rows by their role: multiplied by a
    non-constant in a buffer's index (`rr * a_row_step`), never compared (a guard, a loop
    bound), in the grid or a launch-computed constexpr. Verify gives a stride a value past
    every size so that rows never overlap; a small size's value would let rows alias."""
    ints = {p.name for p in kernel.scalars if not is_float(p.dtype) and p.dtype != "bool"}
    defs = fixed_locals(kernel.body)

    def names(e) -> set:
        exprs = [e, *(defs[n] for n in _locals_read(e, defs))]
        return {x.name for d in exprs for x in walk_expr(d) if isinstance(x, Var) and x.name in ints}

    bounding: set = set()
    for g in kernel.launch.grid:
        bounding |= names(g)
    for d in kernel.derived_constexprs.values():
        bounding |= names(d)
    for st in walk_stmts(kernel.body):
        if isinstance(st, (If, For, While)):
            bounding |= names(st.cond)
    indices = [st.index for st in walk_stmts(kernel.body) if isinstance(st, (Store, Atomic))]
    indices += [e.index for e in all_exprs(kernel.body) if isinstance(e, Load)]
    found: set = set()
    for index in indices:
        for e in [index, *(defs[n] for n in _locals_read(index, defs))]:
            for x in walk_expr(e):
                if isinstance(x, BinOp) and x.op == "*":
                    for side, other in ((x.a, x.b), (x.b, x.a)):
                        while isinstance(side, Cast):
                            side = side.a
                        while isinstance(other, Cast):
                            other = other.a
                        if isinstance(side, Var) and side.name in ints and not isinstance(other, Const):
                            found.add(side.name)
    return found - bounding


def _typed(value, dtype: str):
    return float(value) if is_float(dtype) else int(float(value))


def buffer_lengths(kernel: Kernel, scalars: dict, given: dict, cap: int | None = None) -> dict:
    """Each buffer's element count for these sizes; TP433 past `cap` in all (default
    LENGTH_CAP, verify's: a benchmark on a GPU sizes its own problems and passes 0, no cap)."""
    cap = LENGTH_CAP if cap is None else cap
    lengths = {}
    tiles = program_maxima(kernel, scalars)
    for p in kernel.buffers:
        if p.name in given:
            lengths[p.name] = int(given[p.name])
            continue
        if p.extent is None:
            lengths[p.name] = _generous_length(kernel, p, scalars)
            continue
        try:
            env = {**scalars, **tiles}
            extent, exact = evaluate(p.extent, env), evaluate(p.extent, env, exact=True)
        except (NotConstant, ValueError, ZeroDivisionError) as exc:
            raise TileportError("TP430", f"cannot evaluate the size of buffer '{p.name}' ({exc}); "
                                f"pass --arg {p.name}=<elements>", p.loc or kernel.loc) from exc
        if int(extent) != int(exact):
            # the index arithmetic wraps at these sizes (in the original too): a length taken
            # from the wrapped value allocated one element and the interpreter read past it
            raise TileportError("TP433", f"the indices of buffer '{p.name}' of kernel '{kernel.name}' pass "
                                f"the range of their integer type for {_shown_sizes(scalars)}; pass smaller "
                                "sizes with --arg", p.loc or kernel.loc)
        lengths[p.name] = max(int(extent), 1)
    total = sum(lengths.values())
    if cap and total > cap:
        name = max(lengths, key=lengths.get)
        where = next((p.loc for p in kernel.buffers if p.name == name and p.loc), kernel.loc)
        raise TileportError("TP433", f"the buffers of kernel '{kernel.name}' would need {total:,} elements "
                            f"(buffer '{name}' alone {lengths[name]:,}: its indices reach that far for "
                            f"{_shown_sizes(scalars)}), more than verify allocates ({cap:,}); "
                            "pass smaller sizes with --arg", where)
    return lengths


#: The most elements verify gives all the buffers of one case together: each is held a few
#: times over (inputs, the original's and the port's outputs), so 64 Mi elements keep a
#: verify of 4-byte data near 1 GiB. A kernel that indexes gigabytes past its sizes is a
#: diagnostic, not an allocation that takes the machine.
LENGTH_CAP = 1 << 26


def _shown_sizes(scalars: dict) -> str:
    ints = [f"{k}={v}" for k, v in scalars.items() if isinstance(v, int) and not isinstance(v, bool)]
    return ", ".join(ints[:6]) + (", ..." if len(ints) > 6 else "") if ints else "these sizes"


#: The most elements a buffer whose index tileport could not bound is given (see below).
GENEROUS_CAP = 1 << 23


def _generous_length(kernel: Kernel, p, scalars: dict) -> int:
    """A buffer whose index the extent analysis could not bound (div/mod chains, data-dependent
    offsets): every integer problem size multiplied together, and by the widest int constexpr
    the buffer's own indices name (a row stride: `r * FEATURES + col`, r a row a strided loop
    visits; one factor, since a tile's width is one too), times 4 — more than any index built
    from those sizes in the kernels seen — within GENEROUS_CAP; past it, a diagnostic."""
    product = 4 * max(_index_constexprs(kernel, p.name).values(), default=1)
    stride = stride_test(kernel)
    for name in size_params(kernel):
        if stride(name):
            continue  # a stride already spans the sizes it steps over
        value = scalars.get(name)
        if isinstance(value, int) and value > 0:
            product *= value
    if product > GENEROUS_CAP:
        raise TileportError("TP430", f"cannot infer how many elements buffer '{p.name}' of kernel "
                            f"'{kernel.name}' needs, and the product of its sizes ({product}) is too "
                            f"large to allocate blindly; pass --arg {p.name}=<elements>", p.loc or kernel.loc)
    return product


def _too_large(kernel: Kernel, scalars: dict, given: dict) -> bool:
    """Whether these sizes would give the buffers more elements than verify allocates: a
    buffer tileport cannot bound, sized by every size multiplied (TP430), or all of them
    together past LENGTH_CAP (TP433)."""
    try:
        buffer_lengths(kernel, scalars, given)
    except TileportError as exc:
        return exc.diagnostic.code in ("TP430", "TP433")
    return False


def _index_constexprs(kernel: Kernel, buffer: str) -> dict:
    """name -> value of the int constexprs (> 1) in the index expressions of the buffer's loads
    and stores."""
    found = {}
    indices = [e.index for e in all_exprs(kernel.body) if isinstance(e, Load) and e.buffer == buffer]
    indices += [s.index for s in walk_stmts(kernel.body) if isinstance(s, Store) and s.buffer == buffer]
    for index in indices:
        for e in walk_expr(index):
            value = kernel.constexprs.get(e.name) if isinstance(e, Const) and e.name else None
            if isinstance(value, int) and not isinstance(value, bool) and value > 1:
                found[e.name] = value
    return found


#: How much wider than [-2, 2] verify's "wide" case draws floats: far enough that a softmax
#: shifted by anything but its row's max overflows exp, within float16's range.
WIDE = {"float16": 8.0, "bfloat16": 8.0}
WIDE_DEFAULT = 48.0


def random_array(dtype: str, n: int, rng: np.random.Generator, wide: bool = False,
                 ties: bool = False) -> np.ndarray:
    """Random values of dtype; wide: floats over WIDE times [-2, 2]; ties: floats on a grid of
    quarters (x and 2x land on halfway cases, where rounding modes differ)."""
    if is_float(dtype):
        scale = WIDE.get(dtype, WIDE_DEFAULT) if wide else 1.0
        values = (rng.uniform(-2.0, 2.0, n) * scale).astype(np.float32)
        if ties:
            values = np.round(values * 4) / 4
        if dtype == "bfloat16":
            return bf16.to_bits(values)
        return values.astype(NUMPY_DTYPES[dtype])
    if dtype == "bool":
        return rng.integers(0, 2, n).astype(np.bool_)
    if dtype.startswith("uint"):
        high = 256 if dtype == "uint8" else 100
        return rng.integers(0, high, n).astype(NUMPY_DTYPES[dtype])
    return rng.integers(-50, 50, n).astype(NUMPY_DTYPES[dtype])


#: The values an integer buffer the kernel divides by is drawn from: never 0 (SIGFPE in the
#: original), small enough that quotients stay varied.
DIVISORS = (1, 50)


def divisor_buffers(kernel: Kernel) -> set:
    """Integer buffers whose elements a kernel divides by, directly or through locals (dct8x8's
    `curCoef /= curQuant` with `curQuant = Q[...]`): a caller's table of divisors (a
    quantization matrix) holds no zero, so verify draws none."""
    given: dict = {}  # local -> every value it is given
    for s in walk_stmts(kernel.body):
        if isinstance(s, Decl) and s.init is not None:
            given.setdefault(s.var.name, []).append(s.init)
        elif isinstance(s, Assign):
            given.setdefault(s.var.name, []).append(s.value)
    todo = [e.b for e in all_exprs(kernel.body)
            if isinstance(e, BinOp) and e.op in ("/", "%") and not is_float(e.dtype)]
    loaded, seen = set(), set()
    while todo:
        for sub in walk_expr(todo.pop()):
            if isinstance(sub, Load):
                loaded.add(sub.buffer)
            elif isinstance(sub, Var) and sub.name in given and sub.name not in seen:
                seen.add(sub.name)
                todo.extend(given[sub.name])
    return {p.name for p in kernel.buffers if p.name in loaded and not is_float(p.dtype) and p.dtype != "bool"}


def index_steps_back(kernel: Kernel) -> dict:
    """index buffer -> the c of `ids[k] - c` (c > 0) in the kernel: CSR offsets read as
    `offsets[tid + 1] - 1` (segmentationTreeThrust) start at c, as the host builds them; an id
    drawn below c indexes before the buffer."""
    out: dict = {}
    for e in all_exprs(kernel.body):
        if isinstance(e, BinOp) and e.op == "-" and isinstance(_inline_casts(e.a), Load) \
                and isinstance(_inline_casts(e.b), Const) and not is_float(e.dtype):
            name, c = _inline_casts(e.a).buffer, _inline_casts(e.b).value
            if isinstance(c, int) and c > 0:
                out[name] = max(out.get(name, 0), c)
    return out


def lock_buffers(kernel: Kernel) -> set:
    """Buffers holding spin-lock words: they start free (zero), as every caller allocates them;
    a random word would read as held and the original would wait forever."""
    return {s.buffer for s in walk_stmts(kernel.body) if isinstance(s, Atomic) and s.op == "lock"}


def index_bounds(kernel: Kernel) -> dict:
    """index buffer -> the values its ids are checked against (`t >= classes`, `t == -100`,
    `v < n_bins`): the kernel guards its ids, so the wide case puts some ids on and around
    each bound (a guard's `<` against `<=` shows only there)."""
    from porter.ir.nodes import Load

    indices = index_buffers(kernel)
    defs = {s.var.name: s.init for s in walk_stmts(kernel.body) if isinstance(s, Decl) and s.init is not None}

    def buffer_of(e):
        while isinstance(e, Cast):
            e = e.a
        if isinstance(e, Var) and e.name in defs:
            e = defs[e.name]
            while isinstance(e, Cast):
                e = e.a
        return e.buffer if isinstance(e, Load) and e.buffer in indices else None

    ints = {p.name for p in kernel.scalars if not is_float(p.dtype) and p.dtype != "bool"}
    out: dict = {}
    for e in all_exprs(kernel.body):
        if isinstance(e, BinOp) and e.op in ("<", "<=", ">", ">=", "==", "!="):
            for side, other in ((e.a, e.b), (e.b, e.a)):
                buffer = buffer_of(side)
                while isinstance(other, Cast):
                    other = other.a
                if buffer and (isinstance(other, Const) or (isinstance(other, Var) and other.name in ints)):
                    if other not in out.setdefault(buffer, []):
                        out[buffer].append(other)
    return out


def _on_bounds(values: np.ndarray, bounds: list, scalars: dict, rng: np.random.Generator) -> np.ndarray:
    """Every fourth id moved onto a bound or next to it."""
    targets = []
    for b in bounds:
        try:
            v = int(evaluate(b, scalars))
        except (NotConstant, ValueError, ZeroDivisionError, TypeError):
            continue
        targets += [v - 1, v, v + 1]
    if not targets or values.size == 0:
        return values
    out = values.copy()
    info = np.iinfo(out.dtype)
    picks = np.clip(rng.choice(targets, size=out[::4].size), info.min, info.max)
    out[::4] = picks.astype(out.dtype)
    return out


def rounds(kernel: Kernel) -> bool:
    """Whether the kernel rounds to integers (round, rint): its wide case draws halfway values."""
    return any(isinstance(e, Call) and e.func in ("round", "nearbyint") for e in all_exprs(kernel.body))


def make_args(kernel: Kernel, scalars: dict, given: dict, seed: int, wide: bool = False) -> list:
    """The kernel's arguments in parameter order: arrays for buffers, Python scalars; wide:
    float buffers drawn from a range WIDE times [-2, 2] (values whose exp overflows), on a grid
    of quarters when the kernel rounds, and ids the kernel checks put on their bounds."""
    lengths = buffer_lengths(kernel, scalars, given)
    indices = index_buffers(kernel)
    bounds = index_bounds(kernel) if wide else {}
    locks = lock_buffers(kernel)
    divisors = divisor_buffers(kernel)
    stepped_back = index_steps_back(kernel)
    rng = np.random.default_rng(seed)
    args = []
    for p in kernel.params:
        if isinstance(p, BufferParam) and p.name in locks:
            args.append(np.zeros(lengths[p.name], NUMPY_DTYPES[p.dtype]))
        elif isinstance(p, BufferParam) and p.name in indices:
            # ids that address other buffers: drawn inside the problem (see ir/extents.py)
            limit = int(given.get(INDEX_LIMIT, scalars.get(INDEX_LIMIT, 1)))
            low = min(stepped_back.get(p.name, 0), max(limit - 1, 0))
            ids = rng.integers(low, max(limit, low + 1), lengths[p.name]).astype(NUMPY_DTYPES[p.dtype])
            if wide and p.name in bounds:
                ids = _on_bounds(ids, bounds[p.name], scalars, rng)
            args.append(ids)
        elif isinstance(p, BufferParam) and p.symbol_initial is not None and not wide:
            # a scalar `__device__` variable starts as its initialiser says (a flag, a counter);
            # the wide case draws it like any buffer
            args.append(np.full(lengths[p.name], p.symbol_initial, NUMPY_DTYPES[p.dtype]))
        elif isinstance(p, BufferParam) and p.name in divisors:
            args.append(rng.integers(*DIVISORS, lengths[p.name]).astype(NUMPY_DTYPES[p.dtype]))
        elif isinstance(p, BufferParam):
            args.append(random_array(p.dtype, lengths[p.name], rng, wide, wide and rounds(kernel)))
        elif isinstance(p, ScalarParam):
            args.append(_converted(scalars[p.name], p.dtype))
    return args


def _converted(value, dtype: str):
    """A drawn value as a parameter of `dtype` receives it: an integer too wide for a `char` or
    `short` parameter wraps, as C's conversion at the call does (`k<<<..>>>(..., width *
    height)` into a `char size`), on both sides alike."""
    if is_float(dtype) or dtype == "bool" or not isinstance(value, (int, np.integer)):
        return value
    return int(np.array(int(value), dtype=np.int64).astype(NUMPY_DTYPES[dtype]))
