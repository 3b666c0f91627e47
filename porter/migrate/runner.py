"""Drive a migrate run: discover, look up the cache, schedule workers, write ports, collect.

One loop in the main thread owns all state: it starts up to --jobs worker processes (a convert
task per file, then a verify task per kernel), polls them, kills any past its deadline, and
writes each port as soon as its conversion is known. Ctrl-C only sets a flag the loop reads, so
a stop never tears a write: running workers are killed, finished results stay, and the reports
cover what finished (exit 130). Nothing is ever written inside SRC.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import tempfile
import time
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from porter.diagnostics import Diagnostic, Loc, TileportError
from porter.frontends.cuda.includers import ProjectIncludes
from porter.migrate import compdb, worker
from porter.migrate.cache import Cache, tool_fingerprint, toolchain_fingerprint
from porter.migrate.discover import SourceFile, discover
from porter.migrate.model import FileRecord, KernelRecord, RunResult
from porter.migrate.ownership import Manifest, inside, place
from porter.util.cache_root import VARIABLE as CACHE_VARIABLE, chosen_cache_root
from porter.util.hashing import content_hash, file_hash, value_hash
from porter.util.processes import kill_tree

REPORT_SUFFIXES = (".json", ".md", ".html")
_KIND_STATUS = {"no-kernel": "no-kernel", "bad": "failed", "skipped": "skipped"}


@dataclass
class MigrateOptions:
    src: str
    out: str | None
    verify: bool = False
    jobs: int = 0                  # 0: the core count
    timeout: float = 300.0         # seconds per conversion and per kernel run in verify
    include_dirs: tuple = ()
    defines: tuple = ()
    compile_commands: str | None = None
    include: tuple = ()
    exclude: tuple = ()
    force: bool = False
    dry_run: bool = False
    use_cache: bool = True
    compile_check: bool = True
    seed: int = 0
    reports: tuple = ()
    level: str = "auto"            # auto: best available; thread: accept thread-level; tile: require tile
    command: str = "migrate"
    constexprs: tuple = ()         # (name, value) pairs pinned in Triton kernels (--constexpr)
    allow_tf32: bool = False       # fp32 multiplies may run on TF32 tensor cores (--allow-tf32)
    max_kernels: int = 1000        # the most kernels one file may define (--max-kernels)

    def as_dict(self) -> dict:
        return {"verify": self.verify, "jobs": self.jobs, "timeout": self.timeout,
                "include_dirs": list(self.include_dirs), "defines": list(self.defines),
                "compile_commands": self.compile_commands, "include": list(self.include),
                "exclude": list(self.exclude), "force": self.force, "dry_run": self.dry_run,
                "cache": self.use_cache, "compile_check": self.compile_check, "seed": self.seed,
                "level": self.level, "constexprs": dict(self.constexprs), "allow_tf32": self.allow_tf32,
                "max_kernels": self.max_kernels}


def validate(opts: MigrateOptions) -> None:
    """Usage errors (exit 2) before anything runs: bad SRC/OUT, OUT or a report inside SRC."""
    src = Path(opts.src)
    if not src.exists():
        raise TileportError("TP001", "no such directory", Loc(opts.src))
    if not src.is_dir():
        raise TileportError("TP001", "SRC must be a directory (use `tileport convert` for one file)", Loc(opts.src))
    src_real = os.path.realpath(src)
    if opts.out is not None:
        out = Path(opts.out)
        if out.exists() and not out.is_dir():
            raise TileportError("TP001", "OUT exists and is not a directory", Loc(opts.out))
        if inside(os.path.realpath(out), src_real):
            raise TileportError("TP008", f"OUT must not be SRC or inside it ({src_real}); tileport never "
                                "writes in the source tree", Loc(opts.out))
    elif not opts.dry_run:
        raise TileportError("TP007", "missing -o OUT (or use --dry-run / `tileport analyze`)")
    for report in opts.reports:
        if Path(report).suffix.lower() not in REPORT_SUFFIXES:
            raise TileportError("TP007", f"--report expects a .json, .md or .html file, got '{report}'", Loc(report))
        if inside(os.path.realpath(report), src_real):
            raise TileportError("TP008", "a report must not be written inside SRC", Loc(report))
    if opts.jobs < 0:
        raise TileportError("TP007", f"--jobs expects a positive number, got {opts.jobs}")
    if opts.timeout <= 0:
        raise TileportError("TP007", f"--timeout expects a positive number of seconds, got {opts.timeout:g}")


@dataclass
class _Task:
    kind: str                     # "convert" or "verify"
    state: _FileState
    payload: dict
    limit: float
    kernel: KernelRecord | None = None
    key: str = ""
    proc: object = None
    result_path: Path | None = None
    log_path: Path | None = None
    deadline: float = 0.0


@dataclass
class _FileState:
    entry: SourceFile
    record: FileRecord
    include_dirs: list
    defines: list
    convert_key: str = ""
    port_sha: str = ""
    pending: int = 0
    finished: bool = False
    context: str | None = None  # CUDA: the includer this file is parsed in
    foreign: list = field(default_factory=list)  # CUDA: included files whose kernels are their own ports
    tasks: list = field(default_factory=list)


class Runner:
    def __init__(self, opts: MigrateOptions, display):
        validate(opts)
        self.opts = opts
        self.display = display
        self.jobs = opts.jobs or os.cpu_count() or 1
        self.src = Path(opts.src)
        self.src_real = os.path.realpath(self.src)
        self.out = Path(opts.out) if opts.out else None
        self.writing = self.out is not None and not opts.dry_run
        self.compdb = compdb.load(opts.compile_commands) if opts.compile_commands else {}
        env_cache = chosen_cache_root()
        root = env_cache / "migrate" if env_cache else (self.out / ".tileport-cache" if self.out else None)
        self.cache = Cache(root, read=opts.use_cache, write=not opts.dry_run) if root else None
        self.cache_root = root if root is not None and not opts.dry_run else None
        self.worker_env = {}
        if self.writing and not env_cache:
            artifacts = str((self.out / ".tileport-cache").resolve())
            self.worker_env[CACHE_VARIABLE] = artifacts  # the emulator's builds
            if not os.environ.get("TILELANG_CACHE_DIR"):
                self.worker_env["TILELANG_CACHE_DIR"] = os.path.join(artifacts, "tilelang")
        self.manifest = Manifest(self.out) if self.writing else None
        self.pending: deque = deque()
        self.running: list = []
        self.states: list = []
        self.stop = False
        self._last_save = 0.0
        self._names = 0
        self._launchers: dict = {}  # OUT-relative launcher path -> why it could not be written, or None

    # ------------------------------------------------------------------ run

    def run(self) -> RunResult:
        started = time.perf_counter()
        result = RunResult(self.opts.command, str(self.src), str(self.out) if self.out else None,
                           {**self.opts.as_dict(), "jobs": self.jobs}, verify=self.opts.verify and self.writing, dry_run=self.opts.dry_run,
                           started_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
                           reports=list(self.opts.reports))
        entries = discover(self.src, self.opts.include, self.opts.exclude, avoid=self.out)
        self.workdir = Path(tempfile.mkdtemp(prefix="tileport-migrate-"))
        previous = self._catch_sigint()
        self.display.start(len(entries))
        self.project = ProjectIncludes([e.path for e in entries if e.kind == "candidate" and e.language == "cuda"],
                                       [os.path.abspath(d) for d in self.opts.include_dirs])
        try:
            for entry in entries:
                self._plan(entry)
            self._loop()
        finally:
            self._kill_running()
            self.display.close()
            if previous is not None:
                signal.signal(signal.SIGINT, previous)
            if self.manifest is not None:
                self.manifest.save()
            shutil.rmtree(self.workdir, ignore_errors=True)
        result.files = [s.record for s in self.states]
        result.interrupted = self.stop
        result.seconds = time.perf_counter() - started
        return result

    def _catch_sigint(self):
        """First Ctrl-C: finish cleanly; a second one: stop at once."""
        try:
            def handler(signum, frame):
                if self.stop:
                    raise KeyboardInterrupt
                self.stop = True
            return signal.signal(signal.SIGINT, handler)
        except ValueError:  # not the main thread
            return None

    def _loop(self) -> None:
        shown = None
        while (self.pending or self.running) and not self.stop:
            while self.pending and len(self.running) < self.jobs and not self.stop:
                self._launch(self.pending.popleft())
            progressed = False
            for task in list(self.running):
                value = self._poll(task)
                if value is not None:
                    self.running.remove(task)
                    self._handle(task, value)
                    progressed = True
            names = tuple(t.state.record.path for t in self.running)
            if names != shown:
                self.display.running(names)
                shown = names
            if self.manifest is not None and self.manifest.dirty and time.monotonic() - self._last_save > 0.5:
                self.manifest.save()
                self._last_save = time.monotonic()
            if not progressed:
                time.sleep(0.02)
        if self.stop:
            self._kill_running()
            for state in self.states:
                if not state.finished:
                    state.record.status = "interrupted"
                    for k in state.record.kernels:
                        if k.status == "ported" and self.opts.verify:
                            k.status = "interrupted"
                    self._finish(state)

    # ------------------------------------------------------------------ planning

    def _plan(self, entry: SourceFile) -> None:
        record = FileRecord(entry.rel, entry.language, "interrupted", source=str(entry.path))
        includes, defines = list(self.opts.include_dirs), list(self.opts.defines)
        extra = self.compdb.get(os.path.realpath(entry.path))
        if extra:
            includes += [d for d in extra[0] if d not in includes]
            defines += [d for d in extra[1] if d not in defines]
        state = _FileState(entry, record, [os.path.abspath(d) for d in includes], defines)
        if entry.language == "cuda":  # one port per file that defines kernels (includers.py)
            state.context = self.project.context_of(entry.path)
            state.foreign = self.project.foreign_of(entry.path)
        self.states.append(state)
        if self.stop:
            return  # Ctrl-C while planning: listed as interrupted
        if entry.kind != "candidate":
            record.status = _KIND_STATUS[entry.kind]
            record.diagnostics = [worker.diag_dict(entry.diagnostic)] if entry.diagnostic else []
            self._finish(state)
            return
        sha = file_hash(entry.path)
        if sha is None:
            record.status = "failed"
            record.diagnostics = [worker.diag_dict(TileportError("TP001", "cannot read the file",
                                                                  Loc(str(entry.path))).diagnostic)]
            self._finish(state)
            return
        state.convert_key = value_hash({"kind": "convert", "source_sha": sha, "source": str(entry.path),
                                    "language": entry.language, "include_dirs": state.include_dirs,
                                    "defines": state.defines, "timeout": self.opts.timeout,
                                    "raise": self.opts.level != "thread", "tool": tool_fingerprint(),
                                    "constexprs": list(self.opts.constexprs), "allow_tf32": self.opts.allow_tf32,
                                    "max_kernels": self.opts.max_kernels, "context": state.context,
                                    "context_sha": file_hash(state.context) if state.context else None,
                                    "foreign": state.foreign, "shared_launcher": self.writing})
        hit = self.cache.get("convert", state.convert_key) if self.cache else None
        if hit is not None:
            record.cached = True
            self._after_convert(state, hit["value"], cached=True)
            return
        payload = {"kind": "convert", "source": str(entry.path), "language": entry.language,
                   "include_dirs": state.include_dirs, "defines": state.defines,
                   "raise": self.opts.level != "thread", "constexprs": list(self.opts.constexprs),
                   "allow_tf32": self.opts.allow_tf32, "max_kernels": self.opts.max_kernels,
                   "context": state.context, "foreign": state.foreign, "shared_launcher": self.writing}
        self._queue(_Task("convert", state, payload, self.opts.timeout, key=state.convert_key))

    def _queue(self, task: _Task, first: bool = False) -> None:
        task.state.pending += 1
        (self.pending.appendleft if first else self.pending.append)(task)

    def _plan_verify(self, state: _FileState, kernel: KernelRecord) -> None:
        key = value_hash({"kind": "verify", "convert_key": state.convert_key, "port_sha": state.port_sha,
                      "kernel": kernel.name, "timeout": self.opts.timeout,
                      "compile_check": self.opts.compile_check, "seed": self.opts.seed,
                      "toolchain": toolchain_fingerprint()})
        hit = self.cache.get("verify", key) if self.cache else None
        if hit is not None:
            kernel.cached = True
            self._after_verify(kernel, hit["value"])
            return
        state.record.cached = False
        payload = {"kind": "verify", "source": str(state.entry.path),
                   "port": str((self.out / state.entry.output_rel).resolve()), "kernel": kernel.name,
                   "include_dirs": state.include_dirs, "defines": state.defines, "timeout": self.opts.timeout,
                   "compile_check": self.opts.compile_check, "seed": self.opts.seed,
                   "constexprs": list(self.opts.constexprs), "context": state.context, "foreign": state.foreign}
        # original at two sizes + the port's run and compile checks, each limited to --timeout
        self._queue(_Task("verify", state, payload, 3 * self.opts.timeout + 120, kernel=kernel, key=key),
                    first=True)

    # ------------------------------------------------------------------ workers

    def _launch(self, task: _Task) -> None:
        self._names += 1
        task.proc, task.result_path, task.log_path = worker.start(task.payload, self.workdir, f"t{self._names}",
                                                                  self.worker_env)
        task.deadline = time.monotonic() + task.limit
        self.running.append(task)

    def _poll(self, task: _Task) -> dict | None:
        code = task.proc.poll()
        if code is None:
            if time.monotonic() < task.deadline:
                return None
            kill_tree(task.proc)
            what = "converting the file" if task.kind == "convert" else f"verifying kernel '{task.kernel.name}'"
            return self._failure(task, "TP012", f"{what} timed out after {task.limit:g}s (a hang in the "
                                 "front end, a compiler or the kernel?); raise --timeout if it is just slow",
                                 cache=True)
        try:
            return json.loads(task.result_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            how = (f"was killed by signal {signal.Signals(-code).name}" if code < 0 and -code in
                   signal.valid_signals() else f"exited with status {code}")
            try:
                log = task.log_path.read_text(encoding="utf-8", errors="replace").strip()[-1500:]
            except OSError:
                log = ""
            return self._failure(task, "TP013", f"the worker process {how} without a result"
                                 + (f"\n{log}" if log else ""), cache=False)

    def _failure(self, task: _Task, code: str, message: str, cache: bool) -> dict:
        diag = {"code": code, "severity": "error", "message": message, "file": task.payload["source"],
                "line": task.kernel.line if task.kernel else 0, "col": 0}
        if task.kind == "convert":
            try:
                text = Path(task.payload["source"]).read_bytes().decode("utf-8", errors="replace")
            except OSError:
                text = ""
            value = {"status": "failed", "kernels": worker.scan_kernels(text, task.payload["language"]),
                     "port": None, "deps": {}, "diagnostics": [diag], "seconds": task.limit}
        else:
            value = {"verdict": "could-not-run", "verify": None, "diagnostics": [diag], "seconds": task.limit}
        value["_no_cache"] = not cache
        return value

    def _kill_running(self) -> None:
        for task in self.running:
            kill_tree(task.proc)
        self.running.clear()
        self.pending.clear()

    # ------------------------------------------------------------------ results

    def _handle(self, task: _Task, value: dict) -> None:
        state = task.state
        state.pending -= 1
        if self.cache is not None and not value.pop("_no_cache", False):
            self.cache.put(task.kind, task.key, value, deps=value.get("deps") if task.kind == "convert" else None)
        value.pop("_no_cache", None)
        state.record.seconds += value.get("seconds", 0.0)
        if task.kind == "convert":
            self._after_convert(state, value, cached=False)
        else:
            self._after_verify(task.kernel, value)
            if state.pending == 0:
                self._finish(state)

    def _after_convert(self, state: _FileState, value: dict, cached: bool) -> None:
        record, entry = state.record, state.entry
        record.diagnostics = list(value.get("diagnostics", []))
        status = value["status"]
        if status != "ported":
            record.status = status
            if status == "no-kernel":  # listed, not a problem
                record.diagnostics = [{**d, "severity": "note"} for d in record.diagnostics]
            kernel_status = "unsupported" if status == "unsupported" else "failed"
            record.kernels = [KernelRecord(k["name"], k["line"], k.get("status", kernel_status),
                                           diagnostics=list(k.get("diagnostics", [])))
                              for k in value.get("kernels", [])]
            self._finish(state)
            return
        record.kernels = [KernelRecord(k["name"], k["line"], k["status"], diagnostics=list(k["diagnostics"]),
                                       cached=cached) if k.get("failed") else
                          KernelRecord(k["name"], k["line"], "ported", converted=True, level=k.get("level"),
                                       rule=k.get("rule"), cached=cached) for k in value["kernels"]]
        if self.opts.level == "tile":
            low = [k for k in record.kernels if k.converted and not (k.level or "").startswith("tile")]
            for k in low:
                k.status = "unsupported"
                k.diagnostics = [{"code": "TP016", "severity": "error", "file": str(entry.path), "line": k.line,
                                  "col": 0, "message": f"no tile-level rule matches '{k.name}' (it ports at "
                                  f"{k.level} level); --level tile writes no port for this file"}]
            if low:
                record.status = "unsupported"
                self._finish(state)
                return
        record.output = entry.output_rel
        record.status = "ported"
        record.port_text = value["port"]
        if not self.writing:
            self._finish(state)
            return
        problem = self._place_launcher(entry.output_rel) or \
            place(self.out, entry.output_rel, value["port"], entry.rel, self.manifest, self.opts.force, self.src_real)
        if problem is not None:
            record.status, record.output = "failed", None
            record.diagnostics.append(worker.diag_dict(problem))
            for k in record.kernels:
                if k.converted:
                    k.status = "failed"
            self._finish(state)
            return
        state.port_sha = content_hash(value["port"])
        if self.opts.verify:
            for k in record.kernels:
                if k.converted:
                    self._plan_verify(state, k)
        if state.pending == 0:
            self._finish(state)

    def _place_launcher(self, port_rel: str) -> Diagnostic | None:
        """The shared launch helpers beside a port (emit/tilelang.py: launcher_text), written
        once per folder per run; the reason when they cannot be, which the port then shares.
        Imported here: the emitter costs migrate's start-up 140 ms, analyze and --dry-run need none."""
        from porter.emit.tilelang import LAUNCHER_FILE, launcher_text

        rel = os.path.join(os.path.dirname(port_rel), LAUNCHER_FILE)
        if rel not in self._launchers:
            self._launchers[rel] = place(self.out, rel, launcher_text(), "tileport", self.manifest, self.opts.force,
                                         self.src_real)
        return self._launchers[rel]

    def _after_verify(self, kernel: KernelRecord, value: dict) -> None:
        kernel.verdict = value["verdict"]
        kernel.verify = value.get("verify")
        kernel.diagnostics = list(value.get("diagnostics", []))
        kernel.status = "verified" if kernel.verdict == "equivalent" else "failed"
        kernel.seconds = value.get("seconds", 0.0)

    def _finish(self, state: _FileState) -> None:
        if not state.finished:
            state.finished = True
            self.display.file_done(state.record)
