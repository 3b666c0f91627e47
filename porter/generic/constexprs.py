"""Which Triton constexprs a port can take as program parameters, found by converting twice
more and printing.

A Triton kernel is generic over its constexprs; a port is generic over one only if its text does
not depend on the value: `T.alloc_fragment((BLOCK_SIZE,), ...)` is, a `tl.static_range(N)`
unrolled N times or an `if BLOCK > 64:` folded at convert time is not. Rather than trust that
every step of the front end and the matcher keeps names, the kernel is converted again with two
sets of stand-in values (the real ones times distinct powers of two, so that every use prints
by name) and the rendered programs are compared: the two stand-in texts must be equal with the
names left in, and equal to the text of the real values once every numeric constexpr is
replaced by its real value. Constexprs that pass are parameters of the port's program (its
default is the real value); the others stay fixed module constants, and the port's wrapper
refuses other values.

The Triton front end converts (it is handed this function by porter/reader.py and calls it
with its own `reconvert`); each conversion takes the last IR steps (transforms/printable.py)
and is printed by emit/, which decides how a value is spelled (`named`, a Const's constexpr
name), so the texts compare what the port would print. Deciding on the IR instead needs that
spelling made a pass of its own first.
"""

from __future__ import annotations

import re

from porter.diagnostics import TileportError
from porter.emit.tilelang import program_text
from porter.transforms.printable import printable


def find_generic(kernel, reconvert, source_name: str, exclude=()) -> tuple:
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
    found = _try(kernel, candidates, reconvert, source_name)
    if found is None and len(candidates) > 1:
        single = [n for n in candidates if _try(kernel, [n], reconvert, source_name) is not None]
        found = _try(kernel, single, reconvert, source_name) if single else None
    return found if found is not None else ((), None)


def _try(kernel, names, reconvert, source_name):
    taken = {v for v in kernel.constexprs.values() if isinstance(v, (int, float))}
    first, taken = _stand_ins(kernel.constexprs, names, taken, 1)
    second, _ = _stand_ins(kernel.constexprs, names, taken, 2)
    try:
        a, b = reconvert(first), reconvert(second)
    except TileportError:
        return None
    real = render(kernel, source_name)
    text_a, text_b = render(a, source_name), render(b, source_name)
    if text_a is None or text_b is None or real is None:
        return None
    placeholder = {n: f"<{n}>" for n in names}
    if _substitute(text_a, placeholder) != _substitute(text_b, placeholder):
        return None
    # every numeric constexpr by its real value: where two share a value the real text prints
    # the number, the stand-in text the name
    actual = {n: repr(v) for n, v in kernel.constexprs.items()
              if isinstance(v, (int, float)) and not isinstance(v, bool)}
    if _substitute(text_a, actual) != _substitute(real, actual):
        return None
    return tuple(names), a


def render(kernel, source_name: str):
    """The program text of a kernel as converted (its last IR steps applied first)."""
    return program_text(printable(kernel), source_name)


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


def _substitute(text: str, mapping: dict) -> str:
    if not mapping:
        return text
    pattern = re.compile(r"\b(" + "|".join(re.escape(n) for n in mapping) + r")\b")
    return pattern.sub(lambda m: mapping[m.group(1)], text)
