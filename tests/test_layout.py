"""Ports are black- and ruff-clean as written: emit/layout.py lays lines out as black does.

black and ruff are test dependencies only (pinned in pyproject: their styles move between
releases); the port itself is laid out by tileport's own code.
"""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import black
import pytest

from porter.emit.layout import WIDTH, docstring, lay_out_module, lay_out_statement
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


def test_tileports_own_sources_are_ruff_clean():
    """porter/, bench/ and tests/ under the project's ruff settings (pyproject.toml: ruff's
    default rules at 120 columns, with the exceptions it lists and why)."""
    root = Path(__file__).resolve().parents[1]
    run = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "porter", "bench", "tests"],
                         cwd=root, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]


# --- statements in the shapes tileport writes, and random ones, against black ---------------


def _in_context(statement_lines: list[str], indent: int, compound: bool) -> str:
    """Lines placed under `indent // 4` nested ifs (and a body when compound), so black
    sees them at that indent."""
    head = "".join("    " * d + "if c:\n" for d in range(indent // 4))
    body = "\n".join(statement_lines) + "\n"
    if compound:
        body += " " * (indent + 4) + "pass\n"
    return head + body


def _check(statement: str, indent: int) -> None:
    compound = statement.endswith(":")
    mine = _in_context(lay_out_statement(statement, indent), indent, compound)
    reference = _black(_in_context([" " * indent + statement], indent, compound))
    reference = "\n".join(line for line in reference.split("\n") if line.strip()) + "\n"
    assert mine == reference, f"{statement!r} at {indent}:\n{mine}\n--- black:\n{reference}"


@pytest.mark.parametrize("statement, indent", [
    ("a[i, j] = T.if_then_else(T.And(pid_m * BLOCK_M + i < M, j < k_left), "
     "a_ptr[BLOCK_M * pid_m + i, BLOCK_K * k + j], T.float16(0.0))", 24),
    ("for i, j in T.Parallel(BLOCK_M_WITH_A_LONG_NAME, BLOCK_N_WITH_A_LONG_NAME, "
     "BLOCK_K_WITH_A_LONG_NAME, extra):", 12),
    ("with T.Kernel(T.ceildiv(N_COLUMNS, BLOCK_N), T.ceildiv(M_ROWS, BLOCK_M), "
     "threads=threads) as (pid_m, pid_n):", 8),
    ("def matmul_fp16_kernel_program(BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, threads=128, "
     "stages=2, aligned=False):", 0),
    ("def main(A: T.Tensor((M, K), T.float16), B: T.Tensor((K, N), T.float16), "
     "C: T.Tensor((M, N), T.float16)):", 4),
    ("if T.And(bx * 256 + tx < n_elements, T.Or(flag_a_long_name, flag_b_long_name)) "
     "and other_condition_name:", 16),
    ("out_ptr[bx * 256 + i] = x_ptr[bx * 256 + i] * T.float32(0.5) * (T.float32(1.0) + "
     "T.erf(x_ptr[bx * 256 + i] * T.float32(0.7071067811865476)))", 16),
    ("grid = (-(-(int(M)) // (BLOCK_M)), -(-(int(N)) // (BLOCK_N)), batch_count_long)", 8),
    ("kernel = _compiled((\"matmul_kernel\", BLOCK_M, BLOCK_N, num_warps), lambda: "
     "matmul_kernel_program(BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, threads=num_warps * 32), "
     "target)", 4),
    ("return value_with_long_name if condition_with_long_name else "
     "other_value_with_a_long_name_too", 8),
    ("acc[i, j] += a_tile_with_long_name[i, k] * b_tile_with_long_name[k, j] + "
     "bias_with_long_name[j]", 20),
])
def test_statement_shapes_match_black(statement, indent):
    _check(statement, indent)


_NAMES = ["i", "j", "bx", "BLOCK_M", "row_max", "a_ptr", "x", "stride_am", "k_left", "acc",
          "out_ptr", "n_elements", "T.float32(0.0)", "1", "256", "True", "None"]


def _expression(rng: random.Random, depth: int = 0) -> str:
    r = rng.random()
    if depth > 4 or r < 0.25:
        return rng.choice(_NAMES)
    if r < 0.45:
        op = rng.choice(["+", "-", "*", "//", "%", "<", "==", ">=", "and", "or", "<<", "&",
                         "|", "/"])
        return f"{_expression(rng, depth + 1)} {op} {_expression(rng, depth + 1)}"
    if r < 0.6:
        fn = rng.choice(["T.if_then_else", "T.max", "T.exp", "T.Cast", "T.And", "foo"])
        args = ", ".join(_expression(rng, depth + 1) for _ in range(rng.randint(1, 4)))
        return f"{fn}({args})"
    if r < 0.7:
        index = ", ".join(_expression(rng, depth + 1) for _ in range(rng.randint(1, 3)))
        return f"{rng.choice(['a_ptr', 'acc', 'smem'])}[{index}]"
    if r < 0.75:
        return f"({_expression(rng, depth + 1)})"
    if r < 0.8:
        return f"-{rng.choice(_NAMES[:8])}"
    if r < 0.85:
        return "(" + ", ".join(_expression(rng, depth + 1) for _ in range(rng.randint(2, 3))) + ")"
    if r < 0.9:
        parts = [_expression(rng, depth + 1) for _ in range(3)]
        return f"{parts[0]} if {parts[1]} else {parts[2]}"
    if r < 0.95:
        return f"f(x={_expression(rng, depth + 1)}, y={_expression(rng, depth + 1)})"
    return f"[{_expression(rng, depth + 1)} for q in range({_expression(rng, depth + 1)})]"


def _statement(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.35:
        target = rng.choice(["x", "acc[i, j]", "out_ptr[bx * 256 + i]"])
        return f"{target} {rng.choice(['=', '=', '+='])} {_expression(rng)}"
    if r < 0.5:
        args = ", ".join(_expression(rng, 2) for _ in range(rng.randint(1, 3)))
        return f"for {rng.choice(['i', 'i, j'])} in T.{rng.choice(['Parallel', 'serial'])}({args}):"
    if r < 0.6:
        return f"if {_expression(rng)}:"
    if r < 0.7:
        return f"return {_expression(rng)}"
    if r < 0.8:
        return f"T.copy({_expression(rng)}, {_expression(rng)})"
    if r < 0.88:
        grid = f"{_expression(rng, 2)}, {_expression(rng, 2)}"
        return f"with T.Kernel({grid}, threads=threads) as (bx, by):"
    if r < 0.94:
        params = ["BLOCK_M=64", "A: T.Tensor((M, K), T.float16)", "stages=2", "out_ptr"]
        return f"def program({', '.join(rng.choice(params) for _ in range(rng.randint(1, 6)))}):"
    return _expression(rng)


@pytest.mark.parametrize("seed", range(4))
def test_random_statements_match_black(seed):
    rng = random.Random(seed)
    checked = 0
    for _ in range(80):
        statement = _statement(rng)
        indent = rng.choice([0, 4, 8, 12, 16, 24])
        try:
            _black(_in_context([" " * indent + statement], indent, statement.endswith(":")))
        except black.InvalidInput:
            continue  # e.g. a repeated parameter name: black refuses it too
        _check(statement, indent)
        checked += 1
    assert checked > 60


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
