"""Which Triton constexprs a port can take as program parameters, found by converting twice
more and comparing the IRs.

A Triton kernel is generic over its constexprs; a port is generic over one only if its program
does not depend on the value: `T.alloc_fragment((BLOCK_SIZE,), ...)` is, a
`tl.static_range(N)` unrolled N times or an `if BLOCK > 64:` folded at convert time is not.
Rather than trust that every step of the front end and the matcher keeps names, the kernel is
converted again with two sets of stand-in values (the real ones times distinct powers of two,
so that every use is spelled by name) and the programs are compared as IRs made printable
(transforms/printable.py, whose spelling step marks each integer the port prints by name;
porter/generic/program_form.py reads them): the two stand-in programs must be equal with the
names left in, and equal to the real one once every numeric constexpr is read as its real
value. Constexprs that pass are parameters of the port's program (its default is the real
value); the others stay fixed module constants, and the port's wrapper refuses other values.

The Triton front end converts (it is handed this function by porter/reader.py and calls it
with its own `reconvert`).
"""

from __future__ import annotations

from porter.diagnostics import TileportError
from porter.generic.program_form import at, by_name, program_form
from porter.transforms.printable import printable


def find_generic(kernel, reconvert, exclude=()) -> tuple:
    """(generic names, the kernel converted with stand-ins to print the port from, or None).

    `reconvert(overrides)` converts the same kernel with some constexprs set to other values;
    `exclude` names constexprs that are variants instead (enums the kernel compares).
    """
    values = kernel.constexprs
    candidates = [n for n, v in values.items() if n not in kernel.derived_constexprs and n not in exclude and
                  isinstance(v, (int, float)) and not isinstance(v, bool) and
                  kernel.constexpr_origin.get(n) != "--constexpr"]
    if not candidates:
        return (), None
    found = _try(kernel, candidates, reconvert)
    if found is None and len(candidates) > 1:
        single = [n for n in candidates if _try(kernel, [n], reconvert) is not None]
        found = _try(kernel, single, reconvert) if single else None
    return found if found is not None else ((), None)


def _try(kernel, names, reconvert):
    taken = {v for v in kernel.constexprs.values() if isinstance(v, (int, float))}
    first, taken = _stand_ins(kernel.constexprs, names, taken, 1)
    second, _ = _stand_ins(kernel.constexprs, names, taken, 2)
    try:
        a, b = reconvert(first), reconvert(second)
    except TileportError:
        return None
    real, a, b = printable(kernel), printable(a), printable(b)
    if program_form(a, by_name) != program_form(b, by_name):
        return None
    # every numeric constexpr by its real value: where two share a value the real program
    # prints the number, the stand-in one the name
    actual = {n: v for n, v in kernel.constexprs.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    if program_form(a, at(actual)) != program_form(real, at(actual)):
        return None
    return tuple(names), a


def _stand_ins(values: dict, names, taken: set, round_: int):
    out = {}
    taken = set(taken)
    for n in names:
        v = values[n]
        if isinstance(v, float):
            candidate = v * (1.5 + round_) + 0.125 * round_
        else:
            candidate = max(abs(v), 1) * 2 ** (round_ + 1)
            while candidate in taken:
                candidate *= 2
        taken.add(candidate)
        out[n] = candidate
    return out, taken
