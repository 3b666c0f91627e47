"""Tests for porter.verify.triton_exec: original Triton kernels run on the CPU interpreter.

Each run_kernel call starts a child process (~2 s, mostly `import torch`), so every test
makes exactly one call and the kernels use big blocks and small grids.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest

from porter.diagnostics import TileportError
from porter.verify.triton_exec import _bf16_to_f32, _f32_to_bf16, run_kernel

HEADER = "import triton\nimport triton.language as tl\n"


def write_kernel(tmp_path, body: str, name: str = "kern.py") -> str:
    path = tmp_path / name
    path.write_text(HEADER + textwrap.dedent(body))
    return str(path)


def line_of(path: str, needle: str) -> int:
    lines = Path(path).read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if needle in line)


def test_vector_add_masked(tmp_path):
    src = write_kernel(tmp_path, """
        @triton.jit
        def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
            offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
            mask = offs < n
            x = tl.load(x_ptr + offs, mask=mask)
            y = tl.load(y_ptr + offs, mask=mask)
            tl.store(out_ptr + offs, x + y, mask=mask)

        if __name__ == "__main__":
            raise SystemExit("launch code must not run")
    """)
    n = 1000
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    out = np.full(n + 24, 7.0, np.float32)  # past n must stay untouched (mask)
    res = run_kernel(src, "add_kernel", (4,), [x, y, out, n], {"BLOCK_SIZE": 256},
                     launch_options={"num_warps": 4, "num_stages": 2})
    np.testing.assert_array_equal(res[2][:n], x + y)
    np.testing.assert_array_equal(res[2][n:], 7.0)
    np.testing.assert_array_equal(res[0], x)
    assert res[3] == n
    assert res[2].dtype == np.float32
    np.testing.assert_array_equal(out, 7.0)  # the caller's array is not modified


def test_2d_grid_masked(tmp_path):
    src = write_kernel(tmp_path, """
        @triton.jit
        def scale2d(x_ptr, out_ptr, M, N, stride_m, alpha, BM: tl.constexpr, BN: tl.constexpr):
            rm = tl.program_id(0) * BM + tl.arange(0, BM)
            rn = tl.program_id(1) * BN + tl.arange(0, BN)
            mask = (rm[:, None] < M) & (rn[None, :] < N)
            offs = rm[:, None] * stride_m + rn[None, :]
            x = tl.load(x_ptr + offs, mask=mask)
            tl.store(out_ptr + offs, x * alpha + rm[:, None], mask=mask)
    """)
    m, n = 50, 70
    x = np.arange(m * n, dtype=np.float32).reshape(m, n)
    res = run_kernel(src, "scale2d", (2, 3), [x, np.zeros_like(x), m, n, n, 0.5], {"BM": 32, "BN": 32})
    np.testing.assert_allclose(res[1], x * 0.5 + np.arange(m, dtype=np.float32)[:, None])


def test_load_other(tmp_path):
    src = write_kernel(tmp_path, """
        @triton.jit
        def pad(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n, other=-1.0))
    """)
    x = np.arange(1, 11, dtype=np.float32)
    res = run_kernel(src, "pad", (1,), [x, np.zeros(16, np.float32), 10], {"BLOCK": 16})
    np.testing.assert_array_equal(res[1], np.concatenate([x, np.full(6, -1.0, np.float32)]))


def test_fp16(tmp_path):
    src = write_kernel(tmp_path, """
        @triton.jit
        def fma16(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            x = tl.load(x_ptr + offs)
            y = tl.load(y_ptr + offs)
            tl.store(out_ptr + offs, x * y + 1.0)
    """)
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal((2, 512)).astype(np.float16)
    res = run_kernel(src, "fma16", (1,), [x, y, np.zeros(512, np.float16)], {"BLOCK": 512})
    assert res[2].dtype == np.float16
    np.testing.assert_allclose(res[2].astype(np.float32), (x * y + np.float16(1)).astype(np.float32),
                               rtol=1e-3, atol=1e-3)


def test_autotune_and_heuristics_unwrapped(tmp_path):
    src = write_kernel(tmp_path, """
        @triton.autotune(configs=[triton.Config({"BLOCK": 64}, num_warps=2),
                                  triton.Config({"BLOCK": 128}, num_warps=4)], key=["n"])
        @triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
        @triton.jit
        def double(x_ptr, out_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            if EVEN:
                tl.store(out_ptr + offs, tl.load(x_ptr + offs) * 2)
            else:
                tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)
    """)
    x = np.arange(200, dtype=np.int32)
    res = run_kernel(src, "double", (4,), [x, np.zeros_like(x), 200], {"BLOCK": 64, "EVEN": False})
    np.testing.assert_array_equal(res[1], x * 2)


def test_bf16_buffers_and_interpreter_patch(tmp_path):
    # One kernel covers bf16 add, a bf16 dot with f32 accumulator, a rounding f32->bf16 cast and
    # a bf16 max over negative values: all wrong (raw uint16 bits / truncation) unpatched.
    src = write_kernel(tmp_path, """
        @triton.jit
        def bf16_ops(a_ptr, b_ptr, f_ptr, sum_ptr, dot_ptr, cast_ptr, max_ptr, B: tl.constexpr):
            r = tl.arange(0, B)
            idx = r[:, None] * B + r[None, :]
            a = tl.load(a_ptr + idx)
            b = tl.load(b_ptr + idx)
            tl.store(sum_ptr + idx, a + b)
            tl.store(dot_ptr + idx, tl.dot(a, b))
            tl.store(cast_ptr + idx, tl.load(f_ptr + idx).to(tl.bfloat16))
            tl.store(max_ptr + r, tl.max(a - 4.0, axis=1))
    """)
    rng = np.random.default_rng(2)
    a, b = (_f32_to_bf16(rng.standard_normal((16, 16), dtype=np.float32)) for _ in range(2))
    f = rng.standard_normal((16, 16), dtype=np.float32)
    outs = [np.zeros((16, 16), np.uint16), np.zeros((16, 16), np.float32), np.zeros((16, 16), np.uint16),
            np.zeros(16, np.uint16)]
    res = run_kernel(src, "bf16_ops", (1,), [a, b, f, *outs], {"B": 16})
    af, bf = _bf16_to_f32(a), _bf16_to_f32(b)
    assert res[3].dtype == np.uint16
    np.testing.assert_array_equal(res[3], _f32_to_bf16(af + bf))
    np.testing.assert_allclose(res[4], af @ bf, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(res[5], _f32_to_bf16(f))
    np.testing.assert_array_equal(res[6], _f32_to_bf16((af - 4.0).max(axis=1)))


def test_f32_to_bf16_rounds_to_nearest_even():
    vals = np.array([1.0, 1.0 + 2**-8, 1.0 + 3 * 2**-8, -2.5, np.inf, 3.4e38], np.float32)
    bits = _f32_to_bf16(vals)
    np.testing.assert_array_equal(_bf16_to_f32(bits), [1.0, 1.0, 1.0 + 2**-6, -2.5, np.inf, np.inf])
    assert np.isnan(_bf16_to_f32(_f32_to_bf16(np.array([np.nan], np.float32))))[0]


def test_kernel_error_reports_user_line(tmp_path):
    src = write_kernel(tmp_path, """
        @triton.jit
        def bad(x_ptr, B: tl.constexpr):
            a = tl.arange(0, B)
            b = tl.arange(0, 2 * B)
            tl.store(x_ptr + a, a + b)  # shape mismatch
    """)
    with pytest.raises(TileportError) as info:
        run_kernel(src, "bad", (1,), [np.zeros(8, np.int32)], {"B": 8})
    diag = info.value.diagnostic
    assert diag.code == "TP420"
    assert diag.message.startswith("ValueError: ")
    assert diag.loc.file == src and diag.loc.line == line_of(src, "shape mismatch")


def test_import_error_reports_user_line(tmp_path):
    src = write_kernel(tmp_path, """
        SCALE = 1 / 0

        @triton.jit
        def anything(x_ptr):
            tl.store(x_ptr, SCALE)
    """)
    with pytest.raises(TileportError) as info:
        run_kernel(src, "anything", (1,), [np.zeros(1, np.float32)])
    diag = info.value.diagnostic
    assert (diag.code, diag.loc.line) == ("TP420", line_of(src, "1 / 0"))
    assert diag.message == "ZeroDivisionError: division by zero"


def test_module_top_level_never_runs(tmp_path):
    """Tests, benchmarks and GPU queries at a module's top level are not the kernel's business:
    verify runs a kernels-only copy (a top level that fails, or writes a file, is skipped)."""
    marker = tmp_path / "ran.txt"
    src = write_kernel(tmp_path, f"""
        import not_installed_anywhere
        DEVICE = triton.runtime.driver.active.get_active_torch_device()
        open({str(marker)!r}, "w").write("top level ran")
        SCALE: tl.constexpr = 3.0

        @triton.jit
        def scale(x_ptr, n, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            x = tl.load(x_ptr + offs, mask=offs < n)
            tl.store(x_ptr + offs, x * SCALE, mask=offs < n)

        x = 1 / 0
    """)
    res = run_kernel(src, "scale", (1,), [np.arange(8, dtype=np.float32), 8], {"BLOCK": 8})
    np.testing.assert_array_equal(res[0], np.arange(8, dtype=np.float32) * 3)
    assert not marker.exists()


def test_crash_is_tp421(tmp_path):
    src = write_kernel(tmp_path, """
        import os, signal
        CRASH = os.kill(os.getpid(), signal.SIGSEGV)

        @triton.jit
        def anything(x_ptr):
            tl.store(x_ptr, CRASH)
    """)
    with pytest.raises(TileportError) as info:
        run_kernel(src, "anything", (1,), [np.zeros(1, np.float32)])
    assert info.value.diagnostic.code == "TP421"
    assert "SIGSEGV" in info.value.diagnostic.message


def test_timeout_is_tp422(tmp_path):
    src = write_kernel(tmp_path, """
        @triton.jit
        def anything(x_ptr):
            while True:
                tl.store(x_ptr, 1.0)
    """)
    with pytest.raises(TileportError) as info:
        run_kernel(src, "anything", (1,), [np.zeros(1, np.float32)], timeout=3)
    diag = info.value.diagnostic
    assert diag.code == "TP422" and diag.message.endswith("timed out after 3s")


def test_a_constexpr_between_runtime_parameters_and_math_imported_under_a_host_switch(tmp_path):
    # Liger-style: the math functions come from a module-level `if` on host checks that verify
    # cannot run (vendor_is_new() is not defined anywhere), and a constexpr sits between two
    # runtime parameters, so the run passes arguments by name
    src = write_kernel(tmp_path, """
        if vendor_is_new():
            try:
                from triton.language.extra.libdevice import tanh, rsqrt
            except ModuleNotFoundError:
                from triton.language.extra.cuda.libdevice import tanh, rsqrt
        else:
            from triton.language.math import rsqrt

        @triton.jit
        def squash(x_ptr, out_ptr, SHIFT: tl.constexpr, n, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            x = tl.load(x_ptr + offs, mask=offs < n, other=1.0)
            tl.store(out_ptr + offs, tanh(x) * rsqrt(x + SHIFT), mask=offs < n)
        """)
    x = np.linspace(0.1, 3.0, 100, dtype=np.float32)
    out = np.zeros_like(x)
    _, got, _ = run_kernel(src, "squash", (1,), [x, out, 100], constexprs={"SHIFT": 2, "BLOCK": 128})
    np.testing.assert_allclose(got, np.tanh(x) / np.sqrt(x + 2), rtol=1e-5)


def test_a_float_argument_is_an_fp32_scalar_and_a_dtype_constexpr_is_tls(tmp_path):
    """`eps.to(OUT)` on a float argument (Liger's norms) compiles for a GPU, where a float is an
    fp32 scalar; the interpreter passed it as a Python float. A dtype constexpr goes by name."""
    from porter.verify.triton_exec import TritonDType

    src = write_kernel(tmp_path, """
        @triton.jit
        def shift(x_ptr, eps, OUT: tl.constexpr, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            e = eps.to(OUT)
            tl.store(x_ptr + offs, (tl.load(x_ptr + offs) + e).to(OUT))
    """)
    x = np.arange(64, dtype=np.float16)
    res = run_kernel(src, "shift", (1,), [x, 0.25], {"OUT": TritonDType("float16"), "BLOCK": 64})
    np.testing.assert_array_equal(res[0], x + np.float16(0.25))


def test_a_kernel_that_declares_num_warps_as_a_constexpr_gets_it_once(tmp_path):
    """Liger's multi_token_attention declares `num_warps: tl.constexpr`; verify also passes
    num_warps as a launch option, and the launch failed with "multiple values"."""
    src = write_kernel(tmp_path, """
        @triton.jit
        def fill(x_ptr, BLOCK: tl.constexpr, num_warps: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            tl.store(x_ptr + offs, tl.zeros([BLOCK], tl.float32) + num_warps)
    """)
    res = run_kernel(src, "fill", (1,), [np.zeros(32, np.float32)], {"BLOCK": 32, "num_warps": 4},
                     launch_options={"num_warps": 4})
    np.testing.assert_array_equal(res[0], 4.0)


def test_not_and_or_on_blocks_are_element_wise_as_compiled(tmp_path):
    """`keep = not (t == skip) and inside` (an NLL loss's ignore_index mask): Triton compiles
    `not`, `and` and `or` on blocks element-wise; the interpreter asked bool() of a block (True)
    and masked every lane. Constants keep Python's short-circuit (`HALF and ...`)."""
    src = write_kernel(tmp_path, """
        @triton.jit
        def pick(t_ptr, w_ptr, out_ptr, skip, n, HALF: tl.constexpr, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            inside = offs < n
            t = tl.load(t_ptr + offs, mask=inside, other=0)
            keep = not (t == skip) and inside
            edge = (t == 0) or (t == 3)
            w = tl.load(w_ptr + t, mask=keep, other=0.0)
            if HALF and w_ptr is not None:
                w = w * 0.5
            tl.store(out_ptr + offs, tl.where(edge, -w, w), mask=inside)
    """)
    t = np.array([0, 1, 2, 3, 2, 1, 0, 2], np.int32)
    w = np.array([1.0, 2.0, 4.0, 8.0], np.float32)
    out = np.zeros(8, np.float32)
    res = run_kernel(src, "pick", (1,), [t, w, out, 2, 7], {"HALF": False, "BLOCK": 8})
    got = res[2]
    keep = (t != 2) & (np.arange(8) < 7)
    want = np.where(keep, w[t], 0.0) * np.where((t == 0) | (t == 3), -1, 1)
    want[7] = 0.0
    np.testing.assert_array_equal(got, want.astype(np.float32))
