"""CUDA's integer intrinsics as IR, with their exact CUDA semantics (rows of kind "intrinsic" in
porter/builtins.py; calls.py hands each one its arguments, already converted to the types of
the intrinsic's parameters).

TileLang 0.1.15 has `T.popcount` (unsigned operands only: a signed one is "Unresolved call
tirx.popcount" on CUDA and HIP) and `T.clz`; both lower to `__popc`/`__popcll`/`__clz`/`__clzll`
on CUDA and HIP. Its `T.__ffs` lowers on CUDA only (HIP: "Unresolved call tl.__ffs"), so `__ffs`
is written with `T.popcount`, which every target has. Nothing in TileLang reverses bits or
multiplies 24-bit operands: `__brev` is the shift-and-mask network the emulator runs, and
`__mul24` / `__umul24` are products of the operands' low 24 bits (sign-extended for `__mul24`),
reduced to a plain product where the operands provably fit in 24 bits (thread and block
indices and sizes whose range CUDA bounds, small constants).
"""

from __future__ import annotations

from porter.ir.nodes import BinOp, Builtin, Call, Cast, Const, Select, UnaryOp, Var, dtype_bits

#: Value ranges CUDA guarantees for its launch-geometry builtins (kind, axis) -> (lo, hi):
#: at most 1024 threads per block; grids up to 2^31 - 1 blocks on x, 65535 on y and z.
_BUILTIN_RANGE = {
    **{("thread_idx", a): (0, 1023) for a in range(3)},
    **{("block_dim", a): (1, 1024) for a in range(3)},
    ("block_idx", 0): (0, 2**31 - 2), ("block_idx", 1): (0, 65534), ("block_idx", 2): (0, 65534),
    ("grid_dim", 0): (1, 2**31 - 1), ("grid_dim", 1): (1, 65535), ("grid_dim", 2): (1, 65535),
}


def _range(e, dtype: str) -> tuple | None:
    """(lo, hi) bounds of an integer expression, when they are evident (else None)."""
    lo, hi = _dtype_range(dtype)
    if isinstance(e, Const) and isinstance(e.value, int) and not isinstance(e.value, bool):
        return (e.value, e.value) if lo <= e.value <= hi else None
    if isinstance(e, Builtin):
        return _BUILTIN_RANGE.get((e.kind, e.axis))
    if isinstance(e, Cast):
        inner = _range(e.a, e.a.dtype)
        return inner if inner is not None and lo <= inner[0] and inner[1] <= hi else None
    if isinstance(e, BinOp) and e.op in ("+", "*"):
        a, b = _range(e.a, e.dtype), _range(e.b, e.dtype)
        if a is None or b is None:
            return None
        ends = [x + y for x in a for y in b] if e.op == "+" else [x * y for x in a for y in b]
        out = (min(ends), max(ends))
        return out if lo <= out[0] and out[1] <= hi else None
    return None


def _dtype_range(dtype: str) -> tuple:
    bits = dtype_bits(dtype)
    if dtype.startswith("uint"):
        return 0, 2**bits - 1
    return -(2 ** (bits - 1)), 2 ** (bits - 1) - 1


def _c(value: int, dtype: str) -> Const:
    return Const(value, dtype)


def _unsigned(dtype: str) -> str:
    return dtype if dtype.startswith("uint") else "u" + dtype


def mul24(args, dtype: str, materialize):
    """__mul24(a, b): the low 32 bits of the product of a's and b's low 24 bits, sign-extended;
    __umul24(a, b) (dtype uint32): the low 32 bits of the product of the low 24 bits."""
    signed = not dtype.startswith("uint")
    span = (-(2**23), 2**23 - 1) if signed else (0, 2**24 - 1)
    low = []
    for x in args:
        r = _range(x, dtype)
        if r is not None and span[0] <= r[0] and r[1] <= span[1]:
            low.append(x)  # its low 24 bits are the operand itself
        elif signed:  # ((x & 0xffffff) ^ 0x800000) - 0x800000: no step leaves int32
            masked = BinOp("&", x, _c(0xFFFFFF, dtype), dtype)
            low.append(BinOp("-", BinOp("^", masked, _c(0x800000, dtype), dtype), _c(0x800000, dtype), dtype))
        else:
            low.append(BinOp("&", x, _c(0xFFFFFF, dtype), dtype))
    a, b = low
    if not signed or _range(BinOp("*", a, b, dtype), dtype) is not None:
        return BinOp("*", a, b, dtype)  # unsigned products wrap; this signed one cannot overflow
    # a signed product may leave int32: multiply as unsigned (wraps, as the hardware's low 32
    # bits do) and read the bits back as int32
    wide = _unsigned(dtype)
    return Cast(dtype, BinOp("*", Cast(wide, a), Cast(wide, b), wide))


def popc(args, dtype: str, materialize):
    """__popc(x) / __popcll(x): set bits of the unsigned operand, as int."""
    (x,) = args
    x = x if x.dtype.startswith("uint") else Cast(_unsigned(x.dtype), x)
    return Cast(dtype, Call("popcount", (x,), x.dtype))


def clz(args, dtype: str, materialize):
    """__clz(x) / __clzll(x): leading zero bits (32 / 64 for 0, on CUDA and HIP alike)."""
    (x,) = args
    return Call("clz", (x,), dtype)


def ffs(args, dtype: str, materialize):
    """__ffs(x) / __ffsll(x): the 1-based position of the lowest set bit, 0 for 0:
    popcount(u ^ (u - 1)) counts the bits up to and including the lowest set one."""
    (x,) = args
    wide = _unsigned(x.dtype)
    if isinstance(x, Cast) and x.a.dtype == wide:  # `__ffs((int)v)` of an unsigned v: v's bits
        x = x.a
    u = x if x.dtype == wide else Cast(wide, x)
    if not _simple(u):
        u = materialize(u, "ffs_operand")
    lowest = Call("popcount", (BinOp("^", u, BinOp("-", u, _c(1, wide), wide), wide),), wide)
    return Select(BinOp("==", u, _c(0, wide), "bool"), _c(0, dtype), Cast(dtype, lowest), dtype)


def brev(args, dtype: str, materialize):
    """__brev(x) / __brevll(x): the bits in reverse order (swap halves of ever smaller blocks)."""
    (x,) = args
    bits = dtype_bits(dtype)
    step = bits // 2
    while step >= 1:
        x = materialize(x, "brev_bits") if not _simple(x) else x
        mask = 0
        for start in range(0, bits, 2 * step):  # the low half of every 2*step-bit block
            mask |= ((1 << step) - 1) << start
        high = BinOp("&", BinOp(">>", x, _c(step, dtype), dtype), _c(mask, dtype), dtype)
        low = BinOp("<<", BinOp("&", x, _c(mask, dtype), dtype), _c(step, dtype), dtype)
        x = BinOp("|", high, low, dtype)
        step //= 2
    return x


_FLOAT_MAX = {"float32": 3.4028234663852886e38, "float64": 1.7976931348623157e308, "float16": 65504.0}


def frexp(x, dtype: str, materialize):
    """frexp(x, &e): (mantissa, exponent) with x = m * 2^e, 0.5 <= |m| < 1; x itself and 0 for
    zero, infinities and NaN (as C's frexp). TileLang has no bit casts of scalars, so the
    exponent is floor(log2|x|) + 1, corrected by one either way where log2 rounded across a
    power of two, and the mantissa x * 2^-e in two exact power-of-two steps (2^-e alone would
    overflow for subnormal x)."""
    x = materialize(x, "frexp_x") if not _simple(x) else x
    a = Call("abs", (x,), dtype)
    special = BinOp("||", BinOp("==", a, Const(0.0, dtype), "bool"),
                    BinOp("||", BinOp("!=", a, a, "bool"),
                          BinOp(">", a, Const(_FLOAT_MAX[dtype], dtype), "bool"), "bool"), "bool")
    special = materialize(special, "frexp_special")
    safe = materialize(Select(special, Const(1.0, dtype), x, dtype), "frexp_safe")
    e0 = materialize(BinOp("+", Cast("int32", Call("floor", (Call("log2", (Call("abs", (safe,), dtype),), dtype),),
                                                   dtype)), _c(1, "int32"), "int32"), "frexp_e0")
    half = BinOp("/", e0, _c(2, "int32"), "int32")
    scaled = BinOp("*", BinOp("*", safe, Call("exp2", (Cast(dtype, UnaryOp("-", half, "int32")),), dtype), dtype),
                   Call("exp2", (Cast(dtype, BinOp("-", half, e0, "int32")),), dtype), dtype)
    m0 = materialize(scaled, "frexp_m0")
    m_abs = Call("abs", (m0,), dtype)
    up, down = BinOp(">=", m_abs, Const(1.0, dtype), "bool"), BinOp("<", m_abs, Const(0.5, dtype), "bool")
    mantissa = Select(up, BinOp("*", m0, Const(0.5, dtype), dtype),
                      Select(down, BinOp("*", m0, Const(2.0, dtype), dtype), m0, dtype), dtype)
    exponent = BinOp("+", e0, Select(up, _c(1, "int32"), Select(down, _c(-1, "int32"), _c(0, "int32"), "int32"),
                                     "int32"), "int32")
    return Select(special, x, mantissa, dtype), Select(special, _c(0, "int32"), exponent, "int32")


def ldexp(args, dtype: str, materialize):
    """ldexp(x, e): x * 2^e, in two power-of-two steps (2^e alone overflows for e past the
    type's exponent range while the product may not)."""
    x, e = args
    e = materialize(e, "ldexp_e") if not _simple(e) else e
    half = BinOp("/", e, _c(2, e.dtype), e.dtype)
    return BinOp("*", BinOp("*", x, Call("exp2", (Cast(dtype, half),), dtype), dtype),
                 Call("exp2", (Cast(dtype, BinOp("-", e, half, e.dtype)),), dtype), dtype)


def _simple(e) -> bool:
    return isinstance(e, (Const, Builtin, Var)) or (isinstance(e, Cast) and _simple(e.a))


INTRINSICS = {"mul24": mul24, "popc": popc, "clz": clz, "ffs": ffs, "brev": brev, "ldexp": ldexp}


def build(canonical: str, args: list, dtype: str, materialize):
    """The IR of intrinsic `canonical` of (converted) args with result type dtype;
    materialize(value, name) -> a local holding value (for operands used more than once)."""
    return INTRINSICS[canonical](list(args), dtype, materialize)
