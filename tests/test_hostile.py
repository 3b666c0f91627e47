"""Hostile input: every class of issue 15 ends as a coded diagnostic, with nothing of the user's
lost, no traceback and no hang (each reproducer is our own, not a fuzz case)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT

SAXPY = ROOT / "samples" / "cuda" / "saxpy.cu"
KERNEL = "__global__ void k(float* x) { x[0] = 1.0f; }\n"


def tileport(*args, cwd=ROOT, env=None, timeout=120):
    run = subprocess.run([sys.executable, "-m", "porter.cli", *map(str, args)], cwd=cwd, capture_output=True,
                         text=True, timeout=timeout, env={**os.environ, **(env or {})})
    assert "Traceback" not in run.stderr + run.stdout, run.stderr
    return run


def coded(run, code: str, status: int | None = None) -> str:
    """The diagnostics printed (verify's report is on stdout, the others' on stderr)."""
    text = run.stderr + run.stdout
    assert f"error {code}:" in text, text
    assert run.returncode != 0 if status is None else run.returncode == status, (run.returncode, text)
    return text


def test_an_output_that_is_the_input_by_any_name_is_refused_even_with_force(tmp_path):
    source = tmp_path / "k.cu"
    source.write_text(SAXPY.read_text())
    (tmp_path / "link.cu").symlink_to(source)
    os.link(source, tmp_path / "hard.cu")
    for output in (source, tmp_path / "link.cu", tmp_path / "hard.cu"):
        coded(tileport("convert", source, "-o", output, "--force"), "TP008")
    assert source.read_text() == SAXPY.read_text()


def test_outputs_that_cannot_be_written_or_are_not_files_are_diagnostics(tmp_path):
    source = tmp_path / "k.cu"
    source.write_text(SAXPY.read_text())
    plain = tmp_path / "plain.txt"
    plain.write_text("mine\n")
    coded(tileport("convert", source, "-o", plain / "x.py"), "TP015")  # under a file
    coded(tileport("convert", source, "-o", "/proc/tileport-test/x.py"), "TP015")
    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)
    coded(tileport("convert", source, "-o", fifo, "--force"), "TP006")  # a FIFO is never replaced
    assert fifo.is_fifo() and plain.read_text() == "mine\n"


def test_a_written_port_has_an_ordinary_files_mode(tmp_path):
    output = tmp_path / "k_tl.py"
    assert tileport("convert", SAXPY, "-o", output).returncode == 0
    umask = os.umask(0)
    os.umask(umask)
    assert output.stat().st_mode & 0o777 == 0o666 & ~umask


def test_an_include_of_a_device_or_fifo_is_refused(tmp_path):
    source = tmp_path / "k.cu"
    source.write_text('#include "/dev/zero"\n' + KERNEL)
    assert "a character device" in coded(tileport("convert", source), "TP021")
    os.mkfifo(tmp_path / "pipe.h")
    source.write_text('#include "pipe.h"\n' + KERNEL)
    assert "a FIFO" in coded(tileport("convert", source), "TP021")


@pytest.mark.parametrize("header", ['#include "/dev/zero"\n', "#define A0(x) (x+x)\n" + "".join(
    f"#define A{i}(x) A{i - 1}(A{i - 1}(x))\n" for i in range(1, 6))])
def test_a_front_end_that_runs_away_is_stopped_and_tileport_survives(tmp_path, header):
    # a header that includes /dev/zero (not seen by the include check), and a macro that
    # expands to 2^32 terms: libclang would grow to tens of GiB in tileport's own process
    (tmp_path / "h.h").write_text(header)
    source = tmp_path / "k.cu"
    body = "__global__ void k(float* y) { y[0] = A5(y[1]); }\n" if "define" in header else KERNEL
    source.write_text('#include "h.h"\n' + body)
    run = tileport("convert", source, env={"TILEPORT_FRONTEND_MEMORY": str(256 << 20)})
    assert run.returncode == 1
    assert any(f"error {code}:" in run.stderr for code in ("TP018", "TP019", "TP101")), run.stderr


def test_deep_nesting_is_a_diagnostic(tmp_path):
    triton = tmp_path / "k.py"
    triton.write_text("import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef k(x_ptr):\n"
                      f"    tl.store(x_ptr, {'-' * 3000}tl.load(x_ptr))\n")
    coded(tileport("convert", triton), "TP020")


def test_a_long_sum_converts(tmp_path):
    terms = " + ".join(f"x[i + {k}]" for k in range(400))
    source = tmp_path / "k.cu"
    source.write_text("__global__ void k(const float* x, float* y, int n) {\n"
                      f"  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) y[i] = {terms};\n}}\n")
    assert tileport("convert", source, "-o", tmp_path / "k_tl.py").returncode == 0


@pytest.mark.parametrize("expression, grid, code", [
    ("2 ** 1024 + 0 * x", "(1,)", "TP225"),  # no float32 holds it
    ("2 ** 10 ** 9 + 0 * x", "(1,)", "TP225"),  # refused before Python computes it
    ("x", "(1, 1, 1, 1)", "TP240"),  # a 4-D grid
])
def test_triton_constants_and_grids_past_what_a_machine_has(tmp_path, expression, grid, code):
    source = tmp_path / "k.py"
    source.write_text("import triton\nimport triton.language as tl\n\n\n@triton.jit\n"
                      "def k(x_ptr, n, BLOCK: tl.constexpr):\n"
                      "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                      "    x = tl.load(x_ptr + offs, mask=offs < n)\n"
                      f"    tl.store(x_ptr + offs, {expression}, mask=offs < n)\n\n\n"
                      f"def run(x):\n    k[lambda meta: {grid}](x, x.numel(), BLOCK=128)\n")
    coded(tileport("convert", source), code)


@pytest.mark.parametrize("args", [
    ["convert", ROOT / "samples"],  # a directory as SOURCE
    ["convert", "--no-such-option", SAXPY],
    ["convert", SAXPY, "--grid", "0"],
    ["convert", SAXPY, "--tile", "0,0,0"],
    ["verify", SAXPY],  # PORT missing
    ["no-such-command"],
    ["convert", ROOT / "samples" / "triton" / "add.py", "--dtype", "x_ptr=float77"],
])
def test_usage_errors_are_coded_and_exit_2(args):
    coded(tileport(*args), "TP007", status=2)


def test_a_binary_py_in_a_tree_is_a_bad_file_not_a_file_without_kernels(tmp_path):
    import json

    src = tmp_path / "src"
    src.mkdir()
    (src / "blob.py").write_bytes(bytes(range(256)) * 8)
    run = tileport("migrate", src, "-o", tmp_path / "out", "--jobs", "1", "--report", tmp_path / "r.json")
    assert run.returncode == 1
    (record,) = json.loads((tmp_path / "r.json").read_text())["files"]
    assert record["status"] == "failed" and [d["code"] for d in record["diagnostics"]] == ["TP002"]


def test_a_file_of_too_many_kernels_asks_for_max_kernels(tmp_path):
    source = tmp_path / "many.cu"
    source.write_text("".join(f"__global__ void k{i}(float* x) {{ x[{i}] = 1.0f; }}\n" for i in range(30)))
    assert "--max-kernels" in coded(tileport("convert", source, "--max-kernels", "20"), "TP022")
    assert tileport("convert", source, "--max-kernels", "30").returncode == 0


def test_verify_stops_before_allocating_what_a_kernel_indexes_gigabytes_away(tmp_path):
    source = tmp_path / "far.cu"
    source.write_text("__global__ void far(float* x, int n) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                      "  if (i < n) x[i + 1100000000] = 1.0f;\n}\n"
                      "void run(float* x, int n) { far<<<(n + 255) / 256, 256>>>(x, n); }\n")
    port = tmp_path / "far_tl.py"
    assert tileport("convert", source, "-o", port).returncode == 0
    coded(tileport("verify", source, port, "--no-compile-check"), "TP433", status=3)


def test_a_write_that_fails_half_way_is_a_diagnostic_and_leaves_no_temp_file(tmp_path):
    # a file-size limit makes the write fail as a full disk would (EFBIG instead of ENOSPC)
    import resource

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))

    run = subprocess.run([sys.executable, "-m", "porter.cli", "convert", str(SAXPY), "-o", str(tmp_path / "k_tl.py")],
                         cwd=ROOT, capture_output=True, text=True, timeout=120, preexec_fn=small_files)
    assert "Traceback" not in run.stderr
    coded(run, "TP015")
    assert list(tmp_path.iterdir()) == []


_THREE_KERNELS = ("import triton\nimport triton.language as tl\n\n\n" + "".join(
    f"@triton.jit\ndef {name}(x_ptr):\n    tl.store(x_ptr, tl.load(x_ptr) + 1.0)\n\n\n"
    for name in ("before", "stuck", "after")))


def _stuck_in(monkeypatch, name: str) -> None:
    """The Triton front end spins forever on kernel `name` (the forked child inherits it)."""
    from porter.frontends.triton.module import TritonFrontend

    real = TritonFrontend.convert_generic

    def convert_generic(self, fn):
        while fn.name == name:
            pass
        return real(self, fn)

    monkeypatch.setattr(TritonFrontend, "convert_generic", convert_generic)


def test_a_kernel_past_its_time_budget_costs_only_itself(tmp_path, monkeypatch):
    from porter.reader import read_source

    source = tmp_path / "k.py"
    source.write_text(_THREE_KERNELS)
    _stuck_in(monkeypatch, "stuck")
    monkeypatch.setenv("TILEPORT_KERNEL_SECONDS", "1")
    module = read_source(str(source))
    assert [k.name for k in module.kernels] == ["before", "after"]
    [failure] = module.failures
    assert (failure.name, failure.diagnostic.code, failure.diagnostic.loc.line) == ("stuck", "TP019", 11)
    assert "longer than 1 s" in failure.diagnostic.message


def test_kernels_left_when_the_files_time_runs_out_are_reported_not_lost(tmp_path, monkeypatch):
    import porter.isolated
    from porter.reader import read_source

    source = tmp_path / "k.py"
    source.write_text(_THREE_KERNELS)
    _stuck_in(monkeypatch, "stuck")
    monkeypatch.setenv("TILEPORT_KERNEL_SECONDS", "0")  # no per-kernel budget: the file's 5 s hold
    monkeypatch.setattr(porter.isolated, "SECONDS", 5.0)
    module = read_source(str(source))
    assert [k.name for k in module.kernels] == ["before"]
    assert [(f.name, f.diagnostic.code) for f in module.failures] == [("stuck", "TP019"), ("after", "TP019")]
    assert "ran out before kernel 'after'" in module.failures[1].diagnostic.message
