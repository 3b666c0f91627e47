"""porter.transforms: IR -> IR steps; here a Triton 1-D launch over tiles as a 2-D tile grid."""

from __future__ import annotations

import importlib.util
import textwrap

import pytest

from porter.pipeline import print_port
from porter.reader import read_source
from porter.ir.nodes import Builtin, Decl
from porter.ir.printer import format_expr
from porter.pipeline import raise_to_tiles
from porter.transforms.tile_grid import tile_grid_launch
from tests.conftest import one_line

# A matmul launched on one axis of ceildiv(M, BM) * ceildiv(N, BN) programs; {split} turns the
# program id into (pid_m, pid_n).
MATMUL = '''
import torch
import triton
import triton.language as tl


@triton.jit
def mm(x_ptr, w_ptr, out_ptr, M, N, K, sxm, sxk, swk, swn, som, son,
       BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GM: tl.constexpr):
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BM)
    tiles_n = tl.cdiv(N, BN)
{split}
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        x = tl.load(x_ptr + rm[:, None] * sxm + (k0 + rk)[None, :] * sxk,
                    mask=(rm[:, None] < M) & ((k0 + rk)[None, :] < K), other=0.0)
        w = tl.load(w_ptr + (k0 + rk)[:, None] * swk + rn[None, :] * swn,
                    mask=((k0 + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(x, w)
    tl.store(out_ptr + rm[:, None] * som + rn[None, :] * son, acc{extra},
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def run(x, w, out):
    M, K = x.shape
    N = w.shape[1]
    grid = lambda meta: (triton.cdiv(M, meta["BM"]) * triton.cdiv(N, meta["BN"]),)
    mm[grid](x, w, out, M, N, K, x.stride(0), x.stride(1), w.stride(0), w.stride(1),
             out.stride(0), out.stride(1), BM=32, BN=32, BK=16, GM=4)
'''

GROUPED = """
    in_group = GM * tiles_n
    first_m = (pid // in_group) * GM
    size_m = tl.minimum(tiles_m - first_m, GM)
    pid_m = first_m + (pid % in_group) % size_m
    pid_n = (pid % in_group) // size_m
"""
GROUPED_EARLY = GROUPED.replace("(pid % in_group) % size_m", "pid % size_m")
ROW_MAJOR = """
    pid_m = pid // tiles_n
    pid_n = pid % tiles_n
"""
# every program id reaches a tile, but two programs share tile (0, 0) when M or N > 1 tile
NOT_ONE_TO_ONE = """
    pid_m = pid % tiles_m
    pid_n = pid % tiles_n
"""


def kernel_of(tmp_path, split: str, extra: str = ""):
    path = tmp_path / "mm.py"
    path.write_text(MATMUL.format(split=textwrap.indent(textwrap.dedent(split), "    "), extra=extra))
    return read_source(str(path))


@pytest.mark.parametrize("split, group", [(GROUPED, 4), (GROUPED_EARLY, 4), (ROW_MAJOR, None)],
                         ids=["grouped", "grouped-early", "row-major"])
def test_a_one_to_one_tile_split_becomes_a_2d_grid(tmp_path, split, group):
    (k,) = kernel_of(tmp_path, split).kernels
    out = tile_grid_launch(k)
    assert [format_expr(g) for g in out.launch.tile_grid] == ["ceildiv(N, 32)", "ceildiv(M, 32)"]
    assert [g.args[1].name for g in out.launch.tile_grid] == ["BN", "BM"]
    assert out.launch.grid == k.launch.grid  # the original's grid: the wrapper's default and check
    assert (out.launch.swizzle.value if out.launch.swizzle is not None else None) == group
    if group:
        assert out.launch.swizzle.name == "GM"
    decls = {s.var.name: s.init for s in out.body if isinstance(s, Decl)}
    assert decls["pid_m"] == Builtin("block_idx", 1) and decls["pid_n"] == Builtin("block_idx", 0)
    assert not {"pid", "in_group", "first_m", "size_m", "tiles_m", "tiles_n"} & set(decls)


@pytest.mark.parametrize("split, extra", [(NOT_ONE_TO_ONE, ""), (GROUPED, " + pid")],
                         ids=["two-programs-one-tile", "pid-read-by-the-body"])
def test_a_launch_that_is_not_one_program_per_tile_is_left_alone(tmp_path, split, extra):
    (k,) = kernel_of(tmp_path, split, extra).kernels
    assert tile_grid_launch(k) is k


def test_the_port_takes_the_grouped_order_as_t_use_swizzle(tmp_path):
    text = one_line(print_port(raise_to_tiles(kernel_of(tmp_path, GROUPED))))
    assert "with T.Kernel(T.ceildiv(N, BN), T.ceildiv(M, BM), threads=threads) as (pid_n, pid_m):" in text
    assert "T.use_swizzle(GM)" in text
    assert "% in_group" not in text.replace("T.truncmod(", "%")  # the index arithmetic is gone
    assert "*grid)" not in text  # the grid is the port's own


def test_the_port_refuses_a_grid_other_than_one_program_per_tile(tmp_path):
    port = tmp_path / "mm_tl.py"
    port.write_text(print_port(raise_to_tiles(kernel_of(tmp_path, ROW_MAJOR))))
    spec = importlib.util.spec_from_file_location("mm_tl", port)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    torch = pytest.importorskip("torch")
    x, w, out = torch.zeros(70, 40), torch.zeros(40, 50), torch.zeros(70, 50)
    args = (x, w, out, 70, 50, 40, 40, 1, 50, 1, 50, 1)
    with pytest.raises(ValueError, match=r"per output tile \(6 on a 2-D grid\), not the grid \(7,\)"):
        module.mm[(7,)](*args, BM=32, BN=32, BK=16, GM=4, target="c")
    with pytest.raises(ValueError, match="one program per output tile"):
        module.mm[(12,)](*args, BM=32, BN=32, BK=16, GM=4, target="c")


# ----------------------------------------------------------------------------- tile copies

def _tile(name, *shape):
    from porter.ir.tiles import TileBuffer

    return TileBuffer(name, "float32", tuple(shape))


def _each(buffer, value_of, n=8):
    """`for i in T.Parallel(n): buffer[i] = value_of(i)`."""
    from porter.ir.nodes import Var
    from porter.ir.tiles import ParallelFor, TileStore

    i = Var("i", "int32")
    return ParallelFor((i,), (n,), [TileStore(buffer, (i,), value_of(i))])


def _at(buffer, index):
    from porter.ir.tiles import TileLoad

    return TileLoad(buffer, (index,), "float32")


def _loop(body):
    from porter.ir.nodes import BinOp, Const, For, Var

    k = Var("k", "int32")
    return For(k, Const(0, "int32"), BinOp("<", k, Const(4, "int32"), "bool"),
               Const(1, "int32"), body)


def _tiles_and_text(body):
    from porter.ir.printer import format_stmts
    from porter.ir.tiles import TileBuffer
    from porter.ir.walk import walk_stmts

    return ({s.name for s in walk_stmts(body) if isinstance(s, TileBuffer)},
            "\n".join(format_stmts(body)))


def test_a_loop_carried_accumulator_is_updated_in_place_under_its_name():
    from porter.ir.nodes import BinOp
    from porter.transforms.tile_copies import coalesce_tile_copies

    # acc_1 = acc * scale; acc_2 = acc_1; acc_2 += x (a gemm's accumulator); acc = acc_2
    body = [_tile("acc", 8), _tile("scale", 8), _tile("x", 8), _each("acc", lambda i: _at("x", i)),
            _loop([_tile("acc_1", 8), _each("acc_1", lambda i: BinOp("*", _at("acc", i), _at("scale", i), "float32")),
                   _tile("acc_2", 8), _each("acc_2", lambda i: _at("acc_1", i)),
                   _each("acc_2", lambda i: BinOp("+", _at("acc_2", i), _at("x", i), "float32")),
                   _each("acc", lambda i: _at("acc_2", i))]),
            _each("x", lambda i: _at("acc", i))]
    tiles, text = _tiles_and_text(coalesce_tile_copies(body))
    assert tiles == {"acc", "scale", "x"}
    assert "acc[i] = (acc[i] * scale[i])" in text and "acc[i] = (acc[i] + x[i])" in text
    assert "acc_" not in text


def test_tile_copies_stay_where_both_values_are_needed_or_a_step_would_read_its_own_writes():
    from porter.ir.nodes import BinOp, Const
    from porter.transforms.tile_copies import coalesce_tile_copies

    def one(i):
        return Const(1.0, "float32")

    # a running max: m_new needs the old m after it is made (alpha = m - m_new), so m = m_new
    # at the loop end is a copy of two live values
    running = [_tile("m", 8), _each("m", one),
               _loop([_tile("m_new", 8), _each("m_new", lambda i: BinOp("+", _at("m", i), one(i), "float32")),
                      _tile("alpha", 8), _each("alpha", lambda i: BinOp("-", _at("m", i), _at("m_new", i), "float32")),
                      _each("m", lambda i: _at("m_new", i))]),
               _each("alpha", lambda i: BinOp("*", _at("m", i), _at("alpha", i), "float32"))]
    # a shift: y[i] = x[7 - i] then x = y; one fragment would read elements it already wrote
    shifted = [_tile("x", 8), _each("x", one), _tile("y", 8),
               _each("y", lambda i: _at("x", BinOp("-", Const(7, "int32"), i, "int32"))),
               _each("x", lambda i: _at("y", i)), _each("x", lambda i: BinOp("*", _at("x", i), _at("x", i), "float32"))]
    for body, kept in ((running, {"m", "m_new", "alpha"}), (shifted, {"x", "y"})):
        tiles, _ = _tiles_and_text(coalesce_tile_copies(body))
        assert tiles == kept


def test_a_cast_masked_load_is_a_guarded_store_and_lowers_under_its_mask(tmp_path):
    """`x[i] = T.Cast(f32, T.if_then_else(i < N, X[i], 0))`: TileLang 0.1.15's DecoupleTypeCast
    copies X into a local buffer before the vectorized loop without the select's mask (a read
    past X on the GPU); as `x[i] = 0; if i < N: x[i] = T.Cast(f32, X[i])` the load stays under
    the mask. An update that reads its own tile (`acc[i] = acc[i] + ...`) is left alone."""
    from porter.ir.nodes import BinOp, Cast, Const, If, Load, Select, Var
    from porter.ir.tiles import ParallelFor, TileLoad, TileStore
    from porter.transforms.guarded_loads import guard_cast_loads

    i = Var("i", "int32")
    masked = Select(BinOp("<", i, Const(16, "int32"), "bool"), Load("X", i, "float16"), Const(0.0, "float16"),
                    "float16")
    loop = ParallelFor((i,), (1024,), [TileStore("x", (i,), Cast("float32", masked))])
    (after,) = guard_cast_loads([loop], {"X"})
    default, guarded = after.body
    assert default == TileStore("x", (i,), Const(0.0, "float32"))
    assert isinstance(guarded, If) and guarded.cond == masked.cond
    assert guarded.then == [TileStore("x", (i,), Cast("float32", Load("X", i, "float16")))]
    update = ParallelFor((i,), (1024,), [TileStore("x", (i,), BinOp("+", TileLoad("x", (i,), "float32"),
                                                                     Cast("float32", masked), "float32"))])
    assert guard_cast_loads([update], {"X"}) == [update]
    same_type = ParallelFor((i,), (1024,), [TileStore("x", (i,), masked)])
    assert guard_cast_loads([same_type], {"X"}) == [same_type]

    # the fresh sample's port: Gamma's 16 elements are read under the mask on sm_80
    port = tmp_path / "gain_tl.py"
    from porter.cli import main
    from click.testing import CliRunner

    result = CliRunner().invoke(main, ["convert", "tests/fresh/triton/colwise_gain_bwd.py", "-o", str(port)])
    assert result.exit_code == 0, result.output
    from porter.verify.port_exec import load_port, lower, pass_configs

    module = load_port(str(port))
    cuda = lower(module.gain_tanh_bwd_program(), {"kind": "cuda", "arch": "sm_80"}, pass_configs(module)).kernel_source
    assert "gain_ptr_local_cast" not in cuda
    lines = cuda.splitlines()
    line = next(n for n, text in enumerate(lines) if "gain_ptr +" in text or "gain_ptr[" in text)
    assert any(text.strip().startswith("if (") for text in lines[line - 3:line]), lines[line - 3:line + 1]


def test_a_local_also_assigned_in_a_nested_block_keeps_its_name():
    # cuda-samples shfl_vertical_shfl: `sum = *p; if (ty > 0) sum += ...; sum += stepSum;`
    # was split into sum_1 after `sum = *p`, the branch's update then went to the dead `sum`
    from porter.ir.nodes import Assign, BinOp, Const, If, Var
    from porter.transforms.split_reassigned import split_reassigned

    s, c = Var("s", "int32"), Var("c", "int32")
    body = [Decl(s, Const(0, "int32")), Assign(s, Const(5, "int32")),
            If(c, [Assign(s, BinOp("+", s, Const(1, "int32"), "int32"))]),
            Assign(s, BinOp("+", s, Const(2, "int32"), "int32"))]
    out = split_reassigned(body, lambda name: name + "_1")
    assert not any(isinstance(x, Decl) and x.var.name == "s_1" for x in out)
    # with no nested assignment the straight-line reuse is still a new local
    out = split_reassigned([body[0], body[1], body[3]], lambda name: name + "_1")
    assert isinstance(out[1], Decl) and out[1].var.name == "s_1"
