"""`tileport migrate` / `analyze` on a tree that mixes good kernels with everything that goes wrong.

The robustness tree holds good CUDA and Triton samples next to a C++ syntax error, binary garbage
named .cu, an empty file, a 5 MB file, non-UTF-8 text, a directory symlink loop, files that cannot
be read, a Python file without a kernel and a name with HTML in it. Tests check that the run
finishes, each bad file has its coded diagnostic, the good ones are ported, nothing in SRC is
touched, a warm rerun is 10x faster, and the reports (JSON, Markdown, HTML in a real browser)
say so.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import time
import zlib
from pathlib import Path

import pytest

from tests.conftest import ROOT, SAMPLES

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ODD_NAME = "<img src=x onerror=alert(1)>&x.cuh"  # HTML in a file name: must come out escaped


def _env(tmpdir: Path | None = None) -> dict:
    env = dict(os.environ)
    env.pop("TILEPORT_CACHE_DIR", None)  # the migrate cache lives in OUT: every test starts cold
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    if tmpdir is not None:
        env["TMPDIR"] = str(tmpdir)
    return env


def tileport(*args, timeout=600, env=None):
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "porter.cli", *map(str, args)], cwd=ROOT,
                            capture_output=True, text=True, timeout=timeout, env=env or _env())
    result.seconds = time.perf_counter() - start
    return result


def snapshot(root: Path) -> dict:
    """Every entry under root (without following links) -> its bytes, link target or kind."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = Path(dirpath, name)
            st = p.lstat()
            if p.is_symlink():
                out[str(p.relative_to(root))] = ("link", os.readlink(p))
            elif p.is_fifo():
                out[str(p.relative_to(root))] = ("fifo", st.st_mode)
            elif p.is_file():
                out[str(p.relative_to(root))] = ("file", p.read_bytes() if os.access(p, os.R_OK) else st.st_mtime_ns,
                                                 st.st_mode)
            else:
                out[str(p.relative_to(root))] = ("dir", st.st_mode)
    return out


def make_tree(root: Path) -> dict:
    """The robustness tree; returns {path: (status, code)} expected for each entry.

    Unreadable files: tests may run as root, for whom chmod 000 changes nothing, so a FIFO (which
    must never be opened: it would block) and a dangling symlink stand in; a chmod 000 file is
    added only when not running as root.
    """
    (root / "cuda").mkdir(parents=True)
    (root / "triton").mkdir()
    (root / "bad").mkdir()
    shutil.copy(SAMPLES / "cuda" / "saxpy.cu", root / "cuda" / "saxpy.cu")
    shutil.copy(SAMPLES / "cuda" / "matrix_add_2d.cu", root / "cuda" / "matrix_add_2d.cu")
    shutil.copy(SAMPLES / "triton" / "add.py", root / "triton" / "add.py")
    (root / "cuda" / "helpers.cuh").write_text("__device__ float twice(float v) { return 2.0f * v; }\n")
    (root / "triton" / "plain.py").write_text("def f(x):\n    return x + 1\n")
    (root / "bad" / "syntax.cu").write_text("__global__ void k(float* x) { x[0] = ; }\n")
    (root / "bad" / "garbage.cu").write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 16)
    (root / "bad" / "empty.cu").write_bytes(b"")
    (root / "bad" / "latin1.cu").write_bytes("// caf\xe9\n__global__ void k(float* x) { x[0] = 1.0f; }\n"
                                             .encode("latin-1"))
    comment = "// " + "padding " * 9 + "\n"
    (root / "bad" / "huge.cu").write_text(comment * (5 * 1024 * 1024 // len(comment)) +
                                          "__global__ void huge_scale(float* x, int n) {\n"
                                          "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                          "    if (i < n) x[i] = 2.0f * x[i];\n}\n")
    (root / "bad" / ODD_NAME).write_text("// nothing here\n")
    os.symlink("..", root / "bad" / "loop")
    os.mkfifo(root / "bad" / "pipe.cu")
    os.symlink("nowhere.cu", root / "bad" / "dangling.cu")
    expected = {
        "cuda/saxpy.cu": ("ported", None), "cuda/matrix_add_2d.cu": ("ported", None),
        "triton/add.py": ("ported", None), "bad/huge.cu": ("ported", None),
        "cuda/helpers.cuh": ("no-kernel", "TP100"), "triton/plain.py": ("no-kernel", "TP200"),
        "bad/empty.cu": ("no-kernel", "TP100"), f"bad/{ODD_NAME}": ("no-kernel", "TP100"),
        "bad/syntax.cu": ("failed", "TP101"), "bad/garbage.cu": ("failed", "TP002"),
        "bad/latin1.cu": ("failed", "TP002"), "bad/pipe.cu": ("failed", "TP001"),
        "bad/dangling.cu": ("failed", "TP001"), "bad/loop": ("skipped", "TP009"),
    }
    if os.geteuid() != 0:
        locked = root / "bad" / "locked.cu"
        locked.write_text("__global__ void k(float* x) { x[0] = 1.0f; }\n")
        locked.chmod(0)
        expected["bad/locked.cu"] = ("failed", "TP001")
    return expected


@pytest.fixture(scope="module")
def robust(tmp_path_factory):
    """One cold and one warm run over the robustness tree (no --verify, --jobs 2)."""
    base = tmp_path_factory.mktemp("migrate")
    src, out = base / "src", base / "out"
    expected = make_tree(src)
    before = snapshot(src)
    reports = [base / "report.json", base / "report.md", base / "report.html"]
    args = ["migrate", src, "-o", out, "--jobs", "2"] + [a for r in reports for a in ("--report", r)]
    cold = tileport(*args)
    outputs = {p: p.stat().st_mtime_ns for p in out.rglob("*_tl.py")}
    cold_json = json.loads(reports[0].read_text())
    warm = min((tileport(*args) for _ in range(2)), key=lambda r: r.seconds)
    yield {"src": src, "out": out, "expected": expected, "before": before, "reports": reports, "cold": cold,
           "warm": warm, "cold_json": cold_json, "outputs": outputs, "base": base}
    for p in src.rglob("*"):
        if not p.is_symlink() and p.is_file():
            p.chmod(0o644)


def _by_path(report: dict) -> dict:
    return {f["path"]: f for f in report["files"]}


def _codes(entry: dict) -> set:
    return {d["code"] for d in entry["diagnostics"]} | {d["code"] for k in entry["kernels"] for d in k["diagnostics"]}


def test_every_file_gets_its_status_and_diagnostic(robust):
    cold = robust["cold"]
    assert "Traceback" not in cold.stderr, cold.stderr
    assert cold.returncode == 1, cold.stderr  # bad files: some failed
    files = _by_path(robust["cold_json"])
    assert set(files) == set(robust["expected"])
    for path, (status, code) in robust["expected"].items():
        assert files[path]["status"] == status, (path, files[path])
        if code:
            assert code in _codes(files[path]), (path, files[path]["diagnostics"])
    assert files["bad/pipe.cu"]["diagnostics"][0]["message"].startswith("not a regular file (a FIFO)")
    assert "dangling" in files["bad/dangling.cu"]["diagnostics"][0]["message"]
    assert files["bad/loop"]["diagnostics"][0]["severity"] == "warning"
    assert files["triton/plain.py"]["diagnostics"][0]["severity"] == "note"
    # one plain progress line per file when stderr is not a terminal
    lines = [line for line in cold.stderr.splitlines() if line.startswith("[")]
    assert len(lines) == len(files)
    assert any("failed" in line and "bad/syntax.cu" in line and "TP101" in line for line in lines)


def test_ports_are_written_and_sources_untouched(robust):
    out, src = robust["out"], robust["src"]
    files = _by_path(robust["cold_json"])
    assert files["cuda/saxpy.cu"]["output"] == "cuda/saxpy_tl.py"
    assert "def _saxpy(n, a, x, y, *, target=None):" in (out / "cuda" / "saxpy_tl.py").read_text()
    assert "def huge_scale(" in (out / "bad" / "huge_tl.py").read_text()
    assert "def add_kernel(" in (out / "triton" / "add_tl.py").read_text()
    written = sorted(p.relative_to(out).as_posix() for p in out.rglob("*_tl.py"))
    assert written == ["bad/huge_tl.py", "cuda/matrix_add_2d_tl.py", "cuda/saxpy_tl.py", "triton/add_tl.py"]
    launchers = sorted(f"{folder}/_tileport_launch.py" for folder in ("bad", "cuda", "triton"))
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("_tileport_launch.py")) == launchers
    manifest = json.loads((out / ".tileport-manifest.json").read_text())
    assert set(manifest["files"]) == set(written) | set(launchers)
    assert not [p for p in out.rglob("*.tmp")]
    assert snapshot(src) == robust["before"]  # nothing written, changed or created in SRC


def test_ports_import_the_launch_helpers_beside_them(robust):
    """A migrated port holds its programs and wrappers, and imports the helpers they call from
    its folder's `_tileport_launch.py`: by its path, from its folder, or inside a package."""
    out = robust["out"]
    port = (out / "triton" / "add_tl.py").read_text()
    assert "def _launch(" not in port and "class _TritonKernel" not in port
    assert "from ._tileport_launch import" in port and "_launch" in port
    launcher = (out / "triton" / "_tileport_launch.py").read_text()
    assert "def _launch(" in launcher and "class _CudaKernel" in launcher
    check = (
        "import importlib, importlib.util, sys\n"
        "spec = importlib.util.spec_from_file_location('by_path', sys.argv[1] + '/triton/add_tl.py')\n"
        "sys.path.append(sys.argv[1] + '/triton')\n"
        "module = importlib.util.module_from_spec(spec); spec.loader.exec_module(module)\n"
        "sys.path.remove(sys.argv[1] + '/triton'); sys.modules.pop('_tileport_launch')\n"
        "sys.path.insert(0, sys.argv[1])\n"
        "packaged = importlib.import_module('bad.huge_tl')\n"
        "assert packaged._CudaKernel.__module__ == 'bad._tileport_launch', packaged._CudaKernel.__module__\n"
        "print(module.add_kernel.__name__, packaged.huge_scale.__name__)\n")
    result = subprocess.run([sys.executable, "-c", check, str(out)], capture_output=True, text=True, timeout=300,
                            cwd=robust["base"])
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["add_kernel", "huge_scale"]
    # ruff-clean as written, the helpers module and the ports that import it (no unused import)
    lint = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--isolated", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert lint.returncode == 0, lint.stdout + lint.stderr


def test_warm_rerun_is_cached_and_rewrites_nothing(robust):
    cold, warm = robust["cold"], robust["warm"]
    assert warm.returncode == cold.returncode == 1
    report = json.loads(robust["reports"][0].read_text())
    for entry in report["files"]:
        if robust["expected"][entry["path"]][0] in ("ported", "unsupported") or entry["path"] in (
                "bad/syntax.cu", "bad/garbage.cu", "bad/latin1.cu", "bad/empty.cu", "cuda/helpers.cuh"):
            assert entry["cached"], entry
    assert [f["status"] for f in report["files"]] == [f["status"] for f in robust["cold_json"]["files"]]
    # outputs were not rewritten
    assert {p: p.stat().st_mtime_ns for p in robust["out"].rglob("*_tl.py")} == robust["outputs"]
    # how much faster is bench/tool_speed.py's to measure: a wall-clock ratio fails on a busy machine


def test_summary_and_reports(robust):
    cold = robust["cold"]
    assert "migration rate" in cold.stdout and "thread-level" in cold.stdout
    report = robust["cold_json"]
    assert report["schema_version"] == 1 and report["command"] == "migrate"
    s = report["summary"]
    assert (s["files_ported"], s["files_no_kernel"], s["files_skipped"]) == (4, 4, 1)
    assert s["files_failed"] == len([v for v in robust["expected"].values() if v[0] == "failed"])
    assert s["converted"] == s["tile_level"] == 4 and s["thread_level"] == 0  # all element-wise
    assert s["kernels"] == 6  # the 4 ported + the kernels seen in syntax.cu and latin1.cu
    assert s["migration_rate"] == round(4 / 6, 4)
    kernel = _by_path(report)["cuda/saxpy.cu"]["kernels"][0]
    assert (kernel["name"], kernel["level"], kernel["rule"], kernel["status"]) == ("saxpy", "tile", "elementwise",
                                                                                 "ported")
    md = robust["reports"][1].read_text()
    assert "| files | kernels | converted | verified |" in md
    assert "bad/syntax.cu | failed" in md
    html = robust["reports"][2].read_text()
    assert "<img" not in html and "&lt;img src=x onerror=alert(1)&gt;&amp;x.cuh" in html  # user text is escaped
    assert 'id="src-cuda-saxpy.cu-L7"' in html and 'href="#src-bad-syntax.cu-L1"' in html
    assert "http://" not in html and "https://" not in html  # self-contained


def _png_pixels(data: bytes):
    """(width, height, distinct colours in a sample) of an 8-bit RGB/RGBA PNG, decoded with zlib."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", chunk[:10])
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    assert depth == 8 and colour in (2, 6)
    bpp = 3 if colour == 2 else 4
    raw, stride = zlib.decompress(idat), width * bpp
    previous, colours = bytearray(stride), set()
    for y in range(height):
        ftype, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - bpp] if i >= bpp else 0
            up, upleft = previous[i], previous[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + left) & 255
            elif ftype == 2:
                line[i] = (line[i] + up) & 255
            elif ftype == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif ftype == 4:
                p = left + up - upleft
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - upleft)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else upleft)) & 255
        if y % 8 == 0:
            colours.update(bytes(line[x:x + 3]) for x in range(0, stride, bpp * 8))
        previous = line
    return width, height, len(colours)


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    if os.environ.get("CI"):
        pytest.fail("chromium is required in CI (.ci/run installs it)")
    pytest.skip("chromium is not installed (apt-get install chromium); .ci/run installs it")


def test_html_report_renders_in_headless_chromium(robust, tmp_path):
    chromium = _chromium()
    html = robust["reports"][2]
    common = CHROMIUM_FLAGS + [f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1280,900"]
    dom = subprocess.run([chromium, *common, "--dump-dom", html.as_uri()], capture_output=True, text=True,
                         timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    for name in ("saxpy", "matrix_add", "add_kernel", "huge_scale", "bad/syntax.cu", "TP101", "migration rate"):
        assert name in dom.stdout, name
    assert "<img" not in dom.stdout
    shot = tmp_path / "report.png"
    run = subprocess.run([chromium, *common, f"--screenshot={shot}", html.as_uri()], capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0 and shot.is_file(), run.stderr[-2000:]
    data = shot.read_bytes()
    assert len(data) > 20_000  # a blank 1280x900 page compresses to a few KB
    width, height, colours = _png_pixels(data)
    assert (width, height) == (1280, 900)
    assert colours > 20, colours


def test_usage_errors_write_nothing(tmp_path):
    src = tmp_path / "src"
    (src / "k").mkdir(parents=True)
    shutil.copy(SAMPLES / "cuda" / "saxpy.cu", src / "k" / "saxpy.cu")
    before = snapshot(src)
    for args, code in [
        (["migrate", src, "-o", src / "out"], "TP008"),
        (["migrate", src, "-o", src], "TP008"),
        (["migrate", src, "-o", tmp_path / "o", "--report", src / "r.json"], "TP008"),
        (["migrate", src, "-o", tmp_path / "o", "--report", tmp_path / "r.txt"], "TP007"),
        (["migrate", tmp_path / "missing", "-o", tmp_path / "o"], "TP001"),
        (["migrate", src / "k" / "saxpy.cu", "-o", tmp_path / "o"], "TP001"),
        (["migrate", src], "TP007"),
        (["migrate", src, "-o", tmp_path / "o", "-p", tmp_path / "nope.json"], "TP011"),
    ]:
        result = tileport(*args)
        assert result.returncode == 2, (args, result.stderr)
        assert f"error {code}:" in result.stderr and "Traceback" not in result.stderr, (args, result.stderr)
    assert snapshot(src) == before
    assert not (tmp_path / "o").exists()


def _saxpy_and_add(tmp_path):
    """SRC with a CUDA and a Triton sample in folders of their own, and the OUT beside it."""
    src, out = tmp_path / "src", tmp_path / "out"
    (src / "cuda").mkdir(parents=True)
    (src / "triton").mkdir()
    shutil.copy(SAMPLES / "cuda" / "saxpy.cu", src / "cuda" / "saxpy.cu")
    shutil.copy(SAMPLES / "triton" / "add.py", src / "triton" / "add.py")
    return src, out


def test_outputs_it_did_not_write_are_kept(tmp_path):
    src, out = _saxpy_and_add(tmp_path)
    mine = out / "cuda" / "saxpy_tl.py"
    mine.parent.mkdir(parents=True)
    mine.write_text("# my own file\n")
    first = tileport("migrate", src, "-o", out, "--jobs", "2", "--report", tmp_path / "r.json")
    assert first.returncode == 1, first.stderr
    files = _by_path(json.loads((tmp_path / "r.json").read_text()))
    assert files["cuda/saxpy.cu"]["status"] == "failed" and "TP006" in _codes(files["cuda/saxpy.cu"])
    assert mine.read_text() == "# my own file\n"
    assert files["triton/add.py"]["status"] == "ported" and (out / "triton" / "add_tl.py").is_file()
    # --force takes it over; then it is tileport's, and a rerun leaves it alone
    forced = tileport("migrate", src, "-o", out, "--jobs", "2", "--force")
    assert forced.returncode == 0, forced.stderr
    assert "def saxpy(" in mine.read_text()
    # an edit to a port tileport wrote is kept too
    (out / "triton" / "add_tl.py").write_text("# edited\n")
    again = tileport("migrate", src, "-o", out, "--jobs", "2", "--report", tmp_path / "r2.json")
    assert again.returncode == 1
    files = _by_path(json.loads((tmp_path / "r2.json").read_text()))
    assert "edited since tileport wrote it" in files["triton/add.py"]["diagnostics"][0]["message"]
    assert (out / "triton" / "add_tl.py").read_text() == "# edited\n"
    assert files["cuda/saxpy.cu"]["status"] == "ported" and files["cuda/saxpy.cu"]["cached"]


def test_a_launcher_it_did_not_write_is_kept(tmp_path):
    """Someone's own `_tileport_launch.py` in OUT stays; the ports of that folder, which would
    import it, are not written (TP006), those of other folders are."""
    src, out = _saxpy_and_add(tmp_path)
    mine = out / "triton" / "_tileport_launch.py"
    mine.parent.mkdir(parents=True)
    mine.write_text("# my own helpers\n")
    result = tileport("migrate", src, "-o", out, "--jobs", "2", "--report", tmp_path / "r.json")
    assert result.returncode == 1, result.stderr
    files = _by_path(json.loads((tmp_path / "r.json").read_text()))
    assert files["triton/add.py"]["status"] == "failed" and "TP006" in _codes(files["triton/add.py"])
    assert mine.read_text() == "# my own helpers\n" and not (out / "triton" / "add_tl.py").exists()
    assert files["cuda/saxpy.cu"]["status"] == "ported" and (out / "cuda" / "_tileport_launch.py").is_file()


def test_analyze_and_dry_run_write_nothing(tmp_path):
    src = tmp_path / "src"
    (src / "a").mkdir(parents=True)
    shutil.copy(SAMPLES / "triton" / "add.py", src / "a" / "add.py")
    (src / "a" / "bad.cu").write_text("__global__ void k(float* x) { x[0] = ; }\n")
    before = snapshot(src)
    analysis = tileport("analyze", src, "--jobs", "2")
    assert analysis.returncode == 1, analysis.stderr
    assert "a/add.py" in analysis.stdout and "tile" in analysis.stdout and "TP101" in analysis.stdout
    dry = tileport("migrate", src, "-o", tmp_path / "out", "--dry-run", "--report", tmp_path / "d.json")
    assert dry.returncode == 1 and not (tmp_path / "out").exists()
    report = json.loads((tmp_path / "d.json").read_text())
    assert report["dry_run"] and _by_path(report)["a/add.py"]["output"] == "a/add_tl.py"
    assert snapshot(src) == before


def test_compile_commands_include_filters_and_header_invalidation(tmp_path):
    src, out, inc = tmp_path / "src", tmp_path / "out", tmp_path / "inc"
    (src / "k").mkdir(parents=True)
    inc.mkdir()
    (inc / "scale.h").write_text("#define SCALE_BY 2.0f\n")
    (src / "k" / "scaled.cu").write_text(
        '#include "scale.h"\n#ifndef ENABLE_KERNEL\n#error "needs -DENABLE_KERNEL"\n#endif\n'
        "__global__ void scaled(float* x, int n) {\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (i < n) x[i] = SCALE_BY * x[i];\n}\n")
    (src / "k" / "skipped.cu").write_text("not even C++\n")
    db = tmp_path / "compile_commands.json"
    db.write_text(json.dumps([{"directory": str(tmp_path), "file": "src/k/scaled.cu",
                               "command": f"nvcc -I{inc} -DENABLE_KERNEL -c src/k/scaled.cu"}]))
    plain = tileport("migrate", src, "-o", tmp_path / "o0", "--exclude", "*/skipped.cu")
    assert plain.returncode == 1 and "TP101" in plain.stderr  # without the database: no include, #error
    args = ("migrate", src, "-o", out, "-p", db, "--exclude", "skipped.cu", "--report", tmp_path / "r.json")
    first = tileport(*args)
    assert first.returncode == 0, first.stderr
    assert "2.0f" in (out / "k" / "scaled_tl.py").read_text() or "2.0" in (out / "k" / "scaled_tl.py").read_text()
    assert [f["path"] for f in json.loads((tmp_path / "r.json").read_text())["files"]] == ["k/scaled.cu"]
    (inc / "scale.h").write_text("#define SCALE_BY 3.0f\n")  # a header change invalidates the cached port
    second = tileport(*args)
    assert second.returncode == 0, second.stderr
    assert not json.loads((tmp_path / "r.json").read_text())["files"][0]["cached"]
    assert "3.0" in (out / "k" / "scaled_tl.py").read_text()
    only = tileport("analyze", src, "--include", "k/scaled.cu", "-p", db)
    assert only.returncode == 0 and "skipped.cu" not in only.stdout


HANG_CU = """// Never finishes: the grid-stride step is zero (the emulator run must time out).
__global__ void spin(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int step = n - n;
    for (int j = i; j < n; j += step) {
        x[j] = x[j] + 1.0f;
    }
}
"""

CRASH_CU = """// Crashes the CPU emulator: an integer division by zero (SIGFPE).
__global__ void crash(int* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { x[i] = x[i] / (x[i] - x[i]); }
}
"""


@pytest.mark.slow
def test_verify_records_hang_and_crash_and_caches_verdicts(tmp_path):
    src, out = tmp_path / "src", tmp_path / "out"
    (src / "k").mkdir(parents=True)
    shutil.copy(SAMPLES / "triton" / "add.py", src / "k" / "add.py")
    (src / "k" / "spin.cu").write_text(HANG_CU)
    (src / "k" / "crash.cu").write_text(CRASH_CU)
    args = ("migrate", src, "-o", out, "--verify", "--jobs", "2", "--timeout", "30", "--no-compile-check",
            "--report", tmp_path / "r.json", "--report", tmp_path / "r.html")
    cold = tileport(*args, env=_env(tmp_path))
    assert cold.returncode == 1, cold.stderr
    assert "Traceback" not in cold.stderr
    files = _by_path(json.loads((tmp_path / "r.json").read_text()))
    add = files["k/add.py"]["kernels"][0]
    assert (add["status"], add["verdict"]) == ("verified", "equivalent"), add
    assert add["verify"]["cases"] and all(b["ok"] for c in add["verify"]["cases"] for b in c["buffers"])
    spin = files["k/spin.cu"]["kernels"][0]
    assert (spin["status"], spin["verdict"]) == ("failed", "could-not-run")
    assert {d["code"] for d in spin["diagnostics"]} & {"TP412", "TP012"}, spin
    crash = files["k/crash.cu"]["kernels"][0]
    assert crash["verdict"] == "could-not-run" and "TP411" in {d["code"] for d in crash["diagnostics"]}, crash
    assert all(files[p]["output"] for p in files)  # every port was written despite the bad kernels
    warm = tileport(*args, env=_env(tmp_path))
    assert warm.returncode == 1
    report = json.loads((tmp_path / "r.json").read_text())
    assert all(f["cached"] for f in report["files"]), [(f["path"], f["cached"]) for f in report["files"]]
    assert report["summary"]["verified"] == 1
    ratio = cold.seconds / warm.seconds
    print(f"\n--verify tree: cold {cold.seconds:.2f}s warm {warm.seconds:.2f}s ratio {ratio:.1f}x")
    assert ratio >= 10, (cold.seconds, warm.seconds)


@pytest.mark.slow
def test_ctrl_c_stops_cleanly_and_keeps_finished_results(tmp_path):
    src, out = tmp_path / "src", tmp_path / "out"
    (src / "k").mkdir(parents=True)
    (src / "k" / "spin.cu").write_text(HANG_CU)
    shutil.copy(SAMPLES / "triton" / "add.py", src / "k" / "add.py")
    work = tmp_path / "tmp"
    work.mkdir()
    proc = subprocess.Popen([sys.executable, "-m", "porter.cli", "migrate", str(src), "-o", str(out), "--verify",
                             "--timeout", "120", "--jobs", "2", "--report", str(tmp_path / "r.json")],
                            cwd=ROOT, env=_env(work), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not (out / "k" / "spin_tl.py").exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert (out / "k" / "spin_tl.py").exists()
        time.sleep(1.0)  # spin's verify is running now
        proc.send_signal(signal.SIGINT)
        _stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["interrupted"] and report["exit_code"] == 130
    spin = _by_path(report)["k/spin.cu"]
    assert spin["status"] == "interrupted" and spin["kernels"][0]["status"] == "interrupted"
    assert (out / "k" / "spin_tl.py").is_file() and (out / ".tileport-manifest.json").is_file()
    time.sleep(0.5)
    leftovers = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if str(work) in cmdline.read_bytes().decode(errors="replace"):
                leftovers.append(cmdline.parent.name)
        except OSError:
            pass
    assert not leftovers, "worker processes survived Ctrl-C"


def test_discover_names_outputs_and_reads_compile_commands(tmp_path):
    from porter.migrate.compdb import flags_of
    from porter.migrate.discover import discover

    (tmp_path / "a").mkdir()
    for name in ("k.cu", "k.cuh", "solo.cu"):
        (tmp_path / "a" / name).write_text("__global__ void k() {}\n")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "x.cu").write_text("")
    found = {f.rel: f.output_rel for f in discover(tmp_path)}
    assert found == {"a/k.cu": "a/k_cu_tl.py", "a/k.cuh": "a/k_cuh_tl.py", "a/solo.cu": "a/solo_tl.py"}
    assert flags_of(["nvcc", "-I", "inc", "-Ifoo", "-isystem", "/usr/x", "-DA=1", "-D", "B", "-o", "y"], "/b") == \
        (["/b/inc", "/b/foo", "/usr/x"], ["A=1", "B"])


def test_terminal_progress_display():
    """On a terminal the run shows a live rich display (counts, bar, elapsed/ETA, files at work)."""
    import io

    from rich.console import Console

    from porter.migrate.model import FileRecord, KernelRecord
    from porter.migrate.progress import PlainDisplay, RichDisplay, make_display

    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=True, width=120)
    display = make_display(False, console)
    assert isinstance(display, RichDisplay)
    display.start(2)
    display.running(["cuda/saxpy.cu", "triton/add.py"])
    display.file_done(FileRecord("cuda/saxpy.cu", "cuda", "ported", output="cuda/saxpy_tl.py",
                                 kernels=[KernelRecord("saxpy", 7, "ported", converted=True)]))
    display.file_done(FileRecord("bad/x.cu", "cuda", "failed", diagnostics=[
        {"code": "TP101", "severity": "error", "message": "C++ error: expected expression", "file": "bad/x.cu",
         "line": 1, "col": 30}]))
    display.close()
    text = buffer.getvalue()
    assert "cuda/saxpy.cu  -> cuda/saxpy_tl.py  (1 kernel)" in text and "TP101 C++ error" in text
    assert "2/2" in text
    assert isinstance(make_display(False, Console(file=io.StringIO())), PlainDisplay)


def test_template_instances_are_verified_by_their_arguments(tmp_path):
    """`scale<2>` and `scale<3>` of one template: each kernel of the report is its instance,
    and verify finds it (it was TP004 "verify found no kernel 'scale'")."""
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "inst.cu").write_text(
        "template <int F>\n"
        "__global__ void scale(float* y, const float* x, int n) {\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (i < n) y[i] = x[i] * F;\n"
        "}\n"
        "void run(float* y, const float* x, int n) {\n"
        "    scale<2><<<(n + 127) / 128, 128>>>(y, x, n);\n"
        "    scale<3><<<(n + 127) / 128, 128>>>(y, x, n);\n"
        "}\n")
    run = tileport("migrate", src, "-o", out, "--verify", "--jobs", "2", "--no-compile-check",
                   "--report", tmp_path / "r.json", env=_env(tmp_path))
    assert run.returncode == 0, run.stdout + run.stderr
    kernels = _by_path(json.loads((tmp_path / "r.json").read_text()))["inst.cu"]["kernels"]
    assert sorted((k["name"], k["verdict"]) for k in kernels) == [("scale<2>", "equivalent"),
                                                                  ("scale<3>", "equivalent")]


def _relaid(text: str) -> str:
    """The same code and comments with every token re-spaced (as a formatter would lay it out
    otherwise): tokenize's compatibility mode puts its own spacing between tokens."""
    import io
    import tokenize

    tokens = [(t.type, t.string) for t in tokenize.generate_tokens(io.StringIO(text).readline)]
    return tokenize.untokenize(tokens)


def test_a_reformatted_port_is_still_the_port(tmp_path):
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    shutil.copy(SAMPLES / "triton" / "add.py", src / "add.py")
    assert tileport("migrate", src, "-o", out, "--jobs", "1").returncode == 0
    port = out / "add_tl.py"
    relaid = _relaid(port.read_text())
    assert relaid != port.read_text()
    port.write_text(relaid)
    again = tileport("migrate", src, "-o", out, "--jobs", "1", "--no-cache", "--report", tmp_path / "r.json")
    assert again.returncode == 0, again.stderr
    assert _by_path(json.loads((tmp_path / "r.json").read_text()))["add.py"]["status"] == "ported"
    assert port.read_text() == relaid  # the user's layout stays
    # a real edit is still an edit
    port.write_text(relaid + "\nEDITED = 1\n")
    edited = tileport("migrate", src, "-o", out, "--jobs", "1", "--no-cache", "--report", tmp_path / "r2.json")
    assert edited.returncode == 1
    assert "edited since" in _by_path(json.loads((tmp_path / "r2.json").read_text()))["add.py"]["diagnostics"][0]["message"]
