"""Vector accesses of the original stay vector accesses in the port.

The CUDA front end reads `float4 v = reinterpret_cast<const float4*>(x)[i]` as four element
loads (one local per component) and marks them with their lane count; this pass gives each
such group back its width: the lanes are loaded by one `T.vectorized` loop into a local array
(TileLang lowers it to one 128-bit access when the index is aligned, as it is for `i * 4 + v`),
and the components read that array. Stores likewise: the values go into a local array that one
`T.vectorized` loop writes. Only accesses the original made as vectors are grouped: a scalar
load the user wrote stays scalar (a vector access needs an aligned address; a scalar one does not).
"""

from __future__ import annotations

import dataclasses

from porter.ir.nodes import Alloc, BinOp, Const, Decl, For, If, Load, Store, Var, While
from porter.ir.tiles import ParallelFor
from porter.util.names import fresh_name


def vectorize_lanes(stmts: list, taken: set) -> list:
    """stmts with every marked group of lane loads / stores rewritten; taken: names in use."""
    out = []
    i = 0
    while i < len(stmts):
        s = stmts[i]
        n = _group(stmts, i)
        if n:
            out += _vector_loads(stmts[i:i + n], taken) if isinstance(s, Decl) else \
                _vector_stores(stmts[i:i + n], taken)
            i += n
            continue
        out.append(_nested(s, taken))
        i += 1
    return out


def _nested(s, taken):
    if isinstance(s, If):
        return dataclasses.replace(s, then=vectorize_lanes(s.then, taken),
                                   orelse=vectorize_lanes(s.orelse, taken))
    if isinstance(s, (For, While, ParallelFor)):
        return dataclasses.replace(s, body=vectorize_lanes(s.body, taken))
    return s


def _lane_access(s):
    """(buffer, index, lanes) of a marked lane load (a Decl of it) or store, else None."""
    if isinstance(s, Decl) and isinstance(s.init, Load) and s.init.lanes > 1:
        return s.init.buffer, s.init.index, s.init.lanes
    if isinstance(s, Store) and s.lanes > 1:
        return s.buffer, s.index, s.lanes
    return None


def _group(stmts: list, i: int) -> int:
    """n when stmts[i:i + n] are the n lanes of one access in order, else 0."""
    first = _lane_access(stmts[i])
    if first is None:
        return 0
    buf, index, n = first
    if i + n > len(stmts):
        return 0
    base, start = split_offset(index)
    for k in range(1, n):
        other = _lane_access(stmts[i + k])
        if other is None or type(stmts[i + k]) is not type(stmts[i]) or other[0] != buf or \
                other[2] != n or split_offset(other[1]) != (base, start + k):
            return 0
    return n


def split_offset(index) -> tuple:
    """`x + 3` -> (x, 3); an index without a constant term -> (index, 0)."""
    if isinstance(index, BinOp) and index.op == "+" and isinstance(index.b, Const):
        return index.a, int(index.b.value)
    return index, 0


def _first(index):
    """The lane-0 index without a `+ 0` the front end leaves."""
    base, start = split_offset(index)
    return base if start == 0 else index


def _lane_loop(n: int, taken: set, body_of) -> For:
    v = Var(fresh_name("v", taken), "int32")
    return For(v, Const(0, "int32"), BinOp("<", v, Const(n, "int32"), "bool"), Const(1, "int32"),
               [body_of(v)], vectorized=True)


def _vector_loads(group: list, taken: set) -> list:
    buf, base, n = _lane_access(group[0])
    base = _first(base)
    dtype = group[0].init.dtype
    lanes = fresh_name(f"{group[0].var.name.rsplit('_', 1)[0]}_lanes", taken)
    loop = _lane_loop(n, taken, lambda v: Store(lanes, v, Load(buf, BinOp("+", base, v, base.dtype), dtype),
                                                group[0].loc))
    return [Alloc(lanes, dtype, (n,), "local", loc=group[0].loc), loop] + \
        [dataclasses.replace(d, init=Load(lanes, Const(k, "int32"), dtype)) for k, d in enumerate(group)]


def _vector_stores(group: list, taken: set) -> list:
    buf, base, n = _lane_access(group[0])
    base = _first(base)
    dtype = group[0].value.dtype
    lanes = fresh_name(f"{buf}_lanes", taken)
    fill = [Store(lanes, Const(k, "int32"), s.value, s.loc) for k, s in enumerate(group)]
    loop = _lane_loop(n, taken, lambda v: Store(buf, BinOp("+", base, v, base.dtype),
                                                Load(lanes, v, dtype), group[0].loc))
    return [Alloc(lanes, dtype, (n,), "local", loc=group[0].loc)] + fill + [loop]
