"""Reports people read: the terminal summary, JSON for CI, Markdown for a PR, one HTML page.

All are built from RunResult alone. JSON is `RunResult.as_dict()` (schema in
docs/report-schema.md) with non-finite numbers written as strings, so it is strict JSON.
Markdown and HTML are laid out by templates/report.md.j2 and report.html.j2; this module
decides what they show. The HTML page is self-contained (inline CSS, no scripts, no external
assets), escapes every piece of user text, and links each diagnostic to its source line
(`#src-<file>-L<line>`).
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from porter import __version__
from porter.migrate.ownership import write_output

_STYLE = {"ported": "green", "verified": "green", "no-kernel": "dim", "unsupported": "yellow", "failed": "red",
          "skipped": "dim", "interrupted": "magenta"}
#: Show a whole file in the HTML page up to this many lines; beyond, windows around what matters.
FULL_LINES = 3000
WINDOW = 25
MAX_LINE_CHARS = 400


# ----------------------------------------------------------------------------- terminal


def _rate(summary: dict) -> str:
    rate = summary["migration_rate"]
    return "n/a" if rate is None else f"{100 * rate:.0f}%"


def print_summary(console: Console, result) -> None:
    s = result.summary()
    title = f"tileport {result.command}: {result.source_root}" + (f" -> {result.output_root}"
                                                                  if result.output_root and not result.dry_run else "")
    columns = ["files", "kernels", "converted", "verified", "tile-level", "thread-level", "unsupported", "failed",
               "migration rate"]
    values = [str(s["files"]), str(s["kernels"]), str(s["converted"]), str(s["verified"]) if result.verify else "-",
              str(s["tile_level"]), str(s["thread_level"]), str(s["unsupported"]), str(s["failed"]), _rate(s)]
    console.print(escape(title), style="bold", highlight=False)
    table = Table(show_edge=False, pad_edge=False)
    if console.width >= 110:
        for col in columns:
            table.add_column(col, justify="right")
        table.add_row(*values)
    else:  # a narrow terminal: one row per count
        table.add_column("")
        table.add_column("", justify="right")
        table.show_header = False
        for col, value in zip(columns, values):
            table.add_row(col, value)
    console.print(table)
    parts = [f"{s['files_ported']} ported", f"{s['files_no_kernel']} no kernel",
             f"{s['files_unsupported']} unsupported", f"{s['files_failed']} failed"]
    if s["files_skipped"]:
        parts.append(f"{s['files_skipped']} skipped")
    if s["files_interrupted"]:
        parts.append(f"{s['files_interrupted']} interrupted")
    cached = f", {s['files_cached']} from cache" if s["files_cached"] else ""
    console.print(f"files: {', '.join(parts)}{cached}; {result.seconds:.1f}s"
                  + ("  [magenta]interrupted[/]" if result.interrupted else ""), highlight=False)


def print_analysis(console: Console, result) -> None:
    """`analyze`: per file, what would port, at which level, and what blocks it."""
    table = Table(show_edge=False, pad_edge=False)
    for col in ("file", "status", "kernels", "level", "blocked by"):
        table.add_column(col, overflow="fold")
    for f in result.files:
        levels = sorted({k.level for k in f.kernels if k.level})
        names = ", ".join(k.name for k in f.kernels) or "-"
        diags = f.diagnostics + [d for k in f.kernels for d in k.diagnostics]
        blocker = "; ".join(f"{d['code']} {d['message'].splitlines()[0] if d['message'] else ''}"
                            + (f" (line {d['line']})" if d.get("line") else "") for d in diags[:2])
        style = _STYLE.get(f.status, "white")
        table.add_row(escape(f.path), f"[{style}]{f.status}[/]", escape(names), ", ".join(levels) or "-",
                      escape(blocker) or "-")
    console.print(table)


# ----------------------------------------------------------------------------- JSON


def _finite(value):
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def render_json(result) -> str:
    return json.dumps(_finite(result.as_dict()), indent=2, allow_nan=False) + "\n"


# ----------------------------------------------------------------------------- shared views


def kernel_numbers(kernel) -> dict:
    """Worst errors over every case and buffer, and the compile checks, for one line of a report."""
    v = kernel.verify or {}
    buffers = [b for c in v.get("cases", []) for b in c.get("buffers", [])]
    finite = lambda key: [b[key] for b in buffers if isinstance(b.get(key), (int, float))]  # noqa: E731
    max_abs, max_rel = finite("max_abs"), finite("max_rel")
    compile_info = ", ".join(f"{arch} {'ok' if info.get('ok') else 'skipped' if info.get('ok') is None else 'FAILED'}"
                             for arch, info in (v.get("compile") or {}).items())
    return {"cases": len(v.get("cases", [])), "buffers": len(buffers),
            "max_abs": f"{max(max_abs):.3g}" if max_abs else "", "max_rel": f"{max(max_rel):.3g}" if max_rel else "",
            "compile": compile_info}


def case_rows(kernel) -> list:
    """verify's cases of one kernel, a row per case and buffer, for the HTML report; a
    mismatching buffer carries its map as cells of intensity 0 (none wrong) to 4 (all)."""
    rows = []
    for case in (kernel.verify or {}).get("cases", []):
        sizes = ", ".join(f"{n}={v:g}" if isinstance(v, float) else f"{n}={v}" for n, v in case.get("sizes", {}).items())
        for b in case.get("buffers", []):
            where = b.get("where") or {}
            grid = where.get("map", {}).get("cells", [])
            peak = max((max(r) for r in grid if r), default=0)
            rows.append({
                "sizes": sizes + (" (wide values)" if case.get("wide") else ""), "device": case.get("device", ""),
                "buffer": b["buffer"], "dtype": b["dtype"],
                "written": "-" if b.get("written") is None else f"{100 * b['written']:.0f}%",
                "max_abs": f"{b['max_abs']:.3g}", "max_rel": f"{b['max_rel']:.3g}",
                "tolerance": f"{b['rtol']:g} / {b['atol']:g}", "ok": b["ok"], "mismatches": b["mismatches"],
                "outside": b.get("outside", 0), "detail": where.get("detail", ""),
                "worst": where.get("worst", [])[:3],
                "map": [[0 if v == 0 else 1 + min(3, 3 * v // max(peak, 1)) for v in r] for r in grid],
                "map_shape": f"{where['map']['rows']} x {where['map']['cols']}" if where.get("map") else ""})
    return rows


def _slug(path: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "-", path)


def _read_text(path: str) -> tuple[str | None, str]:
    """A file's text for display; never opens anything but a regular file (a FIFO would block)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None, "not shown: not a regular file"
        data = Path(path).read_bytes()
    except OSError as exc:
        return None, f"not shown: {exc.strerror or exc}"
    if b"\0" in data[:8192]:
        return None, "not shown: binary file"
    return data.decode("utf-8", errors="replace"), ""


def _code_lines(text: str | None, focus: set) -> list:
    """[(line number or None for an elision, text)] showing all of a small file, windows of a big one."""
    if text is None:
        return []
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) <= FULL_LINES:
        keep = range(1, len(lines) + 1)
    else:
        wanted = set()
        for line in focus | {1}:
            wanted.update(range(max(1, line - WINDOW), min(len(lines), line + WINDOW) + 1))
        keep = sorted(wanted)
    out, previous = [], 0
    for n in keep:
        if n != previous + 1:
            out.append((None, f"... {n - previous - 1} lines not shown ..."))
        line = lines[n - 1]
        out.append((n, line if len(line) <= MAX_LINE_CHARS else line[:MAX_LINE_CHARS] + " ... (line cut)"))
        previous = n
    if previous < len(lines):
        out.append((None, f"... {len(lines) - previous} lines not shown ..."))
    return out


def _program_lines(port: str | None) -> dict:
    """kernel name -> line of `def <name>_program(` in the port."""
    lines = {}
    for n, line in enumerate((port or "").split("\n"), 1):
        m = re.match(r"def (\w+)_program\(", line)
        if m:
            lines.setdefault(m.group(1), n)
    return lines


def _file_views(result) -> list:
    views, used = [], set()
    out_root = Path(result.output_root) if result.output_root else None
    for f in result.files:
        fid = _slug(f.path)
        while fid in used:
            fid += "-"
        used.add(fid)
        diags = f.diagnostics + [d for k in f.kernels for d in k.diagnostics]
        focus = {k.line for k in f.kernels if k.line} | {d["line"] for d in diags if d.get("line")}
        source, source_note = _read_text(f.source) if f.status != "skipped" else (None, "")
        port = f.port_text
        if port is None and f.output and out_root is not None and not result.dry_run:
            port, _ = _read_text(str(out_root / f.output))
        def link(d, fid=fid, f=f, source=source):
            same = d.get("file") in (f.source, None) or str(d.get("file", "")).endswith(f.path)
            return f"#src-{fid}-L{d['line']}" if d.get("line") and same and source is not None else None
        port_lines = _program_lines(port)
        views.append({
            "file": f, "fid": fid,
            "kernels": [{"k": k, "numbers": kernel_numbers(k), "port_line": port_lines.get(k.name),
                         "cases": case_rows(k),
                         "diags": [{"d": d, "href": link(d)} for d in k.diagnostics]} for k in f.kernels],
            "diags": [{"d": d, "href": link(d)} for d in f.diagnostics],
            "source": _code_lines(source, focus), "source_note": source_note,
            "kernel_lines": {k.line for k in f.kernels if k.line},
            "diag_lines": {d["line"] for d in diags if d.get("line")},
            "port": _code_lines(port, set()) if port is not None else [],
        })
    return views


def _templates_dir() -> Path:
    """Top-level templates/ in a checkout; porter/templates once installed."""
    package = Path(__file__).resolve().parents[1]
    for candidate in (package.parent / "templates", package / "templates"):
        if (candidate / "report.html.j2").is_file():
            return candidate
    raise FileNotFoundError("tileport's templates/ folder (report.html.j2) is missing")


def _environment(autoescape: bool, cache_dir: Path | None = None):
    from porter.jinja_env import environment

    return environment(_templates_dir(), autoescape, cache_dir)


def _md(text) -> str:
    """Markdown table cell: one line, pipes and markup escaped."""
    text = str(text).splitlines()[0] if str(text) else ""
    return re.sub(r"([\\|*_`<>\[\]])", r"\\\1", text)


def render_markdown(result, cache_dir: Path | None = None) -> str:
    env = _environment(False, cache_dir)
    env.filters["md"] = _md
    return env.get_template("report.md.j2").render(r=result, s=result.summary(), rate=_rate(result.summary()),
                                                   files=_file_views(result), version=__version__)


def render_html(result, cache_dir: Path | None = None) -> str:
    return _environment(True, cache_dir).get_template("report.html.j2").render(
        r=result, s=result.summary(), rate=_rate(result.summary()), files=_file_views(result), version=__version__)


def write_reports(result, paths, cache_dir: Path | None = None) -> list[str]:
    """Write each requested report (by suffix), atomically; returns what was written."""
    written = []
    for path in paths:
        suffix = Path(path).suffix.lower()
        if suffix == ".json":
            text = render_json(result)
        else:
            text = (render_markdown if suffix == ".md" else render_html)(result, cache_dir)
        write_output(Path(path), text)
        written.append(str(path))
    return written
