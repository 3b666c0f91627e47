"""Cooperative groups, in their common forms, as the IR's barriers, lane indices and shuffles.

`cg::this_thread_block()` is the block, `cg::tiled_partition<N>(block)` a tile of N threads;
`.sync()`, `.thread_rank()`, `.size()`, `.meta_group_rank()`, `.shfl*()`, `.any/all/ballot()`
and `cg::reduce(tile, v, cg::plus<T>())` map onto what a thread-level kernel already has.
Group objects themselves produce no code.
"""

from __future__ import annotations

import re

from porter.diagnostics import TileportError
from porter.ir.nodes import Assign, BinOp, Builtin, Call, Const, Decl, Sync, Var

_TILE = re.compile(r"thread_block_tile<\s*(\d+)")


def group_of_type(ctype):
    """("block",) / ("tile", N) for a cooperative-groups type, else None."""
    spelling = ctype.get_canonical().spelling
    match = _TILE.search(spelling)
    if match:
        return ("tile", int(match.group(1)))
    if spelling.endswith(("thread_block", "thread_group")) or "cooperative_groups::thread_block" in spelling:
        return ("block",)  # a thread_group names whichever group it is given (calls.py, kernels.py)
    return None


def linear_rank():
    """threadIdx linearised x-fastest; axes the launch does not have read as 0 in the emitter."""
    tx, ty, tz = (Builtin("thread_idx", a, "int32") for a in range(3))
    bx, by = (Builtin("block_dim", a, "int32") for a in range(2))
    return BinOp("+", BinOp("+", tx, BinOp("*", ty, bx, "int32"), "int32"),
                 BinOp("*", tz, BinOp("*", bx, by, "int32"), "int32"), "int32")


def block_size():
    bx, by, bz = (Builtin("block_dim", a, "int32") for a in range(3))
    return BinOp("*", BinOp("*", bx, by, "int32"), bz, "int32")


def method(group, name: str, args: list, dtype: str, loc):
    """The IR for `group.name(args)` used as a value."""
    if name == "thread_rank":
        rank = linear_rank()
        return rank if group[0] == "block" else BinOp("%", rank, Const(group[1], "int32"), "int32")
    if name in ("size", "num_threads"):
        return block_size() if group[0] == "block" else Const(group[1], "int32")
    if group[0] == "tile" and name == "meta_group_rank":
        return BinOp("/", linear_rank(), Const(group[1], "int32"), "int32")
    if group[0] == "tile" and name == "meta_group_size":
        return BinOp("/", block_size(), Const(group[1], "int32"), "int32")
    if group[0] == "tile" and name in ("shfl", "shfl_down", "shfl_up", "shfl_xor"):
        return shuffle(name, args[0], args[1], group[1], dtype, loc)
    if group[0] == "tile" and name in ("any", "all", "ballot"):
        return Call(name, (args[0],), dtype)
    raise TileportError("TP155", f"cooperative-groups method '{name}' is not supported yet", loc)


def sync(group, loc):
    return Sync("block" if group[0] == "block" else "warp", loc)


_OPS = {"plus": "+", "greater": "max", "less": "min"}


def reduce(group, value, functor: str, dtype: str, fresh: str, loc) -> tuple:
    """`cg::reduce(tile, v, op)`: an xor-butterfly over the tile's lanes. Returns (stmts, result)."""
    if group[0] != "tile" or group[1] > 32 or group[1] & (group[1] - 1):
        raise TileportError("TP155", "cg::reduce is supported on tiles of up to 32 threads", loc)
    op = next((v for k, v in _OPS.items() if k in functor), None)
    if op is None:
        raise TileportError("TP155", f"cg::reduce with '{functor}' is not supported yet", loc)
    acc = Var(fresh, dtype)
    stmts = [Decl(acc, value, loc)]
    mask = group[1] // 2
    while mask:
        other = Call("shfl_xor", (acc, Const(mask, "int32")), dtype)
        combined = BinOp("+", acc, other, dtype) if op == "+" else Call(op, (acc, other), dtype)
        stmts.append(Assign(acc, combined, loc))
        mask //= 2
    return stmts, acc


def shuffle(kind: str, value, operand, width, dtype: str, loc, mask: tuple = ()):
    """A warp shuffle over segments of `width` lanes (`__shfl_*_sync(.., width)`, a tile of
    `width` threads): TileLang's shuffles take the width as CUDA's do (a third argument; a
    constant, or a value the caller passes). mask: (the lanes,) of a partial mask, else ().
    A whole-warp shuffle has two arguments, which is what the matchers' warp reductions look
    for; otherwise (value, operand, width[, mask])."""
    if isinstance(width, int) and width == 32 and not mask:
        return Call(kind, (value, operand), dtype)
    if isinstance(width, int) and width not in (1, 2, 4, 8, 16, 32):
        raise TileportError("TP154", f"a shuffle over {width} lanes is not supported (CUDA takes "
                            "a power of two up to 32)", loc)
    return Call(kind, (value, operand, Const(width, "int32") if isinstance(width, int) else width) + tuple(mask),
                dtype)


#: sm_80's `__reduce_<op>_sync(mask, v)`: the IR operator.
WARP_REDUCES = {"__reduce_add_sync": "+", "__reduce_min_sync": "min", "__reduce_max_sync": "max",
                "__reduce_and_sync": "&", "__reduce_or_sync": "|", "__reduce_xor_sync": "^"}


def _combine(op: str, a, b, dtype: str):
    return Call(op, (a, b), dtype) if op in ("min", "max") else BinOp(op, a, b, dtype)


def warp_reduce(name: str, value, dtype: str, bind):
    """`__reduce_<op>_sync(0xffffffff, v)`: every lane gets op over the warp, a butterfly of
    five xor shuffles. bind(expr) -> a local holding it."""
    op = WARP_REDUCES[name]
    acc = bind(value)
    for offset in (16, 8, 4, 2, 1):
        acc = bind(_combine(op, acc, Call("shfl_xor", (acc, Const(offset, "int32")), dtype), dtype))
    return acc
