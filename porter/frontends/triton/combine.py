"""`tl.reduce(x, axis, combine_fn)`: a reduction by a @triton.jit combine function, in tile mode.

TileLang's reductions are sum/max/min/...; a user's combine function (argmax with index
tie-breaks, Welford triples, products, any/all) has none, so the reduction runs as a serial fold
along the axis, every other position in parallel, with the combine function inlined on one
element of each operand (Triton requires it to be associative, so the fold order is free):

    acc = x[..., 0, ...]
    for k in T.serial(1, N):
        for i in T.Parallel(rest): acc[i] = combine(acc[i], x[i, k])

A tuple of blocks (`tl.reduce((v, i), 1, fn)`) folds one accumulator per block, each step
through temporaries so every new value reads the old ones.
"""

from __future__ import annotations

from porter.frontends.triton.tiles import TileDefMarker, lane_axes
from porter.frontends.triton.values import FnV, LoopMarker, Slot, SlotRef, RuntimeValue, TileRef, TupleV
from porter.ir.nodes import BinOp, Const


def reduce_with(conv, inputs, axis, combine, keep_dims, node):
    """The values `tl.reduce(inputs, axis, combine)` returns: one RuntimeValue per input (a TupleV for
    several)."""
    ops = conv.tile_ops
    xs = list(inputs.items) if isinstance(inputs, TupleV) else [inputs]
    if not isinstance(combine, FnV) or combine.kind != "jit":
        raise conv.err("TP212", "tl.reduce needs a @triton.jit combine function", node)
    xs = [ops._block(x, "tl.reduce", node) for x in xs]
    shape = xs[0].shape
    if any(x.shape != shape for x in xs):
        raise conv.err("TP212", "tl.reduce of blocks of different shapes", node)
    axis = ops._axis(axis, len(shape), node, "tl.reduce")
    if axis is None:
        if len(shape) != 1:
            raise conv.err("TP212", f"tl.reduce over all axes of a {len(shape)}-D block is not "
                           "supported; give an axis", node)
        axis = 0
    loc = conv.loc(node)
    rest = shape[:axis] + shape[axis + 1:]
    own = lane_axes(rest)

    def at(tile, position):  # the block's elements at one position along the axis
        return TileRef(tile, own[:axis] + (position,) + own[axis:], ops.tiles[tile].dtype)

    # the operands in shared memory: the fold reads them along the axis from every thread
    srcs = [ops.tile_of(x, "x", node, scope="shared") for x in xs]
    accs = []
    for src in srcs:
        info = ops.tiles[src]
        acc = ops.new_tile(f"{ops._hint(src)}_fold", rest, info.dtype, loc=loc)
        conv.out.append(TileDefMarker(acc, at(src, Const(0, "int32")), loc))
        accs.append(acc)
    if shape[axis] > 1:
        idx = len(conv.slots)
        conv.slots.append(Slot(f"{ops._hint(srcs[0])}_k", None, (), "int32", loc, phi=True))
        k = SlotRef(idx, (), "int32")
        saved, conv.out = conv.out, []
        try:
            olds = [ops.ref(a, rest) for a in accs]
            news = [RuntimeValue(at(s, k), rest) for s in srcs]
            got = conv.inline(combine.node, olds + news, {}, node, combine.bound)
            got = list(got.items) if isinstance(got, TupleV) else [got]
            if len(got) != len(accs):
                raise conv.err("TP212", f"the combine function of tl.reduce returns {len(got)} "
                               f"values for {len(accs)} blocks", node)
            temps = [ops.tile_of(RuntimeValue(conv._as_expr(g, ops.tiles[a].dtype), rest), "fold", node)
                     if conv._shape(g) == rest else
                     _broadcast_tile(conv, ops, g, rest, ops.tiles[a].dtype, loc)
                     for g, a in zip(got, accs)]
            for acc, temp in zip(accs, temps):
                conv.out.append(TileDefMarker(acc, ops.ref(temp, rest).expr, loc))
            body = conv.out
        finally:
            conv.out = saved
        conv.out.append(LoopMarker(idx, Const(1, "int32"),
                                   BinOp("<", k, Const(shape[axis], "int32"), "bool"),
                                   Const(1, "int32"), body, loc))
    outs = [ops._reduced_ref(a, shape, axis, keep_dims) for a in accs]
    return TupleV(tuple(outs)) if isinstance(inputs, TupleV) else outs[0]


def _broadcast_tile(conv, ops, v, rest, dtype, loc):
    """A combine result of another shape (a constant): written into a tile of `rest`."""
    tile = ops.new_tile("fold", rest, dtype, loc=loc)
    conv.out.append(TileDefMarker(tile, conv._as_expr(v, dtype), loc))
    return tile
