"""The bodies of a kernel's flag/enum variants as one body that branches where they differ.

A Triton kernel with `log_target: tl.constexpr` is converted once per value; printed one
prim_func per variant, a 30-line body sat in the port twice for a one-line difference. The
variants' printed bodies are merged statement by statement instead, and where they differ the
body branches on the variant's condition, a Python value when TileLang parses the program, so
the branch is taken at compile time and each variant's program is exactly its own body:

    res = target_ * T.float32(-1.0)              if not log_target:
                                          ->         res = target_ * T.float32(-1.0)
    res = -T.exp2(target_ * ...)                 else:
                                                     res = -T.exp2(target_ * ...)

A statement is a line with the lines indented under it (an `if` with its `elif`/`else`
clauses); statements that are equal stay once, two compound statements with one header are
merged inside, anything else is a branch. Names bound in a branch stay bound after it
(TileLang's parser splices the branch it takes).
"""

from __future__ import annotations

from difflib import SequenceMatcher

_STEP = "    "
_CLAUSES = ("elif ", "else:")


def merged_body(bodies: list, conditions: list) -> list:
    """One body for variants whose bodies are `bodies` (printed lines) and whose conditions are
    `conditions` (Python text, exactly one of them true when the program is made)."""
    merged = _statements(bodies[-1])
    for body, condition in zip(reversed(bodies[:-1]), reversed(conditions[:-1])):
        merged = _merge(_statements(body), merged, condition, set(conditions))
    return [line for statement in merged for line in statement]


def _statements(lines: list) -> list:
    """Lines grouped as statements: a tuple of a line, the lines indented under it, and its
    `elif`/`else` clauses."""
    out = []
    for line in lines:
        depth, stripped = _depth(line), line.lstrip(" ")
        if out and depth > _depth(out[-1][0]) or out and stripped.startswith(_CLAUSES) and depth == _depth(out[-1][0]):
            out[-1] = out[-1] + (line,)
        else:
            out.append((line,))
    return out


def _depth(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _merge(a: list, b: list, condition: str, conditions) -> list:
    """Statements for `a` where `condition` holds and for `b` where it does not."""
    out = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            out += a[i1:i2]
        elif i2 - i1 == j2 - j1:
            for x, y in zip(a[i1:i2], b[j1:j2]):
                out.append(_merge_one(x, y, condition, conditions))
        else:
            out.append(_branch(a[i1:i2], b[j1:j2], condition, conditions))
    return out


def _merge_one(x: tuple, y: tuple, condition: str, conditions) -> tuple:
    """Two statements at one place: merged inside when they share a header and have no other
    clause, else a branch."""
    if x[0] == y[0] and x[0].rstrip().endswith(":") and not _has_clauses(x) and not _has_clauses(y):
        inner = _merge(_statements(x[1:]), _statements(y[1:]), condition, conditions)
        return (x[0],) + tuple(line for statement in inner for line in statement)
    return _branch([x], [y], condition, conditions)


def _has_clauses(statement: tuple) -> bool:
    depth = _depth(statement[0])
    return any(_depth(line) == depth and line.lstrip(" ").startswith(_CLAUSES) for line in statement[1:])


def _branch(a: list, b: list, condition: str, conditions) -> tuple:
    pad = " " * _depth((a or b)[0][0])
    lines = []
    if not a:
        lines.append(f"{pad}if not ({condition}):")
        return tuple(lines + [_STEP + line for statement in b for line in statement])
    lines.append(f"{pad}if {condition}:")
    lines += [_STEP + line for statement in a for line in statement]
    if len(b) == 1 and b[0][0].lstrip(" ").startswith("if ") and b[0][0].strip()[3:-1] in conditions \
            and _depth(b[0][0]) == len(pad):  # another variant's branch after `else:` reads as `elif`
        lines.append(f"{pad}el{b[0][0].lstrip(' ')}")
        lines += b[0][1:]
    elif b:
        lines.append(f"{pad}else:")
        lines += [_STEP + line for statement in b for line in statement]
    return tuple(lines)
