"""Guarded gathers of a block into a shared tile become `T.copy` from a 2-D view of the buffer.

Triton loads a block with `tl.load(base + rows[:, None] * s0 + cols[None, :] * s1, mask=(rows <
R) & (cols < C), other=0)`; the front end writes that as a T.Parallel that gathers element by
element through a flat pointer. When every read of the buffer is such a gather, with the same
extents and strides, the buffer is a (R, C) tensor with strides (s0, s1), and the gather is the
tile-shaped region of it at (row origin, column origin): `T.copy` reads exactly the elements the
mask lets through and zero elsewhere, and `T.Pipelined` can then make the copy asynchronous.
TMA and cp.async need unit-stride, 16-byte aligned rows, and whole tiles along them (a 2-byte
element under a per-element predicate is no cp.async); rows past a masked size are T.copy's own
predicate, one per 16-byte piece, so the row count may be ragged. The copy is the port's `aligned`
program, which the wrapper takes when the strides and those sizes allow (Triton passes them at
run time); the other program gathers from the same view as before.

Only shared tiles are rewritten (what a GEMM or attention K loop stages); extents and strides
must be scalar parameters (or a unit stride), which the port then binds from the tensor's shape.
A load with no mask (`tl.load(a_ptrs)`, a kernel only defined at whole tiles) takes its extents
from how its origin steps over a size in whole tiles (a K loop over cdiv(K, BK), a grid axis of
cdiv(M, BM)): there the aligned program's copy reads what the original reads.
"""

from __future__ import annotations

import dataclasses

from porter.ir.fold import try_int
from porter.ir.nodes import (AlignedProgram, Assign, BinOp, Builtin, Call, Cast, Const, Decl, For, If, Load, ScalarParam, Select, Store,
                             Var, dtype_bits, is_float)
from porter.ir.tile_queries import fp32_products
from porter.ir.tiles import Copy, Cumsum, Fill, Gemm, ParallelFor, Reduce, TileBuffer, TileLoad, TileStore
from porter.ir.walk import (all_exprs, map_expr, read_counts, rewrite_stmts, stmt_exprs, store_counts, walk_expr,
                            walk_stmts)
from porter.match.formulas import conjuncts
from porter.ir.symbolic import NotAffine, Poly, from_poly, symbol_names, to_poly


@dataclasses.dataclass(frozen=True)
class View:
    """A buffer seen as (rows, cols) with strides: parameter names, 1 for a unit stride, an
    int for a tile-wide dimension no mask bounds; ("*", rows, cols) for a batch of matrices,
    as many as the tensor holds; ("*", H, rows, cols) for batches of H matrices each."""

    shape: tuple
    strides: tuple


def raise_copies(kernel):
    """The kernel with its block gathers into shared tiles as T.copy, and the buffers they read
    as 2-D views; the kernel unchanged when any read of such a buffer is not one.

    A pipelined loop with two products (attention's K/V loop), or one of fp32 FMA products,
    drains, at a trip count known only at run time, through a loop whose cp.async wait count
    depends on its variable (see _pipelines): when its loads become copies the aligned program
    is unrolled "aligned", compiled with loops unrolled before code generation
    (gathers_in_pipelines says when every program is). With one T.gemm such copies lower as
    they are (unrolling doubles the compile and triples the source)."""
    kernel = dataclasses.replace(kernel, body=_transposed_operands(kernel.body))
    kernel = dataclasses.replace(kernel, body=_transposed_gathers(kernel))
    return _raise_copies(kernel)


def gathers_in_pipelines(kernel) -> bool:
    """Whether a pipelined loop of the kernel gathers a buffer argument into a shared tile
    with no mask: TileLang makes that gather a cp.async in every program (see _pipelines), so
    all of them compile unrolled ("always")."""
    params = {p.name for p in kernel.params}
    shared = {s.name for s in walk_stmts(kernel.body) if isinstance(s, TileBuffer) and s.scope == "shared"}
    return any(_unmasked_gather(s, params, shared) for loop in _pipelines(kernel.body) for s in walk_stmts(loop.body))


def _unmasked_gather(s, params: set, shared: set) -> bool:
    """`tile[i, j] = buffer[...]` into a shared tile, reading a buffer argument (flat, or its
    view) with no mask: TileLang's pipeline makes such a gather a cp.async, with the wait
    counts _pipelines describes (a masked gather stays a guarded load)."""
    if not (isinstance(s, ParallelFor) and len(s.body) == 1 and isinstance(s.body[0], TileStore) and
            s.body[0].buffer in shared):
        return False
    value = s.body[0].value
    return isinstance(value, (Load, TileLoad)) and value.buffer in params


def _raise_copies(kernel):
    params = {p.name: p for p in kernel.params}
    lets = _quotients_named(_lets(kernel.body))
    shared = {s.name: s for s in walk_stmts(kernel.body) if isinstance(s, TileBuffer) and s.scope == "shared"}
    found: dict = {}   # buffer -> [(ParallelFor, View, origin, wrapped indices)]
    crowded = {id(x) for loop in _pipelines(kernel.body) if _drains_by_variable(loop, kernel.body)
               for x in walk_stmts(loop.body)}
    steps = _tile_steps(kernel, lets, params)
    checks: dict = {}  # buffer -> {(grid axis, size, tile)}: the aligned program's tiles stay inside the size
    for s in walk_stmts(kernel.body):
        if isinstance(s, ParallelFor):
            hit = _gather(s, shared, params, lets, steps)
            if hit is not None and (not hit[3] or _wraps_discarded(kernel.body, s.body[0].buffer, hit[3], lets,
                                                                    params)):
                buffer, view, origin, wrapped, grid_checks, rows_bounded = hit
                written = {d: node for d, (_, _, node) in wrapped.items()}
                found.setdefault(buffer, []).append((s, view, origin, written, rows_bounded))
                checks.setdefault(buffer, {}).update(dict.fromkeys(grid_checks))
    loads = read_counts(kernel.body, Load)
    views = {}
    for buffer, hits in found.items():
        param = params.get(buffer)
        if param is None or getattr(param, "shape", None) or loads.get(buffer) != len(hits):
            continue  # read elsewhere too: its flat indices would need the view's 2-D ones
        if len({hit[1] for hit in hits}) != 1:
            continue
        views[buffer] = hits
    if not views:
        return kernel
    unrolled = any(id(loop) in crowded for hits in views.values() for loop, *_ in hits)
    aligned = Var("aligned", "bool")
    replace = {id(loop): If(aligned, [Copy(buffer, origin, loop.body[0].buffer, loop.loc)],
                            [_gather_2d(loop, origin, written)], loop.loc)
               for buffer, hits in views.items() for loop, _, origin, written, _ in hits}
    body = rewrite_stmts(kernel.body, lambda s: replace.get(id(s), s))  # unread lets: the emitter drops them
    new_params, units, multiples = [], [], dict(kernel.aligned.sizes)
    for p in kernel.params:
        if p.name in views:
            view = views[p.name][0][1]
            contiguous = len(view.shape) == 2 and view.strides == (view.shape[1], 1)
            p = dataclasses.replace(p, shape=view.shape, strides=None if contiguous else view.strides)
            # the copyable program: rows of unit-stride elements, each row 16-byte aligned, and
            # whole tiles along the columns (a per-element predicate, which a 2-byte element cannot
            # take into cp.async) and along rows no bound guards. A row past a bounded size is
            # T.copy's own predicate, one per row: its 16-byte chunks are all in or all out
            for loop, _, _, _, rows_bounded in views[p.name]:
                for d, (extent, tile) in enumerate(zip(view.shape[-2:], loop.extents)):
                    if d == 0 and rows_bounded:
                        continue
                    if isinstance(extent, str):  # each tile that steps over it, by its own name
                        known = multiples.get(extent, ())
                        known = tuple(dict.fromkeys((known if isinstance(known, tuple) else (known,)) + (int(tile),)))
                        multiples[extent] = known if len(known) > 1 else known[0]
            if view.strides[-1] != 1:
                units.append(view.strides[-1])
            for stride in view.strides[:-1]:  # shared by buffers of two dtypes: the wider multiple
                if isinstance(stride, str):
                    multiples[stride] = max(multiples.get(stride, 1), 16 // (dtype_bits(p.dtype) // 8))
        new_params.append(p)
    grid_checks = tuple(dict.fromkeys(c for buffer in views for c in checks.get(buffer, ())))
    aligned = AlignedProgram(sizes=multiples, grid=tuple(dict.fromkeys(kernel.aligned.grid + grid_checks)),
                             unit_strides=tuple(dict.fromkeys(kernel.aligned.unit_strides + tuple(units))),
                             unrolled=kernel.aligned.unrolled or ("aligned" if unrolled else ""))
    return dataclasses.replace(kernel, body=body, params=new_params, aligned=aligned)


def _gather_2d(loop: ParallelFor, origin: tuple, written: dict) -> ParallelFor:
    """The gather as it was, reading the 2-D view at (row origin + i, column origin + j), or at
    the index as written where the original wraps it (`(r0 + i) % M`): the program for strides
    T.copy cannot take (TMA and cp.async need unit-stride rows)."""
    store = loop.body[0]
    i, j = loop.vars
    load = store.value.a if isinstance(store.value, Select) else store.value
    rows = written.get(0, BinOp("+", origin[-2], i, "int32"))
    cols = written.get(1, BinOp("+", origin[-1], j, "int32"))
    here = tuple(origin[:-2]) + (rows, cols)
    value = TileLoad(load.buffer, here, load.dtype)
    if isinstance(store.value, Select):
        value = dataclasses.replace(store.value, a=value)
    return dataclasses.replace(loop, body=[dataclasses.replace(store, value=value)])


def _wraps_discarded(body: list, tile: str, wrapped: dict, lets: dict, params: dict) -> bool:
    """(wrapped: dimension -> (origin, extent name, the index as written), from _gather.)
    Whether the rows (columns) a wrapped index reads past the end of the matrix only reach
    outputs the kernel never stores. Triton's matmul writes `offs_am = (pid_m * BM +
    arange(BM)) % M`: rows past M read row r % M, T.copy reads zeros there instead. That is the
    same port when the tile is only one gemm's A (rows wrapped: they make the accumulator's rows
    past M) or B (columns: its columns past N), every tile computed from the accumulator is
    element-wise at [i, j], and every store of them is guarded by `origin + i < M` (`+ j < N`)."""
    if len(wrapped) != 1:
        return False
    (dim, (origin, extent, _)), = wrapped.items()
    uses = [s for s in walk_stmts(body) if isinstance(s, Gemm) and tile in (s.a, s.b, s.c)]
    if len(uses) != 1 or (dim == 0 and (uses[0].a != tile or uses[0].transpose_a)) or \
            (dim == 1 and (uses[0].b != tile or uses[0].transpose_b)) or uses[0].a == uses[0].b:
        return False
    if any(isinstance(e, TileLoad) and e.buffer == tile for e in all_exprs(body)):
        return False
    gemm = uses[0]
    derived = {gemm.c}
    for s in walk_stmts(body):
        if s is gemm or (isinstance(s, Fill) and s.buffer in derived):
            continue
        if isinstance(s, (Gemm, Reduce, Cumsum, Copy, Fill)):
            names = {getattr(s, f, None) for f in ("a", "b", "c", "src", "dst", "buffer", "tile")}
            if names & derived:
                return False
            continue
        if not isinstance(s, ParallelFor):
            continue
        lanes = tuple(s.vars)
        for inner in s.body:
            reads = _reads_derived(inner, derived, lanes)
            if reads is None:
                return False  # a derived tile read at another element
            if not reads:
                continue
            if isinstance(inner, TileStore) and tuple(inner.indices) == lanes and len(lanes) == 2:
                derived.add(inner.buffer)
            elif isinstance(inner, If) and not inner.orelse and all(isinstance(x, Store) for x in inner.then):
                if not _guards(inner.cond, lanes[dim], origin, extent, lets, params):
                    return False
            else:
                return False
    return True


def _reads_derived(stmt, derived: set, lanes: tuple):
    """True when the statement reads a derived tile only at the loop's own element, None when
    it reads one elsewhere, False when it reads none."""
    found = False
    for s in walk_stmts([stmt]):
        for e in (x for root in stmt_exprs(s) for x in walk_expr(root)):
            if isinstance(e, TileLoad) and e.buffer in derived:
                if tuple(e.indices) != lanes:
                    return None
                found = True
    return found


def _guards(cond, lane, origin: Poly, extent: str, lets: dict, params: dict) -> bool:
    """Whether `origin + lane < extent` is one of the condition's conjuncts, read as written or
    through the locals (the gather's origin may be either: `pid_m * BM`, or `blockIdx.y * BM`
    once the tile grid binds pid_m to a block index)."""
    for c in conjuncts(cond):
        for through in ({}, lets):
            try:
                bound = _bound(c, through)
            except NotAffine:
                continue
            if bound is None:
                continue
            found = _origin(bound, Poly.symbol(lane.name), params)
            if found is not None and found[1] == extent and found[0] == origin:
                return True
    return False


def _pipelines(body: list) -> list:
    """The pipelined loops. Measured in TileLang 0.1.15: at a trip count known only at run time,
    some drain their pipeline through a loop whose `cp.async.wait_group` count depends on its
    variable (`T.ptx_wait_group(1 - k)`, `3 - k * 2`), and CUDA codegen for sm_80 fails
    ("Downcast from tirx.Sub to ir.IntImm", tile-ai/TileOPs#1852): a loop of T.copy with two
    products (attention's K/V loop, T.gemm or fp32 FMA) or with one fp32 FMA product (FlagGems'
    addmm), and a loop of unmasked element gathers into shared tiles with one product at 2
    stages (FlagGems' bmm). A loop of T.copy and one T.gemm lowers with constant counts.
    Unrolled before code generation (the port's _DEEP_PIPELINE_CONFIGS) every count is a
    constant."""
    return [s for s in walk_stmts(body) if isinstance(s, For) and s.stages]


def _drains_by_variable(loop, body: list) -> bool:
    """Whether a pipelined loop of copies may drain through a variable wait count (see
    _pipelines): two products, or one of fp32 products summed in k order. Of the latter, FlagGems'
    addmm (64-bit program ids, a `K - k * BK` mask) failed sm_80 codegen so and the grouped
    matmul sample did not; which trait decides is not known, so every such loop unrolls (a
    compile about twice as long). A loop of copies and one T.gemm lowers as it is."""
    products = [x for x in walk_stmts(loop.body) if isinstance(x, Gemm)]
    return len(products) > 1 or any(fp32_products(x, body) for x in products)


def _transposed_operands(body: list) -> list:
    """`k` loaded into a fragment, written transposed into a shared tile that is only a gemm's
    B (`tl.dot(q, tl.trans(k))`): `k` itself becomes the shared tile, read by the gemm with
    transpose_B, so that its load is a block copy like any other operand's."""
    tiles = {s.name: s for s in walk_stmts(body) if isinstance(s, TileBuffer)}
    reads = read_counts(body, TileLoad)
    writes = store_counts(body)
    gemms = [s for s in walk_stmts(body) if isinstance(s, Gemm)]
    moves, dropped, shared = {}, set(), {}
    for s in walk_stmts(body):
        if not (isinstance(s, ParallelFor) and len(s.vars) == 2 and len(s.body) == 1 and
                isinstance(s.body[0], TileStore)):
            continue
        store, (i, j) = s.body[0], s.vars
        src = store.value
        if not (isinstance(src, TileLoad) and src.indices == (j, i) and store.indices == (i, j)):
            continue
        frag, dst = tiles.get(src.buffer), tiles.get(store.buffer)
        if frag is None or dst is None or frag.scope != "fragment" or dst.scope != "shared" or \
                frag.dtype != dst.dtype or tuple(dst.shape) != tuple(frag.shape)[::-1]:
            continue
        users = [g for g in gemms if dst.name in (g.a, g.b, g.c)]
        if reads.get(frag.name) != 1 or writes.get(dst.name) != 1 or writes.get(frag.name) != 1 or \
                len(users) != 1 or users[0].b != dst.name or users[0].transpose_b or dst.name in (users[0].a, users[0].c):
            continue
        moves[id(users[0])] = frag.name
        dropped |= {id(s), id(dst)}
        shared[id(frag)] = dataclasses.replace(frag, scope="shared")

    if not moves:
        return body

    def rebuild(s):
        if id(s) in dropped:
            return None
        if id(s) in shared:
            return shared[id(s)]
        if id(s) in moves:
            return dataclasses.replace(s, b=moves[id(s)], transpose_b=True)
        return s
    return rewrite_stmts(body, rebuild)


def _transposed_gathers(kernel) -> list:
    """A shared tile gathered as `tile[i, j] = buffer[... + i * s0 + j * s1]`, where the source
    declares s0 the contiguous stride (a block pointer's `order=(0, 1)`, kernel.fastest_strides)
    and not s1, and read only as one gemm's B: staged transposed, `tile[j, i]`, read by the
    gemm with transpose_B. Its rows are then the contiguous ones that T.copy (cp.async, TMA)
    takes; as written they would be columns, and the aligned program, which needs unit-stride
    rows, would never run on the tensors the source was written for (attention's K, read as
    (HEAD_DIM, BLOCK_N) blocks of a (N_CTX, HEAD_DIM) tensor)."""
    fastest = kernel.fastest_strides
    body = kernel.body
    if not fastest:
        return body
    lets = _lets(body)
    tiles = {s.name: s for s in walk_stmts(body) if isinstance(s, TileBuffer) and s.scope == "shared"}
    stores = store_counts(body)
    reads = read_counts(body, TileLoad)
    gemms = [s for s in walk_stmts(body) if isinstance(s, Gemm)]
    loops, flipped = {}, {}
    for s in walk_stmts(body):
        if not (isinstance(s, ParallelFor) and len(s.vars) == 2 and len(s.body) == 1 and
                isinstance(s.body[0], TileStore)):
            continue
        store, (i, j) = s.body[0], s.vars
        tile = tiles.get(store.buffer)
        load = store.value.a if isinstance(store.value, Select) else store.value
        if tile is None or tuple(store.indices) != (i, j) or tuple(tile.shape) != tuple(s.extents) or \
                not isinstance(load, Load) or load.buffer not in fastest or stores.get(tile.name) != 1 or \
                reads.get(tile.name):
            continue
        try:
            index = to_poly(_named(_through_lets(load.index, lets)))
        except NotAffine:
            continue
        s0, s1 = index.coeff(Poly.symbol(i.name)), index.coeff(Poly.symbol(j.name))
        if not (s0.is_symbol and s0.name in fastest[load.buffer]) or s1 == 1 or \
                (s1.is_symbol and s1.name in fastest[load.buffer]):
            continue
        users = [g for g in gemms if tile.name in (g.a, g.b, g.c)]
        if len(users) != 1 or users[0].b != tile.name or users[0].transpose_b or \
                tile.name in (users[0].a, users[0].c):
            continue
        loops[id(s)] = dataclasses.replace(s, vars=(j, i), extents=tuple(s.extents)[::-1],
                                           body=[dataclasses.replace(store, indices=(j, i))])
        flipped[id(tile)] = dataclasses.replace(tile, shape=tuple(tile.shape)[::-1])
        flipped[id(users[0])] = dataclasses.replace(users[0], transpose_b=True)
    if not loops:
        return body
    return rewrite_stmts(body, lambda s: loops.get(id(s), flipped.get(id(s), s)))


def _lets(body) -> dict:
    """Integer locals declared once with a value and never assigned (`pid_m = program_id(0)`,
    `k_left = K - k * BLOCK_K`): name -> value, for reading masks and offsets through them."""
    counts, values = {}, {}
    for s in walk_stmts(body):
        if isinstance(s, Decl):
            counts[s.var.name] = counts.get(s.var.name, 0) + 1
            if s.init is not None:
                values[s.var.name] = s.init
        elif isinstance(s, Assign):
            counts[s.var.name] = counts.get(s.var.name, 0) + 2
        elif isinstance(s, For):
            counts[s.var.name] = counts.get(s.var.name, 0) + 2
    return {n: v for n, v in values.items() if counts.get(n) == 1}


_QUOTIENT = "_quotient_"  # the names _quotients_named gives


def _quotients_named(lets: dict) -> dict:
    """`lets` with each integer `x % P` or `x / P` inside a local's value named as a local of
    its own (the user's, when a local is just that: `off_h = off_hz % H`), so that a batch
    offset written inline (the attention tutorial's backward: `adj = (stride_h * (bhid % H) +
    stride_z * (bhid // H)).to(tl.int64)`) reads as indices times strides, the `% H` one H wide
    (_batch_dims), as one written with named locals does. The new names are only read here;
    origins print their values (_gather_as)."""
    named = {local: value for local, value in lets.items() if _is_quotient(value)}
    added = {}

    def name(n):
        if not _is_quotient(n):
            return None
        for key, value in {**named, **added}.items():
            if value == n:
                return Var(key, n.dtype)
        key = f"{_QUOTIENT}{len(added)}"
        added[key] = n
        return Var(key, n.dtype)
    out = {local: value if local in named else map_expr(value, name) for local, value in lets.items()}
    return {**out, **added}


def _is_quotient(e) -> bool:
    return isinstance(e, BinOp) and e.op in ("%", "/") and not is_float(e.dtype)


def _through_lets(e, lets: dict, depth: int = 0):
    if depth > 8:
        return e

    def step(n):
        if isinstance(n, Var) and n.name in lets:
            value = _through_lets(lets[n.name], lets, depth + 1)
            try:
                to_poly(_named(value))
            except NotAffine:  # `pid_m = first_pid_m + pid % group_size_m`: a name of its own
                return None
            return value
        return None
    return map_expr(e, step)


def _gather(loop: ParallelFor, shared: dict, params: dict, lets: dict, steps: _Steps):
    """(buffer, View, origin) when the loop is `tile[i, j] = mask ? buffer[index] : 0` over
    the whole of a shared tile, index = [b * sb +] (r0 + i) * s0 + (c0 + j) * s1 and mask =
    r0 + i < R and c0 + j < C; None otherwise. A dimension no mask bounds is the tile's, from
    0, or, when its origin steps over a size in whole tiles (`steps`, from _tile_steps), that
    size: an unmasked load is only defined where the tiles cover it exactly, which is the
    aligned program's case. Read as written first, then through the locals (`k_left`)."""
    for through in ({}, lets):
        hit = _gather_as(loop, shared, params, through, steps)
        if hit is not None:
            return hit
    return None


def _gather_as(loop: ParallelFor, shared: dict, params: dict, lets: dict, steps: _Steps):
    if len(loop.vars) != 2 or len(loop.body) != 1 or not isinstance(loop.body[0], TileStore):
        return None
    store = loop.body[0]
    i, j = loop.vars
    tile = shared.get(store.buffer)
    if tile is None or tuple(tile.shape) != tuple(loop.extents) or tuple(store.indices) != (i, j):
        return None
    value = store.value
    if isinstance(value, Select) and isinstance(value.b, Const) and value.b.value == 0:
        load, mask = value.a, value.cond
    else:
        load, mask = value, None  # unmasked
    if not (isinstance(load, Load) and load.dtype == tile.dtype and not load.lanes):
        return None
    pi, pj = Poly.symbol(i.name), Poly.symbol(j.name)
    wraps = {}  # `(r0 + i) % M` (Triton's trick for rows past the end): placeholder -> (IR, extent)

    def unwrap(n):
        size = n.b.a if isinstance(n, BinOp) and isinstance(n.b, Cast) and n.b.dtype == "int64" else \
            getattr(n, "b", None)  # `% M`, or `% M.to(int64)` of 64-bit offsets (FlagGems' mm)
        if isinstance(n, BinOp) and n.op == "%" and isinstance(size, Var) and \
                isinstance(params.get(size.name), ScalarParam) and params[size.name].dtype == "int32":
            name = f"_wrap{len(wraps)}"
            wraps[name] = (n, size.name)
            return Var(name, n.dtype)
        return None
    try:
        index = to_poly(map_expr(_named(_through_lets(load.index, lets)), unwrap))
        bounds = [_bound(c, lets) for c in conjuncts(mask) if not _at_least_zero(c, lets, params)]
        wrapped = {}  # dimension -> (origin, extent name, the wrapped index as written)
        for name, (node, extent) in wraps.items():
            inner = to_poly(_named(_through_lets(node.a, lets)))
            lane = 0 if inner.coeff(pi) == 1 and not inner.has(pj) else \
                1 if inner.coeff(pj) == 1 and not inner.has(pi) else None
            if lane is None or lane in wrapped:
                return None
            wrapped[lane] = (inner - (pi if lane == 0 else pj), extent, node)
            index = index.subs({Poly.symbol(name): inner})
    except NotAffine:
        return None
    s0, s1 = index.coeff(pi), index.coeff(pj)
    rest = index - s0 * pi - s1 * pj
    if any(x.has(v) for x in (s0, s1, rest) for v in (pi, pj)) or None in bounds:
        return None
    rows = [b for b in bounds if b[0].has(pi) and not b[0].has(pj)]
    cols = [b for b in bounds if b[0].has(pj) and not b[0].has(pi)]
    if len(rows) > 1 or len(cols) > 1 or len(rows) + len(cols) != len(bounds):
        return None
    if (0 in wrapped and rows) or (1 in wrapped and cols):
        return None

    strides = tuple(_stride_name(x, params) for x in (s0, s1))
    if None in strides:
        return None
    known = {}  # dimension -> (origin, extent name)
    grid_checks = ()
    for d, found, lane in ((0, rows, pi), (1, cols, pj)):
        if d in wrapped:
            known[d] = wrapped[d][:2]
        elif found:
            known[d] = _origin(found[0], lane, params)
            if known[d] is None:
                return None
    left = rest - sum((known[d][0] * (s0, s1)[d] for d in known), Poly.integer(0))
    for d in sorted({0, 1} - set(known), key=lambda d: (s0, s1)[d] == 1):  # a unit stride takes what is left
        stride = (s0, s1)[d]
        if stride == 1:
            batch = [t for t in left.terms() if batch_term(t, params) is not None]
            start = left - sum(batch[:1], Poly.integer(0))
        else:
            start = left.coeff(stride)
        left = left - start * stride
        if start == 0:  # the tile's whole extent from 0 (a constexpr's Const keeps its name)
            known[d] = (start, loop.extents[d])
            continue
        extent = loop.extents[d]
        stepped = _stepped_extent(start, extent if isinstance(extent, int) else try_int(extent), steps)
        if stepped is None:
            return None
        known[d] = (start, stepped[0])
        grid_checks += stepped[1:]
    (r0, rows_name), (c0, cols_name) = known[0], known[1]
    names = symbol_names(*(_through_lets(e, lets) for e in (load.index, mask) if e is not None))  # to print origins
    names.update({n: value for n, value in lets.items() if n.startswith(_QUOTIENT)})
    batch = rest - r0 * s0 - c0 * s1
    shape, origin_polys = (rows_name, cols_name), (r0, c0)
    if batch != 0:  # one matrix of a batch: `head * stride_qh` (head a block index or a name)
        found = _batch_dims(batch, params, steps.lets)
        if found is None:
            return None
        shape, strides, origin_polys = found[0] + shape, found[1] + strides, found[2] + origin_polys
    try:
        origin = tuple(from_poly(x, names) for x in origin_polys)
    except KeyError:
        return None
    # whether the tile's rows may reach past the size, where T.copy, bounded by the view's shape,
    # reads what the original does: masked rows, and wrapped ones (rows T.copy zero-fills only
    # make outputs the kernel never stores, _wraps_discarded)
    rows_bounded = bool(rows) or 0 in wrapped
    return load.buffer, View(shape, strides), origin, wrapped, grid_checks, rows_bounded


@dataclasses.dataclass(frozen=True)
class _Steps:
    """How a kernel steps over sizes in whole tiles, for origins no mask bounds: `by_name`
    maps a loop variable or block index (its Poly name) to (size, coefficient, step): the
    origin `coefficient * name` then takes tiles of `coefficient * step` from 0 up to the last
    that starts inside `size` (`for k in range(ceildiv(K, 64))` at `64 * k`; `for k in range(0, K, 64)` at
    `k`; the program id of a grid axis of ceildiv(M, 128) at `128 * pid`). A grid axis the
    caller launches (coefficient None: any tile) needs the wrapper's check that it holds no
    tile past the size (`on_grid`: the axis).
    `spans` maps the variable of a loop over `ceildiv(span, tile)` steps, the span a local
    length rather than a size (`range(lo, hi, BLOCK_N)`: hi - lo), to (span Poly, tile): an
    origin `lo + tile * step` then ends at `lo + span` (see _spanned_extent).
    `values`: the constexprs' values, which origins name; `lets`: the kernel's (_lets)."""

    by_name: dict
    on_grid: dict
    values: dict
    lets: dict
    spans: dict = dataclasses.field(default_factory=dict)


def _tile_steps(kernel, lets: dict, params: dict) -> _Steps:
    def size(e):  # a local read through to a size parameter or ceildiv(size, tile)
        for _ in range(8):
            if isinstance(e, Var) and e.name in lets:
                e = lets[e.name]
        return e

    def param(e):
        return e.name if isinstance(e, Var) and isinstance(params.get(e.name), ScalarParam) and \
            params[e.name].dtype == "int32" else None

    def ceildiv(e):  # (size, tile) for ceildiv(size, tile)
        e = size(e)
        if isinstance(e, Call) and e.func == "ceildiv" and len(e.args) == 2 and param(e.args[0]) and \
                try_int(e.args[1]):
            return param(e.args[0]), try_int(e.args[1])
        return None

    by_name, on_grid, spans = {}, {}, {}
    assigned = {s.var.name for s in walk_stmts(kernel.body) if isinstance(s, Assign)}
    for s in walk_stmts(kernel.body):
        if not (isinstance(s, For) and try_int(s.start) == 0 and isinstance(s.cond, BinOp) and s.cond.op == "<" and
                s.cond.a == s.var and s.var.name not in assigned and try_int(s.step)):
            continue
        step = try_int(s.step)
        tiles = ceildiv(s.cond.b) if step == 1 else None
        if tiles is not None:
            by_name[s.var.name] = (tiles[0], tiles[1], 1)
        elif step > 1 and param(size(s.cond.b)):
            by_name[s.var.name] = (param(size(s.cond.b)), 1, step)
        elif step == 1 and isinstance(s.cond.b, Call) and s.cond.b.func == "ceildiv" and \
                len(s.cond.b.args) == 2 and try_int(s.cond.b.args[1]):
            try:
                spans[s.var.name] = (to_poly(_named(_through_lets(s.cond.b.args[0], lets))),
                                     try_int(s.cond.b.args[1]))
            except NotAffine:
                pass
    grid = kernel.launch.tile_grid or kernel.launch.grid
    for axis, extent in enumerate(grid):
        tiles = ceildiv(extent)
        if tiles is not None:
            name = to_poly(Builtin("block_idx", axis)).name
            if kernel.launch.tile_grid or kernel.language != "triton":
                by_name[name] = (tiles[0], tiles[1], 1)
            else:  # the caller's grid, which the wrapper checks: any tile (a generic port's
                by_name[name] = (tiles[0], None, 1)  # stand-in keeps the launch site's numbers)
                on_grid[name] = axis
    values = {k: v for k, v in kernel.constexprs.items() if isinstance(v, int) and not isinstance(v, bool)}
    return _Steps(by_name, on_grid, values, lets, spans)


def _stepped_extent(start: Poly, tile, steps: _Steps):
    """(size,) or (size, (grid axis, size, tile)) when `start` is an origin that steps over
    the size in tiles of `tile` (see _Steps); None otherwise."""
    if tile is None:
        return None
    start = _resolved(start, steps)
    if start is None:
        return None
    found = _tile_end(start, tile, steps) if len(start.terms()) == 1 else None
    return found if found is not None else _spanned_extent(start, tile, steps)


def _resolved(poly: Poly, steps: _Steps):
    """The Poly read through the locals (`k = k_step * BLOCK_K`, `pid_m = blockIdx.y`), with
    the constexprs' values; None when a local is not affine."""
    for _ in range(8):
        named = [x for x in poly.free_symbols if x.name in steps.lets]
        if not named:
            break
        try:
            poly = poly.subs({x: to_poly(_named(steps.lets[x.name])) for x in named})
        except NotAffine:
            return None
    return poly.subs({Poly.symbol(n): Poly.integer(v) for n, v in steps.values.items()})


def _tile_end(origin: Poly, tile, steps: _Steps):
    """(size,) or (size, grid check) when `origin` is one term `coefficient * name` that steps
    over the size in tiles of `tile` (see _Steps); None otherwise."""
    coeff, name = origin.split_coefficient()
    if not name.is_symbol or name.name not in steps.by_name:
        return None
    extent, per, step = steps.by_name[name.name]
    if coeff != (tile if per is None else per) or coeff * step != tile:
        return None
    if name.name in steps.on_grid:
        return extent, (steps.on_grid[name.name], extent, tile)
    return (extent,)


def _spanned_extent(start: Poly, tile, steps: _Steps):
    """The extent for `lo + tile * step`, the step a loop over ceildiv(span, tile) (`range(lo,
    hi, BLOCK_N)`, spans in _Steps). At whole tiles of the span (each of its terms a multiple
    of the tile) the tiles end at lo + span, which must be within a program's own tile:
    `BM * pid + c` with 0 <= c <= BM, pid stepping over a size in tiles of BM (a causal
    attention's blocks below the diagonal end at `start_m * BLOCK_M`, the diagonal's at
    `(start_m + 1) * BLOCK_M`). lo is a sum of positive multiples of such names: never
    negative. Every tile then lies inside the size."""
    loops = [x for x in start.free_symbols if x.name in steps.spans]
    if len(loops) != 1:
        return None
    step = loops[0]
    span, per = steps.spans[step.name]
    span = _resolved(span, steps)
    if span is None or per != tile or start.coeff(step) != tile:
        return None
    lo = start - tile * step
    terms = [t.split_coefficient() for t in lo.terms() if t != 0]  # a constant term is no name
    if lo.has(step) or span.has(step) or not all(c > 0 and x.is_symbol and x.name in steps.by_name
                                                 for c, x in terms):
        return None
    if any(t.split_coefficient()[0] % tile for t in span.terms()):
        return None  # not whole tiles of the span
    end = lo + span
    own = [t for t in end.terms() if not t.is_integer]
    if len(own) != 1:
        return None
    width, _ = own[0].split_coefficient()
    offset = int(end - own[0])
    if not 0 <= offset <= width:
        return None
    return _tile_end(own[0], width, steps)


def _batch_dims(batch: Poly, params: dict, lets: dict):
    """(shape, strides, origins) of the dimensions before a matrix that `batch` selects:
    `head * stride_qh` is one, as many as the tensor holds ("*"); `z * stride_z + h * stride_h`
    with h = x % H (Triton's `off_h = off_hz % H`) is two, the inner one H wide. None for any
    other offset."""
    found = [batch_term(t, params) for t in batch.terms()]
    if None in found or len(found) > 2:
        return None
    if len(found) == 1:
        (index, stride), = found
        return ("*",), (stride,), (index,)
    widths = [_remainder_of(index, lets, params) for index, _ in found]
    if widths.count(None) != 1:
        return None
    inner = 0 if widths[0] else 1
    (z, sz), (h, sh) = found[1 - inner], found[inner]
    return ("*", widths[inner]), (sz, sh), (z, h)


def _remainder_of(index: Poly, lets: dict, params: dict):
    """The int32 scalar parameter P when `index` names a local `x % P` of a never-negative x (a
    sum of positive multiples of names that are not scalar parameters: program ids), so that
    0 <= index < P; None otherwise."""
    value = lets.get(index.name) if index.is_symbol else None
    if not (isinstance(value, BinOp) and value.op == "%" and isinstance(value.b, Var) and
            isinstance(params.get(value.b.name), ScalarParam) and params[value.b.name].dtype == "int32"):
        return None
    if not _never_negative(value.a, lets, params):
        return None
    return value.b.name


def batch_term(batch: Poly, params: dict, dtypes=("int32",)):
    """(index, stride name) when batch is `index * stride`, the stride a scalar parameter of
    one of `dtypes` and the index not a parameter (a block index, or a local such as `head`):
    one matrix of a batch, for Triton's views here and the gemm rule's batched operands."""
    terms = batch.terms()
    if len(terms) != 1:
        return None
    coeff, product = terms[0].split_coefficient()
    if coeff != 1:
        return None
    factors = sorted(product.free_symbols, key=lambda x: x.name)
    if len(factors) != 2 or product != factors[0] * factors[1]:
        return None
    for stride, index in (factors, factors[::-1]):
        p = params.get(stride.name)
        if isinstance(p, ScalarParam) and p.dtype in dtypes and not isinstance(params.get(index.name), ScalarParam):
            return index, stride.name
    return None


def _bound(c, lets):
    """`a < b` (or `b > a`) as the Poly a - b, which is negative inside the bound; None for any
    other condition."""
    if isinstance(c, BinOp) and c.op in ("<", ">") and c.a.dtype == c.b.dtype and not is_float(c.a.dtype):
        a, b = (c.a, c.b) if c.op == "<" else (c.b, c.a)
        return (to_poly(_named(_through_lets(a, lets))) - to_poly(_named(_through_lets(b, lets))),)
    return None


def _at_least_zero(c, lets, params: dict) -> bool:
    """`r0 + i >= 0` with every term of r0 + i a positive multiple of names that are not the
    caller's scalars (program ids, loop variables, lanes, constexprs): the lower half of a block
    pointer's boundary_check, true for every element a tile reads. (A scalar argument may be
    negative: `off + i >= 0` stays a bound the copy rule does not read.)"""
    return isinstance(c, BinOp) and c.op == ">=" and isinstance(c.b, Const) and c.b.value == 0 and \
        _never_negative(c.a, lets, params)


def _never_negative(e, lets, params: dict) -> bool:
    """Every term of `e` (read through the locals) a positive multiple of names that are not
    scalar parameters: program ids, loop variables, lanes, constexprs."""
    try:
        poly = to_poly(_named(_through_lets(e, lets)))
    except NotAffine:
        return False
    if any(isinstance(params.get(x.name), ScalarParam) for x in poly.free_symbols):
        return False
    return all(t.split_coefficient()[0] > 0 for t in poly.terms())


def _origin(bound, lane: Poly, params: dict):
    """(origin, extent name) from `origin + lane - extent < 0`: the extent is an int32 scalar
    parameter with coefficient -1."""
    (d,) = bound
    if d.coeff(lane) != 1:
        return None
    rest = d - lane
    for term in rest.terms():
        coeff, factor = term.split_coefficient()
        if coeff == -1 and factor.is_symbol:
            p = params.get(factor.name)
            if isinstance(p, ScalarParam) and p.dtype == "int32":
                origin = rest + factor
                if not origin.has(factor):
                    return origin, factor.name
    return None


def _stride_name(s: Poly, params: dict):
    if s == 1:
        return 1
    if s.is_symbol:
        p = params.get(s.name)
        if isinstance(p, ScalarParam) and p.dtype == "int32":
            return s.name
    return None


def _named(e):
    """Named integer constants (constexprs) as symbols: the algebra keeps `BLOCK_K`, and the
    origin prints with the name, as the generic port's check expects."""
    def step(n):
        if isinstance(n, Const) and n.name and isinstance(n.value, int) and not isinstance(n.value, bool):
            return Var(n.name, n.dtype)
        return None
    return map_expr(e, step)
