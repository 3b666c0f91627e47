"""The lanes of a Triton block kernel as tile steps: its block loads and stores staged
through fragments, which views.py can then make T.copy.

An element-wise Triton kernel reaches the matcher as the body of one lane (`threadIdx.x` the
element of the block), which the port printed inside one `T.Parallel` over the block, every
load and store an element gather. A TileLang author writes the block: a fragment per loaded
value, one T.Parallel over the computation, a fragment per stored value.

    x = mask ? x_ptr[offs] : 0              for i in T.Parallel(B): x[i] = mask ? x_ptr[offs(i)] : 0
    out = x * 2                      ->     for i in T.Parallel(B): out[i] = x[i] * 2
    if mask: out_ptr[offs] = out            for i in T.Parallel(B): if mask(i): out_ptr[offs(i)] = out[i]

A value is staged when it is declared once at the top of the body from a load of an argument
(and no store comes before it: the block's loads then all precede its stores, as they did); a
store is staged when it is the top-level `if mask: buffer[index] = value` and nothing after it
loads, or stores but by such stores (each staged in its turn). Their indices and masks are
read through the body's locals (the staging loops run outside the computation that declares
them); one that needs a local that is not affine stays in the computation. Everything else,
in order, is the computation's T.Parallel.

Control flow every lane takes alike (a loop whose header reads no lane, a branch on a
block-wide value) stays the block's, and each stretch of lane statements inside it is staged
so on its own; when a lane's local crosses stretches (an accumulator carried through a loop)
the whole body is one stretch, the control flow inside its T.Parallel.
"""

from __future__ import annotations

import dataclasses

from porter.ir.nodes import Assign, Atomic, Builtin, Call, Cast, Decl, For, If, Load, Select, Store, Var
from porter.ir.tile_queries import is_tile_level, needs_threads
from porter.ir.tiles import ParallelFor, TileBuffer, TileLoad, TileStore
from porter.ir.walk import (BODIES, all_exprs, declared_names, map_expr, map_stmts, rewrite_stmts, stmt_exprs,
                            walk_expr, walk_stmts)
from porter.match.copies import _lets, _through_lets
from porter.util.names import fresh_name


@dataclasses.dataclass
class _Lanes:
    """What staging a stretch of a kernel's lanes needs: the lane variables (the last block axis
    outermost, as the lanes were printed), the block's extents, the arguments, the names taken,
    and the locals every lane computes alike (kept outside the T.Parallel steps)."""

    lanes: tuple
    by_axis: dict
    extents: tuple
    params: dict
    taken: set
    assigned: set
    uniform: set
    declared: set
    body: list
    # a stretch's loaded values, staged as fragments, which later stretches read as such:
    # local -> the positions in `lanes` its fragment spans
    loaded: dict = dataclasses.field(default_factory=dict)


class _Crossing(Exception):
    """A lane's local is read in another stretch than the one that computes it: the body is
    staged as one stretch, its control flow inside the T.Parallel."""


def staged_lanes(kernel):
    """The kernel as tile steps when it is the lanes of a block (one T.Parallel over up to three
    axes) with a load or store to stage; unchanged otherwise. Control flow every lane takes
    alike (`for i in range(0, n_cols, BLOCK)`, `if label == ignore_index`) stays outside the
    steps, each stretch of lane statements inside it staged on its own."""
    block = tuple(kernel.launch.block)
    if kernel.language != "triton" or not 1 <= len(block) <= 3 or is_tile_level(kernel.body) or \
            needs_threads(kernel) or not all(isinstance(b, int) for b in block):
        return kernel
    body = _live(kernel.body)
    if not any(isinstance(e, Builtin) and e.kind == "thread_idx" for e in all_exprs(body)):
        return kernel
    taken = {p.name for p in kernel.params} | set(declared_names(body)) | set(kernel.constexprs)
    lanes = tuple(Var(fresh_name(n, taken), "int32") for n in ("i", "j", "k")[:len(block)])
    assigned = {s.var.name for s in walk_stmts(body) if isinstance(s, Assign)}
    declared = set(declared_names(body))
    ctx = _Lanes(lanes, dict(zip(reversed(range(len(block))), lanes)), tuple(reversed(block)),
                 {p.name: p for p in kernel.params}, set(taken), assigned,
                 _uniform_names(body, assigned, declared), declared, body)

    def attempt(body):  # each try starts from the names taken before it
        return dataclasses.replace(ctx, body=body, declared=set(declared_names(body)), taken=set(taken),
                                   loaded={})

    try:
        out, staged = _region(body, attempt(body), kernel.loc)
    except _Crossing:
        # a lane's index (`row = pid * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]` before the
        # column loop) is computed again where it is read; an accumulator carried through a
        # loop keeps the lanes around it
        inlined = _indices_inlined(body, ctx)
        try:
            out, staged = _region(inlined, attempt(inlined), kernel.loc)
        except _Crossing:
            out, staged = _stretch(body, attempt(body), kernel.loc)
    return dataclasses.replace(kernel, body=out) if staged else kernel


def _indices_inlined(body: list, ctx: _Lanes) -> list:
    """The body with each top-level lane index written where it is read: a local declared
    before any control flow from lanes, arguments and block-wide locals by integer and
    comparison arithmetic alone (no load, no call), never assigned, so that computing it
    again anywhere gives its value."""
    lets = {}
    for s in body:
        if not isinstance(s, Decl):
            break
        if s.init is None or s.var.name in ctx.assigned or s.var.name in ctx.uniform or \
                s.var.dtype.startswith("float"):
            continue
        pure = all(not isinstance(e, (Load, Call, TileLoad)) and
                   not (isinstance(e, Var) and e.name in ctx.declared and e.name not in ctx.uniform and
                        e.name not in lets)
                   for e in walk_expr(s.init))
        if pure and not any(isinstance(e, Var) and e.name in ctx.assigned for e in walk_expr(s.init)):
            lets[s.var.name] = _through_lets(s.init, lets)
    if not lets:
        return body
    kept = rewrite_stmts(body, lambda s: None if isinstance(s, Decl) and s.var.name in lets else s)
    return map_stmts(kept, lambda e: map_expr(e, lambda n: lets.get(n.name) if isinstance(n, Var) else None))


def _region(stmts: list, ctx: _Lanes, loc) -> tuple:
    """(statements, whether any load or store was staged): the stretches of lane statements
    between control statements every lane takes alike, each staged (_stretch), the control
    statements kept with their bodies done the same way."""
    pieces, current = [], []
    for s in stmts:
        if _uniform_control(s, ctx):
            pieces += [current, s] if current else [s]
            current = []
        else:
            current.append(s)
    if current:
        pieces.append(current)
    if len(pieces) == 1 and isinstance(pieces[0], list):
        return _stretch(pieces[0], ctx, loc)
    out, staged = [], False
    for piece in pieces:
        if isinstance(piece, list):
            done, hit = _stretch(piece, ctx, loc)
            _no_crossing(piece, ctx)
        else:
            fields = {}
            hit = False
            for name in BODIES.get(type(piece), ()):
                fields[name], inner = _region(getattr(piece, name), ctx, loc)
                hit = hit or inner
            done = [dataclasses.replace(piece, **fields)]
        out += done
        staged = staged or hit
    return out, staged


def _uniform_control(s, ctx: _Lanes) -> bool:
    """A loop or branch every lane takes alike: its header reads no lane, no load and only
    locals every lane computes alike."""
    if not isinstance(s, (For, If)):
        return False
    own = {s.var.name} if isinstance(s, For) else set()
    return _alike(list(stmt_exprs(s)), ctx.uniform | own, ctx.declared)


def _alike(exprs: list, uniform: set, declared: set, loads: bool = False) -> bool:
    """Whether the expressions read no lane, no local but the `uniform` ones, and no load
    unless `loads` (a load's index is checked all the same)."""
    for e in (n for root in exprs for n in walk_expr(root)):
        if (isinstance(e, Load) and not loads) or (isinstance(e, Builtin) and e.kind == "thread_idx"):
            return False
        if isinstance(e, Var) and e.name in declared and e.name not in uniform:
            return False
    return True


def _no_crossing(stretch: list, ctx: _Lanes) -> None:
    """Raise _Crossing when a local of this stretch's lanes is read outside it."""
    mine = set(declared_names(stretch)) - ctx.uniform - set(ctx.loaded)
    inside = {id(s) for s in walk_stmts(stretch)}
    for s in walk_stmts(ctx.body):
        if id(s) in inside:
            continue
        if any(isinstance(e, Var) and e.name in mine for root in stmt_exprs(s) for e in walk_expr(root)):
            raise _Crossing


def _stretch(body: list, ctx: _Lanes, loc) -> tuple:
    """One stretch of lane statements as tile steps: fragments for its top-level loads, one
    T.Parallel for its computation, fragments copied out for its stores; (statements, whether
    a load or store was staged)."""
    lanes, by_axis, extents, params, taken = ctx.lanes, ctx.by_axis, ctx.extents, ctx.params, ctx.taken
    assigned = ctx.assigned
    hoisted = {s.var.name for s in body if isinstance(s, Decl) and s.var.name in ctx.uniform}
    lets = {n: v for n, v in _lets(body).items() if n not in ctx.uniform}
    locals_ = set(declared_names(body)) - ctx.uniform

    def outside(e):  # the expression with the lane's locals read through, or None if one remains
        e = _through_lets(e, lets)
        return None if any(isinstance(n, Var) and n.name in locals_ for n in walk_expr(e)) else e

    loads, stores, middle = [], [], []
    fragments = {}  # local -> its fragment (a TileBuffer)
    dims: dict = {}  # local -> the positions in `lanes` its fragment spans (all when absent)
    stored_before = False
    for n, s in enumerate(body):
        later = body[n + 1:]
        if isinstance(s, Decl) and s.var.name in hoisted:
            continue
        if isinstance(s, Decl) and not stored_before and s.var.name not in assigned and _loaded(s.init, params):
            staged = outside(s.init)
            if staged is not None:
                # the block axes the load reads along: a row's scale is a (rows,) fragment
                axes = {e.axis for e in walk_expr(staged) if isinstance(e, Builtin) and e.kind == "thread_idx"}
                kept = tuple(n for n, v in enumerate(lanes) if any(by_axis.get(a) is v for a in axes)) or \
                    tuple(range(len(lanes)))
                dims[s.var.name] = kept
                fragments[s.var.name] = TileBuffer(s.var.name, s.var.dtype, tuple(extents[n] for n in kept),
                                                   "fragment", s.loc)
                loads.append(TileStore(s.var.name, tuple(lanes[n] for n in kept), staged, s.loc))
                continue
        if _stage_store(s, params) and _stores_after(later, params):
            store = s.then[0]
            cond, index = outside(s.cond), outside(store.index)
            value = store.value
            # `y.to(tl.float16)` stores the fragment of y (T.copy converts)
            local = value.a if isinstance(value, Cast) and isinstance(value.a, Var) else value
            if cond is not None and index is not None:
                if not (isinstance(local, Var) and local.name in locals_ and local.name not in assigned):
                    local = Var(fresh_name(f"{store.buffer}_tile", taken), value.dtype)
                    middle.append(Decl(local, value, s.loc))
                stores.append((If(cond, [dataclasses.replace(store, index=index, value=value)], [], s.loc), local))
                continue
        stored_before = stored_before or _stores(s)
        middle.append(s)
    for _, value in stores:  # a stored value is a fragment the computation fills
        if value.name not in fragments:
            fragments[value.name] = TileBuffer(value.name, value.dtype, extents, "fragment", None)
    middle = [TileStore(s.var.name, lanes, s.init, s.loc) if isinstance(s, Decl) and s.var.name in fragments
              else s for s in middle]
    ctx.loaded.update({s.buffer: dims[s.buffer] for s in loads if s.buffer not in assigned})
    dims = {**ctx.loaded, **dims}
    staged = set(fragments) | set(ctx.loaded)

    def along(name):  # the lanes a fragment is indexed by
        return tuple(lanes[n] for n in dims.get(name, range(len(lanes))))

    def read(e):  # a staged value's reads, and the lanes, as the element of its fragment
        if isinstance(e, Var) and e.name in staged:
            return TileLoad(e.name, along(e.name), e.dtype)
        if isinstance(e, Builtin) and e.kind == "thread_idx" and e.axis in by_axis:
            return by_axis[e.axis]
        return None

    def step(stmts, kept=None):
        kept = range(len(lanes)) if kept is None else kept
        return [ParallelFor(tuple(lanes[n] for n in kept), tuple(extents[n] for n in kept),
                            map_stmts(stmts, lambda e: map_expr(e, read)), loc)]

    out = [s for s in body if isinstance(s, Decl) and s.var.name in hoisted] + list(fragments.values())
    out += [x for s in loads for x in step([s], dims[s.buffer])]
    out += step(middle) if middle else []
    for s, local in stores:
        value, element = s.then[0].value, TileLoad(local.name, lanes, local.dtype)
        element = dataclasses.replace(value, a=element) if value is not local and isinstance(value, Cast) and \
            value.a == local else element
        out += step([dataclasses.replace(s, then=[dataclasses.replace(s.then[0], value=element)])])
    return out, bool(loads or stores)


def _live(body: list) -> list:
    """The body without the locals nothing reads (Triton's loop-carried `offsets`, `mask` of a
    loop whose last values no one uses): their declarations and assignments computed nothing
    the kernel keeps (loads have no effect)."""
    while True:
        read = {e.name for e in all_exprs(body) if isinstance(e, Var)}
        read |= {s.var.name for s in walk_stmts(body) if isinstance(s, For)}
        writes = [s for s in walk_stmts(body) if isinstance(s, (Decl, Assign))]
        calls = {s.var.name for s in writes if any(isinstance(e, Call) for root in stmt_exprs(s) for e in walk_expr(root))}
        dead = {s.var.name for s in writes} - read - calls
        if not dead:
            return body
        body = rewrite_stmts(body, lambda s, dead=dead: None if isinstance(s, (Decl, Assign)) and s.var.name in dead
                             else s)


def _uniform_names(body: list, assigned: set, declared: set) -> set:
    """The locals every lane computes alike (`pid = program_id(0)`, `block_start = pid * BLOCK`,
    the variable of a loop over the columns): declared once from arguments, block indices and
    such locals, no lane, and loads only before the first store (`scale = tl.load(scale_ptr)`);
    a loop's variable when its header reads only those. They stay outside the block's steps,
    under the user's names."""
    found: set = set()
    while True:
        before, stored = len(found), False
        for s in walk_stmts(body):
            if isinstance(s, For) and _alike(list(stmt_exprs(s)), found | {s.var.name}, declared):
                found.add(s.var.name)
            elif isinstance(s, Decl) and s.init is not None and s.var.name not in assigned:
                if _alike([s.init], found, declared, loads=not stored):
                    found.add(s.var.name)
            stored = stored or isinstance(s, (Store, Atomic))
        if len(found) == before:
            return found


def _stores(s) -> bool:
    """Whether the statement (its nested ones included) stores to global memory."""
    return any(isinstance(x, (Store, Atomic)) for x in walk_stmts([s]))


def _loaded(e, params: dict) -> bool:
    """`mask ? buffer[index] : other` or `buffer[index]` of an argument, converted or not
    (`.to(tl.float32)`)."""
    e = e.a if isinstance(e, Cast) else e
    load = e.a if isinstance(e, Select) else e
    return isinstance(load, Load) and load.buffer in params


def _stage_store(s, params: dict) -> bool:
    """`if mask: buffer[index] = value` of an argument, alone in its branch."""
    return isinstance(s, If) and not s.orelse and len(s.then) == 1 and isinstance(s.then[0], Store) and \
        s.then[0].buffer in params


def _stores_after(later: list, params: dict) -> bool:
    """Whether a store may move past the statements after it to the end of the stretch: they
    load nothing from global memory, and the ones that store are such stores themselves
    (`tl.store(out + offs * 2, re)` then `tl.store(out + offs * 2 + 1, im)`), staged after it
    in their order."""
    return not any(isinstance(e, Load) for e in all_exprs(later)) and \
        all(_stage_store(s, params) or not _stores(s) for s in later)
