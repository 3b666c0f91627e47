"""CLI behaviour on good and bad input: coded diagnostics, never tracebacks; nothing lost."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import ROOT


def tileport(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "porter.cli", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def assert_diagnostic(result, code, exit_code=None):
    assert "Traceback" not in result.stderr, result.stderr
    assert f"error {code}:" in result.stderr, result.stderr
    assert result.returncode != 0
    if exit_code is not None:
        assert result.returncode == exit_code


def test_convert_writes_output_and_refuses_to_overwrite(tmp_path):
    out = tmp_path / "saxpy_tl.py"
    first = tileport("convert", "samples/cuda/saxpy.cu", "-o", out)
    assert first.returncode == 0, first.stderr
    text = out.read_text()
    assert "def _saxpy(n, a, x, y, *, target=None):" in text and "saxpy = _CudaKernel(_saxpy," in text
    out.write_text("# my edits\n")
    second = tileport("convert", "samples/cuda/saxpy.cu", "-o", out)
    assert_diagnostic(second, "TP006", 2)
    assert out.read_text() == "# my edits\n"  # nothing lost
    third = tileport("convert", "samples/cuda/saxpy.cu", "-o", out, "--force")
    assert third.returncode == 0 and out.read_text() == text
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_emit_ir_shows_what_was_understood():
    result = tileport("convert", "samples/cuda/matrix_add_2d.cu", "--emit-ir")
    assert result.returncode == 0
    assert "buffer C: float32[(cols * rows)]  access=w" in result.stdout
    assert "origin=launch-site" in result.stdout


@pytest.mark.parametrize("content, code", [
    (b"\x7fELF\x00\x00binary", "TP002"),
    (b"\xff\xfe not utf-8 \xff", "TP002"),
    (b"", "TP100"),
    (b"int main() { return 0; }\n", "TP100"),
    (b"__global__ void k(float* x) { x[0] = ; }\n", "TP101"),
])
def test_bad_cuda_input(tmp_path, content, code):
    f = tmp_path / "bad.cu"
    f.write_bytes(content)
    result = tileport("convert", f)
    assert_diagnostic(result, code, 1)
    assert result.stderr.startswith(f"{f}:")
    assert f.read_bytes() == content  # inputs are never modified


def test_missing_file_and_unknown_language(tmp_path):
    assert_diagnostic(tileport("convert", tmp_path / "nope.cu"), "TP001", 2)
    other = tmp_path / "kernel.txt"
    other.write_text("hello")
    assert_diagnostic(tileport("convert", other), "TP005", 2)


def test_python_file_without_a_kernel(tmp_path):
    f = tmp_path / "plain.py"
    f.write_text("def f(x):\n    return x + 1\n")
    assert_diagnostic(tileport("convert", f), "TP200", 1)


def test_verify_usage_errors(tmp_path):
    result = tileport("verify", "samples/cuda/saxpy.cu", tmp_path / "missing_tl.py")
    assert_diagnostic(result, "TP001", 2)
    port = tmp_path / "p.py"
    port.write_text("x = 1\n")
    bad_arg = tileport("verify", "samples/cuda/saxpy.cu", port, "--arg", "n")
    assert_diagnostic(bad_arg, "TP007", 2)


def test_compilation_database_supplies_includes_and_defines(tmp_path):
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "cfg.h").write_text("#define SCALE 3.0f\n")
    (tmp_path / "k.cu").write_text(
        '#include "cfg.h"\n__global__ void k(float* x, int n) {\n'
        "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) x[i] *= SCALE * FACTOR;\n}\n")
    db = tmp_path / "compile_commands.json"
    db.write_text(f'[{{"directory": "{tmp_path}", "file": "k.cu", "command": "nvcc -Iinc -DFACTOR=2 -c k.cu"}}]')
    without = tileport("convert", tmp_path / "k.cu", "--emit-ir")
    assert_diagnostic(without, "TP101", 1)
    result = tileport("convert", tmp_path / "k.cu", "--emit-ir", "-p", db)
    assert result.returncode == 0, result.stderr
    assert "x[i] = (x[i] * 6.0)" in result.stdout


def test_the_readme_documents_every_option_of_every_command():
    from porter.cli import main

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    missing = {name: [o for p in command.params for o in p.opts if o.startswith("--") and o not in readme]
               for name, command in main.commands.items()}
    assert not any(missing.values()), f"options the README does not name: {missing}"
