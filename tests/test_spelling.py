"""Integers a port prints by name are marked on the IR (porter/transforms/spelling.py), the
printer prints the marks, and genericity is judged on the marked IR (porter/generic/), never
on printed text."""

from __future__ import annotations

import json
import pickle
import textwrap

from porter.emit.tilelang import KernelEmitter
from porter.generic.program_form import at, by_name, program_form
from porter.ir.symbolic_ints import ConstexprNames, IntSpelling, SpelledInt, int_text
from porter.ir.tiles import ParallelFor, TileBuffer
from porter.ir.walk import walk_stmts
from porter.pipeline import raise_to_tiles, read_source
from porter.transforms.printable import printable
from porter.transforms.spelling import spell_integers

HEADER = "import torch\nimport triton\nimport triton.language as tl\n\n\n"

SCALE_ROWS = HEADER + textwrap.dedent("""\
    @triton.jit
    def scale_rows(x_ptr, y_ptr, rows, cols, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
        r = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
        c = tl.arange(0, BLOCK_N)
        mask = (r[:, None] < rows) & (c[None, :] < cols)
        x = tl.load(x_ptr + r[:, None] * cols + c[None, :], mask=mask, other=0.0)
        tl.store(y_ptr + r[:, None] * cols + c[None, :], x * 2.0, mask=mask)


    def scale(x, y):
        rows, cols = x.shape
        scale_rows[(triton.cdiv(rows, 16),)](x, y, rows, cols, BLOCK_M=16, BLOCK_N=64)
    """)


def converted(tmp_path, source: str):
    path = tmp_path / "k.py"
    path.write_text(source, encoding="utf-8")
    return raise_to_tiles(read_source(str(path))).kernels[0]


def extents(kernel) -> list:
    body = kernel.printable.body
    return [d for s in walk_stmts(body) if isinstance(s, TileBuffer) for d in s.shape] + \
        [n for s in walk_stmts(body) if isinstance(s, ParallelFor) for n in s.extents]


def test_tile_extents_carry_the_constexpr_that_sets_them(tmp_path):
    k = printable(converted(tmp_path, SCALE_ROWS))
    texts = {d.text for d in extents(k) if isinstance(d, SpelledInt)}
    assert texts == {"BLOCK_M", "BLOCK_N"}
    assert all(isinstance(d, SpelledInt) for d in extents(k) if d in (16, 64))


def test_two_constexprs_of_one_value_leave_the_number(tmp_path):
    k = printable(converted(tmp_path, SCALE_ROWS.replace("BLOCK_N=64", "BLOCK_N=16")))
    assert extents(k) and not any(isinstance(d, SpelledInt) for d in extents(k) if d == 16)


def test_the_printer_prints_marks_and_decides_no_name(tmp_path):
    k = printable(converted(tmp_path, SCALE_ROWS))
    named = "\n".join(KernelEmitter(k, "k.py").view().body)
    unmarked = "\n".join(KernelEmitter(spell_integers(k, None), "k.py").view().body)
    assert "BLOCK_N" in named and "BLOCK_N" not in unmarked and "64" in unmarked


def test_genericity_never_prints(tmp_path, monkeypatch):
    """The judge of generic constexprs runs without the printer."""
    def refuse(*args, **kwargs):
        raise AssertionError("the genericity judge printed a conversion")
    monkeypatch.setattr(KernelEmitter, "__init__", refuse)
    k = converted(tmp_path, SCALE_ROWS)
    assert set(k.generic) == {"BLOCK_M", "BLOCK_N"}


def test_a_folded_value_is_not_generic_on_the_ir(tmp_path):
    """`tl.static_range(STEPS)` unrolls: the stand-in programs differ in their IR."""
    source = HEADER + textwrap.dedent("""\
        @triton.jit
        def repeat(x_ptr, y_ptr, n, BLOCK: tl.constexpr, SHIFT: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
            x = x * (SHIFT + 1)
            tl.store(y_ptr + offs, x, mask=offs < n)


        def run(x, y):
            n = x.numel()
            repeat[(triton.cdiv(n, 128),)](x, y, n, BLOCK=128, SHIFT=3)
        """)
    k = converted(tmp_path, source)
    assert "BLOCK" in k.generic
    # SHIFT + 1 folds to one number at convert time: its stand-ins print other numbers
    assert "SHIFT" not in k.generic


def test_program_forms_read_names_or_values(tmp_path):
    k = printable(converted(tmp_path, SCALE_ROWS))
    other = printable(converted(tmp_path, SCALE_ROWS.replace("BLOCK_M=16", "BLOCK_M=32")))  # same file
    assert program_form(k, by_name) == program_form(other, by_name)
    assert program_form(k, at({"BLOCK_M": 16})) != program_form(other, at({"BLOCK_M": 32}))
    assert program_form(other, at({"BLOCK_M": 16, "BLOCK_N": 64})) == program_form(k, at({"BLOCK_M": 16}))


def test_a_spelled_int_is_an_int_to_everyone_else():
    block = SpelledInt(512, "BLOCK", 13)
    twice = IntSpelling({"BLOCK": 512}).spell(1024)
    assert block == 512 and block + 1 == 513 and json.dumps([block]) == "[512]" and repr(block) == "512"
    again = pickle.loads(pickle.dumps(block))
    assert again == 512 and again.text == "BLOCK"
    assert int_text(SpelledInt(1024, *twice)) == "(BLOCK * 2)" and int_text(1024) == "1024"
    assert SpelledInt(1024, *twice).at({"BLOCK": 128}) == 256
    assert ConstexprNames({"A": 64, "B": 64, "C": 32, "F": 1.0}).spell(64) is None
    assert ConstexprNames({"A": 64, "C": 32, "F": 1.0}).spell(32) == ("C", 13)
    assert ConstexprNames({"F": 1.0}).spell(1) is None
