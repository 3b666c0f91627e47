"""Values, dtypes and promotion rules of the Triton front end.

While a kernel body is converted every Python expression evaluates to one of the value
classes below: a runtime tensor or scalar (`RuntimeValue`, an IR expression plus a block shape), a
pointer into a buffer parameter (`PointerValue`), a compile-time Python value (`StaticValue`: literals,
constexprs, folded arithmetic), a dtype, a module, a function, or a tuple of those.

Block tensors become lanes: a value of shape (B0, ..., Bk-1) refers to lane axes counted from
the right (the last dim is lane axis 0, like CUDA's x), so numpy broadcasting, which aligns
shapes on the right, needs no change of axes. `x[:, None]` moves a value to other axes: its
IR expression is rewritten (`remap`). Named locals are `SlotRef`s to a `Slot` (the user's
definition, in the slot's own axes) until the body is finished; then every slot is declared
once per axis placement it is used with (see triton.py, `_materialize`).

The promotion rules follow triton/language/semantic.py (`computation_type_impl`): Python
numbers and constexprs are "scalars" that do not promote a tensor of the same or higher kind
(fp16 tensor * 2.0 stays fp16), `/` and `%` on floats compute in fp32, integer `//` and `%`
truncate like C.
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass, field

from porter.diagnostics import TileportError
from porter.ir.fold import fold
from porter.ir.nodes import Builtin, Cast, Const, is_float
from porter.ir.walk import map_expr, walk_expr

# --------------------------------------------------------------------------- dtypes

# `tl.<name>` -> IR dtype
TL_DTYPES = {
    "float16": "float16", "bfloat16": "bfloat16", "float32": "float32", "float64": "float64",
    "int1": "bool", "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64",
    "uint8": "uint8", "uint16": "uint16", "uint32": "uint32", "uint64": "uint64",
}
TL_UNSUPPORTED_DTYPES = ("float8e4nv", "float8e5", "float8e4b15", "float8e4b8", "float8e5b16",
                         "float8e8m0fnu")

# `torch.<name>` -> IR dtype
TORCH_DTYPES = {
    "float16": "float16", "half": "float16", "bfloat16": "bfloat16", "float32": "float32",
    "float": "float32", "float64": "float64", "double": "float64", "int8": "int8",
    "int16": "int16", "short": "int16", "int32": "int32", "int": "int32", "int64": "int64",
    "long": "int64", "uint8": "uint8", "bool": "bool",
}


def kind(dtype: str) -> int:
    """Triton's kind order: bool < integer < floating."""
    if dtype == "bool":
        return 0
    return 2 if is_float(dtype) else 1


def int_bits(dtype: str) -> int:
    if dtype == "bool":
        return 1
    return int("".join(ch for ch in dtype if ch.isdigit()))


def is_unsigned(dtype: str) -> bool:
    return dtype.startswith("uint")


def integer_promote(a: str, b: str) -> str:
    ra, rb = int_bits(a), int_bits(b)
    ua, ub = is_unsigned(a), is_unsigned(b)
    if ua == ub:
        return a if ra > rb else b
    if ua:
        return a if ra >= rb else b
    return b if rb >= ra else a


def computation_type(a: str, a_scalar: bool, b: str, b_scalar: bool, div_or_mod: bool = False) -> str:
    """semantic.computation_type_impl on IR dtype names."""
    if a_scalar != b_scalar:
        scalar_ty, tensor_ty = (a, b) if a_scalar else (b, a)
        if kind(scalar_ty) <= kind(tensor_ty):
            a, b = tensor_ty, tensor_ty
    if "float64" in (a, b):
        return "float64"
    if div_or_mod and (is_float(a) or is_float(b)):
        return "float32"
    if "float32" in (a, b):
        return "float32"
    if "float16" in (a, b):
        return "float16"
    if a == "bfloat16" and b == "bfloat16":
        return "bfloat16"
    if "bfloat16" in (a, b):
        return "float32"
    return integer_promote(a, b)


def pyconst_dtype(value) -> str:
    """semantic.to_tensor_type for a Python number."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        if -2**31 <= value < 2**31:
            return "int32"
        if 2**31 <= value < 2**32:
            return "uint32"
        return "int64" if -2**63 <= value < 2**63 else "uint64"
    if isinstance(value, float):
        a = abs(value)
        if a == float("inf") or a == 0.0 or math.isnan(value) or 2**-126 <= a <= (2 - 2**-23) * 2**127:
            return "float32"
        return "float64"
    raise TypeError(value)


def const_of(value, dtype: str) -> Const:
    """A Python constant as an IR constant of dtype; TP225 when no machine type holds it
    (`2 ** 1024` as a float, an integer past 64 bits)."""
    if dtype == "bool":
        return Const(bool(value), "bool")
    try:
        if is_float(dtype):
            return Const(float(value), dtype)
        number = int(value)
    except (OverflowError, ValueError) as exc:
        raise TileportError("TP225", f"the constant {_short(value)} has no {dtype} value ({exc})") from None
    if not -2**63 <= number < 2**64:
        raise TileportError("TP225", f"the constant {_short(value)} does not fit in 64 bits")
    return Const(number, dtype)


def _short(value) -> str:
    text = repr(value) if not isinstance(value, int) or value.bit_length() < 200 else f"2**{value.bit_length() - 1}+..."
    return text if len(text) < 60 else text[:57] + "..."


def cast(e, dtype: str):
    """Triton's implicit and explicit conversions; float -> bool compares with zero."""
    if e.dtype == dtype:
        return e
    if dtype == "bool" and not isinstance(e, Const):
        from porter.ir.nodes import BinOp
        zero = Const(0.0, e.dtype) if is_float(e.dtype) else Const(0, e.dtype)
        return BinOp("!=", e, zero, "bool")
    return fold(Cast(dtype, e))


# --------------------------------------------------------------------------- values


@dataclass(frozen=True)
class TileRef:
    """An expression: tile `tile` read at lane axes; lanes[j] is the lane of the tile's dim j
    (counted from the left); dims of size 1 are read at 0."""

    tile: int
    lanes: tuple
    dtype: str


@dataclass(frozen=True)
class SlotRef:
    """A named local, before declaration: `axes[i]` is the lane axis of the slot's own axis i."""

    slot: int
    axes: tuple
    dtype: str


@dataclass
class Slot:
    """A user variable: `expr` is its definition with the slot's own (right-aligned) axes."""

    name: str
    expr: object
    shape: tuple
    dtype: str
    loc: object
    phi: bool = False  # assigned in both branches of a runtime if: declared without a value
    tile: int | None = None  # tile mode: the fragment holding this block value
    inline: bool = False  # always substituted where used (a pointer advanced in closed form)


@dataclass
class DeclMarker:
    """Where a slot's declarations go in the statement list."""

    slot: int
    loc: object = None


@dataclass
class PhiAssign:
    slot: int
    value: object
    loc: object = None


@dataclass
class LoopMarker:
    """A loop before its slots are named: `slot` is the loop variable's slot (None: a while)."""

    slot: object
    start: object
    cond: object
    step: object
    body: list
    loc: object = None


@dataclass
class AtomicMarker:
    """`tl.atomic_*` with its result unused; `shape` is the block shape it acts on."""

    op: str
    buffer: str
    index: object
    value: object
    mask: object
    shape: tuple
    loc: object = None


@dataclass
class RuntimeValue:
    """A runtime value: an IR expression and its block shape (() for a scalar)."""

    expr: object
    shape: tuple = ()

    @property
    def dtype(self) -> str:
        return self.expr.dtype


@dataclass
class PointerValue:
    """A (block of) pointer(s): buffer parameter, element offset (None = 0), block shape."""

    buffer: str
    offset: object
    shape: tuple
    elem: str


@dataclass
class BlockPointerValue:
    """`tl.make_block_ptr`: a window of `block` elements into a strided tensor held by a buffer.

    base: the element offset of the tensor's start (None = 0); shape, strides, offsets: one
    runtime value (RuntimeValue or StaticValue) per dim; `slots` names the carried offsets inside a loop."""

    buffer: str
    base: object
    shape: tuple
    strides: tuple
    offsets: tuple
    block: tuple
    elem: str
    slots: tuple = ()


@dataclass
class StaticValue:
    """A compile-time Python value (literal, constexpr, folded arithmetic)."""

    value: object
    name: str | None = None  # the constexpr this value came from, kept for readable ports


@dataclass
class DTypeValue:
    """A dtype as a value (`tl.float32`, `x.dtype`)."""

    dtype: str
    param: str | None = None  # `p.dtype` of a parameter not yet known to be a pointer


@dataclass
class PointerTypeValue:
    """`ptr.dtype`: its `.element_ty` is the buffer's dtype."""

    elem: str


@dataclass
class ModuleValue:
    """A module as a value (`tl`, `triton.language.math`), by its canonical path."""

    path: str  # canonical module path: triton, triton.language, triton.language.math, ...


# Triton's dtype predicates that name one dtype (`x.dtype.is_bf16()`), IR dtype each names
_DTYPE_IS = {"is_fp16": "float16", "is_bf16": "bfloat16", "is_fp32": "float32", "is_fp64": "float64",
             "is_int1": "bool", "is_bool": "bool", "is_int8": "int8", "is_int16": "int16",
             "is_int32": "int32", "is_int64": "int64", "is_uint8": "uint8", "is_uint16": "uint16",
             "is_uint32": "uint32", "is_uint64": "uint64"}


def dtype_predicate(dtype: str, name: str) -> bool | None:
    """Triton's dtype predicate `name` (`is_floating`, `is_int_signed`, `is_bf16`, ...) on an IR
    dtype, as Triton answers it (int1 is a signed integer); None when `name` is not one."""
    if name in _DTYPE_IS:
        return dtype == _DTYPE_IS[name]
    return {"is_floating": is_float(dtype), "is_int": not is_float(dtype),
            "is_int_signed": not is_float(dtype) and not dtype.startswith("uint"),
            "is_int_unsigned": dtype.startswith("uint")}.get(name)


@dataclass
class FnV:
    """A callable: kind "tl" (triton.language / triton), "libdevice", "jit" (a helper, node),
    "py" (Python builtin), "method" (bound tensor method; self in `bound`)."""

    kind: str
    name: str
    node: object = None
    bound: object = None


@dataclass
class TupleV:
    items: tuple


# --------------------------------------------------------------------------- shapes


def broadcast_shapes(a: tuple, b: tuple):
    """numpy broadcasting; None when incompatible."""
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        da = a[-i] if i <= len(a) else 1
        db = b[-i] if i <= len(b) else 1
        if da != db and 1 not in (da, db):
            return None
        out.append(max(da, db) if 1 in (da, db) else da)
    return tuple(reversed(out))


def identity_axes(rank: int) -> tuple:
    return tuple(range(rank))


def remap(e, mapping: dict):
    """Move lane axes: thread_idx on axis a -> mapping[a]; slot references likewise."""
    if not mapping or all(k == v for k, v in mapping.items()):
        return e

    def step(node):
        if isinstance(node, Builtin) and node.kind == "thread_idx":
            return Builtin(node.kind, mapping.get(node.axis, node.axis), node.dtype)
        if isinstance(node, SlotRef):
            return SlotRef(node.slot, tuple(mapping.get(a, a) for a in node.axes), node.dtype)
        if isinstance(node, TileRef):  # a lane that is an index expression moves inside it
            return TileRef(node.tile, tuple(mapping.get(a, a) if isinstance(a, int) else remap(a, mapping)
                                            for a in node.lanes), node.dtype)
        return None

    return map_expr(e, step)


def slot_refs(e):
    return [n for n in walk_expr(e) if isinstance(n, SlotRef)]


def same_node(a, b) -> bool:
    return ast.dump(a) == ast.dump(b)


@dataclass
class Evidence:
    """What one conversion pass learned that the next pass should assume."""

    float_params: set = field(default_factory=set)
    int_params: set = field(default_factory=set)  # read where only integers go (offsets, pointer offsets, //): never float
    buffer_hints: dict = field(default_factory=dict)  # buffer -> dtype suggested by the kernel
    # buffer -> stride parameters a block pointer's `order` declares fastest-varying
    fastest_strides: dict = field(default_factory=dict)


def _is_number(v) -> bool:
    return isinstance(v, StaticValue) and isinstance(v.value, (int, float, bool))


def _numeric(v) -> bool:
    return isinstance(v, RuntimeValue) or _is_number(v)
