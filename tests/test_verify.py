"""End to end: convert each sample and verify it against the really executed original; ports
with one operator flipped or one index shifted must fail with exit 1."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import ROOT, one_line

CUDA = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "samples/cuda").glob("*.cu"))
TRITON = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "samples/triton").glob("*.py"))
FRESH = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "tests/fresh").rglob("*")
               if p.suffix in (".cu", ".cuh", ".py"))


def tileport(*args):
    return subprocess.run([sys.executable, "-m", "porter.cli", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=900)


def convert_and_verify(rel, tmp_path, *extra):
    port = tmp_path / (rel.replace("/", "_").rsplit(".", 1)[0] + "_tl.py")
    converted = tileport("convert", rel, "-o", port)
    assert converted.returncode == 0, converted.stderr
    result = tileport("verify", rel, port, "--format", "json", *extra)
    assert "Traceback" not in result.stderr, result.stderr
    return port, result


def assert_equivalent(result):
    report = json.loads(result.stdout)
    assert result.returncode == 0, json.dumps(report, indent=1)[:4000] + result.stderr
    for k in report["kernels"]:
        assert k["verdict"] == "equivalent"
        assert len(k["cases"]) >= 2
        for case in k["cases"]:
            assert case["buffers"] and all(b["ok"] for b in case["buffers"])
    return report


# Scalars whose valid range only the host code knows (none left: conv1d's k <= MAX_K = 15 is
# read from the shared array its loop over k indexes).
SAMPLE_ARGS: dict = {}


# The cubin compile check (nvcc, sm_80 + sm_90a) costs seconds per kernel: run it on a sample of
# each kind (elementwise, half, shared memory + barriers, warp shuffles + atomics, Triton 1D/2D).
COMPILE_CHECKED = {"samples/cuda/saxpy.cu", "samples/cuda/half_scale_bias.cu",
                   "samples/cuda/gemm_tn_half_bias_relu.cu", "samples/cuda/softmax_row.cu",
                   "samples/cuda/matmul_tiled.cu", "samples/cuda/reduce_warp_shuffle.cu",
                   "samples/triton/add.py", "samples/triton/scale_clamp_2d.py",
                   "samples/triton/matmul_fp16.py", "samples/triton/softmax_fused.py"}


@pytest.mark.slow
@pytest.mark.parametrize("rel", CUDA + TRITON)
def test_sample_converts_and_verifies(rel, tmp_path):
    extra = SAMPLE_ARGS.get(rel, []) + ([] if rel in COMPILE_CHECKED else ["--no-compile-check"])
    _, result = convert_and_verify(rel, tmp_path, *extra)
    report = assert_equivalent(result)
    if rel in COMPILE_CHECKED and shutil.which("nvcc"):
        for k in report["kernels"]:
            assert set(k["compile"]) == {"sm_80", "sm_90a"}
            assert all(c["ok"] for c in k["compile"].values()), k["compile"]
        port_text = (tmp_path / (rel.replace("/", "_").rsplit(".", 1)[0] + "_tl.py")).read_text()
        if "T.gemm(" in port_text:  # tile products must reach the tensor cores
            cores = {arch: c.get("tensor_cores") for k in report["kernels"] for arch, c in k["compile"].items()}
            assert cores["sm_80"] and "mma.sync" in cores["sm_80"], cores
            half = re.search(r"T\.alloc_shared\(\([^)]*\), T\.b?float16\)", port_text) is not None
            assert "wgmma" in cores["sm_90a"] if half else cores["sm_90a"], cores
    # one of the problem sizes is ragged: not a multiple of any block
    sizes = [v for k in report["kernels"] for c in k["cases"] for n, v in c["sizes"].items()
             if isinstance(v, int)]
    assert any(v % 2 for v in sizes)


def test_runtime_sized_shared_memory_is_reported_not_guessed():
    result = tileport("convert", "tests/unsupported/conv1d_runtime_smem.cu")
    assert result.returncode == 1 and "error TP145" in result.stderr


@pytest.mark.slow
@pytest.mark.parametrize("rel", FRESH)
def test_kernels_written_by_others_convert_and_verify(rel, tmp_path):
    _, result = convert_and_verify(rel, tmp_path, "--no-compile-check")
    assert_equivalent(result)


MUTANTS = [
    # (sample, pattern in the port, replacement): one operator flipped / one index shifted
    ("samples/cuda/saxpy.cu", r"a \* x\[i\] \+ y\[i\]", "a * x[i] - y[i]"),
    ("samples/cuda/saxpy.cu", r"a \* x\[i\]", "a * x[i + 1]"),
    ("samples/cuda/matrix_add_2d.cu", r"A\[row \* cols \+ col\] \+ B", "A[row * cols + col] * B"),
    ("samples/cuda/relu_grid_stride.cu", r"while i < n:", "while i < n - 1:"),
    ("samples/cuda/half_scale_bias.cu", r"b\[i\]\)\)", "b[i + 1]))"),
    # tile level: a reduction changed, a K loop that forgets the previous K steps
    ("samples/triton/softmax_fused.py", r"T\.reduce_max", "T.reduce_min"),
    ("samples/triton/matmul_fp16.py", r"T\.gemm\((\w+), (\w+), (\w+)\)", r"T.gemm(\1, \2, \3, clear_accum=True)"),
    # a block copied one element late, a row stored one column late
    ("samples/triton/add.py", r"T\.copy\(y_ptr\[block_start\], y\)", "T.copy(y_ptr[block_start + 1], y)"),
    ("samples/triton/softmax_fused.py", r"T\.copy\(y, out_ptr\[row_block \* ROWS, 0\]\)",
     "T.copy(y, out_ptr[row_block * ROWS, 1])"),
    # several rows per block: a grid one block short leaves the last rows unwritten
    ("samples/triton/softmax_fused.py", r"T\.ceildiv\(grid_x, ROWS\)", "T.ceildiv(grid_x, ROWS) - 1"),
    # the aligned program (run at a ragged length) copies V one row late
    ("samples/triton/attention_fwd_small.py", r"T\.copy\(v_ptr\[head, start_n, 0\], v\)",
     "T.copy(v_ptr[head, start_n + 1, 0], v)"),
]


@pytest.mark.slow
@pytest.mark.parametrize("rel, pattern, replacement", MUTANTS)
def test_mutated_port_fails_with_exit_1(rel, pattern, replacement, tmp_path):
    port = tmp_path / "port_tl.py"
    assert tileport("convert", rel, "-o", port).returncode == 0
    text = one_line(port.read_text())
    mutated, count = re.subn(pattern, replacement, text, count=1)
    if count == 0:
        pytest.fail(f"mutation pattern {pattern!r} not found in the port of {rel}")
    port.write_text(mutated)
    result = tileport("verify", rel, port, "--format", "json", "--no-compile-check")
    assert result.returncode == 1, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert any(k["verdict"] == "mismatch" for k in report["kernels"])


@pytest.mark.slow
def test_verify_text_report_names_buffers_and_tolerances(tmp_path):
    port, _ = convert_and_verify("samples/cuda/saxpy.cu", tmp_path, "--no-compile-check")
    result = tileport("verify", "samples/cuda/saxpy.cu", port, "--no-compile-check", "--arg", "n=100")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "saxpy" in result.stdout and "equivalent" in result.stdout
    assert "n=100" in result.stdout and "1e-05" in result.stdout


@pytest.mark.slow
def test_port_that_crashes_is_could_not_run(tmp_path):
    port, _ = convert_and_verify("samples/cuda/saxpy.cu", tmp_path, "--no-compile-check")
    crashing = tmp_path / ("a_long_folder_name_" * 6) / port.name  # a line past 160 columns
    crashing.parent.mkdir()
    crashing.write_text(port.read_text().replace("kernel(n, a, x, y)", "import os; os.abort()"))
    result = tileport("verify", "samples/cuda/saxpy.cu", crashing, "--no-compile-check")
    assert result.returncode == 3, result.stdout + result.stderr
    assert "error TP44" in result.stdout + result.stderr
    # the diagnostic is one line however long its path (the console does not wrap it)
    (line,) = [ln for ln in result.stdout.splitlines() if "error TP44" in ln]
    assert len(line.strip()) > 160 and line.strip().startswith(str(crashing)), result.stdout
    assert line.rstrip().endswith("signal SIGABRT"), result.stdout



@pytest.mark.slow
def test_shared_memory_beyond_the_arch_limit_fails_the_compile_check(tmp_path):
    src = tmp_path / "big_smem.cu"
    src.write_text(
        "#define N 61440\n"  # 240 KiB of floats: more than sm_90a's 227 KiB
        "__global__ void stage(const float* x, float* y, int n) {\n"
        "  __shared__ float buf[N];\n"
        "  for (int i = threadIdx.x; i < N; i += blockDim.x) buf[i] = i < n ? x[i] : 0.0f;\n"
        "  __syncthreads();\n"
        "  if (threadIdx.x == 0 && blockIdx.x == 0) y[0] = buf[N - 1];\n}\n"
        "void run(const float* x, float* y, int n) { stage<<<1, 256>>>(x, y, n); }\n")
    port = tmp_path / "big_smem_tl.py"
    assert tileport("convert", src, "-o", port).returncode == 0
    if not shutil.which("nvcc"):
        pytest.skip("the compile check needs nvcc")  # the CPU run below would pass without it
    result = tileport("verify", src, port, "--format", "json", "--arg", "n=64")
    report = json.loads(result.stdout)
    compile_ = report["kernels"][0]["compile"]
    assert compile_["sm_90a"]["ok"] is False and "exceeds" in compile_["sm_90a"]["message"]
    assert result.returncode == 3


def test_asserted_and_aligned_multiples_shape_the_problem_sizes():
    """`assert(T % 4 == 0)` (an empty if in the IR) and a float4 access at `x + row * P` make
    verify draw multiples; a grid over `n / 8` keeps the usual size, rounded up to 8."""
    from porter.ir.nodes import BinOp, BufferParam, Const, If, Kernel, Launch, ScalarParam, Var
    from porter.verify.inputs import problem_sizes

    from porter.ir.nodes import Decl, While

    T, n = Var("T", "int32"), Var("n", "int32")
    C, H = Var("C", "int32"), Var("H", "int32")
    assert_ = If(BinOp("==", BinOp("%", T, Const(4, "int32"), "int32"), Const(0, "int32"), "bool"), [], [])
    guard = If(BinOp("<", T, n, "bool"), [], [])
    # `for (; c < C; ...)` (a while) makes C a size; `hs = C / H` wants C >= H
    loop = While(BinOp("<", Var("c", "int32"), C, "bool"), [])
    head = Decl(Var("hs", "int32"), BinOp("/", C, H, "int32"))
    grid = (BinOp("/", BinOp("+", BinOp("/", n, Const(8, "int32"), "int32"), Const(127, "int32"), "int32"),
                  Const(128, "int32"), "int32"),)
    kernel = Kernel("k", "cuda", [BufferParam("x", "float32"), ScalarParam("T", "int32"),
                                  ScalarParam("P", "int32"), ScalarParam("n", "int32"),
                                  ScalarParam("C", "int32"), ScalarParam("H", "int32")],
                    [assert_, guard, loop, head], Launch(grid, (128,), 0, "launch-site"), None)
    kernel.sizing.alignments = {"P": 4}
    for sizes in problem_sizes(kernel, {}):
        assert sizes["T"] % 4 == 0 and sizes["P"] % 4 == 0 and sizes["n"] % 8 == 0
        assert sizes["C"] > 3 and sizes["C"] // sizes["H"] >= 1


def test_four_nested_strides_stay_within_memory():
    """A 4-D tensor whose four dimensions all have the larger problem's size would need its
    strides spread to 1531**3 (the interpreter was killed for memory on the attention
    tutorial): past STRIDE_CAP they all take P."""
    from porter.ir.nodes import BinOp, BufferParam, Kernel, Launch, ScalarParam, Var
    from porter.verify.inputs import STRIDE_CAP, buffer_lengths, problem_sizes

    names = ["stride_z", "stride_h", "stride_m", "stride_k"]
    extent = None
    for n in names:
        term = BinOp("*", Var(n, "int32"), Var("N", "int32"), "int32")
        extent = term if extent is None else BinOp("+", extent, term, "int32")
    x = BufferParam("x", "float32")
    x.extent = extent
    kernel = Kernel("k", "triton", [x] + [ScalarParam(n, "int32") for n in names + ["N"]], [],
                    Launch((Var("N", "int32"),), (1,), 0, "launch-site"), None)
    for sizes in problem_sizes(kernel, {}):
        assert all(sizes[n] <= STRIDE_CAP for n in names), sizes
        assert buffer_lengths(kernel, sizes, {})["x"] < 1 << 24


def test_an_unbounded_buffer_spans_the_row_stride_constexpr_its_index_names(tmp_path):
    """`for r in range(pid, rows, step)` with a run-time step (of either sign: a while loop the
    extent analysis does not bound), then `x + r * WIDTH + col`: the buffer is sized without
    an extent, and must span rows * WIDTH; the sizes alone (rows * 4) had the original write
    past its buffers (heap corruption in the Triton interpreter)."""
    from porter.frontends.triton import convert_triton
    from porter.verify.inputs import buffer_lengths, problem_sizes

    src = tmp_path / "rows.py"
    src.write_text(textwrap.dedent("""
        import torch
        import triton
        import triton.language as tl


        @triton.jit
        def every_other_row(x_ptr, rows, step, WIDTH: tl.constexpr):
            col = tl.arange(0, WIDTH)
            for r in range(tl.program_id(0), rows, step):
                v = tl.load(x_ptr + r * WIDTH + col)
                tl.store(x_ptr + r * WIDTH + col, v * 2.0)


        def run(x):
            every_other_row[(2,)](x, x.shape[0], 2, WIDTH=64)
    """))
    (kernel,) = convert_triton(str(src)).kernels
    assert kernel.param("x_ptr").extent is None
    for sizes in problem_sizes(kernel, {"step": "2"}):  # (a user's --arg step=2)
        assert buffer_lengths(kernel, sizes, {"step": "2"})["x_ptr"] >= sizes["rows"] * 64


def test_the_report_shows_the_share_of_each_buffer_the_original_wrote(tmp_path):
    """saxpy reads x (0 % written) and rewrites every y (100 %): the report says so per case."""
    _, result = convert_and_verify("samples/cuda/saxpy.cu", tmp_path, "--no-compile-check")
    assert_equivalent(result)
    for case in json.loads(result.stdout)["kernels"][0]["cases"]:
        written = {b["buffer"]: b["written"] for b in case["buffers"]}
        assert written["x"] == 0.0 and written["y"] > 0.99, written
    text = tileport("verify", "samples/cuda/saxpy.cu", tmp_path / "samples_cuda_saxpy_tl.py", "--no-compile-check")
    assert " written " in text.stdout.splitlines()[1] and "100%" in text.stdout and " 0% " in text.stdout


# A CUDA file whose host code needs headers this machine lacks (cuBLAS, helper_cuda.h): verify
# builds it from the front end's host-free text, copied into a tileport-original-* folder.
HOST_FREE = "tests/fresh/cuda/missing_headers_host_api.cu"


@pytest.mark.slow
def test_verify_leaves_nothing_in_the_temp_folder(tmp_path):
    port = tmp_path / "port_tl.py"
    assert tileport("convert", HOST_FREE, "-o", port).returncode == 0
    temp = tmp_path / "temp"
    temp.mkdir()
    # cold children: a warm worker's socket folder (tileport-warm-<uid>) is meant to outlive the run
    env = dict(os.environ, TMPDIR=str(temp), TILEPORT_WARM="0")
    result = subprocess.run([sys.executable, "-m", "porter.cli", "verify", HOST_FREE, str(port), "--format",
                             "json", "--no-compile-check"], cwd=ROOT, capture_output=True, text=True,
                            timeout=900, env=env)
    assert_equivalent(result)
    assert not [p.name for p in temp.iterdir() if p.name.startswith("tileport-")]


def test_the_host_free_copy_is_removed_when_a_run_fails(tmp_path, monkeypatch):
    import tempfile

    from porter.verify import driver

    port = tmp_path / "port_tl.py"
    assert tileport("convert", HOST_FREE, "-o", port).returncode == 0
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    built = []

    def failing_run(module, kernel, scalars, given, grid, original, *rest, **kw):
        built.append(Path(original))
        assert Path(original).is_file() and temp in Path(original).parents  # the copy, being built
        raise RuntimeError("the original's run failed")

    monkeypatch.setattr(driver, "_informative_run", failing_run)
    with pytest.raises(RuntimeError, match="run failed"):
        driver.verify(str(ROOT / HOST_FREE), str(port), driver.VerifyOptions(compile_check=False))
    assert built and built[0].name == Path(HOST_FREE).name
    assert not list(temp.iterdir())


def test_sizes_that_empty_the_launch_grid_are_raised():
    # `<<<len / 256 - 1, 256>>>` (shfl_scan's uniform_add): a length below two blocks launches
    # nothing; each problem gets a grid of at least one block, and the problems stay distinct
    from porter.frontends.cuda import convert_cuda
    from porter.ir.fold import evaluate
    from porter.verify.inputs import problem_sizes

    k = convert_cuda(str(ROOT / "tests/fresh/cuda_thread/add_block_sums.cu")).kernels[0]
    problems = problem_sizes(k, {})
    assert all(int(evaluate(k.launch.grid[0], p)) >= 1 for p in problems)
    assert len({p["len"] for p in problems}) == len(problems) >= 2


def test_a_table_the_kernel_divides_by_is_drawn_without_zeros():
    # dct8x8's quantization: `c /= q` with `q = steps[...]` (a __constant__ table): a zero step
    # crashes the original with SIGFPE
    from porter.frontends.cuda import convert_cuda
    from porter.verify.inputs import divisor_buffers, make_args, problem_sizes

    k = convert_cuda(str(ROOT / "tests/fresh/cuda_thread/quantize_table.cu")).kernels[0]
    assert divisor_buffers(k) == {"steps"}
    scalars = problem_sizes(k, {})[0]
    for seed in range(4):
        args = dict(zip([p.name for p in k.params], make_args(k, scalars, {}, seed)))
        assert (args["steps"] != 0).all() and (args["coef"] == 0).any() | (args["coef"] < 0).any()


def test_uint16_buffers_reach_the_port_as_integers_bfloat16_ones_as_bfloat16():
    # alignedTypes' `unsigned short` copy: "d_odata: expected uint16, got torch.bfloat16"
    import numpy as np

    from porter.verify.port_exec import _encode

    job = {"kind": "run", "args": [np.zeros(3, np.uint16), np.zeros(3, np.uint16), 5], "bf16": [True, False, False]}
    assert [a.get("bf16") for a in _encode(job)["args"]] == [True, False, None]


def test_an_originals_quoted_header_is_its_own_before_a_same_named_one_of_an_include_dir(tmp_path):
    # cuda-samples simpleCallback: "multithreading.h" beside the file declares CUTBarrier, the
    # -I Common copy does not; the emulator built the Common one (TP410 "does not name a type")
    proj, common = tmp_path / "proj", tmp_path / "common"
    proj.mkdir()
    common.mkdir()
    (common / "barrier.h").write_text("// another project's header of the same name\n")
    (proj / "barrier.h").write_text("struct Barrier { int count; };\n")
    (proj / "k.cu").write_text(textwrap.dedent("""\
        #include <cublas_v2.h>
        #include "barrier.h"
        Barrier host_barrier;
        __global__ void inc(int *v, int n) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            if (i < n) v[i] += 1;
        }
        void run(int *v, int n) { inc<<<(n + 127) / 128, 128>>>(v, n); }
        """))
    port = tmp_path / "k_tl.py"
    converted = tileport("convert", proj / "k.cu", "-o", port, "-I", common)
    assert converted.returncode == 0, converted.stderr
    result = tileport("verify", proj / "k.cu", port, "-I", common, "--no-compile-check", "--format", "json")
    assert_equivalent(result)


def test_an_unsigned_size_the_grid_floor_divides_is_drawn_a_multiple(tmp_path):
    # UnifiedMemoryPerf: `<<<matrixDim / 32, ...>>>` over `unsigned int matrixDim` reads
    # `(int32)matrixDim / 32`; the cast hid the divisor, matrixDim 1531 overflowed B's extent
    from porter.frontends.cuda import convert_cuda
    from porter.verify.inputs import problem_sizes

    f = tmp_path / "k.cu"
    f.write_text("__global__ void tiles(float *out, const float *in, unsigned int n) {\n"
                 "  int i = blockIdx.x * 16 + threadIdx.x;\n  out[i] = 3.0f * in[i];\n}\n"
                 "void run(float *o, const float *i, unsigned int n) { tiles<<<n / 16, 16>>>(o, i, n); }\n")
    k = convert_cuda(str(f)).kernels[0]
    assert all(p["n"] % 16 == 0 and p["n"] > 0 for p in problem_sizes(k, {}))


def test_a_variant_the_port_refuses_is_noted_and_the_main_form_refusing_is_a_failure(tmp_path):
    """The emitter leaves out of a port's dispatch a flag variant whose program's signature
    differs (FlagGems' batch_norm with is_train=True): the port refuses it by name. Verify notes
    that variant as left out, as the front end's own left-out variants are, instead of failing
    the kernel (TP440); the main form refusing its own values stays a failure."""
    from porter.diagnostics import Loc
    from porter.verify.driver import CaseResult, KernelResult, VerifyOptions, apply_results

    port = tmp_path / "port.py"
    port.write_text("")
    refusal = {"ok": False, "type": "ValueError",
               "message": "k: this port is specialised for TRAIN=False (got True); re-run ..."}
    results = {}
    for variant in (True, False):
        result = KernelResult("k", Loc(str(port)))
        case = CaseResult({"n": 3}, (1,), "cpu", constexprs={"TRAIN": True})
        result.cases.append(case)
        apply_results([("run", result, case, None, ([], [], variant))], [refusal], str(port), VerifyOptions())
        results[variant] = result
    assert results[True].error is None and results[True].cases == []
    assert results[True].input_notes[0].startswith("TRAIN=True left out: the port refuses it")
    assert results[False].error.code == "TP440" and results[False].verdict == "could-not-run"


def test_many_sizes_multiplied_shrink_to_what_verify_allocates_and_a_wrapped_extent_is_refused():
    """A 5-D gather (FlagGems' nearest upsampling) multiplies eight sizes: at verify's second
    size set its buffers passed LENGTH_CAP (TP433), and a buffer tileport cannot bound passed
    GENEROUS_CAP (TP430); the sizes shrink until they fit. An extent whose int32 arithmetic
    wraps at the sizes drawn is refused, not allocated at its wrapped value (one element, which
    the interpreter then read past: SIGSEGV)."""
    from porter.diagnostics import TileportError
    from porter.ir.fold import evaluate
    from porter.ir.nodes import BinOp, BufferParam, Const, Kernel, Launch, ScalarParam, Var
    from porter.reader import read_source
    from porter.verify.inputs import LENGTH_CAP, buffer_lengths, problem_sizes

    kernel = read_source(str(ROOT / "tests/real_triton/many_sizes_gather.py")).kernels[0]
    problems = problem_sizes(kernel, {})
    assert len(problems) >= 2
    for scalars in problems:
        assert 0 < sum(buffer_lengths(kernel, scalars, {}).values()) <= LENGTH_CAP
    big = BinOp("*", Var("n", "int32"), Const(1 << 20, "int32"), "int32")
    assert evaluate(big, {"n": 4096}) == 0 and evaluate(big, {"n": 4096}, exact=True) == 1 << 32
    wrapping = Kernel("k", "cuda", [BufferParam("x", "float32", extent=big), ScalarParam("n", "int32")], [],
                      Launch((Const(1, "int32"),), (32,), 0, "given"), None)
    with pytest.raises(TileportError, match="range of their integer type"):
        buffer_lengths(wrapping, {"n": 4096}, {})
