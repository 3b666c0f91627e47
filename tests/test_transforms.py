"""porter.transforms: IR -> IR steps; here a Triton 1-D launch over tiles as a 2-D tile grid."""

from __future__ import annotations

import importlib.util
import textwrap

import pytest

from porter.emit.tilelang import emit_module
from porter.frontends.load import load_module
from porter.ir.nodes import Builtin, Decl
from porter.ir.printer import format_expr
from porter.match import raise_module
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
    return load_module(str(path))


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
    text = one_line(emit_module(raise_module(kernel_of(tmp_path, GROUPED))))
    assert "with T.Kernel(T.ceildiv(N, BN), T.ceildiv(M, BM), threads=threads) as (pid_n, pid_m):" in text
    assert "T.use_swizzle(GM)" in text
    assert "% in_group" not in text.replace("T.truncmod(", "%")  # the index arithmetic is gone
    assert "*grid)" not in text  # the grid is the port's own


def test_the_port_refuses_a_grid_other_than_one_program_per_tile(tmp_path):
    port = tmp_path / "mm_tl.py"
    port.write_text(emit_module(raise_module(kernel_of(tmp_path, ROW_MAJOR))))
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
