"""What a conversion raises to be converted again with what it learned (a pointer among the
parameters, a buffer's dtype)."""

from __future__ import annotations


class _Retype(Exception):
    """A buffer's guessed dtype was corrected from its use: convert again."""


class _NeedPointer(Exception):
    """A parameter assumed scalar turned out to be the base of a load/store address."""

    def __init__(self, name: str):
        super().__init__(name)
        self.name = name
