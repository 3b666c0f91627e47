"""Triton's counter-based random numbers (`tl.rand`, `tl.randint`, `tl.randn`) as IR.

Triton draws from Philox-4x32 with 10 rounds keyed by the seed, one counter per offset
(triton/language/random.py). The port computes the same function with integer arithmetic,
so a seeded port reproduces the original's stream bit for bit: each word a kernel reads is a
`philox(...)` value, which the port prints as its `_philox` macro (templates/runtime.py.j2,
the rounds written out once per module, umulhi as the high half of the 64-bit product).
"""

from __future__ import annotations

from porter.ir.nodes import BinOp, Call, Cast, Const, Select, UnaryOp

U32 = "uint32"
# uint_to_uniform_float: the largest int32 times this rounds to just below 1.0 in float32
INT32_TO_UNIT = 4.6566127342e-10


def _u32(value: int) -> Const:
    return Const(value & 0xFFFFFFFF, U32)


def philox_words(seed, offset, bind):
    """`word(i)`: the i-th of the four Philox output words for (seed, offset), as the value
    `philox(seed, c0, c1, i)` named by `bind(name, expr)` (which returns the expression that
    reads it) on first use, so each word a kernel reads is computed once and no other is. The
    port prints `philox` as its `_philox` macro (templates/runtime.py.j2), the 10 rounds of
    Triton's philox_impl keyed by the seed's two halves, with the KEY_* and ROUND_* constants."""
    if offset.dtype in ("int64", "uint64"):
        c0 = Cast(U32, offset)
        c1 = Cast(U32, BinOp(">>", offset, Const(32, offset.dtype), offset.dtype))
    else:
        c0, c1 = Cast(U32, offset), _u32(0)
    return counter_words(seed, c0, c1, bind)


def counter_words(seed, c0, c1, bind):
    """philox_words for the counter (c0, c1, 0, 0) given as two uint32 words (`tl.philox(seed,
    c0, c1, 0, 0)`)."""
    c0, c1 = (c if c.dtype == U32 else Cast(U32, c) for c in (c0, c1))
    named: dict = {}

    def word(i: int):
        if i not in named:
            named[i] = bind(f"philox_c{i}", Call("philox", (seed, c0, c1, Const(i, "int32")), U32))
        return named[i]
    return word


def uniform(word):
    """uint_to_uniform_float: a uint32 word -> float32 in [0, 1).

    Triton reads the word as int32 x and takes `~x` when x < 0; that is `~word` in uint32
    when word >= 2**31, and the value (below 2**31 either way) converts to float the same.
    Written unsigned: TVM's simplifier takes an int32 cast of a uint32 to be non-negative."""
    high = BinOp(">=", word, _u32(0x80000000), "bool")
    x = Select(high, UnaryOp("~", word, U32), word, U32)
    return BinOp("*", Cast("float32", x), Const(INT32_TO_UNIT, "float32"), "float32")


def normal(u1, u2, second: bool = False):
    """pair_uniform_to_normal (Box-Muller): its first output (r cos th), or its second (r sin th)."""
    u1 = Call("max", (Const(1.0e-7, "float32"), u1), "float32")
    th = BinOp("*", Const(6.283185307179586, "float32"), u2, "float32")
    r = Call("sqrt", (BinOp("*", Const(-2.0, "float32"), Call("log", (u1,), "float32"), "float32"),), "float32")
    return BinOp("*", r, Call("sin" if second else "cos", (th,), "float32"), "float32")
