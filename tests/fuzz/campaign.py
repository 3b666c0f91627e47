"""Run a fuzz campaign against the installed tileport and judge every case (issue 15).

    python -m tests.fuzz.campaign [--seed S] [--cases N] [--jobs J] [--json OUT] [--tileport-root DIR]

Each case (tests/fuzz/generate.py) runs `python -m porter.cli ...` in a directory of its own,
with its own TMPDIR and a marker in its environment, and is judged on:

    traceback   a Python traceback on stdout or stderr
    hang        not finished within HANG seconds (then its process group is killed)
    signal      ended by a signal
    uncoded     a non-zero exit without a coded `error TPnnn:` line
    modified    an input file (or link, or FIFO) changed
    leftover    a process with the case's marker still running afterwards, or a file left
                in its TMPDIR (verify's warm worker is given WARM_IDLE + 30 seconds to exit,
                as it does by design after WARM_IDLE seconds without a request)
    memory      a peak resident set (tileport and the children it waited for) over 2 GiB

A case that shows none of these passed: it converted, or it was refused with a coded
diagnostic. The front end's own time limit is lowered to FRONTEND_SECONDS so that a runaway
parse ends as a diagnostic well inside HANG.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests.fuzz.generate import KINDS, Case, cases

ROOT = Path(__file__).resolve().parents[2]
HANG = 90.0
FRONTEND_SECONDS = 30
MEMORY_KB = 2 << 20
WARM_IDLE = 3
#: An address-space cap on each case's tileport (bytes; 0: none), for runs of older code.
ADDRESS_CAP = [0]
CLASSES = ("traceback", "hang", "signal", "uncoded", "modified", "leftover", "memory")
_CODED = re.compile(r"error TP\d{3}:")


def materialize(case: Case, where: Path) -> None:
    for rel, data in case.files.items():
        path = where / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    for rel in case.fifos:
        (where / rel).parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(where / rel)
    for rel, target in case.links.items():
        (where / rel).symlink_to(target)
    for rel, existing in case.hard_links.items():
        os.link(where / existing, where / rel)


def snapshot(where: Path, skip: set) -> dict:
    """Every input's identity: a file's bytes, a link's target, a FIFO's kind."""
    out = {}
    for path in sorted(where.rglob("*")):
        rel = str(path.relative_to(where))
        if rel.split(os.sep)[0] in skip:
            continue
        if path.is_symlink():
            out[rel] = "link:" + os.readlink(path)
        elif path.is_fifo():
            out[rel] = "fifo"
        elif path.is_file():
            out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def _marked_processes(marker: str) -> list:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if marker.encode() in (entry / "environ").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def _run(argv: list, where: Path, env: dict, timeout: float) -> dict:
    """One command: its exit status, output, wall time and peak RSS (KiB); killed at timeout."""
    start = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        cap = ADDRESS_CAP[0]

        def limit():  # a "before" run of code without its own limits must not take the machine
            if cap:
                import resource

                resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

        proc = subprocess.Popen([sys.executable, "-P", "-m", "porter.cli", *argv], cwd=where, env=env,
                                stdin=subprocess.DEVNULL, stdout=out, stderr=err, start_new_session=True,
                                preexec_fn=limit if cap else None)  # noqa: PLW1509 - no threads here
        hung, status, usage = False, None, None
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - start > timeout:
                hung = True
                os.killpg(proc.pid, signal.SIGKILL)
                _, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.02)
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode(errors="replace")
        stderr = err.read().decode(errors="replace")
    return {"rc": proc.returncode, "stdout": stdout[-4000:], "stderr": stderr[-4000:], "hung": hung,
            "seconds": round(time.monotonic() - start, 2), "max_rss_kb": usage.ru_maxrss if usage else 0}


def run_case(case: Case, base: Path, hang: float = HANG, root: Path = ROOT, extra_env: dict | None = None) -> dict:
    where = base / case.ident
    where.mkdir(parents=True)
    tmp = where / ".tmp"
    tmp.mkdir()
    materialize(case, where)
    marker = f"TILEPORT_FUZZ_CASE={case.ident}"
    env = {**os.environ, "TMPDIR": str(tmp), "TILEPORT_FUZZ_CASE": case.ident,
           "TILEPORT_FRONTEND_SECONDS": str(FRONTEND_SECONDS), "TILEPORT_WARM_IDLE": str(WARM_IDLE),
           "PYTHONPATH": str(root), **(extra_env or {})}
    for argv in case.prepare:
        _run(argv, where, env, hang)
    before = snapshot(where, {".tmp"})
    result = _run(case.argv, where, env, hang)
    after = snapshot(where, {".tmp"})
    problems = []
    text = result["stdout"] + result["stderr"]
    if "Traceback (most recent call last)" in text:
        problems.append("traceback")
    if result["hung"]:
        problems.append("hang")
    elif result["rc"] < 0:
        problems.append("signal")
    elif result["rc"] != 0 and not _CODED.search(text):
        problems.append("uncoded")
    if any(after.get(rel) != identity for rel, identity in before.items()):
        problems.append("modified")
    # verify's warm worker outlives the command by design and exits after WARM_IDLE seconds
    # without a request: a process still there WARM_IDLE + 10 s later is a leftover
    deadline = time.monotonic() + WARM_IDLE + 30
    left = _marked_processes(marker)
    while left and time.monotonic() < deadline:
        time.sleep(0.25)
        left = _marked_processes(marker)
    stray_files = [str(p.relative_to(tmp)) for p in tmp.rglob("*")]
    commands = {}
    if left or stray_files:
        problems.append("leftover")
        for pid in left:
            try:
                commands[pid] = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()[:200]
            except OSError:
                pass
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
    if result["max_rss_kb"] > MEMORY_KB:
        problems.append("memory")
    shutil.rmtree(where, ignore_errors=True)
    return {"case": case.ident, "kind": case.kind, "argv": case.argv, "note": case.note, "rc": result["rc"],
            "seconds": result["seconds"], "max_rss_kb": result["max_rss_kb"], "problems": problems,
            "leftover": {"processes": commands or left, "files": stray_files[:5]},
            "tail": (result["stderr"] or result["stdout"])[-600:]}


def campaign(seed: int, count: int, jobs: int, hang: float = HANG, root: Path = ROOT) -> list[dict]:
    """Every case of the seed, `jobs` at a time, against the tileport checkout at root."""
    base = Path(tempfile.mkdtemp(prefix="tileport-fuzz-"))
    try:
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            return list(pool.map(lambda c: run_case(c, base, hang, root), cases(seed, count)))
    finally:
        shutil.rmtree(base, ignore_errors=True)


def table(results: list[dict]) -> str:
    """Markdown: per kind, cases and each problem class's count."""
    lines = ["| kind | cases | " + " | ".join(CLASSES) + " | passed |",
             "| --- | --- | " + " | ".join("---" for _ in CLASSES) + " | --- |"]
    for kind in KINDS + ("all",):
        rows = [r for r in results if kind == "all" or r["kind"] == kind]
        if not rows:
            continue
        counts = [sum(c in r["problems"] for r in rows) for c in CLASSES]
        passed = sum(not r["problems"] for r in rows)
        lines.append(f"| {kind} | {len(rows)} | " + " | ".join(map(str, counts)) + f" | {passed} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--cases", type=int, default=650)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--json", help="write every case's result here")
    parser.add_argument("--address-cap-gib", type=float, default=0,
                        help="cap each case's address space (for code that has no limits of its own)")
    parser.add_argument("--tileport-root", type=Path, default=ROOT,
                        help="the checkout whose porter runs the cases (another commit's, for a before/after)")
    ns = parser.parse_args(argv)
    ADDRESS_CAP[0] = int(ns.address_cap_gib * (1 << 30))
    start = time.monotonic()
    results = campaign(ns.seed, ns.cases, ns.jobs, root=ns.tileport_root.resolve())
    peak = max((r["max_rss_kb"] for r in results), default=0)
    print(table(results))
    print(f"\n{len(results)} cases in {time.monotonic() - start:.0f} s (seed {ns.seed}); peak RSS of any case "
          f"{peak / 1024:.0f} MiB; slowest {max((r['seconds'] for r in results), default=0):.1f} s")
    for r in results:
        if r["problems"]:
            print(f"  {r['case']} {','.join(r['problems'])}: tileport {' '.join(map(str, r['argv']))}  "
                  f"[{r['note']}] {r['tail'][-300:]!r}")
    if ns.json:
        Path(ns.json).write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 1 if any(r["problems"] for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
