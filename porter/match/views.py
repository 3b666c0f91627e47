"""Flat pointers a Triton kernel reads and writes by rows, as shaped views; its whole-tile loads
and stores through them as T.copy.

Triton addresses a row block as `x_ptr + row * stride + cols` under `mask=cols < n_cols`, and a
block of a vector as `x_ptr + offs` under `offs < n`; the front end keeps the flat pointer and
fills each tile by a T.Parallel gather. When every access of a buffer argument is an index
`row * S + col` with one int32 stride argument S (or `col` alone) and a mask that bounds `col`
by one size argument C, the buffer is the view (rows, C) with strides (S, 1), or (C,): rows
are as many as the tensor holds ("*", the wrapper's `_batched`), or R when every access also
bounds its row by R. Dimensions before the rows come from the rest of the index: a batch's
`b * stride_b` (as many as the tensor holds), a head's `h * stride_h` with h = x % H, or
`b * R * C` over whole contiguous matrices. Through the view

    x[i] = T.if_then_else(i < n_cols, x_ptr[row * S + i], 0)   ->  T.copy(x_ptr[row, 0], x)
    x[i] = T.if_then_else(i < n_cols, x_ptr[row * S + i], -inf) -> T.copy(x_ptr[row, 0], x)
                                                   then x[i] = T.if_then_else(i < n_cols, x[i], -inf)
    if i < n_cols: out_ptr[row * S + i] = y[i]                 ->  T.copy(y, out_ptr[row, 0])
    x[i] = float(T.if_then_else(i < n, h_ptr[row * S + i], 0))  ->  T.copy(h_ptr[row, 0], x_float16)
                                                   then x[i] = float(x_float16[i])

a gather of a whole fragment whose mask is exactly the view's bounds (T.copy reads zero
outside the view, where another `other` is then put), and a store of a whole fragment under
exactly those bounds (T.copy writes nothing outside it), are copies; every other access
reads or writes the view at (row, col) under its own mask, which addresses the same element.
A buffer no access masks (a launcher that passes whole tiles only) is the view of as many
rows as the tensor holds, each as wide as its row stride, or the vector of its elements, and
its unmasked whole-fragment loads and stores are copies alike. Shared tiles are copies.py's
first (their copies become asynchronous, with its alignment conditions); one it leaves (the
operand tl.reduce folds by a combine function) is copied here like a fragment. A buffer any
other way (an atomic, a pointer kept as a value, masked accesses without the column bound)
stays flat.
"""

from __future__ import annotations

import dataclasses

from porter.ir.nodes import BufferParam, Const, Decl, If, Load, ScalarParam, Select, Store, Var
from porter.ir.tiles import Copy, CopyOut, ParallelFor, TileBuffer, TileLoad, TileStore
from porter.ir.walk import (BODIES, all_exprs, children, declared_names, map_expr, map_stmts, stmt_exprs,
                            walk_expr, walk_stmts)
from porter.match.copies import _at_least_zero, _batch_dims, _bound, _lets, _named, _through_lets
from porter.match.formulas import all_of, conjuncts
from porter.ir.symbolic import NotAffine, Poly, from_poly, symbol_names, to_poly
from porter.util.names import fresh_name


@dataclasses.dataclass
class _Access:
    """One load or store of a buffer argument: where it is, what it reads, how it splits."""

    node: object          # the Load or Store
    loop: object          # the enclosing T.Parallel, or None
    mask: object          # the guard of the access (a Select's or the enclosing ifs'), or None
    row: Poly | None      # the coefficient of the stride, None without one
    col: Poly
    names: dict           # symbol name -> IR, to print row and col back
    index: object = None  # the index as the split read it (a 1-D view's index as written)
    strides: tuple = ()   # (row stride argument or None, column stride argument or 1)
    batch: tuple = ()     # (extent, stride argument, index Poly) of each dimension before the rows
    part: int | None = None  # which C columns of a row read in parts (the view's middle index)
    bounds: list = dataclasses.field(default_factory=list)  # its mask's upper bounds (_bounds)
    fixed: Poly | None = None  # the index in a last dimension the tile does not span (_fixed_last)


@dataclasses.dataclass(frozen=True)
class _View:
    shape: tuple          # ("*" | R, C) or (C,): argument names, or a constexpr's value
    strides: tuple | None
    bounds: tuple = ()    # the names the masks bound each dimension by ("*": none)
    # how an index splits over it: (the batch's strides, row stride or None, column stride)
    layout: tuple = dataclasses.field(default=(), compare=False)
    parts: int = 0        # a row read in this many parts of C columns: the view (rows, parts, C)


def shaped_views(kernel, only=None, unused=None, found=None):
    """The kernel with every buffer argument it reads and writes by rows as a view (those in
    `only`, when given), and its whole-fragment gathers and stores through views as T.copy;
    unchanged when none is. `unused`: buffer -> the view other forms of the kernel give a
    buffer this one never touches (`Beta` under `if HAVE_BETA:`), declared alike here, its
    extents at this form's values. `found`: found_views(kernel), when the caller has it."""
    views, accesses = found[:2] if found is not None else _found_views(kernel, {})
    if only is not None:
        views = {name: view for name, view in views.items() if name in only}
    sizes = {n: v for n, v in kernel.constexprs.items() if type(v) is int}
    buffers = {p.name for p in kernel.params if isinstance(p, BufferParam)}
    declared = {name: _View(tuple(sizes.get(b, b) for b in view.bounds), view.strides, view.bounds)
                for name, view in (unused or {}).items() if name not in views and name in buffers}
    if not views and not declared:
        return kernel
    params = {p.name: p for p in kernel.params}
    tiles = {s.name: s for s in walk_stmts(kernel.body) if isinstance(s, TileBuffer)}
    replace = {}
    taken = {p.name for p in kernel.params} | set(declared_names(kernel.body)) | set(kernel.constexprs)
    for name, view in views.items():
        for access in accesses[name]:
            copy = _copy(access, view, tiles, params, taken)
            if copy is not None:
                replace[id(access.loop)] = copy
            else:
                replace[id(access.node)] = _indexed(access, view)
    body = _rewritten(kernel.body, replace)
    views = {**declared, **views}
    new_params = [dataclasses.replace(p, shape=views[p.name].shape, strides=views[p.name].strides)
                  if p.name in views else p for p in kernel.params]
    return dataclasses.replace(kernel, body=body, params=new_params)


def found_views(kernel, hints: dict | None = None) -> tuple:
    """(buffer -> the view shaped_views would give it, buffer -> its accesses, the buffer
    arguments the kernel reads or writes at all): forms of one kernel that must share a
    signature agree on these first. `hints`: buffer -> the view other forms found, which this
    one takes where its own accesses bound no column but index the buffer alike (ONE_TILE's
    masked load beside the loop's unmasked ones): they read the view at (row, col)."""
    touched = {e.buffer for e in all_exprs(kernel.body) if isinstance(e, Load)}
    touched |= {s.buffer for s in walk_stmts(kernel.body) if hasattr(s, "buffer")}
    touched |= {e.name for e in all_exprs(kernel.body) if isinstance(e, Var)}
    return (*_found_views(kernel, hints or {}), touched)


def _found_views(kernel, hints: dict) -> tuple:
    """({buffer: _View}, {buffer: its _Accesses}) for the buffer arguments read and written by
    rows."""
    params = {p.name: p for p in kernel.params}
    lets = _lets(kernel.body)
    candidates = [p.name for p in kernel.params if isinstance(p, BufferParam) and not getattr(p, "shape", None)]
    sizes = {n: v for n, v in kernel.constexprs.items() if type(v) is int and n not in params}
    views, accesses, extents = {}, {}, None
    for name in candidates:
        found = _accesses(kernel.body, name, scalars=True)
        if not found:
            continue
        if all(loop is None for _, loop, _ in found):
            strided = _strided_vector(found, params, lets)
            if strided is not None:
                views[name], accesses[name] = strided
            continue
        for through, lane_strides in (({}, False), (lets, False), ({}, True), (lets, True)):
            split = _split(found, params, through, sizes, lane_strides=lane_strides)
            view = _view_of(split, params, through, sizes) if split is not None else None
            if view is None and split is not None and name in hints and _layout(split) == hints[name].layout:
                for a in split:
                    a.bounds = _bounds(a.mask, through)
                view = hints[name]
            elif view is None and split is not None and name not in hints and through is lets and not lane_strides:
                view = _unmasked_view(split, params, through)  # indices through the lane's lets
            if view is not None and lane_strides and not all(isinstance(d, int) for d in view.shape):
                # strides the constexprs fix over sizes known only at run time: tilelang 0.1.15's
                # adapter compares the two to decide contiguity, and fails on the symbolic size
                view = None
            if view is None and split is not None and split[0].strides[0] is not None and not lane_strides:
                # rows that are not the mask's (`w[group * group_size + i]` under `... < C`):
                # the vector the mask bounds, each index one element of it
                split = _split(found, params, through, sizes, vector=True)
                view = _view_of(split, params, through, sizes) if split is not None else None
            if view is not None:
                views[name], accesses[name] = view, split
                break
        if name not in views and name not in hints:
            if extents is None:
                extents = _tensor_extents(kernel.body, params, lets)
            fixed = _fixed_last(found, params, lets, sizes, extents)
            if fixed is not None:
                views[name], accesses[name] = fixed
    return views, accesses


def _unmasked_view(split: list, params: dict, lets: dict) -> _View | None:
    """The view of a buffer no access masks (a launcher that passes whole tiles only: FlagGems'
    argmin_kernel_opt_k1 loads `inp + m[:, None] * N + n[None, :]` with mask=True): rows as
    many as the tensor holds, each as wide as the row stride (an int32 argument), or the
    vector of all its elements; each flat index is the same element of it."""
    if any(_bounds(a.mask, lets) for a in split):
        return None
    outer, inner = split[0].strides
    if split[0].batch or inner != 1 or (outer is not None and not _is_size(outer, params, {})):
        return None
    if outer is not None and not all(_steps_columns(a) for a in split):
        return None  # a column that may pass the row stride (`off_m * HEAD_DIM + d` in a row of N_CTX)
    for a in split:
        a.bounds = []
    if outer is None:
        return _View(("*",), (1,), ("*",), layout=_layout(split))
    return _View(("*", outer), (outer, 1), ("*", "*"), layout=_layout(split))


def _steps_columns(access: _Access) -> bool:
    """Whether an access's column is a block offset plus the innermost lane, one column a lane
    (nothing else of the lanes in it): then, unmasked, it stays within the tile's columns."""
    if access.loop is None:
        return False
    lanes = [Poly.symbol(v.name) for v in access.loop.vars]
    return access.col.coeff(lanes[-1]) == 1 and not any(access.col.has(x) for x in lanes[:-1]) and \
        not (access.col - lanes[-1]).has(lanes[-1])


def _layout(split: list) -> tuple:
    outer, inner = split[0].strides
    return tuple(stride for _, stride, _ in split[0].batch), outer, inner


def _strided_vector(found: list, params: dict, lets: dict):
    """(view, accesses) for a buffer read and written one element at a time at `x * S`, S one
    int32 argument (`tl.store(rstd_ptr + row * rstd_stride, rstd)`): the vector (as many as
    the tensor holds,) with stride S, read at x; None otherwise."""
    stride, out = None, []
    for node, loop, mask in found:
        try:
            poly = to_poly(_named(_through_lets(node.index, lets)))
        except NotAffine:
            return None
        names = _strides(poly, params, {})
        if len(names) != 1 or (stride is not None and names != {stride}):
            return None
        stride = next(iter(names))
        index = poly.coeff(Poly.symbol(stride))
        if poly - index * Poly.symbol(stride) != 0 or index.has(Poly.symbol(stride)):
            return None
        exprs = [_through_lets(node.index, lets)]
        access = _Access(node, loop, mask, None, index, symbol_names(*exprs), exprs[0])
        if any(v.name not in access.names for v in index.free_symbols):
            return None
        access.strides = (None, stride)
        out.append(access)
    return _View(("*",), (stride,), ("*",), layout=((), None, stride)), out


def _accesses(body: list, buffer: str, scalars: bool = False) -> list | None:
    """Every load and store of `buffer` with its T.Parallel and mask; None when the buffer is
    used any other way (an atomic, its pointer as a value), or (unless `scalars`) only by
    single elements outside any T.Parallel."""
    found = []
    if any(isinstance(e, Var) and e.name == buffer for e in all_exprs(body)):
        return None

    def visit(stmts, loop, guards):
        for s in stmts:
            if isinstance(s, ParallelFor):
                if loop is not None:
                    return False
                if visit(s.body, s, ()) is False:
                    return False
                continue
            if isinstance(s, If):
                for e in walk_expr(s.cond):
                    if isinstance(e, Load) and e.buffer == buffer:
                        found.append((e, loop, all_of(guards)))
                if visit(s.then, loop, guards + (s.cond,)) is False or visit(s.orelse, loop, guards) is False:
                    return False
                continue
            if getattr(s, "buffer", None) == buffer and not isinstance(s, Store):
                return False  # an atomic, or a tile statement naming the argument
            if isinstance(s, Store) and s.buffer == buffer:
                found.append((s, loop, all_of(guards)))
            for root in stmt_exprs(s):
                for e, mask in _loads_with_masks(root, buffer):
                    found.append((e, loop, all_of(guards + ((mask,) if mask is not None else ()))))
            for field in BODIES.get(type(s), ()):
                if visit(getattr(s, field), loop, guards) is False:
                    return False
        return True

    if visit(body, None, ()) is False:
        return None
    if not found or (all(loop is None for _, loop, _ in found) and not scalars):
        return None  # scalar accesses alone, or the lanes of one T.Parallel over the block: left flat
    return found


def _loads_with_masks(e, buffer: str):
    """(load, the Select condition guarding it or None) for each load of `buffer` in `e`."""
    if isinstance(e, Select) and isinstance(e.a, Load) and e.a.buffer == buffer:
        yield e.a, e.cond
        yield from _loads_with_masks(e.cond, buffer)
        yield from _loads_with_masks(e.b, buffer)
        yield from _loads_with_masks(e.a.index, buffer)
        return
    if isinstance(e, Load) and e.buffer == buffer:
        yield e, None
    for child in children(e):
        yield from _loads_with_masks(child, buffer)


def _split(found: list, params: dict, lets: dict, sizes: dict, vector: bool = False,
           lane_strides: bool = False, polys: list | None = None) -> list | None:
    """Each access as batch + row * S0 + col * S1 for the stride arguments the accesses share:
    S1 the one whose coefficient holds the innermost lane (1 when none does: the unit stride),
    S0 the one holding another lane (or, when there is no third, the only other one), and the
    batch the terms of the rest, each an index times its stride (`batch_id * stride_b`, `z *
    stride_z + h * stride_h` with h = x % H: copies._batch_dims); None when they do not split so.
    `vector`: no strides, each index a column of the one dimension. `polys`: the indices as
    Polys, when not the accesses' own."""
    if polys is None:
        polys = _index_polys(found, lets)
        if polys is None:
            return None
    # a constexpr is a stride only where it is also a size the masks bound by (`N`), or, with
    # `lane_strides`, where it scales a lane itself (`i * stride_xn`, a stride the launcher
    # passes as a constexpr); not the tile `BLOCK_N` that scales a program id
    bounding = {factor.name for _, _, mask in found for d in _bounds(mask, lets) if d is not None
                for coeff, factor in (term.split_coefficient() for term in d.terms())
                if coeff == -1 and factor.is_symbol}
    if lane_strides:
        bounding |= {n for (_, loop, _), poly in zip(found, polys) for n in sizes
                     if _holds_lane(poly.coeff(Poly.symbol(n)), loop)}
    strides = set() if vector else \
        set().union(*(_strides(poly, params, {n: v for n, v in sizes.items() if n in bounding}) for poly in polys))
    inner = _inner_stride(found, polys, strides)
    if inner is False:
        return None
    others = strides - {inner}
    batch_strides = set()
    if len(others) > 1:
        holding = {s for s in others if any(_holds_lane(poly.coeff(Poly.symbol(s)), loop)
                                            for (_, loop, _), poly in zip(found, polys))}
        if len(holding) > 1:
            return None
        batch_strides = others - holding
        others = holding
    outer = next(iter(others), None)
    row_s = Poly.symbol(outer) if outer else None
    col_s = Poly.symbol(inner) if inner else None
    out, batch_view = [], None
    for (node, loop, mask), poly in zip(found, polys):
        batch = sum((poly.coeff(Poly.symbol(s)) * Poly.symbol(s) for s in sorted(batch_strides)), Poly.integer(0))
        dims = (_batch_dims(batch, params, lets) or _whole_matrices(batch, outer, params)) if batch_strides \
            else ((), (), ())
        if dims is None or (batch_view is not None and dims[:2] != batch_view):
            return None
        batch_view = dims[:2]
        poly = poly - batch
        row = poly.coeff(row_s) if row_s is not None else None
        rest = poly - row * row_s if row_s is not None else poly
        col = rest.coeff(col_s) if col_s is not None else rest
        if col_s is not None and rest - col * col_s != 0:
            return None
        if any(x is not None and x.has(Poly.symbol(s)) for x in (row, col, *dims[2]) for s in strides):
            return None
        exprs = [_through_lets(node.index, lets)] + ([_through_lets(mask, lets)] if mask is not None else [])
        names = symbol_names(*exprs)
        for x in (row, col, *dims[2]):
            if x is not None and any(v.name not in names for v in x.free_symbols):
                return None
        access = _Access(node, loop, mask, row, col, names, exprs[0])
        access.strides = (outer, inner or 1)
        access.batch = tuple(zip(dims[0], dims[1], dims[2]))
        out.append(access)
    if outer is not None and any(a.row is None or a.row == 0 for a in out):
        return None  # an access without the row stride would be an element of row 0
    if outer is None and inner is None and not batch_strides:
        _as_pairs(out)
    return out


def _as_pairs(split: list) -> None:
    """Accesses of a vector of interleaved W-element records (a complex tensor as (re, im)
    pairs: `x[offs * 2]`, `x[offs * 2 + 1]`) as rows of W: when in every access the lane of
    its one-dimensional T.Parallel has the integer coefficient W >= 2 and the rest is a
    multiple of W plus a constant, the access is row (index - c) / W, column c (0 <= c < W),
    of the (rows, W) view, with stride W (an int) marking the form; the accesses unchanged
    otherwise."""
    widths = set()
    for a in split:
        if a.loop is None or len(a.loop.vars) != 1:
            return
        width = a.col.coeff(Poly.symbol(a.loop.vars[0].name))
        if not width.is_integer or int(width) < 2:
            return
        widths.add(int(width))
    if len(widths) != 1:
        return
    (width,) = widths
    rows = []
    for a in split:
        column = sum((int(t) for t in a.col.terms() if t.is_integer), 0) % width
        try:
            rows.append(((a.col - column) / width, column))
        except ValueError:
            return
    for a, (row, column) in zip(split, rows):
        a.row, a.col, a.strides = row, Poly.integer(column), (width, 1)


def _index_polys(found: list, lets: dict) -> list | None:
    """Each access's index as a Poly (through `lets`), None when one is not affine."""
    try:
        return [to_poly(_named(_unit_constexprs(_through_lets(node.index, lets)))) for node, _, _ in found]
    except NotAffine:
        return None


def _tensor_extents(body: list, params: dict, lets: dict) -> set:
    """The int32 size arguments some index of the kernel multiplies by another (`m * N * K`):
    the extents of a contiguous tensor of several dimensions, as a row stride alone (`row *
    stride + c`, rows padded past their columns) need not be."""
    indices = [e.index for e in all_exprs(body) if isinstance(e, Load)]
    indices += [s.index for s in walk_stmts(body) if isinstance(s, Store)]
    found = set()
    for index in indices:
        try:
            poly = to_poly(_named(_through_lets(index, lets)))
        except NotAffine:
            continue
        for term in poly.terms():
            names = {x.name for x in term.split_coefficient()[1].free_symbols if _is_size(x.name, params, {})}
            if len(names) > 1:
                found |= names
    return found


def _fixed_last(found: list, params: dict, lets: dict, sizes: dict, extents: set):
    """(view, accesses) for blocks of a contiguous tensor whose last dimension the tile does not
    span: every index is q * K + c, K the innermost lane's coefficient and one of `extents`
    (_tensor_extents), c free of the lanes (`(m * BM + i) * N * K + (n + j) * K + k`: the
    (BM, BN) tile of the (M, N, K) tensor at k, a reduction over a middle dimension), and q
    splits as a contiguous view's index (_split, _bounded_view). The view is q's with K
    appended; each access reads it at (q's index, c). c is taken to lie in [0, K), as a
    program id over K does in every launcher seen: T.copy bounds it by K, where an index past
    K would have read into the next row. None otherwise."""
    polys = _index_polys(found, lets)
    if polys is None:
        return None
    widths, parts = set(), []
    for (_, loop, _), poly in zip(found, polys):
        if loop is None:
            return None
        lanes = [Poly.symbol(v.name) for v in loop.vars]
        width = poly.coeff(lanes[-1])
        if not width.is_symbol or width.name not in extents:
            return None  # K a tensor's last extent, not a row stride (rows may be padded)
        fixed = sum((t for t in poly.terms() if not t.has(width)), Poly.integer(0))
        q = (poly - fixed).coeff(width)
        if q * width != poly - fixed or any(fixed.has(x) for x in lanes):
            return None
        widths.add(width.name)
        parts.append((q, fixed))
    if len(widths) != 1:
        return None
    (width,) = widths
    split = _split(found, params, lets, sizes, polys=[q for q, _ in parts])
    view = _view_of(split, params, lets, sizes) if split is not None else None
    if view is None or any(a.part or a.batch or isinstance(a.strides[0], int) for a in split):
        return None
    shape, strides = view.shape, view.strides
    if strides is not None and not (len(shape) == 2 and shape[0] == "*" and strides == (shape[1], 1)):
        return None  # q's rows must be contiguous for (rows, cols, K) to be
    for a, (_, fixed) in zip(split, parts):
        if any(v.name not in a.names for v in fixed.free_symbols):
            return None
        a.fixed = fixed
    return dataclasses.replace(view, shape=shape + (sizes.get(width, width),), strides=None,
                               bounds=view.bounds + ("*",)), split


def _whole_matrices(batch: Poly, row_stride: str | None, params: dict):
    """(shape, strides, origins) of a batch of contiguous matrices, `b * M * N` with N the row
    stride (FlagGems' `pid_m * N * K + offs_n * K + offs_k` over a (B, N, K) tensor): one
    dimension, as many as the tensor holds, whose stride is the product `_View` checks is
    the rows' extent times the row stride; None for any other batch."""
    terms = batch.terms()
    if row_stride is None or len(terms) != 1:
        return None
    coeff, product = terms[0].split_coefficient()
    factors = product.free_symbols
    if coeff != 1 or row_stride not in {x.name for x in factors} or len(factors) != 3:
        return None
    rest = [x for x in factors if x.name != row_stride]
    for rows, index in (rest, rest[::-1]):
        p = params.get(rows.name)
        if isinstance(p, ScalarParam) and p.dtype == "int32" and not isinstance(params.get(index.name), ScalarParam) \
                and product == index * rows * Poly.symbol(row_stride):
            return ("*",), ((rows.name, row_stride),), (index,)
    return None


def _holds_lane(coefficient: Poly, loop) -> bool:
    return loop is not None and any(coefficient.has(Poly.symbol(v.name)) for v in loop.vars)


def _unit_constexprs(e):
    """A constexpr of value 1 as the number (Liger's `X_col_stride: tl.constexpr = 1`: the unit
    column stride, not a name the column is scaled by). A port built so is specialised for it:
    its stand-in conversions (other values) find no view, and the constexpr stays fixed."""
    return map_expr(e, lambda n: dataclasses.replace(n, name=None)
                    if isinstance(n, Const) and n.name and type(n.value) is int and n.value == 1 else None)


def _inner_stride(found: list, polys: list, strides: set):
    """The stride argument whose coefficient holds the innermost lane of the accesses' loops,
    None for the unit stride, False when the accesses disagree or (two strides) none says."""
    seen = set()
    for (_, loop, _), poly in zip(found, polys):
        if loop is None:
            continue
        lane = Poly.symbol(loop.vars[-1].name)
        holders = {s for s in strides if poly.coeff(Poly.symbol(s)).has(lane)}
        unit = poly - sum((poly.coeff(Poly.symbol(s)) * Poly.symbol(s) for s in strides), Poly.integer(0))
        if unit.has(lane):
            holders.add(None)
        if len(holders) > 1:
            return False
        seen |= holders
    if len(seen) > 1 or (not seen and len(strides) == 2):
        return False
    return next(iter(seen), None)


def _strides(poly: Poly, params: dict, sizes: dict) -> set:
    """The int32 scalar arguments, or int constexprs (`N: tl.constexpr` as a row's length), a
    term of the index multiplies (its strides)."""
    found = set()
    for term in poly.terms():
        _, product = term.split_coefficient()
        for x in product.free_symbols:
            if _is_size(x.name, params, sizes) and product != x:
                found.add(x.name)
    return found


def _is_size(name: str, params: dict, sizes: dict) -> bool:
    """Whether `name` is an int32 scalar argument or an int constexpr (a size or a stride)."""
    p = params.get(name)
    return (isinstance(p, ScalarParam) and p.dtype == "int32") or name in sizes


def _view_of(split: list, params: dict, lets: dict, sizes: dict) -> _View | None:
    """The view the accesses fit (_bounded_view), with how their indices split over it."""
    view = _bounded_view(split, params, lets, sizes)
    return None if view is None else dataclasses.replace(view, layout=_layout(split))


def _bounded_view(split: list, params: dict, lets: dict, sizes: dict) -> _View | None:
    """The view every access fits: the one column bound C all of them have, R when every
    access bounds its row by the same R. A bound is an int32 argument, or an int constexpr
    (`n_cols: tl.constexpr`), whose value is then the view's extent."""
    columns, rows, free = set(), set(), False
    outer, inner = split[0].strides
    if isinstance(outer, int):
        return _pairs_view(split, params, lets, sizes)
    for a in split:
        bounds = _bounds(a.mask, lets)
        column = _extent(bounds, a.col, params, sizes)
        a.bounds = bounds
        if column is None and a.loop is not None and outer is not None and inner == 1 and not a.batch:
            column, a.part, offset = _part_of(bounds, a.col, params, sizes)
            if column is not None:
                a.col = a.col - offset
        if column is None and a.loop is None:
            free = True  # a scalar read of the row (`logits[row * stride + label]`)
            rows.add(None)
            continue
        if column is None:
            return None
        columns.add(column)
        rows.add(_extent(bounds, a.row, params, sizes) if a.row is not None else None)
    if len(columns) != 1:
        return None
    (column,) = columns
    if free and outer is None and not split[0].batch:
        return None  # a vector (C,) holds no element past C: a scalar index may be one
    batch = split[0].batch
    batch_shape = tuple(extent for extent, _, _ in batch)
    batch_strides = tuple(stride for _, stride, _ in batch)
    if outer is None:
        if batch:
            return _View(batch_shape + (sizes.get(column, column),), batch_strides + (inner,),
                         batch_shape + (column,))
        return _View((sizes.get(column, column),), None if inner == 1 else (inner,), (column,))
    row = next(iter(rows)) if len(rows) == 1 and None not in rows else "*"
    parts = max((a.part or 0 for a in split), default=0)
    if parts:
        # a row read in parts of C columns (`gate = x[:C]`, `up = x[C:2C]` of SwiGLU's fused
        # projection): the view (rows, parts, C), each access at its part
        if any(a.loop is None for a in split):
            return None
        for a in split:
            a.part = a.part or 0
        return _View((sizes.get(row, row), parts + 1, sizes.get(column, column)), (outer, column, 1),
                     (row, "*", column), parts=parts + 1)
    if batch and row == "*":
        return None  # only the outermost dimension is as many as the tensor holds
    if any(isinstance(stride, tuple) for stride in batch_strides):
        # whole contiguous matrices: rows as wide as their stride, the batch as long as them
        if batch_strides != ((row, outer),) or (outer, inner) != (column, 1):
            return None
        return _View(batch_shape + (sizes.get(row, row), sizes.get(column, column)), None,
                     batch_shape + (row, column))
    contiguous = not batch and row != "*" and (outer, inner) == (column, 1)  # row-major (M, N): no strides
    return _View(batch_shape + (sizes.get(row, row), sizes.get(column, column)),
                 None if contiguous else batch_strides + (outer, inner), batch_shape + (row, column))


def _pairs_view(split: list, params: dict, lets: dict, sizes: dict) -> _View | None:
    """The (R, W) view of interleaved records (_as_pairs): R the bound every access's mask
    puts on its row, or as many rows as the tensor holds when none has one; W needs no bound
    (the column is a constant below it)."""
    width = split[0].strides[0]
    rows = set()
    for a in split:
        a.bounds = _bounds(a.mask, lets)
        rows.add(_extent(a.bounds, a.row, params, sizes) if a.bounds else "*")
    if len(rows) != 1 or None in rows:
        return None
    (row,) = rows
    if row == "*":
        return _View(("*", width), (width, 1), ("*", "*"))
    return _View((sizes.get(row, row), width), None, (row, "*"))


def _bounds(mask, lets: dict) -> list:
    """The mask's upper bounds as Polys `a - b` (negative inside); lower bounds a tile always
    meets are dropped, anything else is None."""
    if mask is None:
        return []
    out = []
    for c in conjuncts(mask):
        if _at_least_zero(c, lets, {}):
            continue
        try:
            found = _bound(c, lets)
        except NotAffine:
            found = None
        out.append(found[0] if found is not None else None)
    return out


def _extent(bounds: list, index: Poly, params: dict, sizes: dict):
    """The int32 size argument E of the bound `index - E < 0` among the mask's (or the number
    E is where the constexprs fold it); None when there is none, or two (`(offs < k) & (offs <
    n)`: which of them the tensor's rows hold is not written down)."""
    found = set()
    for d in bounds:
        if d is None:
            continue
        rest = index - d
        if rest.is_integer and int(rest) > 0:
            found.add(int(rest))  # a bound the constexprs fold to a number (`cols < rd // 2`)
            continue
        for term in d.terms():
            coeff, factor = term.split_coefficient()
            if coeff == -1 and factor.is_symbol:
                if _is_size(factor.name, params, sizes) and d + factor == index:
                    found.add(factor.name)
    return next(iter(found)) if len(found) == 1 else None


def _part_of(bounds: list, index: Poly, params: dict, sizes: dict) -> tuple:
    """(C, k, k * C) when `index` is k * C plus a column the mask bounds by C (k >= 1, C an
    int32 argument or int constexpr); (None, None, None) otherwise."""
    for d in bounds:
        if d is None:
            continue
        for term in d.terms():
            coeff, factor = term.split_coefficient()
            if coeff != -1 or not factor.is_symbol or not _is_size(factor.name, params, sizes):
                continue
            rest = index - (d + factor)
            k = rest.coeff(factor)
            if k.is_integer and int(k) >= 1 and rest - k * factor == 0:
                return factor.name, int(k), rest
            # a constexpr C folded into the index's constant (`x_ptr + C + cols` in int64)
            width = sizes.get(factor.name)
            if rest.is_integer and width and int(rest) % width == 0 and int(rest) // width >= 1:
                return factor.name, int(rest) // width, rest
    return None, None, None


def _copy(access: _Access, view: _View, tiles: dict, params: dict, taken: set):
    """T.copy for a gather of a whole fragment (`tile[lanes] = mask ? buffer[...] : 0`), or a
    store of a tile's values (`if mask: buffer[...] = f(lanes)`, staged in a fragment unless
    they are one), whose mask is exactly the view's bounds: the statements in the loop's
    place, or None."""
    loop = access.loop
    if loop is None or not all(isinstance(s, Decl) and s.init is not None for s in loop.body[:-1]):
        return None
    lets = loop.body[:-1]  # a lane's index named first (`offs = start + i`): the steps keep them
    lanes = [Poly.symbol(v.name) for v in loop.vars]
    bounds = view.bounds[:-1] if access.fixed is not None else view.bounds  # the fixed index: no bound
    expected = [access.col - _extent_poly(bounds[-1])] if bounds[-1] != "*" else []
    if access.row is not None:
        row_bound = bounds[-3] if view.parts else bounds[-2]
        if row_bound != "*":
            expected.append(access.row - _extent_poly(row_bound))
    # T.copy bounds the region by the view's shape, and by nothing else: a store's mask must be
    # exactly that; a load's may say more (`& (limit > 0)`): the copy reads the view's region
    # (memory the tensor holds) and the load's own mask then picks what the original read
    # (into a fragment: a shared tile rewritten after its copy is two writers a pipeline refuses)
    extra = _beyond(access.bounds, expected)
    if extra is None or (extra and not _into_fragment(access, loop, tiles)):
        return None
    pairs = isinstance(access.strides[0], int)
    origin = _pair_origin(access, lanes) if pairs else _origin(access, lanes, view)
    if origin is None:
        return None
    spans = (loop.extents[0], None) if pairs else _spans(access, loop) if access.fixed is not None else ()
    inner = loop.body[-1]
    if isinstance(access.node, Load):
        if not (isinstance(inner, TileStore) and _whole(inner.buffer, inner.indices, loop, tiles)):
            return None
        value = inner.value
        if [e for e in walk_expr(value) if isinstance(e, (Load, TileLoad)) and e.buffer in params] != [access.node]:
            return None  # another argument read in the same step
        if tiles[inner.buffer].dtype != access.node.dtype:
            # a converting copy lowers (tilelang 0.1.15, DecoupleTypeCast) through a local
            # buffer read without the copy's bounds: past the view on a GPU. The elements are
            # copied as they are stored (`x_float16`), then converted in a step
            raw = fresh_name(f"{inner.buffer}_{access.node.dtype}", taken)
            element = TileLoad(raw, tuple(loop.vars), access.node.dtype)

            def read(n):  # the copied element; under the mask with other 0, as T.copy pads it
                if n is access.node:
                    return element
                if isinstance(n, Select) and n.a is element and isinstance(n.b, Const) and n.b.value == 0 and \
                        not extra:
                    return element
                return None
            converted = map_expr(value, read)
            return [TileBuffer(raw, access.node.dtype, tuple(loop.extents), "fragment", loop.loc),
                    Copy(access.node.buffer, origin, raw, loop.loc, spans),
                    dataclasses.replace(loop, body=lets + [dataclasses.replace(inner, value=converted)])]
        copy = [Copy(access.node.buffer, origin, inner.buffer, loop.loc, spans)]
        if value is access.node and not access.bounds:
            return copy  # an unmasked load
        if not (isinstance(value, Select) and value.a is access.node and isinstance(value.b, Const)):
            return None
        if value.b.value == 0 and not extra:
            return copy
        if any(isinstance(e, (Load, TileLoad)) for e in walk_expr(value.cond)):
            return None
        # T.copy pads with zero outside the view: where the mask is false (there, or where its
        # other conditions are) the elements then take `other`
        element = TileLoad(inner.buffer, inner.indices, value.dtype)
        padded = TileStore(inner.buffer, inner.indices, Select(value.cond, element, value.b, value.dtype), loop.loc)
        return copy + [dataclasses.replace(loop, body=lets + [padded])]
    unmasked = inner is access.node and not access.bounds
    if not unmasked and not (isinstance(inner, If) and not inner.orelse and len(inner.then) == 1 and
                             inner.then[0] is access.node):
        return None
    value = access.node.value
    if isinstance(value, TileLoad) and _whole(value.buffer, value.indices, loop, tiles) and \
            tiles[value.buffer].dtype == params[access.node.buffer].dtype:  # no converting copy (above)
        return [CopyOut(value.buffer, access.node.buffer, origin, loop.loc, spans)]
    # the stored values, staged in a fragment first; loads among them stay under the mask as a
    # statement (a T.if_then_else around them was read past the view once its loop was
    # vectorized), the elements it skips are the ones the copy does not write
    name = fresh_name(f"{access.node.buffer}_tile", taken)
    staged = TileStore(name, tuple(loop.vars), value, loop.loc)
    if not unmasked and any(isinstance(e, (Load, TileLoad)) and e.buffer in params for e in walk_expr(value)):
        staged = If(inner.cond, [staged], [], inner.loc)
    return [TileBuffer(name, value.dtype, tuple(loop.extents), "fragment", loop.loc),
            dataclasses.replace(loop, body=lets + [staged]), CopyOut(name, access.node.buffer, origin, loop.loc, spans)]


def _into_fragment(access: _Access, loop, tiles: dict) -> bool:
    """Whether the access is a load whose loop stores into a fragment."""
    inner = loop.body[-1]
    return isinstance(access.node, Load) and isinstance(inner, TileStore) and \
        getattr(tiles.get(inner.buffer), "scope", None) == "fragment"


def _beyond(bounds: list, expected: list):
    """The conditions of a mask besides the view's bounds (`expected`), a list (empty when it
    is exactly them); None when one of the view's bounds is not among them."""
    rest = list(map(repr, bounds))
    for bound in map(repr, expected):
        if bound not in rest:
            return None
        rest.remove(bound)
    return rest


def _extent_poly(bound) -> Poly:
    """A view's bound as a Poly: the size's name, or its number."""
    return Poly.integer(bound) if isinstance(bound, int) else Poly.symbol(bound)


def _whole(tile: str, indices, loop, tiles: dict) -> bool:
    """Whether `tile[indices]` over the loop is each element of a whole tile once (a fragment,
    or a shared tile copies.py left: tl.reduce's fold reads its operand from shared memory)."""
    t = tiles.get(tile)
    return t is not None and t.scope in ("fragment", "shared") and tuple(t.shape) == tuple(loop.extents) and \
        len(indices) == len(loop.vars) and all(isinstance(i, Var) and i.name == v.name
                                               for i, v in zip(indices, loop.vars))


def _origin(access: _Access, lanes: list, view: _View):
    """The view index of the tile's first element, when each lane steps one dimension of the
    view by one in order (the last lane the columns); None otherwise."""
    dims = [access.row, access.col] if access.row is not None else [access.col]
    if len(lanes) > len(dims):
        return None
    start = []
    for d, index in enumerate(dims):
        lane = lanes[d - (len(dims) - len(lanes))] if d >= len(dims) - len(lanes) else None
        if lane is not None and index.coeff(lane) != 1:
            return None
        base = index - lane if lane is not None else index
        if any(base.has(x) for x in lanes):
            return None
        start.append(base)
    try:
        return _view_index(access, *(from_poly(x, access.names) for x in start))
    except KeyError:
        return None


def _spans(access: _Access, loop) -> tuple:
    """A region's extents over a view with a fixed last index: the lanes span the last of the
    row and column dimensions, in order (as _origin maps them); the batch, a row no lane
    steps, and the fixed index are single indices."""
    dims = 2 if access.row is not None else 1
    return (None,) * (len(access.batch) + dims - len(loop.extents)) + tuple(loop.extents) + (None,)


def _pair_origin(access: _Access, lanes: list):
    """The (row, column) of a column of interleaved records' first element: the row minus the
    lane (its coefficient is 1 by _as_pairs), the column as it is."""
    start = access.row - lanes[0]
    if start.has(lanes[0]):
        return None
    try:
        return _view_index(access, from_poly(start, access.names), from_poly(access.col, access.names))
    except KeyError:
        return None


def _view_index(access: _Access, *row_col) -> tuple:
    """The view's index for the access's (row, col) or (col,): the batch's indices first, the
    row, its part, the column."""
    *row, col = row_col
    part = (Const(access.part, "int32"),) if access.part is not None else ()
    fixed = (from_poly(access.fixed, access.names),) if access.fixed is not None else ()
    return tuple(from_poly(index, access.names) for _, _, index in access.batch) + tuple(row) + part + (col,) + fixed


def _indexed(access: _Access, view: _View):
    """The access reading or writing the view at (row, col), or a vector at its index."""
    if access.row is not None or access.batch or access.fixed is not None:
        row = (from_poly(access.row, access.names),) if access.row is not None else ()
        indices = _view_index(access, *row, from_poly(access.col, access.names))
    else:
        indices = (access.index,) if view.strides is None else (from_poly(access.col, access.names),)
    node = access.node
    if isinstance(node, Load):
        return TileLoad(node.buffer, indices, node.dtype)
    return TileStore(node.buffer, indices, node.value, node.loc)


def _rewritten(body: list, replace: dict) -> list:
    """The body with the copies in place of their loops, and each other access on its view."""
    def stmts(ss):
        out = []
        for s in ss:
            new = replace.get(id(s), s)
            for x in new if isinstance(new, list) else [new]:
                bodies = BODIES.get(type(x), ())
                out.append(dataclasses.replace(x, **{f: stmts(getattr(x, f)) for f in bodies}) if bodies else x)
        return out
    return map_stmts(stmts(body), lambda e: map_expr(e, lambda n: replace.get(id(n))))
