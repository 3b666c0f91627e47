"""Triton constructs of published kernel libraries: dtypes read off values, constexpr `.value`,
`tl.reduce` with a combine function. Conversion checks here; numeric ones in tests/fresh/triton."""

from __future__ import annotations

import textwrap

import pytest

from porter.frontends.triton import convert_triton
from porter.ir.nodes import Cast, Store
from porter.ir.printer import format_module
from porter.ir.walk import walk_expr, walk_stmts

HEADER = "import torch\nimport triton\nimport triton.language as tl\n"


def write(tmp_path, body: str, name: str = "kern.py") -> str:
    path = tmp_path / name
    path.write_text(HEADER + textwrap.dedent(body))
    return str(path)


def kernel(path, name):
    return next(k for k in convert_triton(path).kernels if k.name == name)


def test_constexpr_value_and_dtype_value_in_a_helper(tmp_path):
    path = write(tmp_path, """
        @triton.jit
        def lowest(dtype):
            d = dtype.value
            if d.is_floating():
                v: tl.constexpr = float("-inf")
                return v
            return -1 * 2 ** (d.primitive_bitwidth - 1)

        @triton.jit
        def shifted(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK.value + tl.arange(0, BLOCK.value)
            x = tl.load(x_ptr + offs, mask=offs < n, other=lowest(x_ptr.type.element_ty))
            tl.store(out_ptr + offs, x + 1, mask=offs < n)

        def run(x, out):
            shifted[(4,)](x, out, x.numel(), BLOCK=64)
    """)
    text = format_module(convert_triton(path, dtypes={"x_ptr": "int16"}))
    assert "-32768" in text
    text = format_module(convert_triton(path))
    assert "-inf" in text


@pytest.mark.parametrize("spelling", ["x_ptr.type.element_ty", "x_ptr.dtype.element_ty",
                                      "x.dtype", "x.type.element_ty"])
def test_a_cast_to_the_dtype_a_value_names(tmp_path, spelling):
    path = write(tmp_path, f"""
        @triton.jit
        def back(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            x = tl.load(x_ptr + offs, mask=offs < n)
            y = x.to(tl.float32) * 2.0
            tl.store(out_ptr + offs, y.to({spelling}), mask=offs < n)
    """)
    k = kernel(path, "back")
    (st,) = [s for s in walk_stmts(k.body) if isinstance(s, Store)]
    assert isinstance(st.value, Cast) and st.value.dtype == "float16"
    assert k.param("x_ptr").dtype == "float16"


def test_zeros_and_full_of_the_dtype_a_pointer_names(tmp_path):
    path = write(tmp_path, """
        @triton.jit
        def fill(out_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            a = tl.zeros((BLOCK,), dtype=out_ptr.dtype.element_ty)
            b = tl.full((BLOCK,), 3, dtype=a.dtype)
            tl.store(out_ptr + offs, a + b, mask=offs < n)
    """)
    k = convert_triton(path, dtypes={"out_ptr": "int16"}).kernels[0]
    assert {e.dtype for s in walk_stmts(k.body) if isinstance(s, Store) for e in walk_expr(s.value)} == {"int16"}
