"""Lay out a generated module the way ruff format (black's style) does, so a port is clean as
written for the formatter its owners run.

Statements are formatted by ruff itself (`ruff format -`, a dependency, 15-35 ms a port);
what no formatter touches is laid out here: docstrings and the header's kernel list are
wrapped at the line length, long comment lines are wrapped at words, and a trailing comment
that makes its line too long moves onto its own line above. The suite checks ports against
black and ruff (tests/test_layout.py).
"""

from __future__ import annotations

import io
import subprocess
import textwrap
import tokenize

#: The line length of a port: black's and ruff's default, so an owner's formatter keeps it.
WIDTH = 88


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
    """`source` laid out: comments first (long ones wrapped, a trailing comment that makes
    its line too long moved above it), then every statement by ruff format."""
    return ruff_format(_each_comment(source))


def ruff_format(source: str) -> str:
    """`source` as `ruff format --isolated` writes it (the user's ruff configuration is not
    read: a port looks the same wherever it is written). The source unchanged when ruff cannot
    run or refuses it: a port that is valid Python but laid out by hand beats no port."""
    from ruff import find_ruff_bin

    try:
        done = subprocess.run([find_ruff_bin(), "format", "--isolated", f"--line-length={WIDTH}", "-"],
                              input=source, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired, FileNotFoundError):
        return source
    return done.stdout if done.returncode == 0 and done.stdout else source


def _each_comment(source: str) -> str:
    """`source` with long comment lines wrapped and over-long lines' trailing comments moved
    above their statement; every other line kept."""
    lines = source.split("\n")
    try:
        spans = _logical_lines(source)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return source
    out: list[str] = []
    cursor = 0
    for first, last, has_comment, _ in spans:
        out.extend(lines[cursor:first])
        cursor = last + 1
        raw = lines[first:last + 1]
        indent = len(raw[0]) - len(raw[0].lstrip(" "))
        out.extend(_comments_laid_out(raw, indent) if has_comment and len(raw) == 1 else raw)
    out.extend(lines[cursor:])
    return "\n".join(out)


def _comments_laid_out(raw: list[str], indent: int) -> list[str]:
    """One physical line holding a comment, laid out: a comment line wrapped when long; a
    statement's trailing comment moved above it (wrapped) when the line is too long."""
    stripped = raw[0].strip()
    if len(raw[0]) <= WIDTH:
        return raw
    if stripped.startswith("#"):
        return lay_out_comment(stripped, indent)
    code, comment = _split_comment(stripped)
    if not comment:
        return raw
    lead = lay_out_comment(comment, indent) if indent + len(comment) > WIDTH else [" " * indent + comment]
    return lead + [" " * indent + code]


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
