"""Guarded gathers of a block into a shared tile become `T.copy` from a 2-D view of the buffer.

Triton loads a block with `tl.load(base + rows[:, None] * s0 + cols[None, :] * s1, mask=(rows <
R) & (cols < C), other=0)`; the front end writes that as a T.Parallel that gathers element by
element through a flat pointer. When every read of the buffer is such a gather, with the same
extents and strides, the buffer is a (R, C) tensor with strides (s0, s1), and the gather is the
tile-shaped region of it at (row origin, column origin): `T.copy` reads exactly the elements the
mask lets through and zero elsewhere, and `T.Pipelined` can then make the copy asynchronous.
TMA and cp.async need whole tiles of unit-stride rows: the copy is the port's `aligned` program,
which the wrapper takes when the sizes and strides allow (Triton passes them at run time); the
other program gathers from the same view as before.

Only shared tiles are rewritten (what a GEMM or attention K loop stages); extents and strides
must be scalar parameters (or a unit stride), which the port then binds from the tensor's shape.
"""

from __future__ import annotations

import dataclasses
import math

from porter.ir.nodes import (Assign, BinOp, Builtin, Call, Const, Decl, For, If, Load, ScalarParam, Select, Var,
                             dtype_bits, is_float)
from porter.ir.tiles import Copy, ParallelFor, TileBuffer, TileLoad, TileStore
from porter.ir.walk import all_exprs, map_expr, walk_expr, walk_stmts
from porter.match.summary import conjuncts
from porter.match.symbolic import NotAffine, Poly, from_poly, to_poly


@dataclasses.dataclass(frozen=True)
class View:
    """A buffer seen as (rows, cols) with strides: parameter names, or 1 for a unit stride."""

    shape: tuple
    strides: tuple


def raise_copies(kernel):
    """The kernel with its block gathers into shared tiles as T.copy, and the buffers they read
    as 2-D views; the kernel unchanged when any read of such a buffer is not one."""
    params = {p.name: p for p in kernel.params}
    lets = _lets(kernel.body)
    shared = {s.name: s for s in walk_stmts(kernel.body) if isinstance(s, TileBuffer) and s.scope == "shared"}
    found: dict = {}   # buffer -> [(ParallelFor, View, origin)]
    for s in walk_stmts(kernel.body):
        if isinstance(s, ParallelFor):
            hit = _gather(s, shared, params, lets)
            if hit is not None:
                found.setdefault(hit[0], []).append((s, hit[1], hit[2]))
    loads = {}
    for e in all_exprs(kernel.body):
        if isinstance(e, Load):
            loads[e.buffer] = loads.get(e.buffer, 0) + 1
    views = {}
    for buffer, hits in found.items():
        param = params.get(buffer)
        if param is None or getattr(param, "shape", None) or loads.get(buffer) != len(hits):
            continue  # read elsewhere too: its flat indices would need the view's 2-D ones
        if len({view for _, view, _ in hits}) != 1:
            continue
        views[buffer] = hits
    if not views:
        return kernel
    aligned = Var("aligned", "bool")
    replace = {id(loop): If(aligned, [Copy(buffer, origin, loop.body[0].buffer, loop.loc)], [_gather_2d(loop, origin)],
                            loop.loc)
               for buffer, hits in views.items() for loop, _, origin in hits}
    body = _without_unread(_replaced(kernel.body, replace), set(lets))
    new_params, units, multiples = [], [], dict(kernel.aligned_sizes)
    for p in kernel.params:
        if p.name in views:
            view = views[p.name][0][1]
            contiguous = view.strides == (view.shape[1], 1)
            p = dataclasses.replace(p, shape=view.shape, strides=None if contiguous else view.strides)
            # the copyable program: whole tiles (no per-element predicate, which a 2-byte element
            # cannot take into cp.async), rows of unit-stride elements, each row 16-byte aligned
            for loop, _, _ in views[p.name]:
                for extent, tile in zip(view.shape, loop.extents):
                    multiples[extent] = math.lcm(multiples.get(extent, 1), int(tile))
            if view.strides[1] != 1:
                units.append(view.strides[1])
            if view.strides[0] != 1:
                multiples[view.strides[0]] = math.lcm(multiples.get(view.strides[0], 1),
                                                      max(1, 16 // (dtype_bits(p.dtype) // 8)))
        new_params.append(p)
    return dataclasses.replace(kernel, body=body, params=new_params, aligned_sizes=multiples,
                               unit_strides=tuple(dict.fromkeys(kernel.unit_strides + tuple(units))))


def _gather_2d(loop: ParallelFor, origin: tuple) -> ParallelFor:
    """The gather as it was, reading the 2-D view at (row origin + i, column origin + j): the
    program for strides T.copy cannot take (TMA and cp.async need unit-stride rows)."""
    store = loop.body[0]
    i, j = loop.vars
    load = store.value.a
    here = (BinOp("+", origin[0], i, "int32"), BinOp("+", origin[1], j, "int32"))
    value = dataclasses.replace(store.value, a=TileLoad(load.buffer, here, load.dtype))
    return dataclasses.replace(loop, body=[dataclasses.replace(store, value=value)])


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


def _gather(loop: ParallelFor, shared: dict, params: dict, lets: dict):
    """(buffer, View, origin) when the loop is `tile[i, j] = mask ? buffer[index] : 0` over
    the whole of a shared tile, index = (r0 + i) * s0 + (c0 + j) * s1 and mask = r0 + i < R
    and c0 + j < C; None otherwise."""
    if len(loop.vars) != 2 or len(loop.body) != 1 or not isinstance(loop.body[0], TileStore):
        return None
    store = loop.body[0]
    i, j = loop.vars
    tile = shared.get(store.buffer)
    if tile is None or tuple(tile.shape) != tuple(loop.extents) or tuple(store.indices) != (i, j):
        return None
    value = store.value
    if not (isinstance(value, Select) and isinstance(value.b, Const) and value.b.value == 0 and
            isinstance(value.a, Load) and value.a.dtype == tile.dtype and not value.a.lanes):
        return None
    load = value.a
    try:
        index = to_poly(_named(_through_lets(load.index, lets)))
        bounds = [_bound(c, lets) for c in conjuncts(value.cond)]
    except NotAffine:
        return None
    pi, pj = Poly.symbol(i.name), Poly.symbol(j.name)
    s0, s1 = index.coeff(pi), index.coeff(pj)
    rest = index - s0 * pi - s1 * pj
    if any(x.has(v) for x in (s0, s1, rest) for v in (pi, pj)):
        return None
    if len(bounds) != 2 or None in bounds:
        return None
    rows = [b for b in bounds if b[0].has(pi) and not b[0].has(pj)]
    cols = [b for b in bounds if b[0].has(pj) and not b[0].has(pi)]
    if len(rows) != 1 or len(cols) != 1:
        return None
    row = _origin(rows[0], pi, params)
    col = _origin(cols[0], pj, params)
    if row is None or col is None:
        return None
    (r0, rows_name), (c0, cols_name) = row, col
    if rest != r0 * s0 + c0 * s1:
        return None
    strides = tuple(_stride_name(s, params) for s in (s0, s1))
    if None in strides:
        return None
    names = _names(load.index, value.cond, lets)
    try:
        origin = (from_poly(r0, names), from_poly(c0, names))
    except KeyError:
        return None
    return load.buffer, View((rows_name, cols_name), strides), origin


def _bound(c, lets):
    """`a < b` (or `b > a`) as the Poly a - b, which is negative inside the bound; None for any
    other condition."""
    if isinstance(c, BinOp) and c.op in ("<", ">") and c.a.dtype == c.b.dtype and not is_float(c.a.dtype):
        a, b = (c.a, c.b) if c.op == "<" else (c.b, c.a)
        return (to_poly(_named(_through_lets(a, lets))) - to_poly(_named(_through_lets(b, lets))),)
    return None


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


def _names(*exprs_and_lets) -> dict:
    """Symbol name -> IR for every name the index and mask read, through the locals they use:
    what an origin Poly is printed back with."""
    *exprs, lets = exprs_and_lets
    names = {}
    for e in exprs:
        for n in walk_expr(_through_lets(e, lets)):
            if isinstance(n, Var):
                names[n.name] = n
            elif isinstance(n, Builtin):
                names[f"{_BUILTIN[n.kind]}_{'xyz'[n.axis]}"] = n
            elif isinstance(n, Const) and n.name and isinstance(n.value, int):
                names[n.name] = n  # a constexpr prints by its name
    return names


def _named(e):
    """Named integer constants (constexprs) as symbols: the algebra keeps `BLOCK_K`, and the
    origin prints with the name, as the generic port's check expects."""
    def step(n):
        if isinstance(n, Const) and n.name and isinstance(n.value, int) and not isinstance(n.value, bool):
            return Var(n.name, n.dtype)
        return None
    return map_expr(e, step)


_BUILTIN = {"thread_idx": "tid", "block_idx": "bid", "block_dim": "bdim", "grid_dim": "gdim"}


def _without_unread(body: list, candidates: set) -> list:
    """Drop the locals among `candidates` (pure integer lets) that nothing reads any more: the
    masks that used `k_left` are now the copy's bounds."""
    read = {n.name for e in all_exprs(body) for n in walk_expr(e) if isinstance(n, Var)}
    unread = {s.var.name for s in walk_stmts(body) if isinstance(s, Decl) and s.var.name in candidates
              and s.var.name not in read and s.init is not None and
              not any(isinstance(n, (Load, Call)) for n in walk_expr(s.init))}
    if not unread:
        return body

    def keep(stmts):
        out = []
        for s in stmts:
            if isinstance(s, Decl) and s.var.name in unread:
                continue
            if isinstance(s, If):
                s = dataclasses.replace(s, then=keep(s.then), orelse=keep(s.orelse))
            elif isinstance(getattr(s, "body", None), list):
                s = dataclasses.replace(s, body=keep(s.body))
            out.append(s)
        return out
    return keep(body)


def _replaced(body: list, replace: dict) -> list:
    out = []
    for s in body:
        if id(s) in replace:
            out.append(replace[id(s)])
            continue
        if isinstance(s, If):
            s = dataclasses.replace(s, then=_replaced(s.then, replace), orelse=_replaced(s.orelse, replace))
        elif isinstance(getattr(s, "body", None), list):  # For, While, ParallelFor
            s = dataclasses.replace(s, body=_replaced(s.body, replace))
        out.append(s)
    return out

