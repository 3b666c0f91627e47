"""The raw Philox calls kernels compose their own streams from: `tl.philox(seed, c0, c1, c2,
c3)` (four uint32 words), `tl.uint_to_uniform_float(word)` and `tl.pair_uniform_to_normal(u1,
u2)`, as random.py's IR: the port's `_philox` macro draws counter (c0, c1, 0, 0), which is
what libraries pass (`_O = c0 * 0` for the upper words)."""

from __future__ import annotations

from porter.diagnostics import TileportError
from porter.frontends.triton.random import counter_words, normal, uniform
from porter.ir.philox import ROUNDS
from porter.ir.fold import fold
from porter.ir.nodes import BinOp, Call, Cast, Const, is_float

RANDOM_CALLS = {"philox", "uint_to_uniform_float", "pair_uniform_to_normal"}


def random_call(conv, name, args, kwargs, node):
    from porter.frontends.triton.values import StaticValue, TupleV, RuntimeValue

    if name == "philox":
        seed = conv._need(args, kwargs, 0, "seed", node, "tl.philox")
        c = [conv._need(args, kwargs, i + 1, f"c{i}", node, "tl.philox") for i in range(4)]
        rounds = conv._arg(args, kwargs, 5, "n_rounds", StaticValue(ROUNDS))
        if not (isinstance(rounds, StaticValue) and rounds.value == ROUNDS):
            raise conv.err("TP213", f"tl.philox with n_rounds other than {ROUNDS} is not supported", node)
        for v, what in ((seed, "seed"), *((x, f"c{i}") for i, x in enumerate(c))):
            if not (isinstance(v, RuntimeValue) or (isinstance(v, StaticValue) and isinstance(v.value, int))) or \
                    is_float(conv._dt(v)):
                raise conv.err("TP213", f"the {what} of tl.philox must be an integer", node)
        if conv._shape(seed) != ():
            raise conv.err("TP213", "the seed of tl.philox must be a scalar", node)
        if not all(_zero(conv, v, node) for v in c[2:]):
            raise conv.err("TP213", "tl.philox with counter words c2, c3 other than 0 is not "
                           "supported", node)
        shape = conv._bshape(node, *c)
        # each word an expression of its own: a word the kernel never reads is never drawn
        words = counter_words(conv._as_expr(seed, conv._dt(seed)), *(_u32(conv, v) for v in c[:2]),
                              lambda hint, expr: fold(expr))
        return TupleV(tuple(RuntimeValue(words(i), shape) for i in range(4)))
    if name == "uint_to_uniform_float":
        x = conv._need(args, kwargs, 0, "x", node, f"tl.{name}")
        if not isinstance(x, RuntimeValue) or conv._dt(x) not in ("int32", "uint32"):
            raise conv.err("TP213", f"tl.{name} of a {conv._dt(x)} value is not supported (int32 or "
                           "uint32 words only)", node)
        word = x.expr if x.dtype == "uint32" else Call("bitcast", (x.expr,), "uint32")
        return RuntimeValue(uniform(word), x.shape)
    u1 = conv._need(args, kwargs, 0, "u1", node, f"tl.{name}")
    u2 = conv._need(args, kwargs, 1, "u2", node, f"tl.{name}")
    shape = conv._bshape(node, u1, u2)
    a, b = (conv._as_expr(v, "float32") for v in (u1, u2))
    return TupleV((RuntimeValue(normal(a, b), shape), RuntimeValue(normal(a, b, second=True), shape)))


def _u32(conv, v):
    e = conv._as_expr(v, conv._dt(v))
    return e if e.dtype == "uint32" else Cast("uint32", e)


def _zero(conv, v, node) -> bool:
    """Whether a counter word is 0 for every lane (`0`, `c0 * 0`, a local holding one)."""
    from porter.frontends.triton.values import StaticValue

    if isinstance(v, StaticValue):
        return v.value == 0
    try:
        return _zero_expr(fold(conv._through_locals(v.expr, node)))
    except TileportError:  # a local assigned in a loop or branch: not provably 0
        return False


def _zero_expr(e) -> bool:
    if isinstance(e, Const):
        return e.value == 0
    if isinstance(e, Cast):
        return _zero_expr(e.a)
    if isinstance(e, BinOp) and e.op in ("*", "&"):
        return _zero_expr(e.a) or _zero_expr(e.b)
    return False
