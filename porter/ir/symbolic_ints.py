"""Integers of a port's text spelled after the values that explain them.

A Triton port names a tile's extent by the one constexpr with its value (`ConstexprNames`). A
generic CUDA template port is printed from a conversion with stand-in values
(frontends/cuda/generic_templates.py): there `1024` is `BLOCK`, `2048` is `BLOCK * 2` and
`512` is `BLOCK // 2` (`IntSpelling`); evaluated at other values (`evaluate_at`) the same
spellings give the numbers they stand for. transforms/spelling.py puts a spelling on the IR as
a `SpelledInt`, which emit/ prints (`int_text`) and porter/generic/ compares.
"""

from __future__ import annotations

#: Integers this small are never spelled (loop steps, lane counts, flags).
_SMALLEST = 4
_FACTORS = tuple(range(2, 17))
_DIVISORS = (2, 4, 8, 16, 32, 64)
_PRECEDENCE = {"atom": 13, "*": 10, "+": 9}


class IntSpelling:
    """`values`: name -> the stand-in value each name has in the text being printed."""

    def __init__(self, values: dict, evaluate_at: dict | None = None):
        self.values = dict(values)
        self.evaluate_at = evaluate_at

    def spell(self, value: int):
        """(text, precedence) for an integer the names explain, else None."""
        form = self._form(int(value))
        if form is None:
            return None
        text, precedence = form
        if self.evaluate_at is not None:
            number = eval(text, {"__builtins__": {}}, dict(self.evaluate_at))  # noqa: S307 - our own text
            return str(number), _PRECEDENCE["atom"]
        return text, precedence

    def text(self, value: int) -> str:
        """The integer as its spelling (parenthesized past an atom) or its digits."""
        form = self.spell(value)
        if form is None:
            return str(value)
        text, precedence = form
        return text if precedence == _PRECEDENCE["atom"] else f"({text})"

    def _form(self, v: int):
        if abs(v) < _SMALLEST:
            return None
        items = list(self.values.items())
        for name, a in items:
            if v == a:
                return name, _PRECEDENCE["atom"]
        for name, a in items:
            for k in _FACTORS:
                if v == a * k:
                    return f"{name} * {k}", _PRECEDENCE["*"]
            for k in _DIVISORS:
                if a % k == 0 and v == a // k:
                    return f"{name} // {k}", _PRECEDENCE["*"]
            if v == a - 1:
                return f"{name} - 1", _PRECEDENCE["+"]
            for k in _FACTORS:  # a rounding-up division's `(n + 2 * BLOCK - 1) / (2 * BLOCK)`
                if v == a * k - 1:
                    return f"{name} * {k} - 1", _PRECEDENCE["+"]
            if v == a + 1:
                return f"{name} + 1", _PRECEDENCE["+"]
        for i, (name, a) in enumerate(items):
            for other, b in items[i:]:
                if v == a * b:
                    return f"{name} * {other}", _PRECEDENCE["*"]
        return None


class ConstexprNames:
    """A Triton port's spelling: an integer by the int constexpr that has its value, when exactly
    one has it (a float constexpr of 1.0 never names a size-1 fragment)."""

    def __init__(self, constexprs: dict):
        self.names = {}
        for name, value in constexprs.items():
            if type(value) is int:
                self.names.setdefault(value, []).append(name)

    def spell(self, value: int):
        names = self.names.get(int(value), ())
        return (names[0], _PRECEDENCE["atom"]) if len(names) == 1 else None


class SpelledInt(int):
    """An integer its port prints as a name or an expression of names (`BLOCK`, `BLOCK * 2`):
    transforms/spelling.py sets it where the port prints one, emit/ prints `text`; to everyone
    else it is the int it equals."""

    def __new__(cls, value: int, text: str, precedence: int):
        out = super().__new__(cls, int(value))
        out.text, out.precedence = text, precedence
        return out

    def __getnewargs__(self):
        return int(self), self.text, self.precedence

    def at(self, values: dict) -> int:
        """The number the spelling stands for where its names have `values`."""
        return eval(self.text, {"__builtins__": {}}, dict(values))  # noqa: S307 - our own text

    @property
    def is_atom(self) -> bool:
        return self.precedence == _PRECEDENCE["atom"]


class DerivedInt(SpelledInt):
    """An integer the program factory computes from its parameters before the prim_func
    (`ROWS = max(1, threads // BLOCK)`, transforms/rows_per_block.py): printed by its name,
    which every reading of porter/generic/ compares as written."""

    def __new__(cls, value: int, text: str, precedence: int = _PRECEDENCE["atom"]):
        return super().__new__(cls, value, text, precedence)

    def at(self, values: dict):
        return ("derived", self.text)


def spelled(value: int, spelling) -> int:
    """`value` marked with its spelling, or the plain int when the spelling does not explain it."""
    if isinstance(value, DerivedInt):
        return value
    form = spelling.spell(int(value)) if spelling is not None else None
    return SpelledInt(value, *form) if form is not None else int(value)


def int_text(value) -> str:
    """How a port prints an integer: its spelling (parenthesized past an atom) or its digits."""
    if isinstance(value, SpelledInt):
        return value.text if value.is_atom else f"({value.text})"
    return str(value)
