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

Given the variants' values, each branch then tests only what tells its variants apart:
clauses with one body are one clause, and a clause's test is the fewest constexprs whose
values separate its variants from the later clauses' (FlagGems' round_kernel, converted for
every IS_FP32/IS_FP16/IS_BF16, branches `if IS_FP32: ... elif IS_FP16: ... else: ...`, not
on all eight combinations).
"""

from __future__ import annotations

from difflib import SequenceMatcher
from itertools import combinations

_STEP = "    "
_CLAUSES = ("elif ", "else:")


def merged_body(bodies: list, conditions: list, values: list | None = None) -> list:
    """One body for variants whose bodies are `bodies` (printed lines) and whose conditions are
    `conditions` (Python text, exactly one of them true when the program is made); `values`
    (each variant's {constexpr: value}, the names its condition tests) lets the branches
    test less."""
    merged = _statements(bodies[-1])
    for body, condition in zip(reversed(bodies[:-1]), reversed(conditions[:-1])):
        merged = _merge(_statements(body), merged, condition, set(conditions))
    lines = [line for statement in merged for line in statement]
    if values is None:
        return lines
    tests = _Tests(conditions, values)
    try:
        return tests.body(lines, frozenset(tests.variant.values()))
    except ValueError:  # a branch these tests cannot read: it stays on whole conditions
        return lines


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


class _Tests:
    """Branches on whole variant conditions rewritten to test the fewest constexprs."""

    def __init__(self, conditions: list, values: list):
        self.variant: dict = {}  # condition -> its first variant (forms alike on these names are one)
        for i, c in enumerate(conditions):
            self.variant.setdefault(c, i)
        self.values = values
        self.names = list(dict.fromkeys(n for v in values for n in v))

    def body(self, lines: list, variants: frozenset) -> list:
        """`lines` (one indentation level) as taken by `variants`, branches rewritten."""
        out = []
        for statement in _statements(lines):
            clauses = _clauses(statement)
            if self._tested(clauses[0][0]) is None:
                pad = " " * _depth(statement[0])
                for header, inner in clauses:
                    out.append(header)
                    out += [pad + _STEP + line for line in self.body(inner, variants)]
                continue
            out += self._chain(clauses, variants, " " * _depth(statement[0]))
        return out

    def _tested(self, header: str):
        """The variants an `if`/`elif` header on variant conditions takes given it is reached:
        ("is", i) or ("not", i); None for another header."""
        test = header.strip()
        test = test[5:-1] if test.startswith("elif ") else test[3:-1] if test.startswith("if ") else None
        if test in self.variant:
            return "is", self.variant[test]
        if test and test.startswith("not (") and test[5:-1] in self.variant:
            return "not", self.variant[test[5:-1]]
        return None

    def _chain(self, clauses: list, variants: frozenset, pad: str) -> list:
        groups: dict = {}  # body text -> the variants that take it
        left = variants
        for header, inner in clauses:
            tested = self._tested(header)
            if tested is None and header.strip() != "else:":
                raise ValueError(f"a branch on variants has the clause {header.strip()!r}")
            taken = left if tested is None else \
                left & {tested[1]} if tested[0] == "is" else left - {tested[1]}
            left -= taken
            if taken:
                text = tuple(self.body(inner, frozenset(taken)))
                groups[text] = groups.get(text, frozenset()) | taken
        if left:  # variants no clause takes: an empty else
            groups[()] = groups.get((), frozenset()) | left
        if len(groups) == 1:
            return [pad + line for line in next(iter(groups))]
        out = []
        while groups:  # the clause with the shortest test first; an empty body is the else
            if len(groups) == 1:
                text, taken = next(iter(groups.items()))
                if text:
                    out.append(pad + "else:")
                    out += [pad + _STEP + line for line in text]
                break
            tests = {text: self._separating(taken, frozenset().union(*(v for t, v in groups.items() if t != text)))
                     for text, taken in groups.items() if text}  # each clause against those after it
            text = min(tests, key=lambda t: len(tests[t]))
            out.append(f"{pad}{'elif' if out else 'if'} {tests[text]}:")
            out += [pad + _STEP + line for line in text]
            del groups[text]
        return out

    def _separating(self, taken: frozenset, later: frozenset) -> str:
        """The shortest test on the fewest constexprs true for `taken`, false for `later`."""
        for size in range(1, len(self.names) + 1):
            tests = []
            for names in combinations(self.names, size):
                mine = {tuple(self.values[v].get(n) for n in names) for v in taken}
                theirs = {tuple(self.values[v].get(n) for n in names) for v in later}
                if not mine & theirs:
                    tests.append(_test(names, mine))
            if tests:
                return min(tests, key=len)
        raise ValueError("variants with equal values")


def _test(names: tuple, tuples: set) -> str:
    """Python text true exactly where `names` hold one of `tuples`."""
    if len(names) == 1:
        values = sorted((t[0] for t in tuples), key=repr)
        if all(isinstance(v, bool) for v in values):
            return names[0] if values == [True] else f"not {names[0]}" if values == [False] else "True"
        if len(values) == 1:
            return f"{names[0]} == {values[0]!r}"
        return f"{names[0]} in ({', '.join(map(repr, values))})"
    terms = [" and ".join(_test((n,), {(v,)}) for n, v in zip(names, t)) for t in sorted(tuples, key=repr)]
    return terms[0] if len(terms) == 1 else " or ".join(f"({t})" for t in terms)


def _clauses(statement: tuple) -> list:
    """A statement as (header, body lines one level out) clauses: its `if` with `elif`/`else`."""
    depth = _depth(statement[0])
    out = []
    for line in statement:
        if _depth(line) == depth:
            out.append((line, []))
        else:
            out[-1][1].append(line[depth + len(_STEP):])
    return out
