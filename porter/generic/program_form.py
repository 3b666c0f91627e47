"""What a kernel's program is printed from, as a value two conversions compare by.

porter/generic/ decides whether a port takes a constexpr (a template value) as a parameter of
its program by converting the kernel again with stand-in values: the port is generic over it
when the stand-in conversions' programs are one program up to the integers printed by name.
That is decided on the IR after transforms/printable.py, whose last step (spelling.py) marks
every integer the port prints by name: `program_form` reads each field the program is printed
from (the parameters, the printable body with its launch numbers, the aligned program's
multiples) into nested tuples, with every spelled integer and every constant named by a
constexpr read through one of two readings:

    by_name      `BLOCK_M`, `BLOCK * 2` as their text (two stand-in conversions compare so)
    at(values)   as the number the text stands for where the names have `values` (a stand-in
                 conversion against the real one); a name without a value reads as itself
"""

from __future__ import annotations

import dataclasses

from porter.ir.nodes import BufferParam, Const
from porter.ir.symbolic_ints import SpelledInt


#: Fields no program prints: a flat buffer's element count is bound from its tensor
#: (`T.dynamic`), and the front end's count may fold a constexpr the program never reads.
_UNPRINTED = {BufferParam: ("extent",)}


def by_name(value) -> tuple:
    """A spelled integer (or a constant named by a constexpr) by how it is written."""
    if isinstance(value, Const):
        return ("named", value.name, value.dtype)
    return ("spelled", value.text)


def at(values: dict):
    """A reading: each spelled integer and named constant as its number at `values`."""
    def read(value):
        if isinstance(value, Const):
            return Const(values.get(value.name, value.value), value.dtype)
        try:
            return value.at(values)
        except NameError:  # spelled after a name the comparison does not vary: its own number
            return int(value)
    return read


def program_form(kernel, read) -> tuple:
    """The printed-from fields of a printable kernel, spelled integers read by `read`."""
    constants = {n for n, v in kernel.constexprs.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}

    def form(x):
        if isinstance(x, SpelledInt) or (isinstance(x, Const) and x.name in constants):
            return form(read(x))
        if isinstance(x, float):  # two NaN constants are one printed constant
            return ("float", repr(x))
        if dataclasses.is_dataclass(x) and not isinstance(x, type):
            return (type(x).__name__,) + tuple(form(getattr(x, f.name)) for f in dataclasses.fields(x)
                                               if f.compare and f.name not in _UNPRINTED.get(type(x), ()))
        if isinstance(x, (list, tuple)):
            return tuple(form(y) for y in x)
        if isinstance(x, dict):
            return tuple(sorted(((repr(k), form(v)) for k, v in x.items()), key=lambda kv: kv[0]))
        return x

    aligned = kernel.aligned
    return form((kernel.params, kernel.printable, aligned.sizes, aligned.grid, aligned.unit_strides,
                 len(kernel.launch.grid), bool(kernel.launch.tile_grid)))
