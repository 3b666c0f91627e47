"""A masked load that is then cast is a guarded statement, not a select inside the cast.

TileLang 0.1.15's DecoupleTypeCast pass stages each global load of a vectorized loop that
casts into a local buffer, copied before the loop under the statement's own `if` only: the
`T.if_then_else(mask, X[i], 0)` of a masked load is read whole, past the mask, and on a GPU
past the buffer's end (measured: the port of Liger-Kernel's dyt backward, a 16-element Gamma
read 1,024 elements wide with 128-bit loads on sm_80; verify's bounds checks reported it).
The loop vectorizes when the mask is the same for each vector's lanes (a static bound, or
whole tiles). Written as two statements, a default then a guarded store, the loop body is a
sequence, which that pass leaves alone, and the load stays under its mask (a predicated
vector load):

    x[i] = T.Cast(f32, T.if_then_else(i < n, X[i], 0))   ->   x[i] = T.float32(0.0)
                                                              if i < n:
                                                                  x[i] = T.Cast(f32, X[i])

Only element stores of a T.Parallel whose value casts, holds one select whose chosen arm reads a
global buffer, and does not read the tile it stores are rewritten: the same value element by
element.
"""

from __future__ import annotations

import dataclasses

from porter.ir.nodes import Cast, Const, If, Load, Select, is_float
from porter.ir.tiles import ParallelFor, TileLoad, TileStore
from porter.ir.walk import children, map_expr, rewrite_stmts, walk_expr


def guard_cast_loads(body: list, buffers: set) -> list:
    """The body with each such element store split in two (see the module docstring);
    `buffers`: the kernel's global buffer names."""
    def rewrite(s):
        if not isinstance(s, ParallelFor):
            return s
        split = [part for x in s.body for part in _split(x, buffers)]
        return dataclasses.replace(s, body=split) if len(split) != len(s.body) else s
    return rewrite_stmts(body, rewrite)


def _split(s, buffers: set) -> list:
    if not isinstance(s, TileStore) or not _casts(s.value):
        return [s]
    if any(isinstance(e, TileLoad) and e.buffer == s.buffer for e in walk_expr(s.value)):
        return [s]  # an update (`acc[j] = acc[j] + ...`): the second statement would read the first's
    selects = [e for e in walk_expr(s.value) if isinstance(e, Select) and _reads_global(e.a, buffers)]
    if len(selects) != 1 or _reads_global(selects[0].b, buffers):
        return [s]
    select = selects[0]

    def arm(chosen):
        return map_expr(map_expr(s.value, lambda e: chosen if e is select else None), _folded)
    return [dataclasses.replace(s, value=arm(select.b)),
            If(select.cond, [dataclasses.replace(s, value=arm(select.a))], [], s.loc)]


def _casts(e) -> bool:
    """A Cast outside the indices of loads (an index's cast is no mixed-precision compute, and
    TileLang's pass ignores it too)."""
    if isinstance(e, Cast):
        return True
    return not isinstance(e, (Load, TileLoad)) and any(_casts(c) for c in children(e))


def _folded(e):
    """`T.Cast(f32, T.float16(0.0))`, the default of a masked load, as `T.float32(0.0)`."""
    if isinstance(e, Cast) and isinstance(e.a, Const) and is_float(e.dtype) and is_float(e.a.dtype):
        return Const(float(e.a.value), e.dtype)
    return None


def _reads_global(e, buffers: set) -> bool:
    return any(isinstance(x, (Load, TileLoad)) and x.buffer in buffers for x in walk_expr(e))
