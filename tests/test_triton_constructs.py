"""Triton constructs of published kernel libraries: dtypes read off values, constexpr `.value`,
`tl.reduce` with a combine function. Conversion checks here; numeric ones in tests/fresh/triton."""

from __future__ import annotations

import re
import textwrap

import pytest

from porter.frontends.triton import convert_triton
from porter.diagnostics import TileportError
from porter.pipeline import print_port
from porter.reader import read_source
from porter.ir.nodes import Cast, For, Store
from porter.ir.printer import format_expr, format_module
from porter.ir.tiles import Reduce
from porter.ir.walk import walk_expr, walk_stmts
from porter.pipeline import raise_to_tiles
from tests.conftest import ROOT

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



FOLD = """
    @triton.jit
    def _smaller_first(va, ia, vb, ib):
        take_b = (vb < va) | ((vb == va) & (ib < ia))
        return tl.where(take_b, vb, va), tl.where(take_b, ib, ia)

    @triton.jit
    def _plus(a, b):
        return a + b

    @triton.jit
    def folds(x_ptr, idx_ptr, sum_ptr, cols, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
        r = tl.arange(0, BLOCK_R)
        c = tl.arange(0, BLOCK_C)
        x = tl.load(x_ptr + r[:, None] * cols + c[None, :], mask=c[None, :] < cols, other=1e30)
        pos = tl.broadcast_to(c[None, :], (BLOCK_R, BLOCK_C))
        _, where = tl.reduce((x, pos), 1, _smaller_first)
        tl.store(idx_ptr + r, where)
        tl.store(SUM_AT, SUM_CALL)

    def run(x, idx, sums):
        folds[(1,)](x, idx, sums, x.shape[1], BLOCK_R=8, BLOCK_C=16)
"""


@pytest.mark.parametrize("sum_at, sum_call", [
    ("sum_ptr + c", "tl.reduce(x, 0, _plus)"),
    ("sum_ptr + c", "x.reduce(0, _plus)"),
    ("sum_ptr + c", "tl.reduce(x, axis=0, combine_fn=_plus)"),
    ("sum_ptr + c[None, :]", "tl.reduce(x, 0, _plus, keep_dims=True)"),
])
def test_reduce_with_a_combine_function_is_a_serial_fold_along_the_axis(tmp_path, sum_at, sum_call):
    path = write(tmp_path, FOLD.replace("SUM_AT", sum_at).replace("SUM_CALL", sum_call))
    k = kernel(path, "folds")
    loops = [s for s in walk_stmts(k.body) if isinstance(s, For)]
    # one fold over the columns (value/index pairs), one over the rows (sums), from element 1
    assert sorted(format_expr(s.cond) for s in loops) == sorted(
        f"({s.var.name} < {n})" for s, n in zip(loops, (16, 8)))
    assert [format_expr(s.start) for s in loops] == ["1", "1"]
    assert not [s for s in walk_stmts(k.body) if isinstance(s, Reduce)]


def test_reduce_needs_a_jit_combine_function(tmp_path):
    path = write(tmp_path, FOLD.replace("SUM_AT", "sum_ptr + c").replace("SUM_CALL", "tl.reduce(x, 0, max)"))
    with pytest.raises(TileportError) as info:
        kernel(path, "folds")
    assert info.value.diagnostic.code == "TP212" and "combine function" in info.value.diagnostic.message


@pytest.mark.parametrize("use", ["slot // block_size", "(slot >> 4) + (slot & 15)",
                                 "slot // 16 * block_size + slot % 16"])
def test_integer_operators_on_a_loaded_value_type_its_untyped_buffer_as_integers(tmp_path, use):
    path = write(tmp_path, f"""
        @triton.jit
        def place(slots_ptr, src_ptr, dst_ptr, block_size, BLOCK: tl.constexpr):
            t = tl.program_id(0)
            slot = tl.load(slots_ptr + t)
            where = {use}
            offs = tl.arange(0, BLOCK)
            tl.store(dst_ptr + where * BLOCK + offs, tl.load(src_ptr + t * BLOCK + offs))

        def run(slots, src, dst, block_size):
            place[(slots.shape[0],)](slots, src, dst, block_size, BLOCK=32)
    """)
    k = kernel(path, "place")
    assert k.param("slots_ptr").dtype == "int32"


RESHAPE = """
    @triton.jit
    def shaped(x_ptr, out_ptr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs)
        BODY
        tl.store(out_ptr + offs, y)

    def run(x, out):
        shaped[(1,)](x, out, BLOCK=16)
"""


PAIRS = "a, b = tl.split(tl.reshape(x, (BLOCK // 2, 2))); "


def _port_text(tmp_path, body):
    return format_module(convert_triton(write(tmp_path, RESHAPE.replace("BODY", body))))


@pytest.mark.parametrize("body, reads", [
    # pairs: element i of the result reads x at 2 * (i // 2) and 2 * (i // 2) + 1
    (PAIRS + "y = tl.reshape(tl.join(b, a), (BLOCK,))", "pairs"),
    (PAIRS.replace("tl.reshape(x, (BLOCK // 2, 2))", "x.reshape(BLOCK // 2, 2)") +
     "y = tl.join(b, a).reshape(BLOCK)", "pairs"),
    (PAIRS.replace("tl.reshape", "tl.view") + "y = tl.view(tl.join(b, a), (BLOCK,))", "pairs"),
    # a (4, 4) tile transposed and flattened: element i reads x at (i % 4) * 4 + i // 4
    ("y = tl.ravel(tl.trans(tl.reshape(x, (4, 4))))", "transposed"),
    ("y = tl.reshape(tl.permute(tl.reshape(x, (4, -1)), (1, 0)), (-1,))", "transposed"),
])
def test_reshapes_are_index_arithmetic_on_the_lanes(tmp_path, body, reads):
    text = _port_text(tmp_path, body)
    if reads == "pairs":  # y[i] = (b, a)[i % 2][i // 2]: x[2 * (i // 2) + 1 - i % 2]
        assert "join_a[i] = x[((i * 2) + 1)]" in text and "join_b[i] = x[((i * 2) + 0)]" in text, text
        assert "out_ptr[i] = reshaped[(i / 2), (i % 2)]" in text, text
    else:  # y[i] = x[(i % 4) * 4 + i // 4]
        assert "reshaped[i, j] = x[((j * 4) + i)]" in text, text
        assert "out_ptr[i] = reshaped[(i / 4), (i % 4)]" in text, text


def test_interleave_alternates_two_blocks(tmp_path):
    text = _port_text(tmp_path, "y = tl.interleave(tl.load(x_ptr + tl.arange(0, BLOCK // 2)), "
                                "tl.load(x_ptr + BLOCK // 2 + tl.arange(0, BLOCK // 2)))")
    assert "reshaped[i, j] = ((j == 0) ? join_a[i] : join_b[i])" in text, text
    assert "join_b[i] = x_ptr[(8 + i)]" in text and "out_ptr[i] = reshaped[(i / 2), (i % 2)]" in text, text


def test_a_reshape_that_changes_the_element_count_is_refused(tmp_path):
    with pytest.raises(TileportError) as info:
        convert_triton(write(tmp_path, RESHAPE.replace("BODY", "y = tl.reshape(x, (BLOCK, 2)).reshape(BLOCK)")))
    assert info.value.diagnostic.code == "TP223" and "cannot reshape" in info.value.diagnostic.message


def test_a_size_that_meets_float_data_and_indexes_memory_is_an_integer():
    """`sum / n` first types the unannotated n float; `x_ptr + row * n` then makes it int32."""
    path = str(ROOT / "tests/fresh/triton/row_norm_packed_rows.py")
    k = kernel(path, "norm_rows")
    assert k.param("n").dtype == "int32" and k.param("eps").dtype == "float32"
    # the launch grid calls next_power_of_2 on the host: the port takes it as a parameter
    text = print_port(raise_to_tiles(read_source(path)))
    assert "grid_x: T.int32" in text and "with T.Kernel(grid_x, " in text


@pytest.mark.parametrize("n, p", [(1, 1), (2, 2), (3, 4), (100, 128), (1024, 1024)])
def test_a_launch_grid_of_next_power_of_2_evaluates(n, p):
    from porter.ir.fold import evaluate
    from porter.ir.nodes import Call, Var

    grid = Call("ceildiv", (Var("m", "int32"), Call("next_power_of_2", (Var("n", "int32"),), "int32")), "int32")
    assert evaluate(grid, {"m": 4096, "n": n}) == 4096 // p


@pytest.mark.parametrize("spelling", ["x.to(tl.int32, bitcast=True)", "tl.cast(x, tl.int32, bitcast=True)",
                                      "x.to(tl.int32, None, True)", "tl.cast(x, dtype=tl.int32, bitcast=True)"])
def test_a_bitcast_reinterprets_the_bits(tmp_path, spelling):
    path = write(tmp_path, f"""
        @triton.jit
        def bits(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            x = tl.load(x_ptr + offs, mask=offs < n)
            tl.store(out_ptr + offs, {spelling} >> 23, mask=offs < n)

        def run(x, out):
            bits[(4,)](x, out, x.numel(), BLOCK=64)
    """)
    k = convert_triton(path, dtypes={"x_ptr": "float32", "out_ptr": "int32"}).kernels[0]
    calls = [e for s in walk_stmts(k.body) if isinstance(s, Store) for e in walk_expr(s.value)
             if getattr(e, "func", None) == "bitcast"]
    assert [c.dtype for c in calls] == ["int32"] and calls[0].args[0].dtype == "float32"
    assert "T.reinterpret(" in print_port(raise_to_tiles(read_source(path)))


def test_a_bitcast_to_another_width_is_refused(tmp_path):
    path = write(tmp_path, """
        @triton.jit
        def bits(x_ptr, out_ptr, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            tl.store(out_ptr + offs, tl.load(x_ptr + offs).to(tl.int16, bitcast=True))
    """)
    with pytest.raises(TileportError) as info:
        convert_triton(path, dtypes={"x_ptr": "float32", "out_ptr": "int16"})
    assert info.value.diagnostic.code == "TP225" and "same number of bits" in info.value.diagnostic.message


PHILOX = """
    @triton.jit
    def draw(out_ptr, seed, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        CALL
        tl.store(out_ptr + offs, tl.uint_to_uniform_float(w))

    def run(out, seed):
        draw[(1,)](out, seed, BLOCK=64)
"""


@pytest.mark.parametrize("call, word", [
    ("w, _, _, _ = tl.philox(seed, offs, 0, 0, 0)", 0),
    ("c0 = offs.to(tl.uint32); z = c0 * 0; _, w, _, _ = tl.philox(seed, c0, z, z, z)", 1),
    ("_, _, _, w = tl.philox(seed, offs, 0, 0, 0, n_rounds=10)", 3),
])
def test_philox_words_are_the_ports_philox_macro(tmp_path, call, word):
    path = write(tmp_path, PHILOX.replace("CALL", call))
    k = convert_triton(path).kernels[0]
    words = {e.args[3].value for s in walk_stmts(k.body) for e in all_exprs_of(s) if getattr(e, "func", None) == "philox"}
    assert word in words
    # the port draws the word it stores and no other
    assert re.findall(r"= _philox\(.*?\)\[(\d)\]", print_port(raise_to_tiles(read_source(path)))) == [str(word)]


@pytest.mark.parametrize("call, message", [
    ("w, _, _, _ = tl.philox(seed, offs, 0, offs, 0)", "c2, c3 other than 0"),
    ("w, _, _, _ = tl.philox(seed, offs, 0, 0, 0, n_rounds=7)", "n_rounds other than 10"),
])
def test_philox_streams_the_macro_cannot_draw_are_refused(tmp_path, call, message):
    with pytest.raises(TileportError) as info:
        convert_triton(write(tmp_path, PHILOX.replace("CALL", call)))
    assert info.value.diagnostic.code == "TP213" and message in info.value.diagnostic.message


def all_exprs_of(stmt):
    from porter.ir.walk import stmt_exprs

    return [sub for e in stmt_exprs(stmt) for sub in walk_expr(e)]


@pytest.mark.parametrize("spelling", ["x.type.scalar", "x.dtype.scalar", "x_ptr.dtype.element_ty.scalar"])
def test_a_blocks_scalar_type_decides_at_convert_time(tmp_path, spelling):
    path = write(tmp_path, f"""
        @triton.jit
        def halve_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
            if {spelling}.is_int():
                y = x // 2
            else:
                y = x * 0.5
            tl.store(y_ptr + offs, y, mask=offs < n)
    """)
    text = format_module(convert_triton(path))
    assert "0.5" in text and "// 2" not in text


def test_module_constants_from_dtype_limits(tmp_path):
    """`tl.constexpr(torch.finfo(torch.float32).max)` and `torch.iinfo(torch.int32).min` at
    module level: limits torch computes, constants of the kernel (sort and top-k kernels)."""
    path = write(tmp_path, """
        _BIG = tl.constexpr(torch.finfo(torch.float32).max)
        _LOW = torch.iinfo(torch.int32).min

        @triton.jit
        def clamp_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            x = tl.load(x_ptr + offs, mask=offs < n, other=_BIG)
            tl.store(y_ptr + offs, tl.minimum(x, _BIG * 0.5) + _LOW, mask=offs < n)
    """)
    text = format_module(convert_triton(path))
    assert "3.4028234663852886e+38" in text or "3.4028234663852886e38" in text
    assert "-2147483648" in text
