"""A loop-carried local inside a pipelined loop (`row += step`) survives TileLang's software
pipelining: its next value is folded into the assignment (transforms/pipelined_lets.py), so
no TIR let is referenced from the pipeline's epilogue (nvcc: `identifier "row_1" is
undefined`, Triton tutorial 06's backward pass on sm_80 and sm_90a)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from porter.frontends.triton import convert_triton
from porter.ir.nodes import Assign, Decl, For
from porter.ir.walk import walk_stmts
from porter.transforms.pipelined_lets import fold_pipelined_lets

ROOT = Path(__file__).resolve().parents[1]

CARRIED = textwrap.dedent('''
    import torch
    import triton
    import triton.language as tl


    @triton.jit
    def walk_rows(a_ptr, b_ptr, c_ptr, skip_ptr, n_steps, stride, BM: tl.constexpr, BK: tl.constexpr,
                  BN: tl.constexpr):
        pid = tl.program_id(0)
        rows = pid * BM + tl.arange(0, BM)
        cols = tl.arange(0, BN)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        row = 0
        step = BK
        a_ptrs = a_ptr + rows[:, None] * stride + tl.arange(0, BK)[None, :]
        for i in range(n_steps):
            a = tl.load(a_ptrs)
            ks = row + tl.arange(0, BK)
            b = tl.load(b_ptr + ks[:, None] * BN + cols[None, :])
            acc += tl.dot(a, b)
            row += step * tl.load(skip_ptr + i).to(tl.int32)  # read each iteration: no closed form
            a_ptrs += step
        tl.store(c_ptr + rows[:, None] * BN + cols[None, :], acc)


    def run(a, b, skips, n_steps):
        c = torch.empty((a.shape[0], 32), device=a.device, dtype=torch.float32)
        walk_rows[(a.shape[0] // 32,)](a, b, c, skips, n_steps, a.stride(0), BM=32, BK=32, BN=32, num_stages=3)
        return c
''')


def _pipelined(body):
    return next(s for s in walk_stmts(body) if isinstance(s, For) and s.stages)


def test_a_next_value_local_is_folded_into_its_assignment(tmp_path):
    src = tmp_path / "carried.py"
    src.write_text(CARRIED)
    (kernel,) = convert_triton(str(src)).kernels
    before = _pipelined(kernel.body)
    assert any(isinstance(s, Decl) for s in before.body)  # `int row_1 = row + 32 * skip; row = row_1`
    after = _pipelined(fold_pipelined_lets(kernel.body))
    assert not any(isinstance(s, Decl) for s in after.body)
    (assign,) = [s for s in after.body if isinstance(s, Assign)]
    assert assign.var.name == "row" and "row" in repr(assign.value) and "skip_ptr" in repr(assign.value)


def test_a_local_whose_inputs_change_before_its_use_stays():
    from porter.ir.nodes import BinOp, Const, Var

    x, y, t = Var("x", "int32"), Var("y", "int32"), Var("t", "int32")
    body = [Decl(t, BinOp("+", x, Const(1, "int32"), "int32")), Assign(x, Const(0, "int32")), Assign(y, t)]
    loop = For(Var("k", "int32"), Const(0, "int32"), BinOp("<", Var("k", "int32"), Const(4, "int32"), "bool"),
               Const(1, "int32"), body, stages=2)
    (out,) = fold_pipelined_lets([loop])
    assert out.body == body  # x is written between t's declaration and its use


@pytest.mark.slow
def test_the_pipelined_port_builds_for_sm_80(tmp_path):
    src, port = tmp_path / "carried.py", tmp_path / "carried_tl.py"
    src.write_text(CARRIED)
    run = subprocess.run([sys.executable, "-m", "porter.cli", "convert", str(src), "-o", str(port)],
                         cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    if not shutil.which("nvcc"):
        pytest.skip("the build needs nvcc")
    from porter.verify.port_exec import _compile, load_port

    result = _compile(load_port(str(port)), {"program": "walk_rows_program", "arch": "sm_80",
                                             "program_kwargs": {"stages": 3}})
    assert result["ok"] is True, result
