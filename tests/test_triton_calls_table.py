"""porter/tables/triton_calls.py is the one list of `tl.*` calls: every ported row has a handler
in the Triton front end and every handler a row; every refused row raises its code."""

from __future__ import annotations

import textwrap

import pytest

from porter.diagnostics import TileportError
from porter.frontends.triton import convert_triton
from porter.frontends.triton.tl_functions import HANDLERS
from porter.tables.triton_calls import IGNORED, PORTED, REFUSED

SERVED = {name for row in (*PORTED, *IGNORED) for name in row.names}
REFUSED_NAMES = {name for row in REFUSED for name in row.names}


def test_every_row_has_a_handler_and_every_handler_a_row():
    assert set(HANDLERS) - SERVED == set(), "handlers the table does not list"
    assert SERVED - set(HANDLERS) == set(), "rows no handler serves"
    assert REFUSED_NAMES & set(HANDLERS) == set()


def _convert(tmp_path, call: str):
    path = tmp_path / "k.py"
    path.write_text(textwrap.dedent(f"""
        import triton
        import triton.language as tl

        @triton.jit
        def k(x_ptr, out_ptr, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            x = tl.load(x_ptr + offs)
            y = {call}
            tl.store(out_ptr + offs, y)

        def run(x, out):
            k[(1,)](x, out, BLOCK=64)
    """))
    return convert_triton(str(path))


@pytest.mark.parametrize("row", REFUSED, ids=lambda row: row.names[0])
def test_each_refused_row_raises_its_code(tmp_path, row):
    with pytest.raises(TileportError) as caught:
        _convert(tmp_path, f"tl.{row.names[0]}(x)")
    assert caught.value.diagnostic.code == row.code
    assert row.why in caught.value.diagnostic.message


def test_a_handler_binds_tritons_parameter_names_and_refuses_a_missing_one(tmp_path):
    by_keyword = _convert(tmp_path, "tl.where(condition=x > 0, x=x, y=0.0)").kernels[0]
    positional = _convert(tmp_path, "tl.where(x > 0, x, 0.0)").kernels[0]
    assert by_keyword.body == positional.body
    with pytest.raises(TileportError) as caught:
        _convert(tmp_path, "tl.where(x > 0, x)")
    assert caught.value.diagnostic.code == "TP217" and "'y'" in caught.value.diagnostic.message
