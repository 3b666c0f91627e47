"""The warm worker (porter/verify/warm.py): children forked from it see the caller's
environment and working directory, nothing an earlier child changed, never the working
directory's modules, and a timeout kills them and what they started."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from porter.verify import warm
from porter.verify.child import REPO_ROOT, run_module

PROBE = "tests.probes.warm_probe"


def _env(**extra) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), env.get("PYTHONPATH")) if p)
    env.update(extra)
    return env


def _probe(tmp_path: Path, mark: str, env: dict, timeout: float = 60.0, mode: str = "") -> tuple:
    request, out = tmp_path / f"{mark}.json", tmp_path / f"{mark}.out"
    request.write_text(json.dumps({"mark": mark, "mode": mode}))
    status = run_module(PROBE, [str(request), str(out)], env, tmp_path / f"{mark}.err", timeout)
    return status, (json.loads(out.read_text()) if out.exists() else None)


def _warm_probe(tmp_path: Path, mark: str, env: dict) -> dict:
    """Probe until a warm worker answers (the first call starts one and runs cold)."""
    deadline = time.monotonic() + 120
    while True:
        status, report = _probe(tmp_path, f"{mark}{int(time.monotonic() * 1000)}", env)
        assert status == 0 and report is not None
        if report["warm"] or time.monotonic() > deadline:
            return report
        time.sleep(1)


def test_forked_children_are_isolated_from_each_other_and_from_the_cwd(tmp_path, monkeypatch):
    # a module planted in the working directory, named like one tileport's children import
    (tmp_path / "json.py").write_text("raise SystemExit('the planted json.py was imported')\n")
    monkeypatch.chdir(tmp_path)
    env = _env(PROBE_VALUE="seen")
    first = _warm_probe(tmp_path, "a", env)
    second = _warm_probe(tmp_path, "b", env)
    assert first["warm"] and second["warm"]  # forks of a worker with tilelang imported
    assert first["pid"] != second["pid"] and first["session"] == first["pid"]  # own session
    assert first["seen"] is None and second["seen"] is None  # nothing leaks between children
    assert second["cwd"] == str(tmp_path) and second["env"] == "seen"  # the caller's cwd and env
    assert str(tmp_path) not in second["path"] and "" not in second["path"]


def test_a_cold_child_does_not_import_from_the_cwd_either(tmp_path, monkeypatch):
    (tmp_path / "json.py").write_text("raise SystemExit('the planted json.py was imported')\n")
    monkeypatch.chdir(tmp_path)
    status, report = _probe(tmp_path, "cold", _env(TILEPORT_WARM="0"))
    assert status == 0 and report is not None and not report["warm"]


def test_a_timeout_kills_the_child_and_its_grandchildren(tmp_path):
    env = _env()
    _warm_probe(tmp_path, "w", env)
    start = time.monotonic()
    status, report = _probe(tmp_path, "hang", env, timeout=3.0, mode="hang")
    assert status == "timeout" and time.monotonic() - start < 60  # a hang guard, not a speed claim
    assert report is not None  # written before it hung
    deadline = time.monotonic() + 10
    while _alive(report["grandchild"]) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(report["grandchild"])


def _hanging_caller(tmp_path: Path, mark: str, env: dict) -> tuple:
    """A process that runs a hanging probe through run_module: (its Popen, the probe's report,
    once the probe has written it)."""
    request, out = tmp_path / f"{mark}.json", tmp_path / f"{mark}.out"
    request.write_text(json.dumps({"mark": mark, "mode": "hang"}))
    caller = subprocess.Popen([sys.executable, "-c", (
        "from pathlib import Path; from porter.verify.child import run_module; "
        f"run_module({PROBE!r}, [{str(request)!r}, {str(out)!r}], dict(__import__('os').environ), "
        f"Path({str(tmp_path / (mark + '.err'))!r}), 600)")], env=env, cwd=REPO_ROOT)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # the probe may have created the file and not yet written it
        try:
            return caller, json.loads(out.read_text())
        except (OSError, ValueError):
            time.sleep(0.1)
    return caller, json.loads(out.read_text())


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def test_verify_gives_the_same_verdict_warm_and_cold(tmp_path):
    port = tmp_path / "saxpy_tl.py"
    sample = REPO_ROOT / "samples" / "cuda" / "saxpy.cu"
    subprocess.run([sys.executable, "-m", "porter.cli", "convert", str(sample), "-o", str(port)],
                   cwd=REPO_ROOT, check=True, capture_output=True)
    reports = []
    for flag in ("0", "1", "1"):
        run = subprocess.run([sys.executable, "-m", "porter.cli", "verify", str(sample), str(port),
                              "--no-compile-check", "--format", "json"], cwd=REPO_ROOT,
                             env={**os.environ, "TILEPORT_WARM": flag}, capture_output=True, text=True)
        assert run.returncode == 0, run.stdout + run.stderr
        reports.append(json.loads(run.stdout))
    cases = [[(c["sizes"], [b["max_abs"] for b in c["buffers"]]) for c in r["kernels"][0]["cases"]]
             for r in reports]
    assert cases[0] == cases[1] == cases[2]
    assert warm.enabled()


def test_a_caller_killed_with_sigkill_takes_its_forked_child_with_it(tmp_path):
    env = _env()
    _warm_probe(tmp_path, "k", env)
    caller, report = _hanging_caller(tmp_path, "orphan", env)
    assert report["warm"]
    caller.kill()
    caller.wait()
    deadline = time.monotonic() + 10
    while (_alive(report["pid"]) or _alive(report["grandchild"])) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(report["pid"]) and not _alive(report["grandchild"])


def test_without_a_place_for_the_socket_children_run_cold(tmp_path):
    blocked = tmp_path / "runtime"
    blocked.write_text("a file, not a folder: no socket can live under it")
    status, report = _probe(tmp_path, "nosock", _env(XDG_RUNTIME_DIR=str(blocked)))
    assert status == 0 and report is not None and not report["warm"]


def test_a_cold_verify_leaves_nothing_in_the_temp_folder(tmp_path):
    # tilelang's compiles write tmp*.cpp / tmp*.so into TMPDIR: children get a private one
    temp, caches = tmp_path / "temp", tmp_path / "caches"
    temp.mkdir()
    port = tmp_path / "saxpy_tl.py"
    sample = REPO_ROOT / "samples" / "cuda" / "saxpy.cu"
    env = {**os.environ, "TMPDIR": str(temp), "TILELANG_CACHE_DIR": str(caches / "tl"),
           "TILEPORT_CACHE_DIR": str(caches / "tp")}
    subprocess.run([sys.executable, "-m", "porter.cli", "convert", str(sample), "-o", str(port)],
                   cwd=REPO_ROOT, check=True, capture_output=True, env=env)
    run = subprocess.run([sys.executable, "-m", "porter.cli", "verify", str(sample), str(port),
                          "--no-compile-check"], cwd=REPO_ROOT, env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert [p.name for p in temp.iterdir()] == [f"tileport-warm-{os.getuid()}"]
    assert all(p.suffix in (".sock", ".lock") for p in (temp / f"tileport-warm-{os.getuid()}").iterdir())


def test_kill_9_of_migrate_leaves_no_worker_or_child_running(tmp_path):
    from porter.util.processes import descendants as _descendants

    src = tmp_path / "src"
    src.mkdir()
    for name in ("softmax_row.cu", "rmsnorm.cu", "saxpy.cu"):
        (src / name).write_bytes((REPO_ROOT / "samples" / "cuda" / name).read_bytes())
    migrate = subprocess.Popen([sys.executable, "-m", "porter.cli", "migrate", str(src), "-o", str(tmp_path / "out"),
                                "--verify", "--jobs", "1", "--no-cache"], cwd=REPO_ROOT,
                               env={**os.environ, "TILEPORT_WARM": "0"}, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    below: list = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # until a worker has started a child of its own
        below = _descendants(migrate.pid)
        if len(below) >= 2:
            break
        time.sleep(0.2)
    assert len(below) >= 2
    migrate.kill()
    migrate.wait()
    deadline = time.monotonic() + 20
    while any(_alive(p) for p in below) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not [p for p in below if _alive(p)]


def test_a_shutdown_lets_running_children_finish(tmp_path):
    # tests and benches stop the user's workers when they end: work in flight must not die
    env = _env()
    _warm_probe(tmp_path, "s", env)
    caller, report = _hanging_caller(tmp_path, "slow", env)
    assert warm.shutdown_all() >= 1
    time.sleep(1.0)
    assert _alive(report["pid"])  # still running after the shutdown
    again = _warm_probe(tmp_path, "after", env)  # and a new worker serves new callers
    assert again["warm"] and again["pid"] != report["pid"]
    caller.kill()
    caller.wait()
