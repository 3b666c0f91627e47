"""One unit of migrate work in its own process: convert one file, or verify one kernel.

A crash (libclang on garbage, a segfaulting kernel), a hang or a compile error must cost only
that unit, so the runner starts `python -m porter.migrate.worker TASK.json RESULT.json` in a
new session and kills the whole group at its deadline. This module is both sides: `start()` for
the runner, `main()` for the child. The child never raises: every outcome is a result.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import traceback
from pathlib import Path

from porter.util.files import write_atomically
from porter.util.hashing import file_hash
from porter.util.processes import PARENT_VARIABLE, die_with_parent

REPO_ROOT = Path(__file__).resolve().parents[2]

#: Codes meaning "this file holds no kernel" (listed, not ported).
NO_KERNEL_CODES = {"TP100", "TP200"}
#: Codes meaning "the input itself is bad": unreadable, binary, not UTF-8, syntax errors.
INPUT_CODES = {"TP001", "TP002", "TP003", "TP005", "TP101", "TP201"}

_CUDA_KERNEL = re.compile(r"__global__\s+(?:[\w:<>,*&\s]+?\s)?(?:__launch_bounds__\s*\([^)]*\)\s*)?"
                          r"[\s*&]*(?!__launch_bounds__)(\w+)\s*\(")
_TRITON_KERNEL = re.compile(r"@\s*(?:triton\s*\.\s*)?jit\b[^\n]*\n(?:[ \t]*@[^\n]*\n)*[ \t]*def\s+(\w+)")


def diag_dict(d) -> dict:
    loc = d.loc
    return {"code": d.code, "severity": d.severity, "message": d.message,
            "file": loc.file if loc else None, "line": loc.line if loc else 0, "col": loc.col if loc else 0}


def scan_kernels(text: str, language: str) -> list[dict]:
    """Kernel names by a textual scan: what a file that did not convert would have held."""
    pattern = _CUDA_KERNEL if language == "cuda" else _TRITON_KERNEL
    out, seen = [], set()
    for m in pattern.finditer(text):
        name = m.group(1)
        if name not in seen:
            seen.add(name)
            out.append({"name": name, "line": text.count("\n", 0, m.start(1)) + 1})
    return out


def include_deps(source: str, text: str, include_dirs) -> dict:
    """Headers the file includes from its own tree or -I dirs (recursively) -> sha256."""
    from porter.frontends.cuda.includers import included_files

    return {path: file_hash(path) for path in included_files(source, include_dirs, text)}


def _status_of(code: str) -> str:
    if code in NO_KERNEL_CODES:
        return "no-kernel"
    if code in INPUT_CODES:
        return "failed"
    return "unsupported"


def _levels(module, source_name: str) -> list[tuple[str, str | None]]:
    """(level, rule) per kernel: "tile" or "thread", and the rule's short name."""
    from porter.ir.tile_queries import level_of, rule_name

    return [(level_of(k), rule_name(k)) for k in module.kernels]


def _failed_kernel(failure) -> dict:
    """A kernel that did not convert while its file did (or did not): its own diagnostic."""
    code = failure.diagnostic.code
    return {"name": failure.name, "line": failure.loc.line, "failed": True,
            "status": "failed" if _status_of(code) == "failed" else "unsupported",
            "diagnostics": [diag_dict(failure.diagnostic)]}


def convert_task(task: dict) -> dict:
    from porter.diagnostics import TileportError
    from porter.pipeline import print_port, raise_to_tiles, read_source

    source, language = task["source"], task["language"]
    start = time.perf_counter()
    try:
        text = Path(source).read_bytes().decode("utf-8", errors="replace")
    except OSError:
        text = ""
    deps = include_deps(source, text, task["include_dirs"]) if language == "cuda" else {}
    context = task.get("context")
    if context:  # the includer is read too: its text is part of what the port came from
        deps[os.path.realpath(context)] = file_hash(context)
        deps.update(include_deps(context, Path(context).read_text(encoding="utf-8", errors="replace"),
                                 task["include_dirs"]))
    try:
        module = read_source(source, tuple(task["include_dirs"]), tuple(task["defines"]),
                             constexprs=dict(task.get("constexprs", ())), max_kernels=task.get("max_kernels"),
                             context=context, foreign=tuple(task.get("foreign", ())))
        for read in module.dependencies:  # Triton: tree modules whose helpers the port inlines
            deps[os.path.realpath(read)] = file_hash(read)
        module = raise_to_tiles(module, "auto" if task.get("raise", True) else "thread",
                              {"allow_tf32": task.get("allow_tf32", False)})
        port = print_port(module, source, shared_launcher=task.get("shared_launcher", False))
    except TileportError as exc:
        status = _status_of(exc.diagnostic.code)
        failures = getattr(exc, "failures", None)
        if failures:  # every kernel failed, each for its own reason
            kernels = [_failed_kernel(f) for f in failures]
            status = "unsupported" if any(k["status"] == "unsupported" for k in kernels) else "failed"
        else:
            kernels = [] if status == "no-kernel" else scan_kernels(text, language)
        return {"status": status, "kernels": kernels, "port": None, "deps": deps,
                "diagnostics": [diag_dict(exc.diagnostic)], "seconds": time.perf_counter() - start}
    kernels = []
    for k, (level, rule) in zip(module.kernels, _levels(module, source)):
        # a template instance by its arguments too (`reduce<256>`): that is how verify finds it
        kernels.append({"name": k.name + k.template_args, "line": k.loc.line, "level": level, "rule": rule,
                        "launch": getattr(k.launch, "origin", None)})
    kernels += [_failed_kernel(f) for f in module.failures]
    kernels.sort(key=lambda k: k["line"])
    return {"status": "ported", "kernels": kernels, "port": port, "deps": deps, "diagnostics": [],
            "seconds": time.perf_counter() - start}


def verify_task(task: dict) -> dict:
    from porter.diagnostics import TileportError
    from porter.verify.driver import VerifyOptions, verify

    start = time.perf_counter()
    opts = VerifyOptions(kernel=task["kernel"], include_dirs=tuple(task["include_dirs"]),
                         defines=tuple(task["defines"]), timeout=task["timeout"],
                         compile_check=task["compile_check"], seed=task.get("seed", 0),
                         constexprs=dict(task.get("constexprs", ())), context=task.get("context"),
                         foreign=tuple(task.get("foreign", ())))
    try:
        report = verify(task["source"], task["port"], opts)
    except TileportError as exc:
        return {"verdict": "could-not-run", "verify": None, "diagnostics": [diag_dict(exc.diagnostic)],
                "seconds": time.perf_counter() - start}
    data = report.as_dict()
    # verify reports a kernel by its identifier (`reduce<256>` is `reduce_256`); the filter
    # above selected this one kernel
    entry = data["kernels"][0] if len(data["kernels"]) == 1 else \
        next((k for k in data["kernels"] if k["kernel"] == task["kernel"]), None)
    result = report.kernels[0] if len(report.kernels) == 1 else \
        next((k for k in report.kernels if k.name == task["kernel"]), None)
    if entry is None:
        return {"verdict": "could-not-run", "verify": None, "seconds": time.perf_counter() - start,
                "diagnostics": [{"code": "TP004", "severity": "error", "file": task["source"], "line": 0,
                                 "col": 0, "message": f"verify found no kernel '{task['kernel']}'"}]}
    return {"verdict": entry["verdict"], "verify": entry, "gpu": data["gpu"],
            "diagnostics": [diag_dict(result.error)] if result is not None and result.error else [],
            "seconds": time.perf_counter() - start}


def run(task: dict) -> dict:
    try:
        return convert_task(task) if task["kind"] == "convert" else verify_task(task)
    except BaseException as exc:  # noqa: BLE001 - a tileport bug is a result, not a dead run
        tail = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))[-2000:]
        diagnostic = {"code": "TP014", "severity": "error", "file": task["source"], "line": 0, "col": 0,
                      "message": f"internal error in tileport: {type(exc).__name__}: {exc}\n{tail}"}
        if task["kind"] == "convert":
            try:
                text = Path(task["source"]).read_bytes().decode("utf-8", errors="replace")
            except OSError:
                text = ""
            return {"status": "failed", "kernels": scan_kernels(text, task["language"]), "port": None,
                    "deps": {}, "diagnostics": [diagnostic], "seconds": 0.0}
        return {"verdict": "could-not-run", "verify": None, "diagnostics": [diagnostic], "seconds": 0.0}


def main(argv: list[str]) -> int:
    die_with_parent()
    task = json.loads(Path(argv[1]).read_text(encoding="utf-8"))
    result = run(task)
    write_atomically(argv[2], json.dumps(result))
    return 0


# ----------------------------------------------------------------------------- runner side


def start(task: dict, workdir: Path, name: str, env: dict) -> tuple[subprocess.Popen, Path, Path]:
    """Launch the child for one task; returns (process, result path, log path)."""
    task_path, result_path, log_path = (workdir / f"{name}.task.json", workdir / f"{name}.result.json",
                                        workdir / f"{name}.log")
    task_path.write_text(json.dumps(task), encoding="utf-8")
    child_env = dict(os.environ)
    child_env.update(env)
    child_env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), child_env.get("PYTHONPATH")) if p)
    child_env[PARENT_VARIABLE] = str(os.getpid())  # the worker dies with this process (die_with_parent)
    with open(log_path, "wb") as log:
        # -P: a module in the working directory is never imported in place of tileport's own
        proc = subprocess.Popen([sys.executable, "-P", "-m", "porter.migrate.worker", str(task_path), str(result_path)],
                                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=child_env,
                                start_new_session=True)
    return proc, result_path, log_path


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
