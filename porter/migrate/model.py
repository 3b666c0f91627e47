"""What a migrate run found, per file and per kernel, and its stable JSON form (schema v1).

Every report (terminal, JSON, Markdown, HTML) and the exit code are computed from these records
alone, so they always agree. docs/report-schema.md documents `as_dict()`; bump SCHEMA_VERSION
when a field changes meaning or goes away (adding fields is compatible).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from porter import __version__

SCHEMA_VERSION = 1

FILE_STATUSES = ("ported", "no-kernel", "unsupported", "failed", "skipped", "interrupted")
KERNEL_STATUSES = ("ported", "verified", "unsupported", "failed", "interrupted")


@dataclass
class KernelRecord:
    name: str
    line: int
    status: str                 # KERNEL_STATUSES
    converted: bool = False     # the front end and emitter produced a port for it
    level: str | None = None    # "tile" or "thread" (porter.pipeline.level_printed)
    rule: str | None = None     # the tile-level rule that matched, when one did
    verdict: str | None = None  # verify's verdict when verified (equivalent, mismatch, ...)
    verify: dict | None = None  # verify's per-kernel JSON (cases, compile, error)
    diagnostics: list = field(default_factory=list)
    cached: bool = False
    seconds: float = 0.0

    def as_dict(self) -> dict:
        return {"name": self.name, "line": self.line, "status": self.status,
                "converted": self.converted, "level": self.level,
                "rule": self.rule, "verdict": self.verdict, "verify": self.verify,
                "diagnostics": self.diagnostics, "cached": self.cached, "seconds": round(self.seconds, 3)}


@dataclass
class FileRecord:
    path: str                   # relative to SRC, posix
    language: str | None
    status: str                 # FILE_STATUSES
    output: str | None = None   # relative to OUT, when the port was written (or would be, dry run)
    kernels: list = field(default_factory=list)
    diagnostics: list = field(default_factory=list)
    cached: bool = False
    seconds: float = 0.0
    source: str = ""            # the path as tileport read it (SRC joined with path)
    port_text: str | None = None  # the port, for the HTML report (not part of the JSON)

    def as_dict(self) -> dict:
        return {"path": self.path, "language": self.language, "status": self.status, "output": self.output,
                "cached": self.cached, "seconds": round(self.seconds, 3), "diagnostics": self.diagnostics,
                "kernels": [k.as_dict() for k in self.kernels]}


@dataclass
class RunResult:
    command: str                # "migrate" or "analyze"
    source_root: str
    output_root: str | None
    options: dict
    files: list = field(default_factory=list)
    verify: bool = False
    dry_run: bool = False
    interrupted: bool = False
    started_at: str = ""
    seconds: float = 0.0
    reports: list = field(default_factory=list)

    def summary(self) -> dict:
        kernels = [k for f in self.files for k in f.kernels]
        count = lambda pred, items: sum(1 for x in items if pred(x))  # noqa: E731
        converted = [k for k in kernels if k.converted]
        done = count(lambda k: k.status == "verified" if self.verify else k.status in ("ported", "verified"),
                     kernels)
        return {
            "files": len(self.files),
            "files_ported": count(lambda f: f.status == "ported", self.files),
            "files_no_kernel": count(lambda f: f.status == "no-kernel", self.files),
            "files_unsupported": count(lambda f: f.status == "unsupported", self.files),
            "files_failed": count(lambda f: f.status == "failed", self.files),
            "files_skipped": count(lambda f: f.status == "skipped", self.files),
            "files_interrupted": count(lambda f: f.status == "interrupted", self.files),
            "files_cached": count(lambda f: f.cached, self.files),
            "kernels": len(kernels),
            "converted": len(converted),
            "verified": count(lambda k: k.status == "verified", kernels),
            "tile_level": count(lambda k: (k.level or "").startswith("tile"), converted),
            "thread_level": count(lambda k: (k.level or "").startswith("thread"), converted),
            "unsupported": count(lambda k: k.status == "unsupported", kernels),
            "failed": count(lambda k: k.status == "failed", kernels),
            "interrupted": count(lambda k: k.status == "interrupted", kernels),
            "migration_rate": round(done / len(kernels), 4) if kernels else None,
        }

    @property
    def exit_code(self) -> int:
        """0 every kernel ported (and verified with --verify); 1 anything unsupported or failed;
        130 interrupted."""
        if self.interrupted:
            return 130
        s = self.summary()
        if s["files_unsupported"] or s["files_failed"] or s["unsupported"] or s["failed"]:
            return 1
        if self.verify and s["verified"] != s["kernels"]:
            return 1
        return 0

    def as_dict(self) -> dict:
        return {
            "schema_version": SCHEMA_VERSION,
            "tool": {"name": "tileport", "version": __version__},
            "command": self.command,
            "source_root": self.source_root,
            "output_root": self.output_root,
            "options": self.options,
            "started_at": self.started_at,
            "seconds": round(self.seconds, 3),
            "verify": self.verify,
            "dry_run": self.dry_run,
            "interrupted": self.interrupted,
            "exit_code": self.exit_code,
            "summary": self.summary(),
            "files": [f.as_dict() for f in self.files],
        }
