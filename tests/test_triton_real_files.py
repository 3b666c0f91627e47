"""Triton files as they are published: libraries without launch sites, constexprs only the launch
knows, helpers in sibling modules, launchers computing constexprs, module top levels that must
never run. The samples in tests/real_triton/ are written for these tests, one construct each."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from porter.diagnostics import NoKernelConverted
from porter.pipeline import print_port
from porter.generic.constexprs import find_generic
from porter.frontends.triton import convert_triton
from porter.verify.driver import VerifyOptions, verify

from tests.conftest import ROOT, one_line

REAL = ROOT / "tests" / "real_triton"


def convert(path: str, **kw):
    """The Triton front end with the judge of generic constexprs, as porter/reader.py wires it."""
    return convert_triton(path, find_generic=find_generic, **kw)


def _port(tmp_path, source, **kw):
    path = tmp_path / "port.py"
    path.write_text(print_port(convert(str(source), **kw), str(source)))
    return path


def _load(path):
    """The port as verify loads it: its CPU builds through verify's C-target stand-ins."""
    from porter.verify.port_exec import load_port

    return load_port(str(path))


def test_library_file_converts_generic_ports_with_variants():
    module = convert(str(REAL / "library_ops.py"))
    kernels = {k.name: k for k in module.kernels}
    assert set(kernels) == {"bias_act_kernel", "row_rms_kernel"}  # `_leaky` is a helper, not a kernel
    bias = kernels["bias_act_kernel"]
    assert bias.constexpr_origin["BLOCK"] == "chosen" and bias.generic == ("BLOCK",)
    assert sorted((v.constexprs["HAS_BIAS"], v.constexprs["ACT"]) for v in [bias] + bias.variants) == \
        [(False, "clip"), (False, "leaky"), (True, "clip"), (True, "leaky")]
    rms = kernels["row_rms_kernel"]
    assert set(rms.generic) == {"eps", "BLOCK"} and rms.launch.origin == "caller"
    text = print_port(module)
    assert 'def bias_act_kernel_program(BLOCK=16, HAS_BIAS=True, ACT="leaky", threads=128):' in text
    # one program for the four variants, branching where they differ (double quotes: the
    # formatter's); an ACT no variant has is refused
    program = text.split("def bias_act_kernel_program", 1)[1].split("\ndef ", 1)[0]
    assert program.count("@T.prim_func") == 1 and program.count("x_ptr[offs]") == 1
    # each branch tests what tells its bodies apart: the flag alone where ACT makes no difference
    assert 'ACT == "clip":' in program and "HAS_BIAS:" in program
    assert "HAS_BIAS and" not in program and "and not HAS_BIAS" not in program
    assert 'if not (ACT in ("leaky", "clip")):' in program
    assert "def row_rms_kernel_program(eps=1e-05, BLOCK=16, threads=128):" in text


def test_drop_in_launcher_runs_other_constexprs_than_converted(tmp_path):
    """`kernel[grid](..., BLOCK=64, HAS_BIAS=False, ACT="clip")` against the port, on the CPU."""
    port = _load(_port(tmp_path, REAL / "library_ops.py"))
    import torch

    n = 300
    x, b = torch.randn(n) * 8, torch.randn(n)
    for has_bias, act in ((False, "clip"), (True, "leaky")):
        y = torch.full((n,), 7.0)
        port.bias_act_kernel[lambda meta: (-(-n // meta["BLOCK"]),)](x, b, y, n, HAS_BIAS=has_bias, ACT=act,
                                                                  BLOCK=64, num_warps=2, target="c")
        ref = x + b if has_bias else x.clone()
        ref = ref.clamp(-4.0, 4.0) if act == "clip" else torch.where(ref > 0, ref, ref * 0.125)
        assert torch.allclose(y, ref)
    y = torch.zeros(n)
    # an enum value the kernel never compares has no variant; a library kernel needs its grid
    with pytest.raises(ValueError, match="no variant for HAS_BIAS=False, ACT='none'"):
        port.bias_act_kernel[(5,)](x, b, y, n, BLOCK=64, HAS_BIAS=False, ACT="none", target="c")
    with pytest.raises(TypeError, match="pass the launch grid"):
        port.row_rms_kernel(x, y, n, n, target="c")


def test_verify_runs_every_specialization_of_a_library_kernel(tmp_path):
    port = _port(tmp_path, REAL / "library_ops.py")
    report = verify(str(REAL / "library_ops.py"), str(port),
                    VerifyOptions(kernel="bias_act_kernel", compile_check=False, timeout=120))
    (result,) = report.kernels
    assert result.verdict == "equivalent", result.error
    ran = {(c.constexprs["HAS_BIAS"], c.constexprs["ACT"]) for c in result.cases}
    assert ran == {(True, "leaky"), (True, "clip"), (False, "leaky"), (False, "clip")}
    assert all(b.ok for c in result.cases for b in c.buffers)


def test_sibling_module_helpers_are_read_and_the_top_level_never_runs(tmp_path):
    source = REAL / "normpkg" / "ops" / "scale_rows.py"
    (kernel,) = convert(str(source)).kernels
    # BLOCK_SIZE, num_warps = calculate_settings(n) in normpkg/ops/utils.py, read statically
    assert kernel.constexpr_origin["BLOCK_SIZE"] == "derived"
    port = _port(tmp_path, source)
    text = port.read_text()
    assert "BLOCK_SIZE = _next_power_of_2(int(n_cols))" in text and "T.float32(3.0)" in text
    report = verify(str(source), str(port), VerifyOptions(compile_check=False, timeout=120))
    assert report.kernels[0].verdict == "equivalent", report.kernels[0].error


def test_module_top_level_never_runs_in_convert_or_verify(tmp_path):
    marker = tmp_path / "ran.txt"
    source = tmp_path / "kern.py"
    source.write_text(textwrap.dedent(f"""
        import triton
        import triton.language as tl
        import tabulate_is_not_installed
        open({str(marker)!r}, "w").write("the top level ran")
        DEVICE = triton.runtime.driver.active.get_active_torch_device()

        @triton.jit
        def negate(x_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            tl.store(x_ptr + offs, -tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)

        def negate_all(x):
            negate[(triton.cdiv(x.numel(), 256),)](x, x.numel(), BLOCK=256)

        negate_all(torch.ones(10, device=DEVICE))
    """))
    port = _port(tmp_path, source)
    report = verify(str(source), str(port), VerifyOptions(compile_check=False, timeout=120))
    assert report.kernels[0].verdict == "equivalent", report.kernels[0].error
    assert not marker.exists()


def test_warmup_then_launch_of_the_handle_is_the_launch_site():
    (kernel,) = convert(str(REAL / "warmup_launch.py")).kernels
    assert kernel.launch.origin == "launch-site" and kernel.constexpr_origin["BLOCK"] == "derived"
    assert kernel.constexprs["STAGES"] == 2 and "STAGES" in kernel.generic


def test_autotune_configs_from_a_function_that_branches_on_the_machine():
    (kernel,) = convert(str(REAL / "matmul_autotune.py")).kernels
    assert (kernel.constexprs["BM"], kernel.constexprs["BN"]) == (32, 32)  # the first branch: CUDA
    assert kernel.constexpr_origin["BM"] == "autotune config" and "of 2" in kernel.note
    (second,) = convert(str(REAL / "matmul_autotune.py"), config=1).kernels
    assert second.constexprs["BM"] == 64


def test_matmul_operator_and_builtin_min_on_tensors(tmp_path):
    source = tmp_path / "mm.py"
    source.write_text(textwrap.dedent("""
        import triton
        import triton.language as tl

        @triton.jit
        def mm(a_ptr, b_ptr, c_ptr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
            rm = tl.arange(0, BM)
            rn = tl.arange(0, BN)
            rk = tl.arange(0, BK)
            a = tl.load(a_ptr + rm[:, None] * BK + rk[None, :])
            b = tl.load(b_ptr + rk[:, None] * BN + rn[None, :])
            c = min(a @ b, 100.0)
            tl.store(c_ptr + rm[:, None] * BN + rn[None, :], c)
    """))
    text = print_port(convert(str(source)))
    assert "T.gemm(" in text and "T.min(" in text


def test_constexpr_pinned_on_the_command_line(tmp_path):
    out = tmp_path / "port.py"
    run = subprocess.run([sys.executable, "-m", "porter.cli", "convert", str(REAL / "library_ops.py"), "-o",
                          str(out), "--constexpr", "HAS_BIAS=False", "--constexpr", "BLOCK=128"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    text = out.read_text()
    assert "HAS_BIAS = False  # constexpr the port is specialised for" in text
    assert "BLOCK = 128  # constexpr the port is specialised for" in text
    assert re.search(r'\n +if ACT == "(clip|leaky)":\n', text)  # the enum still branches
    bad = subprocess.run([sys.executable, "-m", "porter.cli", "convert", str(REAL / "library_ops.py"),
                          "--constexpr", "BLOCK"], capture_output=True, text=True, timeout=120)
    assert bad.returncode != 0 and "TP007" in bad.stderr


def test_no_case_that_changes_nothing_is_a_pass(tmp_path):
    source = tmp_path / "never.py"
    source.write_text(textwrap.dedent("""
        import triton
        import triton.language as tl

        @triton.jit
        def never(x_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            x = tl.load(x_ptr + offs, mask=offs < n)
            tl.store(x_ptr + offs, x * 2.0, mask=(offs < n) & (x > 1e30))
    """))
    port = _port(tmp_path, source)
    report = verify(str(source), str(port), VerifyOptions(compile_check=False, timeout=120))
    result = report.kernels[0]
    assert result.verdict != "equivalent" and result.error.code == "TP432"
    assert np.isfinite(report.seconds)


def test_kernels_generated_by_another_decorator_are_diagnosed(tmp_path):
    source = tmp_path / "gen.py"
    source.write_text(textwrap.dedent("""
        import triton.language as tl
        from mylib.codegen import pointwise

        @pointwise(inputs=2)
        def add(a, b):
            return tl.fma(a, b, 0.0)
    """))
    from porter.diagnostics import TileportError

    with pytest.raises(TileportError) as info:
        convert(str(source))
    assert info.value.diagnostic.code == "TP203" and "@pointwise" in info.value.diagnostic.message


def test_block_pointers_verify_through_the_interpreter_emulation(tmp_path):
    """Triton 3.9 removed tl.make_block_ptr; verify emulates it for the original's run."""
    source = tmp_path / "bp.py"
    source.write_text(textwrap.dedent("""
        import triton
        import triton.language as tl

        @triton.jit
        def row_block_copy(x_ptr, y_ptr, M, N, stride_m, BM: tl.constexpr, BN: tl.constexpr):
            pid = tl.program_id(0)
            src = tl.make_block_ptr(base=x_ptr, shape=(M, N), strides=(stride_m, 1),
                                    offsets=(pid * BM, 0), block_shape=(BM, BN), order=(1, 0))
            dst = tl.make_block_ptr(base=y_ptr, shape=(M, N), strides=(stride_m, 1),
                                    offsets=(pid * BM, 0), block_shape=(BM, BN), order=(1, 0))
            for _ in range(0, N, BN):
                tile = tl.load(src, boundary_check=(0, 1), padding_option="zero")
                tl.store(dst, tile * 2.0, boundary_check=(0, 1))
                src = tl.advance(src, (0, BN))
                dst = tl.advance(dst, (0, BN))

        def copy(x, y):
            M, N = x.shape
            row_block_copy[(triton.cdiv(M, 16),)](x, y, M, N, x.stride(0), BM=16, BN=32)
    """))
    port = _port(tmp_path, source)
    report = verify(str(source), str(port), VerifyOptions(compile_check=False, timeout=120))
    assert report.kernels[0].verdict == "equivalent", report.kernels[0].error


def test_autotune_configs_built_in_loops(tmp_path):
    source = tmp_path / "loops.py"
    source.write_text(textwrap.dedent("""
        import triton
        import triton.language as tl

        configs = []
        for block in [32, 64]:
            for warps in [2, 4]:
                configs.append(triton.Config({"BLOCK": block}, num_warps=warps))

        @triton.autotune(configs=configs, key=["n"])
        @triton.jit
        def bump(x_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1, mask=offs < n)
    """))
    first, last = (convert(str(source), config=c).kernels[0] for c in (0, 3))
    assert (first.constexprs["BLOCK"], first.launch.threads) == (32, 64) and "of 4" in first.note
    assert (last.constexprs["BLOCK"], last.launch.threads) == (64, 128)


def test_a_loaded_value_used_as_an_offset_makes_its_buffer_integer(tmp_path):
    source = tmp_path / "gather.py"
    source.write_text(textwrap.dedent("""
        import triton
        import triton.language as tl

        @triton.jit
        def gather_kernel(idx_ptr, table_ptr, out_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            idx = tl.load(idx_ptr + offs, mask=offs < n, other=0)
            tl.store(out_ptr + offs, tl.load(table_ptr + idx, mask=offs < n), mask=offs < n)
    """))
    (kernel,) = convert(str(source)).kernels
    assert {p.name: p.dtype for p in kernel.buffers} == {"idx_ptr": "int32", "table_ptr": "float32",
                                                         "out_ptr": "float32"}


def test_migrate_cache_follows_the_tree_modules_a_port_inlines(tmp_path):
    """A helper module changed under a cached port invalidates it, as a header does for CUDA."""
    import json
    import os
    import shutil

    src, out = tmp_path / "src", tmp_path / "out"
    shutil.copytree(REAL / "normpkg", src / "normpkg")
    env = {k: v for k, v in os.environ.items() if k != "TILEPORT_CACHE_DIR"}
    env["PYTHONPATH"] = str(ROOT)
    args = [sys.executable, "-m", "porter.cli", "migrate", str(src), "-o", str(out), "--jobs", "1",
            "--report", str(tmp_path / "r.json")]
    first = subprocess.run(args, capture_output=True, text=True, timeout=300, env=env)
    assert first.returncode == 0, first.stderr
    port = out / "normpkg" / "ops" / "scale_rows_tl.py"
    assert "T.float32(3.0)" in port.read_text()
    utils = src / "normpkg" / "ops" / "utils.py"
    utils.write_text(utils.read_text().replace("GAIN: tl.constexpr = 3.0", "GAIN: tl.constexpr = 5.0"))
    second = subprocess.run(args, capture_output=True, text=True, timeout=300, env=env)
    assert second.returncode == 0, second.stderr
    files = {f["path"]: f for f in json.loads((tmp_path / "r.json").read_text())["files"]}
    assert not files["normpkg/ops/scale_rows.py"]["cached"]
    assert "T.float32(5.0)" in port.read_text()


def test_int_enum_and_dtype_constexprs(tmp_path):
    source = tmp_path / "modes.py"
    source.write_text(textwrap.dedent("""
        import triton
        import triton.language as tl

        @triton.jit
        def mode_kernel(x_ptr, y_ptr, n, MODE: tl.constexpr, OUT: tl.constexpr, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            x = tl.load(x_ptr + offs, mask=offs < n)
            if MODE == 1:
                x = x * 2.0
            elif MODE == 2:
                x = -x
            tl.store(y_ptr + offs, x.to(OUT), mask=offs < n)

        def run(x, y, mode):
            mode_kernel[(triton.cdiv(x.numel(), 128),)](x, y, x.numel(), MODE=mode, OUT=tl.float16, BLOCK=128)

        def both(x, y):
            run(x, y, 1)
            run(x, y, 2)
    """))
    (kernel,) = convert(str(source)).kernels
    assert kernel.constexprs["OUT"] == "float16" and kernel.buffers[1].dtype == "float16"
    assert sorted(v.constexprs["MODE"] for v in [kernel] + kernel.variants) == [1, 2]
    port = _load(_port(tmp_path, source))
    import torch

    import triton.language as tl

    x, y = torch.randn(200), torch.zeros(200, dtype=torch.float16)
    port.mode_kernel[(2,)](x, y, 200, MODE=2, OUT=tl.float16, BLOCK=128, target="c")
    assert torch.equal(y, (-x).half())
    with pytest.raises(ValueError, match="specialised for OUT='float16'"):
        port.mode_kernel[(2,)](x, y, 200, MODE=2, OUT=tl.float32, BLOCK=128, target="c")


def test_spin_lock_ports_to_one_lane_test_and_set_and_verifies(tmp_path):
    """`while tl.atomic_cas(lock, 0, 1) == 1: pass` ... `tl.atomic_xchg(lock, 0)`: one lane spins
    on atomic_max (TileLang has no compare-and-swap), the block waits at a barrier, the release
    and the first writer's flag are atomic stores; lock words start free in verify."""
    source = REAL / "locked_group_sums.py"
    module = convert(str(source))
    (kernel,) = module.kernels
    assert "GROUPS" in kernel.generic  # the launch's `groups = 16; if rows <= 64: groups = 4`
    assert [k.constexprs["GROUPS"] for k in [kernel] + kernel.launch_values] == [16, 4]
    port = _port(tmp_path, source)
    text = one_line(port.read_text())
    spin = ("            for i in T.Parallel(1):\n"
            "                while T.atomic_max(Locks[group], 1, memory_order=\"acq_rel\", "
            "return_prev=True) == 1:\n")
    assert spin in text
    assert text.count("T.sync_threads()") == 2  # after the acquire; tl.debug_barrier before the release
    assert "T.atomic_store(Locks[GROUPS + group], 1)" in text and "T.atomic_store(Locks[group], 0)" in text
    assert text.count("@T.prim_func") == 1  # one generic program, no per-value copies
    report = verify(str(source), str(port), VerifyOptions(compile_check=False, timeout=300))
    (result,) = report.kernels
    assert result.verdict == "equivalent", result.error
    assert {c.constexprs.get("GROUPS") for c in result.cases} == {16, 4}
    # the cases reach the accumulating path (several programs per group): a wrong sign there shows
    wrong = tmp_path / "wrong.py"
    accumulate = "values_1[i] + T.if_then_else(i < n_cols, Partial"
    assert text.count(accumulate) == 1
    wrong.write_text(text.replace(accumulate, "values_1[i] - T.if_then_else(i < n_cols, Partial"))
    report = verify(str(source), str(wrong), VerifyOptions(compile_check=False, timeout=300))
    assert report.kernels[0].verdict != "equivalent"


def test_compare_and_swap_outside_the_lock_idiom_is_diagnosed(tmp_path):
    source = tmp_path / "cas.py"
    source.write_text(textwrap.dedent("""
        import triton
        import triton.language as tl

        @triton.jit
        def claim(slots, out, BLOCK: tl.constexpr):
            old = tl.atomic_cas(slots + tl.program_id(0), 0, 7)
            tl.store(out + tl.program_id(0), old)

        @triton.jit
        def wait_other(slots, BLOCK: tl.constexpr):
            while tl.atomic_cas(slots, 1, 0) == 1:
                pass
    """))
    with pytest.raises(NoKernelConverted) as info:
        convert(str(source))
    failures = {f.name: f.diagnostic for f in info.value.failures}
    assert set(failures) == {"claim", "wait_other"}
    for diag in failures.values():
        assert diag.code == "TP214" and "spin lock" in diag.message
    assert failures["wait_other"].loc.line == 12


def test_a_library_package_is_read_through_its_reexports_submodules_and_backend_switch(tmp_path):
    """gemslib (tests/real_triton/gemslib) raises if its top level runs. Its kernel reaches
    helpers as a submodule its package never binds (`from gemslib.utils import language as
    tle`), through `__init__` re-exports, relatively and as `import a.b.c as x`, and takes
    `rsqrt` from a math module the library picks in a `try:` whose body runs host code."""
    source = REAL / "gemslib" / "ops" / "rms_rows.py"
    (kernel,) = convert(str(source)).kernels
    assert kernel.name == "rms_rows_kernel"
    port = _port(tmp_path, source)
    report = verify(str(source), str(port), VerifyOptions(compile_check=False, timeout=120))
    assert report.kernels[0].verdict == "equivalent", report.kernels[0].error


def test_a_package_installed_in_the_environment_is_read_without_importing_it(tmp_path, monkeypatch):
    site = tmp_path / "site"
    (site / "tp_installed_helpers").mkdir(parents=True)
    (site / "tp_installed_helpers" / "__init__.py").write_text("raise RuntimeError('imported')\n")
    (site / "tp_installed_helpers" / "lang.py").write_text(textwrap.dedent("""
        import triton
        import triton.language as tl

        @triton.jit
        def twice(x):
            return x + x
    """))
    monkeypatch.syspath_prepend(str(site))
    source = tmp_path / "user" / "kern.py"
    source.parent.mkdir()
    source.write_text(textwrap.dedent("""
        import triton
        import triton.language as tl
        from tp_installed_helpers.lang import twice

        @triton.jit
        def double_kernel(x_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            tl.store(x_ptr + offs, twice(tl.load(x_ptr + offs, mask=offs < n)), mask=offs < n)

        def double(x):
            double_kernel[(triton.cdiv(x.numel(), 128),)](x, x.numel(), BLOCK=128)
    """))
    (kernel,) = convert(str(source)).kernels
    assert kernel.name == "double_kernel"
    port = _port(tmp_path, source)
    monkeypatch.setenv("PYTHONPATH", str(site))  # the child finds the package where this one did
    report = verify(str(source), str(port), VerifyOptions(compile_check=False, timeout=120))
    assert report.kernels[0].verdict == "equivalent", report.kernels[0].error


def test_a_library_autotuner_feeds_the_constexprs_as_triton_autotune_does():
    source = REAL / "gemslib" / "ops" / "scale_tiles.py"
    (kernel,) = convert(str(source)).kernels
    assert kernel.constexprs["BLOCK"] == 64 and kernel.constexpr_origin["BLOCK"] == "autotune config"
    (second,) = convert(str(source), config=1).kernels
    assert second.constexprs["BLOCK"] == 256


def test_libdevice_math_by_attribute_alias_and_name_converts_and_the_interpreter_runs_it(tmp_path):
    source = REAL / "libdevice_math.py"
    port = _port(tmp_path, source)
    text = port.read_text()
    assert all(f in text for f in ("T.atan2", "T.tan", "T.sinh", "T.hypot", "T.trunc", "T.acos"))
    report = verify(str(source), str(port), VerifyOptions(compile_check=False, timeout=120))
    assert report.kernels[0].verdict == "equivalent", report.kernels[0].error


def test_the_interpreter_libdevice_table_matches_numpy_on_predicates_and_roundings():
    """Rows whose result is not the argument's dtype: predicates are int32, roundings int64."""
    import os
    import subprocess

    code = textwrap.dedent("""
        import os
        os.environ["TRITON_INTERPRET"] = "1"
        import numpy as np, torch, triton, triton.language as tl
        from porter.verify import interpreter_libdevice
        interpreter_libdevice.install()
        from triton.language.extra import libdevice

        @triton.jit
        def k(x_ptr, nan_ptr, ll_ptr, BLOCK: tl.constexpr):
            o = tl.arange(0, BLOCK)
            x = tl.load(x_ptr + o)
            tl.store(nan_ptr + o, libdevice.isnan(x) + 2 * libdevice.isinf(x))
            tl.store(ll_ptr + o, libdevice.llrint(tl.where(x == x, x, 0.0)))

        x = torch.tensor([0.5, 1.5, -2.5, float("nan"), float("inf"), 3.7, -0.2, 2.5])
        nan, ll = torch.zeros(8, dtype=torch.int32), torch.zeros(8, dtype=torch.int64)
        k[(1,)](x, nan, ll, BLOCK=8)
        print(nan.tolist(), ll.tolist()[:3], ll.tolist()[5:])
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "[0, 0, 0, 1, 2, 0, 0, 0] [0, 2, -2] [4, 0, 2]"


def test_libdevice_predicates_on_nan_and_inf_and_a_dtype_tested_with_is(tmp_path):
    port = _load(_port(tmp_path, REAL / "libdevice_predicates.py"))
    import torch

    x = torch.tensor([1.0, float("nan"), float("inf"), -float("inf"), -2.0] * 4)
    out, flags = torch.full_like(x, 5.0), torch.full_like(x, 5.0)
    port.clean_kernel[(1,)](x, out, flags, x.numel(), BLOCK=32, target="c")
    finite = torch.isfinite(x)
    assert torch.equal(flags, (~finite).float())
    assert torch.equal(out[finite], x[finite]) and torch.isnan(out[1]) and torch.isinf(out[2])


def test_logical_and_or_verify(tmp_path):
    source = REAL / "logical_ops.py"
    port = _port(tmp_path, source)
    report = verify(str(source), str(port), VerifyOptions(compile_check=False, timeout=120))
    assert report.kernels[0].verdict == "equivalent", report.kernels[0].error


def test_compile_time_functions_are_evaluated_as_triton_runs_them(tmp_path):
    source = REAL / "compile_time_functions.py"
    (kernel,) = convert(str(source), constexprs={"BLOCK": 128}).kernels
    assert kernel.constexprs["BLOCK"] == 128
    port = _port(tmp_path, source, constexprs={"BLOCK": 128})
    text = port.read_text()
    assert "T.Cast(T.float32, x[i])" in text and "* T.float32(4.0)" in text  # 128 // 32 lanes
    report = verify(str(source), str(port), VerifyOptions(compile_check=False, timeout=120,
                                                          constexprs={"BLOCK": 128}))
    assert report.kernels[0].verdict == "equivalent", report.kernels[0].error


def test_math_chosen_by_a_helper_on_an_environment_switch_takes_the_default(tmp_path, monkeypatch):
    """`exp = get_exp()` returns `fast_expf if os.getenv(...) == "1" else tl.exp`: the library as
    shipped (the switch's default), whatever the environment tileport runs in."""
    monkeypatch.setenv("FASTOPS_FAST", "1")
    source = REAL / "fastops" / "softplus.py"
    port = _port(tmp_path, source)
    text = port.read_text()
    assert "T.exp2(" in text and "T.log(" in text  # tl.exp (fast_expf would be T.exp)
    report = verify(str(source), str(port), VerifyOptions(compile_check=False, timeout=120))
    assert report.kernels[0].verdict == "equivalent", report.kernels[0].error


def test_a_dtype_passed_to_a_helper_reads_value_in_the_interpreter_as_compiled(tmp_path):
    source = REAL / "dtype_value_helper.py"
    port = _port(tmp_path, source)
    report = verify(str(source), str(port), VerifyOptions(compile_check=False, timeout=120))
    assert report.kernels[0].verdict == "equivalent", report.kernels[0].error


def test_scalar_conditions_in_masks_and_a_parameter_named_self_run_in_the_interpreter(tmp_path):
    """A scalar comparison broadcast into a block mask (`& (row < rows)`, `^ (y < 0)` on a
    float) was an int32 or float32 block under Triton 3.9's interpreter (TP420 "mask has
    unsupported dtype"), and a parameter named `self` collided with the launcher's own."""
    source = REAL / "scalar_condition_masks.py"
    port = _port(tmp_path, source)
    report = verify(str(source), str(port), VerifyOptions(compile_check=False, timeout=120))
    assert [k.verdict for k in report.kernels] == ["equivalent"] * 3, [k.error for k in report.kernels]


def test_a_batched_gemm_grid_over_the_launch_keywords_and_its_pipeline_builds_for_sm80(tmp_path):
    """`meta["M"]` in a grid lambda is the argument M (the grid was two free axes, and verify
    ran thousands of programs); the pipelined loop gathers strided tiles without a mask, which
    TileLang makes cp.async draining through a wait count that depends on its loop variable
    at 2 stages too: the program compiles unrolled (it failed "Downcast from tirx.Sub")."""
    from porter.ir.nodes import Call, Var
    from porter.verify.port_exec import lower, program_configs

    source = REAL / "batched_gemm_strided.py"
    kernel = convert(str(source)).kernels[0]
    grid = kernel.launch.grid
    assert isinstance(grid[0], Call) and grid[0].args[0] == Var("M", "int32") and grid[2] == Var("batch", "int32")
    from porter.pipeline import raise_to_tiles

    path = tmp_path / "port.py"
    path.write_text(print_port(raise_to_tiles(convert(str(source))), str(source)))
    module = _load(path)
    factory = module.batched_gemm_kernel_program
    assert module._UNROLLED_ALWAYS == ("batched_gemm_kernel_program",)
    configs = program_configs(module, factory, {})
    assert "tl.UnrollLoop" in configs
    lowered = lower(factory(), {"kind": "cuda", "arch": "sm_80"}, configs)
    assert "cp_async" in lowered.kernel_source or "cp.async" in lowered.kernel_source


def test_ids_loaded_as_a_block_bound_the_tensor_they_address(tmp_path):
    """`ids = tl.load(...)` is a tile; `x_ptr + ... + ids * D` reads below the index limit
    verify draws the ids under, so x's extent follows from the sizes (it was the generous
    product of every size, past verify's cap at the second problem: TP430)."""
    from porter.ir.nodes import Var
    from porter.ir.walk import walk_expr

    source = REAL / "gathered_ids_block.py"
    kernel = convert(str(source)).kernels[0]
    extent = kernel.param("x_ptr").extent
    assert extent is not None and Var("index_limit", "int32") in list(walk_expr(extent))
    report = verify(str(source), str(_port(tmp_path, source)), VerifyOptions(compile_check=False))
    assert report.kernels[0].verdict == "equivalent", report.kernels[0].error


def test_a_size_passed_as_a_block_shape_is_drawn_a_power_of_two(tmp_path):
    """`K=k` with `tl.arange(0, K)`: the original compiles only at a power of two (the
    interpreter refused the drawn k: "arange's range must be a power of 2"), so verify draws k
    as one, and the port is checked at those sizes."""
    from porter.verify.inputs import problem_sizes

    source = REAL / "size_as_block_shape.py"
    kernel = convert(str(source)).kernels[0]
    assert all(p["k"] & (p["k"] - 1) == 0 for p in problem_sizes(kernel, {}))
    report = verify(str(source), str(_port(tmp_path, source)), VerifyOptions(compile_check=False))
    assert report.kernels[0].verdict == "equivalent", report.kernels[0].error


def test_a_helper_chosen_by_the_installed_tritons_features_converts_and_verifies(tmp_path):
    """`if hasattr(triton.language, X): ... elif ...: ... else: @triton.jit def ...`: the front
    end and verify's kernels-only copy both take the branch the installed Triton takes (the
    name was unknown, TP226; the copy took the first branch and failed to import)."""
    source = REAL / "builtin_by_triton_version.py"
    report = verify(str(source), str(_port(tmp_path, source)), VerifyOptions(compile_check=False))
    assert report.kernels[0].verdict == "equivalent", report.kernels[0].error


def test_masked_rows_of_an_aligned_copy_are_read_as_a_gpus_predicated_copy_on_the_cpu(tmp_path):
    """fp32 addmm with 64-bit program ids: the aligned program leaves rows past M to T.copy's
    predicate (cp.async's on sm_80). TileLang lowers the synchronous copy of the C build as a
    vector load of the row, then a select, which read row M of `a` in verify's ragged aligned
    case ("OUTSIDE ... index 13 of dimension 0, which has 13") and called the port wrong; the C
    build's copy tests each element instead."""
    from porter.pipeline import raise_to_tiles

    source = REAL / "addmm_masked_rows.py"
    path = tmp_path / "port.py"
    path.write_text(print_port(raise_to_tiles(convert(str(source))), str(source)))
    assert "T.copy(a_ptr[" in path.read_text()
    report = verify(str(source), str(path), VerifyOptions(compile_check=False))
    result = report.kernels[0]
    assert result.verdict == "equivalent", (result.error, [b for c in result.cases for b in c.buffers if not b.ok])
    assert not any(c.strays for c in result.cases)
    # its pipeline of copies and one fp32 FMA product drains through a variable cp.async wait
    # on sm_80 unless unrolled: the aligned program compiles with the deep configs
    from porter.verify.port_exec import lower, program_configs

    module = _load(path)
    factory = module.scaled_addmm_kernel_program
    configs = program_configs(module, factory, {"aligned": True})
    assert "tl.UnrollLoop" in configs
    lower(factory(aligned=True), {"kind": "cuda", "arch": "sm_80"}, configs)


def test_an_attention_port_is_built_with_the_callers_head_dim(tmp_path):
    """The tutorial's launcher passes `HEAD_DIM=q.shape[-1]`: the port takes HEAD_DIM as a
    program parameter (its default only what conversion saw), and runs the original's call
    with head_dim 128, not only the value verify drew."""
    import torch

    # the attention sample's kernel under the tutorial's launcher (HEAD_DIM from the tensors)
    sample = (ROOT / "samples" / "triton" / "attention_fwd_small.py").read_text(encoding="utf-8")
    kernel = sample[:sample.index("HEAD_DIM = 32")]
    source = tmp_path / "attention_head_dim.py"
    source.write_text(kernel + textwrap.dedent("""
        def attention_fwd(q, k, v, sm_scale):
            batch, heads, seq_len, head_dim = q.shape
            q3, k3, v3 = (t.reshape(batch * heads, seq_len, head_dim) for t in (q, k, v))
            o3 = torch.empty_like(q3)
            grid = lambda meta: (triton.cdiv(seq_len, meta['BLOCK_M']), batch * heads)
            attention_fwd_kernel[grid](q3, k3, v3, o3, sm_scale, seq_len,
                                       q3.stride(0), q3.stride(1), k3.stride(0), k3.stride(1),
                                       v3.stride(0), v3.stride(1), o3.stride(0), o3.stride(1),
                                       BLOCK_M=32, BLOCK_N=16, HEAD_DIM=q.shape[-1])
            return o3.reshape(batch, heads, seq_len, head_dim)
        """), encoding="utf-8")
    module = convert(str(source))
    (k,) = module.kernels
    assert "HEAD_DIM" in k.generic
    port = _load(_port(tmp_path, source))
    torch.manual_seed(0)
    heads, seq, head_dim = 2, 40, 128
    q, key, v = (torch.randn(heads, seq, head_dim) for _ in range(3))
    out = torch.empty_like(q)

    def grid(meta):
        return (-(-seq // meta["BLOCK_M"]), heads)
    port.attention_fwd_kernel[grid](q, key, v, out, 0.1, seq, q.stride(0), q.stride(1), key.stride(0),
                                    key.stride(1), v.stride(0), v.stride(1), out.stride(0), out.stride(1),
                                    BLOCK_M=32, BLOCK_N=16, HEAD_DIM=head_dim, target="c")
    expected = torch.softmax(q @ key.transpose(1, 2) * 0.1, -1) @ v
    assert torch.allclose(out, expected, atol=1e-5)
