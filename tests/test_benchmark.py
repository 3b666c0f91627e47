"""bench/benchmark.py: the dry run plans the right rows anywhere; without a GPU a plain run
says that nothing was timed and succeeds (the timing itself needs a GPU: see bench/)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import ROOT, gpu_available

BENCH = str(ROOT / "bench" / "benchmark.py")


def run_bench(*args, timeout=300):
    return subprocess.run([sys.executable, BENCH, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout)


def test_dry_run_names_kernels_levels_and_scaled_sizes(tmp_path):
    out = tmp_path / "rows.json"
    result = run_bench("--dry-run", "samples/cuda/saxpy.cu", "samples/triton/matmul_fp16.py",
                       "--json", str(out))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    lines = result.stdout.splitlines()
    # verify's larger prime problem (n=1531; M, N, K = 131, 131, 67: past two 64-wide tiles)
    # times the default scale 16, rounded up to the tiles the port's aligned program needs whole
    # (N 64, K 32; M stays ragged: the rows of A past M are T.copy's own predicate)
    saxpy = next(line for line in lines if line.startswith("samples/cuda/saxpy.cu"))
    assert saxpy.split()[1:4] == ["saxpy", "tile", f"n={1531 * 16}"]
    matmul = next(line for line in lines if line.startswith("samples/triton/matmul_fp16.py"))
    assert matmul.split()[1:6] == ["matmul_fp16_kernel", "tile", "M=2096", "N=2112", "K=1088"]
    rows = {r["kernel"]: r for r in json.loads(out.read_text())["rows"]}
    assert rows["saxpy"]["sizes"] == {"n": 1531 * 16} and rows["saxpy"]["grid"] == [96]
    # strides of contiguous tensors, as a caller passes them: unit steps, rows one width (or a
    # little more, where A's extent counts the masked K loop's last tile whole) and aligned
    scalars = rows["matmul_fp16_kernel"]["scalars"]
    assert scalars["stride_ak"] == scalars["stride_bn"] == scalars["stride_cn"] == 1
    assert scalars["stride_bk"] == scalars["stride_cm"] == 2112
    assert 1088 <= scalars["stride_am"] <= 1088 + 2 * 1088 and scalars["stride_am"] % 8 == 0
    assert all(r["original_ms"] is None and r["note"] == "" for r in rows.values())


def test_dry_run_scale_option():
    result = run_bench("--dry-run", "--scale", "2", "samples/cuda/saxpy.cu")
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"n={1531 * 2}" in result.stdout


def test_without_a_gpu_nothing_is_timed(tmp_path):
    if gpu_available():
        pytest.skip("a GPU is present: a plain run times the kernels")
    result = run_bench("samples/cuda/saxpy.cu", "samples/triton/matmul_fp16.py")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("nothing was timed: no CUDA GPU")
    assert len(result.stdout.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr


def test_reference_programs_parse_and_lower_like_the_ports_they_stand_beside():
    """bench/port_quality.py's references: each builds; the fp32 gemm's pipelined copies are
    asynchronous on sm_80 with two stages of shared buffers, as the gemm ports' are; the attention
    reference lowers on sm_80 with the pass configs it carries (explicit unroll); the fp16 gemm's
    whole-tile variant copies asynchronously where the dynamic one cannot."""
    sys.path.insert(0, str(ROOT / "bench"))
    from reference_ports import REFERENCES

    from porter.verify.port_exec import async_copies, lower, shared_bytes

    for name, (what, make, *_configs) in REFERENCES.items():
        assert (ROOT / "samples" / ("cuda" if name.endswith(".cu") else "triton") / name).is_file(), name
        assert "T.copy(" in make().script(), what
    gemm = lower(REFERENCES["matmul_tiled.cu"][1](), {"kind": "cuda", "arch": "sm_80"}, {})
    assert async_copies(gemm.kernel_source) >= 2 and shared_bytes(gemm) == 2 * (64 * 16 + 16 * 64) * 4
    _what, make, configs = REFERENCES["attention_fwd_small.py"]
    attention = lower(make(), {"kind": "cuda", "arch": "sm_80"}, configs)
    assert async_copies(attention.kernel_source) >= 2
    # an fp16 gemm's copies are predicated per element at dynamic sizes (no cp.async on sm_80);
    # at whole tiles, as a port's aligned program, they are asynchronous
    fp16 = REFERENCES["matmul_fp16.py"][1]
    assert async_copies(lower(fp16(), {"kind": "cuda", "arch": "sm_80"}, {}).kernel_source) == 0
    assert async_copies(lower(fp16(whole_tiles=True), {"kind": "cuda", "arch": "sm_80"}, {}).kernel_source) >= 2


def test_corpus_quality_reads_a_migrated_tree_and_tells_shaped_copies_from_flat_buffers(tmp_path):
    """bench/corpus_quality.py on a report: a port whose program copies tiles of shaped views
    counts, one with a flat buffer does not; the module's lines are set against the original's
    @triton.jit lines only."""
    sys.path.insert(0, str(ROOT / "bench"))
    from corpus_quality import corpus_rows, program_measures, summary, triton_kernel_lines

    shaped = '''def k_program():
    @T.prim_func
    def k(A: T.StridedTensor((M, K), (sa, 1), T.float16), B: T.Tensor((K, N), T.float16)):
        T.copy(A[0, 0], s)
    return k
'''
    flat = shaped.replace("B: T.Tensor((K, N), T.float16)", "B: T.Tensor((B_numel,), T.float16)")
    assert program_measures(shaped, "k") == {"t_copy": 1, "shaped": 2, "flat": 0, "flat_blocks": 0,
                                             "copies_between_shaped": True, "flat_affine_blocks": 0,
                                             "affine_blocks_copied": True}
    # a flat buffer indexed at a scalar moves no block; one gathered in a T.Parallel does
    scalar = flat.replace("        T.copy(A[0, 0], s)\n", "        T.copy(A[0, 0], s)\n        B[0] = s[0]\n")
    gathered = flat.replace("        T.copy(A[0, 0], s)\n",
                            "        T.copy(A[0, 0], s)\n        for i in T.Parallel(64):\n            s[i] = B[i]\n")
    assert program_measures(scalar, "k")["copies_between_shaped"] is True
    assert program_measures(gathered, "k")["copies_between_shaped"] is False
    assert program_measures(gathered, "k")["flat_blocks"] == 1
    # every lane reading one element (`B[row]`) is no block; a local that follows the lanes is
    same = flat.replace("        T.copy(A[0, 0], s)\n",
                        "        T.copy(A[0, 0], s)\n        for i in T.Parallel(64):\n            s[i] = s[i] * B[row]\n")
    follows = flat.replace("        T.copy(A[0, 0], s)\n", "        T.copy(A[0, 0], s)\n        for i in T.Parallel(64):\n"
                           "            offs = base + i\n            s[i] = B[offs]\n")
    assert program_measures(same, "k")["flat_blocks"] == 0
    assert program_measures(follows, "k")["flat_blocks"] == 1
    assert program_measures(follows, "k")["flat_affine_blocks"] == 1
    # a gather (through another buffer, or a lane divided) is a flat block but no affine one
    for index in ("idx[i]", "T.truncdiv(i, 4) * 8", "i * i"):
        gather = flat.replace("        T.copy(A[0, 0], s)\n",
                              f"        T.copy(A[0, 0], s)\n        for i in T.Parallel(64):\n            s[i] = B[{index}]\n")
        measured = program_measures(gather, "k")
        assert measured["flat_blocks"] == 1 and measured["flat_affine_blocks"] == 0, index
        assert measured["affine_blocks_copied"] and not measured["copies_between_shaped"]
    assert program_measures(shaped, "other") is None
    source = "import triton\n\n@triton.jit\ndef k(x):\n\n    pass\n\n\ndef host():\n    return 1\n"
    assert triton_kernel_lines(source) == 3
    (tmp_path / "src").mkdir()
    (tmp_path / "out").mkdir()
    (tmp_path / "src" / "a.py").write_text(source)
    (tmp_path / "out" / "a_tl.py").write_text(shaped)
    report = {"source_root": "src", "output_root": "out", "files": [
        {"path": "a.py", "language": "triton", "output": "a_tl.py",
         "kernels": [{"name": "k", "verdict": "equivalent", "level": "tile"}]},
        {"path": "b.py", "language": "triton", "output": "b_tl.py",
         "kernels": [{"name": "k", "verdict": "mismatch", "level": "tile"}]}]}
    rows = corpus_rows(report, tmp_path)
    assert [(r["file"], r["copies_between_shaped"], r["kernel_lines"]) for r in rows] == [("a.py", True, 3)]
    assert "1 (100 %) move their tiles" in summary(rows)
    # a GEMM port: the compile check's async copies per arch; a kernel with no aligned program
    # counts none, one not compiled leaves the port uncounted
    (tmp_path / "out" / "a_tl.py").write_text(shaped.replace("T.copy(A[0, 0], s)", "T.copy(A[0, 0], s)\n        T.gemm(s, s, c)"))
    checked = {"sm_80": {"ok": True, "async_copies": 4}, "sm_90a": {"ok": True, "async_copies": 2}}
    report["files"][0]["kernels"][0]["verify"] = {"compile": checked}
    (row,) = corpus_rows(report, tmp_path)
    assert row["gemm"] and (row["async_sm_80"], row["async_sm_90a"]) == (4, 2)
    assert "ports with a T.gemm: 1, async copies in the aligned program on sm_80 and sm_90a: 1 of the 1" in \
        summary([row])
    report["files"][0]["kernels"][0]["verify"] = {"compile": {"sm_80": {"ok": True}, "sm_90a": {"ok": True}}}
    (row,) = corpus_rows(report, tmp_path)
    assert (row["async_sm_80"], row["async_sm_90a"]) == (0, 0) and ": 0 of the 1" in summary([row])
    said = {arch: {"ok": True, "message": f"cubin built for {arch}; aligned program: 3 async copies"}
            for arch in ("sm_80", "sm_90a")}  # a report that kept the count in the message only
    report["files"][0]["kernels"][0]["verify"] = {"compile": said}
    (row,) = corpus_rows(report, tmp_path)
    assert (row["async_sm_80"], row["async_sm_90a"]) == (3, 3)


def test_corpus_quality_measures_an_elementwise_body_on_the_program_that_runs_it(tmp_path):
    """An elementwise body (`@_elementwise(...) def k(x: T.float32)`) has no program of its own:
    it is measured on the launch helpers' `_elementwise_program`, from the folder's helpers."""
    sys.path.insert(0, str(ROOT / "bench"))
    from corpus_quality import kernel_measures
    from porter.emit.tilelang import launcher_text

    port = '@_elementwise(promotions=(((0,), "DEFAULT"),))\ndef k(x: T.float32) -> T.float32:\n    return T.abs(x)\n'
    helpers = tmp_path / "_tileport_launch.py"
    assert kernel_measures(port, "k", helpers) is None  # no helpers beside it: nothing to measure
    helpers.write_text(launcher_text())
    measured = kernel_measures(port, "k", helpers)
    assert measured["copies_between_shaped"] and measured["t_copy"] == 2 and measured["flat_blocks"] == 0
    assert kernel_measures(port, "other", helpers) is None  # not a body, and no program of its own
