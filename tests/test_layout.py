"""Ports are black- and ruff-clean as written: emit/layout.py formats statements with ruff
format and lays out what no formatter touches (docstrings, comments) itself.

black is a test dependency only; ruff, pinned in pyproject (its style moves between releases),
formats every port tileport writes.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import black
import pytest

from porter.emit import layout
from porter.emit.layout import WIDTH, docstring, lay_out_module
from tests.test_emit_golden import CASES, golden_path

MODE = black.Mode()


def _black(text: str) -> str:
    return black.format_str(text, mode=MODE)


@pytest.mark.parametrize("rel", CASES)
def test_every_sample_port_is_black_clean(rel):
    text = golden_path(rel).read_text(encoding="utf-8")
    assert _black(text) == text
    assert max(len(line) for line in text.splitlines()) <= WIDTH


def test_every_sample_port_is_ruff_clean():
    paths = [str(golden_path(rel)) for rel in CASES]
    for rules in ([], ["--select", "E,W,F", "--line-length", str(WIDTH)]):
        run = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--isolated",
                              *rules, *paths], capture_output=True, text=True)
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    run = subprocess.run([sys.executable, "-m", "ruff", "format", "--check", "--no-cache", "--isolated", *paths],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]


def test_tileports_own_sources_are_ruff_clean():
    """porter/, bench/ and tests/ under the project's ruff settings (pyproject.toml: ruff's
    default rules at 120 columns, with the exceptions it lists and why)."""
    root = Path(__file__).resolve().parents[1]
    run = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "porter", "bench", "tests"],
                         cwd=root, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]


def test_layout_moves_a_long_trailing_comment_above_and_wraps_comments():
    source = ("def f():\n    grid = (-(-(int(n_elements)) // (BLOCK_SIZE)),)  "
              "# as the original's launch site computes it, for the record\n"
              "    # " + "word " * 30 + "\n")
    laid_out = lay_out_module(source)
    assert laid_out.splitlines()[1].startswith("    # as the original's")
    assert "grid = (-(-(int(n_elements)) // (BLOCK_SIZE)),)" in laid_out
    assert max(len(line) for line in laid_out.splitlines()) <= WIDTH
    assert _black(laid_out) == laid_out


def test_layout_keeps_lines_that_fit_and_joins_statements_written_over_lines():
    fits = "x = foo(a, b)\n"
    assert lay_out_module(fits) == fits
    spread = "x = foo(\n    a,\n    b\n)\n"   # no magic trailing comma: black joins it
    assert lay_out_module(spread) == fits == _black(spread)
    long = "def f():\n    return some_function_name(" + ", ".join(f"argument_{i}" for i in range(12)) + ")\n"
    laid_out = lay_out_module(long)
    assert laid_out == _black(long) != long
    assert max(len(line) for line in laid_out.splitlines()) <= WIDTH


def test_layout_is_the_same_whatever_ruff_configuration_the_output_folder_has(tmp_path, monkeypatch):
    (tmp_path / "ruff.toml").write_text("line-length = 200\n[format]\nquote-style = 'single'\n")
    monkeypatch.chdir(tmp_path)
    source = 'x = call("a string", ' + ", ".join(f"argument_{i}" for i in range(12)) + ")\n"
    assert lay_out_module(source) == _black(source)


def test_layout_keeps_the_source_when_ruff_cannot_format_it(monkeypatch):
    broken = "def f(:\n    return 1\n"
    assert lay_out_module(broken) == broken
    import ruff

    monkeypatch.setattr(ruff, "find_ruff_bin", lambda: "/nonexistent/ruff")
    spread = "x = foo(\n    a,\n    b\n)\n"
    assert layout.lay_out_module(spread) == spread  # unformatted, still valid Python


@pytest.mark.parametrize("text", [
    "The TileLang program for `adamw_update`: one T.Kernel block per original block.",
    "Short.",
    "Run the port of `k` with the original's parameters (torch tensors for pointers).\n\n"
    "target: a TileLang target (None: CUDA); `tileport verify` also runs the port on the CPU.",
])
def test_docstrings_are_where_black_leaves_them(text):
    source = f"def f():\n    {docstring(text)}\n    return 1\n"
    assert _black(source) == source
    assert max(len(line) for line in source.splitlines()) <= WIDTH
