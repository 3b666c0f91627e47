"""One logical line laid out as black lays it out (its stable style, line length 88).

black's rules, for the statements tileport writes (assignments, calls, `for`, `if`,
`while`, `with`, `def`, `return`): right-hand splits with omitted trailers, invisible
parentheses after `=`, `return`, `if`, `for ... in` and around conditional expressions,
delimiter splits by priority, trailing commas added where black adds them. What black learns
from its parse tree (trailers, unary operators, comprehension keywords) is read off the
tokens. Whole modules: emit/layout.py.
"""

from __future__ import annotations

import io
import keyword
import tokenize

WIDTH = 88

COMMA, TERNARY, LOGIC, STRING_PRIORITY, COMPARATOR, DOT = 18, 16, 14, 12, 10, 1
COMPREHENSION = 20
_MATH = {"|": 9, "^": 8, "&": 7, "<<": 6, ">>": 6, "+": 5, "-": 5, "*": 4, "/": 4,
         "//": 4, "%": 4, "@": 4, "**": 2}
_COMPARISONS = {"<", ">", "==", "!=", "<=", ">=", "<>"}
_OPENING = {"(": "rpar", "[": "rsqb", "{": "rbrace"}
_CLOSING = {")": "rpar", "]": "rsqb", "}": "rbrace"}
_AUGMENTED = {"+=", "-=", "*=", "@=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "**=", "//="}


class CannotSplit(Exception):
    """This transform does not apply to the line (black's CannotTransform)."""


class Leaf:
    """One token of a logical line, with what black's tree would know about it."""

    __slots__ = ("kind", "value", "prefix", "before", "after", "trailer", "arg_comma",
                 "annotation", "opening", "depth")

    def __init__(self, kind: str, value: str, prefix: str = ""):
        self.kind = kind          # name, number, string, op, comma, lpar/lsqb/lbrace, rpar/...
        self.value = value        # "" for an invisible parenthesis
        self.prefix = prefix      # the space before the token on one line
        self.before = 0           # black's is_split_before_delimiter priority
        self.after = 0            # black's is_split_after_delimiter priority
        self.trailer = False      # a bracket of a call or subscript (not an atom)
        self.arg_comma = False    # a comma between call arguments or def parameters
        self.annotation = False   # inside a parameter's annotation
        self.opening: Leaf | None = None
        self.depth = 0

    @property
    def is_opening(self) -> bool:
        return self.kind in ("lpar", "lsqb", "lbrace")

    @property
    def is_closing(self) -> bool:
        return self.kind in ("rpar", "rsqb", "rbrace")

    def copy(self) -> Leaf:
        twin = Leaf(self.kind, self.value, self.prefix)
        for name in ("before", "after", "trailer", "arg_comma", "annotation"):
            setattr(twin, name, getattr(self, name))
        return twin


class Line:
    """A line being laid out: leaves, indent depth and black's bracket tracking."""

    def __init__(self, depth: int, inside_brackets: bool = False):
        self.depth = depth
        self.inside_brackets = inside_brackets
        self.leaves: list[Leaf] = []
        self.delimiters: dict[int, int] = {}
        self.invisible: list[Leaf] = []
        self.magic_trailing_comma: Leaf | None = None
        self.should_split_rhs = False
        self._depth = 0
        self._matching: dict[tuple[int, str], Leaf] = {}
        self._previous: Leaf | None = None
        self._for_depths: list[int] = []
        self._lambda_depths: list[int] = []

    def append(self, leaf: Leaf, track: bool = True) -> None:
        if track:
            self._mark(leaf)
            if self._has_magic_trailing_comma(leaf):
                self.magic_trailing_comma = leaf
        self.leaves.append(leaf)

    def _mark(self, leaf: Leaf) -> None:
        if self._depth == 0 and leaf.is_closing and (0, leaf.kind) not in self._matching:
            return
        if (self._for_depths and self._for_depths[-1] == self._depth
                and leaf.kind == "name" and leaf.value == "in"):
            self._depth -= 1
            self._for_depths.pop()
        if (self._lambda_depths and self._lambda_depths[-1] == self._depth
                and leaf.kind == "op" and leaf.value == ":"):
            self._depth -= 1
            self._lambda_depths.pop()
        if leaf.is_closing:
            self._depth -= 1
            leaf.opening = self._matching.pop((self._depth, leaf.kind))
            if not leaf.value:
                self.invisible.append(leaf)
        leaf.depth = self._depth
        if self._depth == 0:
            if leaf.before and self._previous is not None and self._before(leaf):
                self.delimiters[id(self._previous)] = self._before(leaf)
            elif leaf.after:
                self.delimiters[id(leaf)] = leaf.after
        if leaf.is_opening:
            self._matching[self._depth, _pair(leaf)] = leaf
            self._depth += 1
            if not leaf.value:
                self.invisible.append(leaf)
        self._previous = leaf
        if leaf.kind == "name" and leaf.value == "lambda":
            self._depth += 1
            self._lambda_depths.append(self._depth)
        if leaf.kind == "name" and leaf.value == "for":
            self._depth += 1
            self._for_depths.append(self._depth)

    def _before(self, leaf: Leaf) -> int:
        """The before-priority, where it depends on the previous leaf of this line."""
        previous = self._previous
        if leaf.before == DOT:
            return DOT if previous is None or previous.is_closing else 0
        if leaf.before == STRING_PRIORITY:
            return STRING_PRIORITY if previous is not None and previous.kind == "string" else 0
        return leaf.before

    def _has_magic_trailing_comma(self, closing: Leaf) -> bool:
        if not (closing.is_closing and self.leaves and self.leaves[-1].kind == "comma"):
            return False
        if closing.kind == "rbrace":
            return True
        if closing.kind == "rsqb":
            return not (closing.trailer and closing.opening is not None
                        and _one_sequence(closing.opening, closing, self.leaves))
        return closing.opening is not None and not _one_sequence(
            closing.opening, closing, self.leaves)

    @property
    def is_def(self) -> bool:
        return bool(self.leaves) and self.leaves[0].kind == "name" and self.leaves[0].value == "def"

    @property
    def is_with(self) -> bool:
        return bool(self.leaves) and self.leaves[0].value == "with"

    def __str__(self) -> str:
        if not self.leaves:
            return ""
        first, *rest = self.leaves
        return "    " * self.depth + first.value + "".join(f.prefix + f.value for f in rest)

    def __bool__(self) -> bool:
        return bool(self.leaves)

    def lengths(self, reverse: bool = False):
        indexed = list(enumerate(self.leaves))
        for index, leaf in (reversed(indexed) if reverse else indexed):
            yield index, leaf, len(leaf.prefix) + len(leaf.value)


def _pair(opening: Leaf) -> str:
    return {"lpar": "rpar", "lsqb": "rsqb", "lbrace": "rbrace"}[opening.kind]


def _one_sequence(opening: Leaf, closing: Leaf, leaves: list[Leaf], kind: str = "lpar") -> bool:
    """black's is_one_sequence_between: at most one element (a one-tuple, `x[a,]`)."""
    if opening.kind != kind or closing.kind != _pair(opening):
        return False
    if opening not in leaves:
        return False
    depth = closing.depth + 1
    commas = 0
    for leaf in leaves[leaves.index(opening) + 1:]:
        if leaf is closing:
            break
        if leaf.depth == depth and leaf.kind == "comma":
            commas += 2 if leaf.arg_comma else 1
            if leaf.arg_comma:
                break
    return commas < 2


def _comma() -> Leaf:
    comma = Leaf("comma", ",")
    comma.after = COMMA
    return comma


def _fits(line: Line | str, width: int = WIDTH) -> bool:
    return len(str(line)) <= width


# --- reading one logical line -------------------------------------------------------------


def read_leaves(text: str) -> list[Leaf]:
    """The leaves of one logical line, spaced as written."""
    leaves: list[Leaf] = []
    end = 0
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER,
                            tokenize.INDENT, tokenize.DEDENT):
                continue
            if tok.type == tokenize.COMMENT:
                raise CannotSplit("comments are laid out by their own rule")
            start = tok.start[1]
            prefix = " " if start > end and leaves else ""
            end = tok.end[1]
            if tok.start[0] != 1 or tok.end[0] != 1:
                raise CannotSplit("one physical line only")
            value = tok.string
            if tok.type == tokenize.NAME:
                kind = "name"
            elif tok.type == tokenize.NUMBER:
                kind = "number"
            elif tok.type == tokenize.STRING:
                kind = "string"
            elif value in _OPENING:
                kind = {"(": "lpar", "[": "lsqb", "{": "lbrace"}[value]
            elif value in _CLOSING:
                kind = _CLOSING[value]
            elif value == ",":
                kind = "comma"
            else:
                kind = "op"
            leaves.append(Leaf(kind, value, prefix))
    except (tokenize.TokenError, IndentationError, SyntaxError) as error:
        raise CannotSplit(str(error)) from None
    return leaves


def classify(leaves: list[Leaf]) -> None:
    """What black learns from the parse tree: trailers, unary operators, delimiters."""
    stack: list[tuple[Leaf, bool]] = []  # (opening, is a comprehension seen inside)
    comprehension_at: set[int] = set()
    is_def = bool(leaves) and leaves[0].value == "def"
    in_annotation = False
    for index, leaf in enumerate(leaves):
        previous = leaves[index - 1] if index else None
        operand_before = previous is not None and (
            previous.kind in ("number", "string") or previous.is_closing
            or (previous.kind == "name" and (not keyword.iskeyword(previous.value)
                                             or previous.value in ("True", "False", "None"))))
        level = len(stack)
        if leaf.is_opening:
            leaf.trailer = operand_before
            stack.append((leaf, False))
            continue
        if leaf.is_closing:
            if stack:
                opening, _ = stack.pop()
                leaf.trailer = opening.trailer
            comprehension_at.discard(level)
            if is_def and len(stack) == 0:
                in_annotation = False
            continue
        leaf.annotation = in_annotation
        enclosing = stack[-1][0] if stack else None
        if leaf.kind == "comma":
            leaf.after = COMMA
            leaf.arg_comma = enclosing is not None and enclosing.kind == "lpar" and (
                enclosing.trailer or (is_def and len(stack) == 1))
            if is_def and len(stack) == 1:
                in_annotation = False
            continue
        if is_def and len(stack) == 1 and leaf.value == ":":
            in_annotation = True
            continue
        if is_def and len(stack) == 1 and leaf.value == "=":
            in_annotation = False
            continue
        if leaf.kind == "op":
            if leaf.value == "." and index:
                leaf.before = DOT
            elif leaf.value in _MATH and operand_before:
                leaf.before = _MATH[leaf.value]
            elif leaf.value in _COMPARISONS:
                leaf.before = COMPARATOR
            continue
        if leaf.kind == "string":
            leaf.before = STRING_PRIORITY
            continue
        if leaf.kind != "name" or index == 0:
            continue
        value = leaf.value
        following = leaves[index + 1] if index + 1 < len(leaves) else None
        if value == "for" and enclosing is not None:
            leaf.before = COMPREHENSION
            comprehension_at.add(level)
        elif value == "if" and level in comprehension_at:
            leaf.before = COMPREHENSION
        elif value in ("if", "else"):
            leaf.before = TERNARY
        elif value == "is":
            leaf.before = COMPARATOR
        elif value == "in":
            if not _closes_for(leaves, index) and not (
                    previous is not None and previous.value == "not"):
                leaf.before = COMPARATOR
        elif value == "not":
            if following is not None and following.value == "in" and not (
                    previous is not None and previous.value == "is"):
                leaf.before = COMPARATOR
        elif value in ("and", "or"):
            leaf.before = LOGIC


def _closes_for(leaves: list[Leaf], index: int) -> bool:
    """Whether the `in` at `index` is a `for` loop's (a statement's or a comprehension's)."""
    depth = 0
    for leaf in reversed(leaves[:index]):
        if leaf.is_closing:
            depth += 1
        elif leaf.is_opening:
            if depth == 0:
                return False
            depth -= 1
        elif depth == 0 and leaf.kind == "name" and leaf.value in ("for", "in"):
            return leaf.value == "for"
    return False


def _wrap_invisible(leaves: list[Leaf], start: int, stop: int) -> None:
    """Put black's invisible parentheses around leaves[start:stop] (in place)."""
    if start >= stop:
        return
    inner = leaves[start:stop]
    if (inner[0].kind == "lpar" and _matching_close(leaves, start) == stop - 1):
        has_comma = any(l.kind == "comma" and bracket_level(leaves, start, i) == 1
                        for i, l in enumerate(leaves[start:stop], start))
        if not has_comma and stop - start != 2:
            inner[0].value = ""   # redundant parentheses become the invisible pair
            inner[-1].value = ""
            if stop - start > 2 and inner[1].kind == "lpar":
                _wrap_invisible(leaves, start + 1, stop - 1)
        return
    opening = Leaf("lpar", "", inner[0].prefix)
    inner[0].prefix = ""
    closing = Leaf("rpar", "", "")
    leaves[start:stop] = [opening, *inner, closing]


def _matching_close(leaves: list[Leaf], start: int) -> int:
    depth = 0
    for index in range(start, len(leaves)):
        if leaves[index].is_opening:
            depth += 1
        elif leaves[index].is_closing:
            depth -= 1
            if depth == 0:
                return index
    return -1


def bracket_level(leaves: list[Leaf], start: int, index: int) -> int:
    depth = 0
    for leaf in leaves[start:index]:
        depth += leaf.is_opening - leaf.is_closing
    return depth


def _top_level(leaves: list[Leaf], values: set[str]) -> list[int]:
    depth, found = 0, []
    for index, leaf in enumerate(leaves):
        if leaf.is_opening:
            depth += 1
        elif leaf.is_closing:
            depth -= 1
        elif depth == 0 and leaf.value in values and leaf.kind in ("op", "name"):
            found.append(index)
    return found


def add_invisible_parens(leaves: list[Leaf]) -> None:
    """Where black's normalize_invisible_parens puts them, for tileport's statements."""
    first = leaves[0].value if leaves[0].kind == "name" else ""
    ends_with_colon = leaves[-1].value == ":"
    if first in ("if", "elif", "while"):
        _wrap_invisible(leaves, 1, len(leaves) - 1 if ends_with_colon else len(leaves))
    elif first == "for":
        ins = _top_level(leaves, {"in"})
        if ins:
            stop = len(leaves) - 1 if ends_with_colon else len(leaves)
            _wrap_invisible(leaves, ins[0] + 1, stop)
            _wrap_invisible(leaves, 1, ins[0])
    elif first in ("return", "del"):
        if len(leaves) > 1:
            _wrap_invisible(leaves, 1, len(leaves))
    elif first in ("with", "def", "class", "import", "from", "assert", "raise", "else", "try",
                   "except", "finally", "lambda", "yield", "global", "nonlocal", "pass",
                   "break", "continue", "async", "await"):
        return
    else:
        equals = _top_level(leaves, {"="} | _AUGMENTED)
        if not equals:
            if _is_arith_like(leaves):
                _wrap_invisible(leaves, 0, len(leaves))
            return
        if any(l.kind == "comma" for i, l in enumerate(leaves[:equals[0]])
               if bracket_level(leaves, 0, i) == 0):
            _wrap_invisible(leaves, 0, equals[0])
            equals = _top_level(leaves, {"="} | _AUGMENTED)
        _wrap_invisible(leaves, equals[-1] + 1, len(leaves))


def _is_arith_like(leaves: list[Leaf]) -> bool:
    """A bare expression statement whose outermost operator is `+ - << >> & ^` (black wraps
    those in invisible parentheses, not calls, comparisons or `*`)."""
    depth, lowest = 0, None
    for leaf in leaves:
        if leaf.is_opening:
            depth += 1
        elif leaf.is_closing:
            depth -= 1
        elif depth == 0 and leaf.before:
            if leaf.before > _MATH["|"] or leaf.before == DOT:
                if leaf.before != DOT:
                    return False
                continue
            lowest = max(lowest or 0, leaf.before)
    return lowest in (5, 6, 7, 8)


_STOP_LEFT = {"return", "else", "if", "for", "lambda", "yield", "elif", "while", "assert",
              "del", "with", "as", "in"}


def _parenthesize_ternaries(leaves: list[Leaf]) -> None:
    """black's visit_test: `a if b else c` gets invisible parentheses unless it is alone
    inside a pair already (an assignment's right side, a one-argument call)."""
    done: set[int] = set()
    while True:
        ternary = next((leaf for leaf in leaves if leaf.before == TERNARY and leaf.value == "if"
                        and id(leaf) not in done), None)
        if ternary is None:
            return
        done.add(id(ternary))
        at = leaves.index(ternary)
        start = at
        depth = 0
        while start > 0:
            leaf = leaves[start - 1]
            if leaf.is_closing:
                depth += 1
            elif leaf.is_opening:
                if depth == 0:
                    break
                depth -= 1
            elif depth == 0 and (leaf.kind == "comma" or leaf.value in {"=", ":", "->"} | _AUGMENTED
                                 or (leaf.kind == "name" and leaf.value in _STOP_LEFT
                                     and not (leaf.value == "in" and leaf.before == COMPARATOR))):
                break
            start -= 1
        stop, depth, seen_else = at + 1, 0, False
        while stop < len(leaves):
            leaf = leaves[stop]
            if leaf.is_opening:
                depth += 1
            elif leaf.is_closing:
                if depth == 0:
                    break
                depth -= 1
            elif depth == 0:
                if leaf.value == "else" and leaf.before == TERNARY:
                    seen_else = True
                elif seen_else and (leaf.kind == "comma" or leaf.value in (":", "=")
                                    or leaf.before == COMPREHENSION):
                    break
            stop += 1
        if not _alone_in_parens(leaves, start, stop):
            _wrap_invisible(leaves, start, stop)


def _alone_in_parens(leaves: list[Leaf], start: int, stop: int) -> bool:
    return (start > 0 and leaves[start - 1].kind == "lpar" and stop < len(leaves)
            and _matching_close(leaves, start - 1) == stop)


def statement_line(text: str, depth: int) -> Line:
    """A logical line read from `text` (no indent), marked as black marks it."""
    leaves = read_leaves(text)
    if not leaves:
        raise CannotSplit("empty")
    classify(leaves)
    add_invisible_parens(leaves)
    _parenthesize_ternaries(leaves)
    line = Line(depth)
    for leaf in leaves:
        line.append(leaf)
    return line


# --- black's transforms ----------------------------------------------------------------------


def transform_line(line: Line, force_parens: bool = False) -> list[Line]:
    line_str = str(line)
    if not line.should_split_rhs and not line.magic_trailing_comma and _fits(line_str):
        return [line]
    if line.is_def:
        transforms = [_left_hand_split]
    elif line.inside_brackets:
        transforms = [_delimiter_split, _rhs]
    else:
        transforms = [_rhs]
    for transform in transforms:
        try:
            return _run_transformer(line, transform, force_parens, line_str)
        except CannotSplit:
            continue
    return [line]


def _run_transformer(line: Line, transform, force_parens: bool, line_str: str) -> list[Line]:
    optional = [b for b in line.invisible if b.depth == 0]
    result: list[Line] = []
    for transformed in transform(line, force_parens):
        if str(transformed) == line_str:
            raise CannotSplit("unchanged")
        result.extend(transform_line(transformed, force_parens))
    if (force_parens or transform is not _rhs or not line.invisible
            or any(b.value for b in optional) or _fits(result[0])):
        return result
    copy = Line(line.depth, line.inside_brackets)
    copy.should_split_rhs = line.should_split_rhs
    for leaf in line.leaves:
        copy.append(leaf.copy())
    second = _run_transformer(copy, transform, True, line_str)
    return second if all(_fits(ln) for ln in second) else result


def _build(leaves: list[Leaf], original: Line, opening: Leaf, component: str) -> Line:
    result = Line(original.depth)
    if component == "body":
        result.inside_brackets = True
        result.depth += 1
        if leaves and _ensure_trailing_comma(leaves, original, opening) and leaves[-1].kind != "comma":
            leaves.append(_comma())
    tracked = _inside_matching(leaves) if component == "head" else set()
    for leaf in leaves:
        result.append(leaf, track=result.inside_brackets or id(leaf) in tracked)
    if component == "body" and _should_split(result, opening):
        result.should_split_rhs = True
    return result


def _ensure_trailing_comma(leaves: list[Leaf], original: Line, opening: Leaf) -> bool:
    if not original.is_def or opening.value != "(":
        return False
    return not any(leaf.kind == "comma" and not leaf.annotation for leaf in leaves)


def _inside_matching(leaves: list[Leaf]) -> set[int]:
    ids: set[int] = set()
    stack: list[tuple[str, list[int]]] = []
    started = False
    for leaf in leaves:
        if leaf.is_opening:
            started = True
            stack.append((_pair(leaf), [id(leaf)]))
        elif leaf.is_closing:
            if stack and leaf.kind == stack[-1][0]:
                _, level = stack.pop()
                level.append(id(leaf))
                ids.update(level)
        elif started and stack:
            stack[-1][1].append(id(leaf))
    return ids


def _should_split(line: Line, opening: Leaf) -> bool:
    """black's should_split_line: a collection's body explodes one element per line."""
    if not line.leaves:
        return False
    last = line.leaves[-1]
    trailing_comma = last.kind == "comma"
    priorities = [p for k, p in line.delimiters.items() if not (trailing_comma and k == id(last))]
    if not priorities:
        return False
    return max(priorities) == COMMA and (trailing_comma or not opening.trailer)


def _succeeded_or_raise(head: Line, body: Line, tail: Line) -> None:
    tail_len = len(str(tail).strip())
    if not body:
        if tail_len == 0:
            raise CannotSplit("same line")
        if tail_len < 3:
            raise CannotSplit("not worth it")


def _left_hand_split(line: Line, force_parens: bool):
    head: list[Leaf] = []
    body: list[Leaf] = []
    tail: list[Leaf] = []
    current = head
    matching = None
    for leaf in line.leaves:
        if current is body and leaf.is_closing and leaf.opening is matching:
            current = tail if body else head
        current.append(leaf)
        if current is head and leaf.kind == "lpar" and matching is None:
            matching = leaf
            current = body
    if matching is None or not tail:
        raise CannotSplit("no brackets")
    matching.value = matching.value or "("
    head_line = _build(head, line, matching, "head")
    body_line = _build(body, line, matching, "body")
    tail_line = _build(tail, line, matching, "tail")
    _succeeded_or_raise(head_line, body_line, tail_line)
    return [part for part in (head_line, body_line, tail_line) if part]


class _RHS:
    def __init__(self, head: Line, body: Line, tail: Line, opening: Leaf, closing: Leaf):
        self.head, self.body, self.tail = head, body, tail
        self.opening, self.closing = opening, closing


def _first_rhs(line: Line, omit: frozenset[int] = frozenset()) -> _RHS:
    tail: list[Leaf] = []
    body: list[Leaf] = []
    head: list[Leaf] = []
    current = tail
    opening = closing = None
    for leaf in reversed(line.leaves):
        if current is body and leaf is opening:
            current = head if body else tail
        current.append(leaf)
        if current is tail and leaf.is_closing and id(leaf) not in omit:
            opening, closing = leaf.opening, leaf
            current = body
    if not (opening and closing and head):
        raise CannotSplit("no brackets")
    tail.reverse()
    body.reverse()
    head.reverse()
    head_line = _build(head, line, opening, "head")
    body_line = _build(body, line, opening, "body")
    tail_line = _build(tail, line, opening, "tail")
    _succeeded_or_raise(head_line, body_line, tail_line)
    return _RHS(head_line, body_line, tail_line, opening, closing)


def _rhs(line: Line, force_parens: bool):
    first_lines = None
    prefix: dict[int, int] = {}
    length = 4 * line.depth
    for leaf in line.leaves:
        prefix[id(leaf)] = length
        length += len(leaf.prefix) + len(leaf.value)
    for omit in _trailers_to_omit(line):
        if omit:
            target = next((leaf.opening for leaf in reversed(line.leaves)
                           if leaf.is_closing and id(leaf) not in omit), None)
            if target is not None and target.value and prefix.get(id(target), 0) > WIDTH:
                continue
        lines = _right_hand_split(line, force_parens, omit)
        if first_lines is None and not omit:
            first_lines = lines
        if _fits(lines[0]):
            return lines
    if first_lines is not None:
        return first_lines
    return _right_hand_split(line, force_parens, frozenset())


def _right_hand_split(line: Line, force_parens: bool, omit: frozenset[int]) -> list[Line]:
    return _maybe_omitting_optional_parens(_first_rhs(line, omit), line, force_parens, omit)


def _maybe_omitting_optional_parens(rhs: _RHS, line: Line, force_parens: bool,
                                    omit: frozenset[int]) -> list[Line]:
    if (not force_parens and rhs.opening.kind == "lpar" and not rhs.opening.value
            and rhs.closing.kind == "rpar" and not rhs.closing.value
            and _can_omit_invisible_parens(rhs)):
        omit = frozenset({id(rhs.closing), *omit})
        try:
            rhs_oop = _first_rhs(line, omit)
            if _prefer_rhs_oop(rhs_oop, rhs):
                return _maybe_omitting_optional_parens(rhs_oop, line, force_parens, omit)
        except CannotSplit:
            if not _can_be_split(rhs.body) and not _fits(rhs.body):
                raise
    rhs.opening.value = rhs.opening.value or "("
    rhs.closing.value = rhs.closing.value or ")"
    return [part for part in (rhs.head, rhs.body, rhs.tail) if part]


def _prefer_rhs_oop(rhs_oop: _RHS, rhs: _RHS) -> bool:
    head = rhs.head.leaves
    if not (len(head) >= 2 and head[-2].value == "=" and head[-2].kind == "op"):
        return True
    if not any(leaf.is_opening or leaf.is_closing for leaf in head[:-1]):
        return True
    if not _fits(rhs.head, WIDTH - 1):
        return True
    if rhs.head.magic_trailing_comma is not None:
        return True
    equals = sum(1 for leaf in head if leaf.value == "=" and leaf.kind == "op")
    oop_equals = sum(1 for leaf in rhs_oop.head.leaves if leaf.value == "=" and leaf.kind == "op")
    if equals > 1 and equals > oop_equals:
        return False
    for leaf in reversed(rhs_oop.head.leaves):
        if leaf.value == "=" and leaf.kind == "op":
            break
        if leaf.is_closing:
            return True
    return oop_equals > 0 and _fits(rhs_oop.head)


def _can_be_split(line: Line) -> bool:
    leaves = line.leaves
    if len(leaves) < 2:
        return False
    if leaves[0].kind == "string" and leaves[1].value == ".":
        calls = dots = 0
        following = leaves[-1]
        for leaf in leaves[-2::-1]:
            if leaf.is_opening:
                if not following.is_closing:
                    return False
                calls += 1
            elif leaf.value == "." and leaf.kind == "op":
                dots += 1
            elif leaf.kind == "name":
                if not (following.value == "." or following.is_opening):
                    return False
            elif not leaf.is_closing:
                return False
            if dots > 1 and calls > 1:
                return False
            following = leaf
    return True


def _can_omit_invisible_parens(rhs: _RHS) -> bool:
    line = rhs.body
    if not line.delimiters:
        return True
    top = max(line.delimiters.values())
    count = sum(1 for p in line.delimiters.values() if p == top)
    if count > 1:
        return False
    if count == 1 and top == COMMA and rhs.head.is_with:
        return False
    if top == DOT:
        return True
    first, second = line.leaves[0], line.leaves[1]
    if first.is_opening and not second.is_closing and _can_omit_opening_paren(line, first):
        return True
    penultimate, last = line.leaves[-2], line.leaves[-1]
    if last.kind in ("rpar", "rbrace") or (last.kind == "rsqb" and not last.trailer):
        if penultimate.is_opening:
            return False
        if _can_omit_closing_paren(line, last):
            return True
    return False


def _can_omit_opening_paren(line: Line, first: Leaf) -> bool:
    remainder = False
    length = 4 * line.depth
    index = -1
    for index, leaf, leaf_length in line.lengths():
        if leaf.is_closing and leaf.opening is first:
            remainder = True
        if remainder:
            length += leaf_length
            if length > WIDTH:
                return False
            if leaf.is_opening:
                remainder = False
    return len(line.leaves) == index + 1


def _can_omit_closing_paren(line: Line, last: Leaf) -> bool:
    length = 4 * line.depth
    seen_other_brackets = False
    for _, leaf, leaf_length in line.lengths():
        length += leaf_length
        if leaf is last.opening:
            if seen_other_brackets or length <= WIDTH:
                return True
        elif leaf.is_opening:
            seen_other_brackets = True
    return False


def _trailers_to_omit(line: Line):
    omit: set[int] = set()
    if not line.magic_trailing_comma:
        yield frozenset(omit)
    length = 4 * line.depth
    opening = closing = None
    inner: set[int] = set()
    for index, leaf, leaf_length in line.lengths(reverse=True):
        length += leaf_length
        if length > WIDTH:
            break
        previous = line.leaves[index - 1] if index > 0 else None
        if opening is not None:
            if leaf is opening:
                opening = None
            elif leaf.is_closing:
                if (previous is not None and previous.kind == "comma" and leaf.opening is not None
                        and not _one_sequence(leaf.opening, leaf, line.leaves)):
                    break
                inner.add(id(leaf))
        elif leaf.is_closing:
            if previous is not None and previous.is_opening:
                inner.add(id(leaf))
                continue
            if closing is not None:
                omit.add(id(closing))
                omit.update(inner)
                inner.clear()
                yield frozenset(omit)
            if (previous is not None and previous.kind == "comma" and leaf.opening is not None
                    and not _one_sequence(leaf.opening, leaf, line.leaves)):
                break
            if leaf.value:
                opening, closing = leaf.opening, leaf


def _delimiter_split(line: Line, force_parens: bool):
    if not line.leaves:
        raise CannotSplit("empty")
    last = line.leaves[-1]
    priorities = [p for k, p in line.delimiters.items() if k != id(last)]
    if not priorities:
        raise CannotSplit("no delimiters")
    top = max(priorities)
    if top == DOT and sum(1 for p in line.delimiters.values() if p == DOT) == 1:
        raise CannotSplit("a single attribute")
    delimiters = dict(line.delimiters)
    result: list[Line] = []
    current = Line(line.depth, line.inside_brackets)
    for leaf in line.leaves:
        current.append(leaf)
        if delimiters.get(id(leaf)) == top:
            result.append(current)
            current = Line(line.depth, line.inside_brackets)
    if current:
        if top == COMMA and current.leaves[-1].kind != "comma":
            current.append(_comma())
        result.append(current)
    for part in result:
        part.leaves[0].prefix = ""
    return result


