"""Lay out a generated module the way black does, so a port is black-clean as written.

A port is plain code its owners keep, format and lint; tileport itself depends on no
formatter. Each statement black would change is laid out by emit/black_lines.py; lines
that fit are left as the emitter printed them, so its one-line spacing must already be
black's. Comments, docstrings and the header's kernel list are wrapped here. The suite
checks the result against black itself (tests/test_layout.py).
"""

from __future__ import annotations

import io
import re
import textwrap
import tokenize

from porter.emit.black_lines import (
    WIDTH, CannotSplit, Leaf, add_invisible_parens, classify, bracket_level, read_leaves, statement_line,
    transform_line,
)


# --- whole modules ---------------------------------------------------------------------------


def lay_out_statement(text: str, indent: int) -> list[str]:
    """`text` (one logical line, no indent) as black lays it out at `indent` spaces."""
    line = statement_line(text, indent // 4)
    return [str(part) for part in transform_line(line)]


def lay_out_comment(text: str, indent: int) -> list[str]:
    """A comment line too long for 88 columns, wrapped at words (black leaves comments)."""
    body = text.lstrip("#").strip()
    pad = " " * indent
    wrapped = textwrap.wrap(body, width=max(WIDTH - indent - 2, 20), break_long_words=False,
                            break_on_hyphens=False)
    return [f"{pad}# {part}" for part in wrapped] or [pad + "#"]


def bullet(text: str) -> str:
    """A docstring's list item wrapped at the line length, continued two spaces in."""
    return textwrap.fill(text, width=WIDTH, subsequent_indent="  ", break_long_words=False,
                         break_on_hyphens=False) or text


def docstring(text: str, indent: int = 4) -> str:
    """`text` as a docstring at `indent`: wrapped at the line length, its closing quotes
    where black puts them (on their own line when the last line has no room)."""
    paragraphs = [" ".join(part.split()) for part in text.strip().split("\n\n")]
    if len(paragraphs) == 1 and indent + len(paragraphs[0]) + 6 <= WIDTH:
        return f'"""{paragraphs[0]}"""'
    lines: list[str] = []
    for number, paragraph in enumerate(paragraphs):
        if number:
            lines.append("")
        first = not lines
        wrapped = textwrap.wrap(paragraph, width=WIDTH - indent - (3 if first else 0),
                                break_long_words=False, break_on_hyphens=False)
        if first and len(wrapped) > 1:
            rest = textwrap.wrap(paragraph[len(wrapped[0]):].strip(), width=WIDTH - indent,
                                 break_long_words=False, break_on_hyphens=False)
            wrapped = [wrapped[0], *rest]
        lines.extend(wrapped)
    if len(lines) == 1:  # one line, no room for the closing quotes: two lines
        lines = textwrap.wrap(lines[0], width=WIDTH - indent - 6, break_long_words=False,
                              break_on_hyphens=False)
    pad = " " * indent
    body = ("\n" + pad).join(lines).replace("\n" + pad + "\n", "\n\n")
    if len(lines) > 1 and indent + len(lines[-1]) + 3 > WIDTH:
        return f'"""{body}\n{pad}"""'
    return f'"""{body}"""'


def lay_out_module(source: str) -> str:
    """Every logical line of `source` that black would change, laid out as black would.

    A line that fits and has no magic trailing comma is kept as written. A statement spread
    over lines is joined and laid out again (black's rule: only magic trailing commas keep a
    layout). A trailing comment on a line too long moves onto its own line above it; long
    comment lines are wrapped. Statements holding comments or multi-line strings are kept.
    """
    return _each_statement(source, _lay_out_span)


def _each_statement(source: str, lay_out) -> str:
    """`source` with each logical line's physical lines replaced by
    lay_out(lines, indent, has_comment, has_long_string); other lines kept."""
    lines = source.split("\n")
    try:
        spans = _logical_lines(source)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return source
    out: list[str] = []
    cursor = 0
    for first, last, has_comment, has_long_string in spans:
        out.extend(lines[cursor:first])
        cursor = last + 1
        raw = lines[first:last + 1]
        indent = len(raw[0]) - len(raw[0].lstrip(" "))
        out.extend(lay_out(raw, indent, has_comment, has_long_string))
    out.extend(lines[cursor:])
    return "\n".join(out)


def _lay_out_span(raw: list[str], indent: int, has_comment: bool, has_long_string: bool) -> list[str]:
    if has_long_string:
        return raw
    if len(raw) == 1:
        stripped = raw[0].strip()
        if stripped.startswith("#"):
            return raw if len(raw[0]) <= WIDTH else lay_out_comment(stripped, indent)
        code, comment = _split_comment(stripped) if has_comment else (stripped, "")
        if len(raw[0]) <= WIDTH and not _MAGIC.search(code):
            return raw
        lead = []
        if comment:
            lead = (lay_out_comment(comment, indent) if indent + len(comment) > WIDTH
                    else [" " * indent + comment])
        try:
            return lead + lay_out_statement(code, indent)
        except CannotSplit:
            return raw
    if has_comment:
        return raw
    try:
        return lay_out_statement(_joined(raw), indent)
    except CannotSplit:
        return raw


def joined_statements(source: str) -> str:
    """Every statement of `source` on one line (the trailing commas the layout added
    dropped): what the layout started from, for tools and tests that read a port line by
    line. Statements holding comments or multi-line strings stay as they are."""
    def join(raw, indent, has_comment, has_long_string):
        if len(raw) == 1 or has_comment or has_long_string:
            return raw
        return [" " * indent + _drop_added_commas(_joined(raw))]

    return _each_statement(source, join)


def _drop_added_commas(text: str) -> str:
    """`f(a, b,)` -> `f(a, b)`; a one-tuple `(a,)` keeps its comma; the parentheses the
    layout put around a right-hand side or a condition go again."""
    try:
        leaves = read_leaves(text)
    except CannotSplit:
        return text
    classify(leaves)
    add_invisible_parens(leaves)
    keep = []
    for index, leaf in enumerate(leaves):
        following = leaves[index + 1] if index + 1 < len(leaves) else None
        if leaf.kind == "comma" and following is not None and following.is_closing:
            opening = _opening_of(leaves, index + 1)
            commas = sum(1 for i in range(opening + 1, index + 1) if leaves[i].kind == "comma"
                         and bracket_level(leaves, opening, i) == 1)
            if not (commas == 1 and leaves[opening].kind == "lpar" and not leaves[opening].trailer):
                following.prefix = ""
                continue
        keep.append(leaf)
    return "".join((leaf.prefix if n else "") + leaf.value for n, leaf in enumerate(keep))


def _opening_of(leaves: list[Leaf], closing: int) -> int:
    depth = 0
    for index in range(closing, -1, -1):
        if leaves[index].is_closing:
            depth += 1
        elif leaves[index].is_opening:
            depth -= 1
            if depth == 0:
                return index
    return 0


_MAGIC = re.compile(r",\s*[)\]}]")


def _joined(raw: list[str]) -> str:
    """A statement written over several lines, as one line spaced as black spaces it."""
    text = raw[0].strip()
    for part in raw[1:]:
        part = part.strip()
        if not part:
            continue
        glue = "" if (text[-1] in "([{" or part[0] in ")]}," or text.endswith("\\")) else " "
        text = text.rstrip("\\").rstrip() + glue + part if text.endswith("\\") else text + glue + part
    return text


def _split_comment(stripped: str) -> tuple[str, str]:
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(stripped).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return stripped, ""
    for tok in tokens:
        if tok.type == tokenize.COMMENT and tok.start[0] == 1:
            return stripped[:tok.start[1]].rstrip(), tok.string
    return stripped, ""


def _logical_lines(source: str) -> list[tuple[int, int, bool, bool]]:
    """(first, last) 0-based line numbers of each logical line and comment line, whether
    it holds a comment, and whether it holds a string spread over lines."""
    spans = []
    first = None
    has_comment = has_long_string = False
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type in (tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER):
            continue
        if first is None:
            if tok.type == tokenize.NL:
                continue
            if tok.type == tokenize.COMMENT:
                spans.append((tok.start[0] - 1, tok.start[0] - 1, True, False))
                continue
            first = tok.start[0] - 1
        if tok.type == tokenize.COMMENT:
            has_comment = True
        if tok.type == tokenize.STRING and tok.start[0] != tok.end[0]:
            has_long_string = True
        if tok.type == tokenize.NEWLINE:
            spans.append((first, tok.start[0] - 1, has_comment, has_long_string))
            first = None
            has_comment = has_long_string = False
    return spans
