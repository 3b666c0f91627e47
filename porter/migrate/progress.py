"""Show a migrate run while it works: a live rich display on a terminal, plain lines otherwise.

Both print one line per finished file (status, path, kernels, first diagnostic), so a CI log
and a terminal tell the same story; the terminal also gets counts, elapsed time and an ETA.
"""

from __future__ import annotations

import sys

from rich.console import Console
from rich.markup import escape

_STYLE = {"ported": "green", "no-kernel": "dim", "unsupported": "yellow", "failed": "red", "skipped": "dim",
          "interrupted": "magenta"}


def describe(record, verify: bool) -> str:
    """One plain-text line about a finished file."""
    parts = [record.path]
    if record.output:
        parts.append(f"-> {record.output}")
    if record.kernels:
        n = len(record.kernels)
        text = f"{n} kernel{'s' if n != 1 else ''}"
        if verify and record.status == "ported":
            good = sum(k.status == "verified" for k in record.kernels)
            text += f", {good}/{n} verified"
        parts.append(f"({text})")
    diags = list(record.diagnostics) + [d for k in record.kernels for d in k.diagnostics]
    if diags:
        d = diags[0]
        where = f" ({d['file']}:{d['line']})" if d.get("file") and d.get("line") else ""
        message = d["message"].splitlines()[0] if d["message"] else ""
        parts.append(f"{d['code']} {message}{where}")
    if record.cached:
        parts.append("[cached]")
    elif record.seconds:
        parts.append(f"{record.seconds:.1f}s")
    return "  ".join(parts)


class PlainDisplay:
    def __init__(self, verify: bool, stream=None):
        self.verify = verify
        self.stream = stream or sys.stderr
        self.total = 0
        self.done = 0

    def start(self, total: int) -> None:
        self.total = total

    def running(self, names) -> None:
        pass

    def file_done(self, record) -> None:
        self.done += 1
        width = len(str(self.total))
        self.stream.write(f"[{self.done:>{width}}/{self.total}] {record.status:<11} {describe(record, self.verify)}\n")
        self.stream.flush()

    def close(self) -> None:
        pass


class RichDisplay:
    def __init__(self, verify: bool, console: Console):
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn,
                                   TimeElapsedColumn, TimeRemainingColumn)
        from rich.text import Text

        display = self

        class _Progress(Progress):
            def get_renderables(self):  # the bar, then which files are being worked on
                yield self.make_tasks_table(self.tasks)
                if display.now:
                    yield Text(f"  now: {display.now}", style="dim", no_wrap=True, overflow="ellipsis")

        self.verify = verify
        self.counts: dict = {}
        self.now = ""
        self.progress = _Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(bar_width=24),
                                  MofNCompleteColumn(), TimeElapsedColumn(), TextColumn("ETA"),
                                  TimeRemainingColumn(), console=console, transient=True)
        self.task = None

    def start(self, total: int) -> None:
        self.progress.start()
        self.task = self.progress.add_task("migrating", total=total)

    def _describe(self) -> str:
        return " ".join(f"[{_STYLE.get(k, 'white')}]{k} {v}[/]" for k, v in sorted(self.counts.items())) or "migrating"

    def running(self, names) -> None:
        names = list(names)
        self.now = ", ".join(names[:4]) + (f" +{len(names) - 4}" if len(names) > 4 else "")
        self.progress.refresh()

    def file_done(self, record) -> None:
        self.counts[record.status] = self.counts.get(record.status, 0) + 1
        style = _STYLE.get(record.status, "white")
        self.progress.console.print(f"[{style}]{record.status:<11}[/] {escape(describe(record, self.verify))}",
                                    highlight=False)
        self.progress.update(self.task, advance=1, description=self._describe())

    def close(self) -> None:
        self.progress.stop()


def make_display(verify: bool, console: Console | None = None):
    console = console or Console(stderr=True, highlight=False)
    return RichDisplay(verify, console) if console.is_terminal else PlainDisplay(verify)
