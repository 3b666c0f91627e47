"""`tl.reshape` / `tl.view` / `tl.ravel`, `tl.join` and `tl.interleave`: new block shapes over the
same elements, as index arithmetic on the lanes.

A block value is an expression of its lanes (one per dimension). A reshape keeps the row-major
order of the elements, so the value at new position (i', j') is the old value at the old
position of the same flat index: each old lane becomes `(flat // stride_d) % size_d` of the new
ones. `tl.join(a, b)` adds a last dimension of 2 (lane 0 picks a or b), and `tl.interleave(a, b)`
is that join flattened into the last dimension. Locals are read through their values (a
fragment's through a read of it), as tl.split does.

    x2 = tl.reshape(x, (G, 2))      x2[g, c] = x[2 * g + c]
    y = tl.join(u, v)               y[i, c]  = u[i] if c == 0 else v[i]
"""

from __future__ import annotations

import math

from porter.frontends.triton.tiles import NeedTiles, uses_loads
from porter.frontends.triton.values import RuntimeValue, TileRef
from porter.ir.fold import fold
from porter.ir.nodes import BinOp, Builtin, Const, Select
from porter.ir.walk import map_expr


def relane(e, lanes: dict):
    """Each lane axis `a` read in `e` (a thread index, a fragment's lane) -> `lanes[a]`."""
    def one(a):
        return lanes[a] if isinstance(a, int) else fold(relane(a, lanes))

    def step(n):
        if isinstance(n, Builtin) and n.kind == "thread_idx":
            return lanes[n.axis]
        if isinstance(n, TileRef):
            return TileRef(n.tile, tuple(one(a) for a in n.lanes), n.dtype)
        return None

    return map_expr(e, step)


def _lane(axis):
    return Builtin("thread_idx", axis, "int32")


def reshape(conv, x, shape: tuple, node):
    """x's elements in row-major order laid out as `shape` (-1: the rest)."""
    x = _block(conv, x, "tl.reshape", node)
    total = math.prod(x.shape)
    if list(shape).count(-1) == 1:
        known = math.prod(s for s in shape if s != -1)
        shape = tuple(total // known if s == -1 else s for s in shape)
    if math.prod(shape) != total or any(s <= 0 for s in shape):
        raise conv.err("TP223", f"cannot reshape a {x.shape} block to {tuple(shape)}", node)
    if tuple(shape) == x.shape:
        return x
    k2 = len(shape)
    flat = Const(0, "int32")
    for j, size in enumerate(shape):
        if size > 1:  # a dimension of 1 adds nothing to the flat index
            scaled = fold(BinOp("*", flat, Const(size, "int32"), "int32"))
            flat = _lane(k2 - 1 - j) if scaled == Const(0, "int32") else \
                BinOp("+", scaled, _lane(k2 - 1 - j), "int32")
    k = len(x.shape)
    lanes = {}
    for d, size in enumerate(x.shape):
        stride = math.prod(x.shape[d + 1:])
        pos = BinOp("/", flat, Const(stride, "int32"), "int32") if stride > 1 else flat
        lanes[k - 1 - d] = fold(BinOp("%", pos, Const(size, "int32"), "int32")) if d else fold(pos)
    return RuntimeValue(fold(relane(_held(conv, x, node), lanes)), tuple(shape))


def join(conv, a, b, node):
    """`tl.join(a, b)`: a new last dimension of 2, a at 0 and b at 1."""
    shape = conv._bshape(node, a, b)
    dt = conv._dt(a) if conv._dt(a) == conv._dt(b) else None
    if dt is None:
        raise conv.err("TP223", f"tl.join of {conv._dt(a)} and {conv._dt(b)} blocks", node)
    k = len(shape)
    up = {ax: _lane(ax + 1) for ax in range(k)}
    ea, eb = (relane(_held(conv, v if isinstance(v, RuntimeValue) else RuntimeValue(conv._as_expr(v, dt), ()), node, hint), up)
              for v, hint in ((a, "join_a"), (b, "join_b")))
    first = BinOp("==", _lane(0), Const(0, "int32"), "bool")
    return RuntimeValue(Select(first, ea, eb, dt), shape + (2,))


def interleave(conv, a, b, node):
    """`tl.interleave(a, b)`: a and b alternating along the last dimension."""
    joined = join(conv, a, b, node)
    *rest, last, two = joined.shape
    return reshape(conv, joined, tuple(rest) + (last * two,), node)


def _held(conv, x, node, hint="reshaped"):
    """x's expression with no locals: data (loads, fragments) read from a shared tile holding x, so
    stages of reshapes stay one read deep; index arithmetic inline. Tile mode only: a reshaped
    block is another block shape."""
    if not conv.tile_mode:
        raise NeedTiles()
    if uses_loads(x.expr, conv.slots):
        ops = conv.tile_ops
        # shared memory: each element is read by another thread than the one that wrote it
        # (a fragment read at moved indices has no register layout)
        return ops.ref(ops.tile_of(x, hint, node, scope="shared"), x.shape).expr
    return conv._through_locals(x.expr, node)


def _block(conv, x, what, node):
    if not isinstance(x, RuntimeValue) or not x.shape:
        raise conv.err("TP223", f"{what} needs a block tensor", node)
    return x
