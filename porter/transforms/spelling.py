"""Integers spelled where a port prints them by name: the last of transforms/printable.py's steps.

A port prints a tile's extent by the constexpr that set it (`T.alloc_fragment((BLOCK_M,
BLOCK_N), ...)`, `T.Parallel(BLOCK)`), and a generic CUDA template's port every integer its
values explain (`BLOCK * 2`, porter/ir/symbolic_ints.py). Which integer is printed how is
decided here, on the IR: each such integer becomes a SpelledInt carrying its text, and emit/
prints what it finds. Genericity is judged on the result (porter/generic/): two conversions
print alike exactly when their spelled IRs are equal.

    before  TileBuffer(acc, (64, 32)), constexprs BLOCK_M=64, BLOCK_N=32
    after   TileBuffer(acc, (SpelledInt(64, "BLOCK_M"), SpelledInt(32, "BLOCK_N")))

`names` spells the sizes a port always prints by name when one explains them (tile shapes,
T.Parallel extents and copied regions, a serial loop's bound that is a tile's extent
(tl.reduce's fold), shaped parameters' sizes, the lanes of a lanes-level port, the multiples
a Triton aligned program assumes); `numbers`, only for a generic CUDA template, also its
block, thread count, arrays' sizes and integer constants.
"""

from __future__ import annotations

import dataclasses

from porter.ir.nodes import Alloc, BinOp, BufferParam, Const, For, is_float
from porter.ir.symbolic_ints import ConstexprNames, IntSpelling, SpelledInt, spelled
from porter.ir.tiles import Copy, CopyOut, ParallelFor, TileBuffer
from porter.ir.walk import map_expr, map_stmts, rewrite_stmts, walk_stmts


def default_spellings(kernel) -> tuple:
    """(names, numbers) for a kernel as its port prints it: a generic CUDA template's values
    explain both, otherwise a size is named by the one constexpr that has its value."""
    if kernel.language == "cuda" and kernel.generic:
        values = IntSpelling({n: kernel.constexprs[n] for n in kernel.generic})
        return values, values
    return ConstexprNames(kernel.constexprs), None


def spell_integers(kernel, names, numbers=None):
    """The printable kernel with the integers its port prints marked (any earlier marks
    replaced): `names` and `numbers` are spellings (`spell(value) -> (text, precedence) | None`)."""
    ready = kernel.printable

    def name(value):
        return spelled(value, names) if isinstance(value, int) else value

    def number(value):
        return spelled(value, numbers) if isinstance(value, int) else value

    extents = {d for s in walk_stmts(ready.body) if isinstance(s, TileBuffer) for d in s.shape if isinstance(d, int)}

    def sized(s):
        if isinstance(s, For) and _bounded_by(s, extents):  # a fold along a tile's axis
            bound = s.cond.b
            return dataclasses.replace(s, cond=dataclasses.replace(
                s.cond, b=dataclasses.replace(bound, value=name(int(bound.value)))))
        if isinstance(s, TileBuffer):
            return dataclasses.replace(s, shape=tuple(name(d) for d in s.shape))
        if isinstance(s, ParallelFor):
            return dataclasses.replace(s, extents=tuple(name(n) for n in s.extents))
        if isinstance(s, (Copy, CopyOut)) and s.spans:  # a region's extents are its tile's
            return dataclasses.replace(s, spans=tuple(None if n is None else name(n) for n in s.spans))
        if isinstance(s, Alloc):
            return dataclasses.replace(s, shape=tuple(number(d) for d in s.shape))
        return s

    body = rewrite_stmts(ready.body, sized)
    grid, swizzle = ready.port_grid, ready.swizzle
    if numbers is not None:
        constants = {n for n, v in kernel.constexprs.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
        to_number = _constant_spelling(number, constants)
        body = map_stmts(body, to_number)
        grid = tuple(map_expr(g, to_number) for g in grid)
        swizzle = map_expr(swizzle, to_number) if swizzle is not None else None
    sizes = {s.name: number(s.size) for s in walk_stmts(body) if isinstance(s, Alloc)}
    printed = dataclasses.replace(ready, body=body, port_grid=grid, block=tuple(number(b) for b in ready.block),
                                  threads=number(ready.threads), lanes=tuple(name(b) for b in ready.lanes),
                                  alloc_sizes=sizes, swizzle=swizzle, rows=tuple(name(x) for x in ready.rows))
    params = [dataclasses.replace(p, shape=tuple(name(d) for d in p.shape))
              if isinstance(p, BufferParam) and p.shape else p for p in kernel.params]
    aligned = kernel.aligned
    if kernel.language == "triton":  # a Triton port's aligned program assumes `M % BLOCK_M == 0`
        aligned = dataclasses.replace(
            aligned, sizes={n: tuple(name(x) for x in m) if isinstance(m, tuple) else name(m)
                            for n, m in aligned.sizes.items()},
            grid=tuple((axis, n, name(tile)) for axis, n, tile in aligned.grid))
    return dataclasses.replace(kernel, printable=printed, params=params, aligned=aligned)


def _bounded_by(loop, extents: set) -> bool:
    """Whether a serial loop runs `k < N` to a tile's extent N (tl.reduce's fold by a combine
    function, frontends/triton/combine.py): N is printed as the tile's extent is."""
    cond = loop.cond
    return isinstance(cond, BinOp) and cond.op == "<" and isinstance(cond.b, Const) and cond.b.name is None \
        and isinstance(cond.b.value, int) and not isinstance(cond.b.value, (bool, SpelledInt)) \
        and cond.b.value in extents


def _constant_spelling(number, constants: set):
    """A map_expr step: an integer constant by the template values (a constexpr's own name stays)."""
    def spell(e):
        if isinstance(e, Const) and e.dtype != "bool" and not is_float(e.dtype) and e.name not in constants \
                and not isinstance(e.value, bool):
            value = number(int(e.value))
            marked = isinstance(value, SpelledInt) or isinstance(e.value, SpelledInt)
            return dataclasses.replace(e, value=value) if marked else None
        return None
    return spell
