"""Names in a port: which ones it may not take, and a fresh one beside those taken."""

from __future__ import annotations

import keyword

#: Python's keywords (`None`, `True`, `lambda`, `async` ...) and `print`: never a port's variable.
PYTHON_RESERVED = frozenset(keyword.kwlist) | {"print"}

#: Names every port module binds itself: TileLang's module and its alias, the thread and block
#: handles of `T.Kernel`.
PORT_MODULE_NAMES = frozenset({"T", "tilelang", "tx", "ty", "tz", "bx", "by", "bz"})


def fresh_name(hint: str, taken: set, numbered: bool = True, claim: bool = True) -> str:
    """`hint`, or the first of `hint_1`, `hint_2` ... (numbered) or `hint_`, `hint__` ... that
    is not in `taken`; added to `taken` unless claim is False."""
    name, n = hint, 0
    while name in taken:
        n += 1
        name = f"{hint}_{n}" if numbered else hint + "_" * n
    if claim:
        taken.add(name)
    return name
