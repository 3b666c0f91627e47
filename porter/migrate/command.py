"""The glue between the CLI and a migrate run: display, terminal summary, reports, exit code.

Kept here so that porter/cli.py only declares options. Usage errors found before the run exit
2; a run exits with RunResult.exit_code (0, 1, or 130 after Ctrl-C).
"""

from __future__ import annotations

from rich.console import Console

from porter.diagnostics import TileportError
from porter.migrate.progress import make_display
from porter.migrate.reports import print_analysis, print_summary, write_reports
from porter.migrate.runner import MigrateOptions, Runner

EXIT_USAGE, EXIT_INTERRUPTED = 2, 130


def migrate_command(opts: MigrateOptions, stdout: Console, stderr: Console) -> int:
    try:
        runner = Runner(opts, make_display(opts.verify and not opts.dry_run, stderr))
    except TileportError as exc:
        stderr.print(exc.diagnostic.render(), markup=False)
        return EXIT_USAGE
    try:
        result = runner.run()
    except KeyboardInterrupt:
        stderr.print("interrupted", highlight=False)
        return EXIT_INTERRUPTED
    if opts.dry_run:
        print_analysis(stdout, result)
    print_summary(stdout, result)
    print_errors(stderr, result)
    try:
        for path in write_reports(result, opts.reports, runner.cache_root):
            stderr.print(f"wrote {path}", highlight=False, markup=False)
    except TileportError as exc:
        stderr.print(exc.diagnostic.render(), highlight=False, markup=False)
        return max(result.exit_code, 1)
    except OSError as exc:
        stderr.print(f"error TP015: cannot write a report: {exc}", highlight=False, markup=False)
        return max(result.exit_code, 1)
    return result.exit_code


#: Error lines printed after the summary at most (the reports hold every one).
SHOWN_ERRORS = 40


def print_errors(console: Console, result) -> None:
    """Each failed file's errors in the documented form, `file:line:col: error TPnnn: message`,
    so that a log of the run can be searched like convert's (the progress lines are shorter)."""
    lines = []
    for record in result.files:
        if record.status != "failed":
            continue
        for d in [*record.diagnostics, *(d for k in record.kernels for d in k.diagnostics)]:
            if d.get("severity", "error") == "error":
                where = f"{d.get('file') or record.source or record.path}:{d.get('line') or 0}:{d.get('col') or 0}: "
                lines.append(f"{where}error {d['code']}: {d['message']}")
    for line in lines[:SHOWN_ERRORS]:
        console.print(line, markup=False, highlight=False)
    if len(lines) > SHOWN_ERRORS:
        console.print(f"... and {len(lines) - SHOWN_ERRORS} more errors: see the report", highlight=False)
