"""The `tileport` command line: convert, verify, migrate, analyze."""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

import click
from rich.markup import escape
from rich.console import Console
from rich.table import Table

from porter import __version__
from porter.diagnostics import Loc, TileportError
from porter.migrate.ownership import write_output

stderr = Console(stderr=True, highlight=False, soft_wrap=True)
stdout = Console(highlight=False)
if not stdout.is_terminal:
    stdout = Console(highlight=False, width=160)

# Exit codes (verify): 0 equivalent, 1 numerical mismatch, 2 usage error, 3 could not run.
EXIT_MISMATCH, EXIT_USAGE, EXIT_COULD_NOT_RUN = 1, 2, 3
_USAGE_CODES = {"TP001", "TP003", "TP004", "TP005", "TP006", "TP007"}


def _fail(exc: TileportError, default_code: int) -> None:
    for failure in getattr(exc, "failures", None) or [exc]:  # every kernel's own reason
        click.echo(failure.diagnostic.render(), err=True)  # one unwrapped line, whatever the terminal
    raise SystemExit(EXIT_USAGE if exc.diagnostic.code in _USAGE_CODES else default_code)


def _pairs(values, what: str) -> dict:
    out = {}
    for item in values:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise TileportError("TP007", f"{what} expects NAME=VALUE, got '{item}'")
        out[name.strip()] = value.strip()
    return out


def constexpr_values(values) -> dict:
    """--constexpr NAME=V: V read as a Python literal (256, 1e-5, True, 'mean'), else as a string."""
    import ast

    out = {}
    for name, text in _pairs(values, "--constexpr").items():
        try:
            out[name] = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            out[name] = text
        if not isinstance(out[name], (int, float, bool, str)):
            raise TileportError("TP007", f"--constexpr {name}: expected a number, a bool or a string, got '{text}'")
    return out


def _dims(text: str | None, what: str):
    if not text:
        return None
    try:
        dims = tuple(int(x) for x in text.replace("x", ",").split(",") if x.strip())
    except ValueError:
        raise TileportError("TP007", f"{what} expects integers like 256 or 16,16, got '{text}'") from None
    if not dims or len(dims) > 3 or any(d < 1 for d in dims):
        raise TileportError("TP007", f"{what} expects 1 to 3 positive integers, got '{text}'")
    return dims


def write_atomically(path: Path, text: str, force: bool, inputs=()) -> None:
    """Write via a temp file + rename, never clobbering an existing file without --force, and
    never one of `inputs` (the same file by any name: a symlink, a hard link), --force or not.
    The output gets an ordinary file's mode (0666 less the umask), not the temp file's 0600."""
    for given in inputs:
        if _same_file(path, given):
            raise TileportError("TP008", f"the output is the input file {given}; refusing to overwrite it, "
                                "--force or not", Loc(str(path)))
    if os.path.exists(path) and not os.path.isfile(path):
        # a device, FIFO, socket or directory (or a link to one): replacing it would destroy it
        # (/dev/full, say); a dangling link is replaced like a file
        raise TileportError("TP006", "the output exists and is not a regular file (or a link to one); refusing "
                            "to replace it, --force or not", Loc(str(path)))
    if path.exists() and not force:
        raise TileportError("TP006", "the output exists; pass --force to overwrite it", Loc(str(path)))
    write_output(path, text)


def _same_file(a, b) -> bool:
    try:
        return os.path.realpath(a) == os.path.realpath(b) or os.path.samefile(a, b)
    except OSError:
        return False


_frontend_options = [
    click.option("-p", "compdb", metavar="compile_commands.json",
                 help="Take the file's -I/-D flags from a compilation database."),
    click.option("-I", "include_dirs", multiple=True, metavar="DIR", help="CUDA include directory."),
    click.option("-D", "defines", multiple=True, metavar="MACRO[=V]", help="CUDA preprocessor define."),
    click.option("--config", type=int, default=None,
                 help="Triton autotune config to port (default: the first with no block of one)."),
    click.option("--dtype", "dtypes", multiple=True, metavar="PTR=DTYPE",
                 help="Triton pointer element type (e.g. x_ptr=float16); default from the file's hints."),
    click.option("--constexpr", "constexprs", multiple=True, metavar="NAME=V",
                 help="Pin a Triton constexpr (e.g. BLOCK_SIZE=256, HAS_BIAS=True, mode='mean')."),
]


def _with_compdb(source: str, compdb: str | None, include_dirs, defines) -> tuple:
    """-I/-D from the command line, then those the compilation database lists for the file."""
    if not compdb:
        return tuple(include_dirs), tuple(defines)
    from porter.migrate.compdb import load

    more_includes, more_defines = load(compdb).get(os.path.realpath(source), ([], []))
    return tuple(include_dirs) + tuple(more_includes), tuple(defines) + tuple(more_defines)


def frontend_options(fn):
    for option in reversed(_frontend_options):
        fn = option(fn)
    return fn


ALLOW_TF32 = ("Let fp32 matrix multiplies that the original computes in fp32 run on TF32 tensor cores "
              "(faster; about 3 fewer significant digits per product).")


_NO_ARGS = getattr(click.exceptions, "NoArgsIsHelpError", ())


class _Guarded(click.Group):
    """Every way a command can fail ends as a coded diagnostic: a usage error click finds is
    TP007 (exit 2), and an exception tileport did not expect is TP014 (exit 3) with its
    traceback in a file, never on the terminal."""

    def main(self, *args, **kwargs):
        kwargs["standalone_mode"] = False
        try:
            status = super().main(*args, **kwargs)
        except click.exceptions.Abort:
            click.echo("error TP007: aborted", err=True)
            raise SystemExit(130) from None
        except _NO_ARGS as exc:  # a bare `tileport`: its help, as asked for
            click.echo(exc.format_message())
            raise SystemExit(0) from None
        except click.UsageError as exc:
            hint = f" (see `{exc.ctx.command_path} --help`)" if exc.ctx is not None else ""
            click.echo(f"error TP007: {exc.format_message()}{hint}", err=True)
            raise SystemExit(EXIT_USAGE) from None
        except click.ClickException as exc:
            click.echo(f"error TP007: {exc.format_message()}", err=True)
            raise SystemExit(exc.exit_code) from None
        except RecursionError:
            click.echo("error TP020: the input nests expressions or statements too deeply to process", err=True)
            raise SystemExit(1) from None
        except MemoryError:
            click.echo("error TP019: tileport ran out of memory on this input", err=True)
            raise SystemExit(EXIT_COULD_NOT_RUN) from None
        except (SystemExit, KeyboardInterrupt):
            raise
        except Exception as exc:  # noqa: BLE001 - a tileport bug: a diagnostic, the traceback kept apart
            click.echo(f"error TP014: internal error ({type(exc).__name__}: {exc}); the traceback is in "
                       f"{_save_traceback()}. Please report it with the input.", err=True)
            raise SystemExit(EXIT_COULD_NOT_RUN) from None
        raise SystemExit(status if isinstance(status, int) else 0)


def _save_traceback() -> str:
    import traceback

    fd, path = tempfile.mkstemp(prefix="tileport-traceback-", suffix=".txt")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(traceback.format_exc())
    return path


@click.group(cls=_Guarded, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="tileport")
def main():
    """tileport: port CUDA C++ and Triton kernels to TileLang, and prove the port numerically."""


@main.command()
@click.argument("source", type=click.Path(dir_okay=False, path_type=str))
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the TileLang module here (default: print it).")
@click.option("--force", is_flag=True, help="Overwrite an existing output file.")
@click.option("--emit-ir", is_flag=True, help="Print the IR tileport understood instead of the port.")
@click.option("--block", help="Block size when the file has no launch site, e.g. 256 or 16,16.")
@click.option("--grid", help="Grid size when the file has no launch site, e.g. 64 or 8,8.")
@click.option("--level", type=click.Choice(["auto", "tile", "thread"]), default="auto", show_default=True,
              help="auto: raise CUDA kernels to tile primitives where a rule matches; tile: fail "
                   "when none does; thread: keep thread-level code.")
@click.option("--tile", help="GEMM tile sizes BM,BN,BK for raised matrix multiplies, e.g. 128,128,32.")
@click.option("--allow-tf32", is_flag=True, help=ALLOW_TF32)
@click.option("--max-kernels", type=click.IntRange(min=1), default=1000, show_default=True,
              help="The most kernels one file may define (a guard against generated files).")
@frontend_options
def convert(source, output, force, emit_ir, block, grid, level, tile, allow_tf32, max_kernels, compdb, include_dirs,
            defines, config, dtypes, constexprs):
    """Convert one CUDA (.cu) or Triton (.py) file to a TileLang module."""
    from porter.ir.printer import format_module
    from porter.pipeline import print_port, raise_to_tiles, read_source

    start = time.perf_counter()
    try:
        include_dirs, defines = _with_compdb(source, compdb, include_dirs, defines)
        module = read_source(source, include_dirs, defines, config, _pairs(dtypes, "--dtype"),
                             _dims(block, "--block"), _dims(grid, "--grid"), constexpr_values(constexprs),
                             max_kernels=max_kernels)
        tile_dims = _dims(tile, "--tile")
        if tile_dims and (len(tile_dims) != 3 or any(d % 16 for d in tile_dims)):
            raise TileportError("TP007", f"--tile expects BM,BN,BK, each a multiple of 16, got '{tile}'")
        module = raise_to_tiles(module, level, {"tile": tile_dims, "allow_tf32": allow_tf32})
        text = format_module(module) if emit_ir else print_port(module, source)
        if output is None:
            sys.stdout.write(text)
        else:
            write_atomically(output, text, force, inputs=(source,))
    except TileportError as exc:
        _fail(exc, 1)
    except RecursionError:
        _fail(TileportError("TP020", "the file nests expressions or statements too deeply to convert",
                            Loc(source)), 1)
    if output is not None:
        from porter.pipeline import level_printed

        for k in module.kernels:
            origin = k.launch.origin.replace("-", " ")
            level, rule = level_printed(k)
            how = f"{level} level ({rule})" if rule else f"{level} level"
            note = "".join(f"; {n}" for n in (k.launch.note, k.note) if n)
            text = escape(f"{k.name}{k.template_args}  ({source}:{k.loc.line})  {how}; "
                          f"launch geometry: {origin}{note}")
            stderr.print(f"[green]converted[/] {text}", markup=True, highlight=False)
        stderr.print(f"wrote {output} in {time.perf_counter() - start:.2f}s")
    for failure in module.failures:  # the port holds the others; the exit status says not all
        click.echo(f"{failure.diagnostic.render()} (kernel '{failure.name}' not ported)", err=True)
    if module.failures:
        raise SystemExit(1)


@main.command()
@click.argument("original", type=click.Path(dir_okay=False, path_type=str))
@click.argument("port", type=click.Path(dir_okay=False, path_type=str))
@click.option("--kernel", help="Verify only this kernel.")
@click.option("--arg", "args", multiple=True, metavar="NAME=VALUE",
              help="Fix a scalar (e.g. n=1000) or a buffer's element count (e.g. x=4096).")
@click.option("--rtol", type=float, help="Relative tolerance (default: per dtype).")
@click.option("--atol", type=float, help="Absolute tolerance (default: per dtype).")
@click.option("--seed", default=0, show_default=True, help="Seed for the random inputs.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--timeout", default=300.0, show_default=True, help="Seconds allowed per run.")
@click.option("--no-compile-check", is_flag=True, help="Skip the CUDA sm_80/sm_90a compile check.")
@frontend_options
def verify(original, port, kernel, args, rtol, atol, seed, fmt, timeout, no_compile_check,
           compdb, include_dirs, defines, config, dtypes, constexprs):
    """Run ORIGINAL and PORT on the same random inputs and compare every buffer.

    Exit status: 0 equivalent, 1 numerical mismatch, 2 usage error, 3 could not run.
    """
    from porter.frontends.load import check_readable
    from porter.verify.driver import VerifyOptions, verify as run_verify

    try:
        for path in (original, port):
            check_readable(path)
        include_dirs, defines = _with_compdb(original, compdb, include_dirs, defines)
        opts = VerifyOptions(kernel=kernel, args=_pairs(args, "--arg"), rtol=rtol, atol=atol, seed=seed,
                             include_dirs=include_dirs, defines=defines, config=config,
                             dtypes=_pairs(dtypes, "--dtype"), constexprs=constexpr_values(constexprs),
                             timeout=timeout,
                             compile_check=not no_compile_check)
        quiet = fmt == "json"
        with stderr.status("verifying...") if not quiet and stderr.is_terminal else _Null() as status:
            def progress(message):
                if status is not None and hasattr(status, "update"):
                    status.update(message)
            report = run_verify(original, port, opts, progress)
    except TileportError as exc:
        _fail(exc, EXIT_COULD_NOT_RUN)
    if fmt == "json":
        sys.stdout.write(json.dumps(report.as_dict(), indent=2) + "\n")
    else:
        _print_report(report)
    raise SystemExit(report.exit_code)


class _Null:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


_VERDICT_STYLE = {"equivalent": "green", "mismatch": "red", "could-not-run": "yellow",
                  "compile-failed": "red"}


def _print_report(report) -> None:
    from porter.verify.bounds_checks import describe

    for k in report.kernels:
        style = _VERDICT_STYLE[k.verdict]
        stdout.print(f"[bold]{k.name}[/]  ({report.original}:{k.loc.line})  [{style}]{k.verdict}[/]")
        if k.error is not None:
            stdout.print(f"  {k.error.render()}", markup=False, soft_wrap=True)
        if k.cases:
            table = Table(show_edge=False, pad_edge=False)
            for col in ("sizes", "device", "buffer", "dtype", "written", "max abs", "max rel", "rtol / atol",
                        "verdict"):
                table.add_column(col, justify="right" if col.startswith("max") or col == "written" else "left")
            for case in k.cases:
                shown = {**case.constexprs, **case.sizes}
                sizes = ", ".join(f"{n}={v:g}" if isinstance(v, float) else f"{n}={v}" for n, v in shown.items())
                if case.wide:
                    sizes += " (wide values)"
                for b in case.buffers:
                    verdict = "[green]ok[/]" if b.ok else f"[red]MISMATCH[/] ({b.mismatches}, first at {b.first_mismatch})"
                    if b.outside:
                        verdict = f"[red]WROTE OUTSIDE[/] ({b.outside} past its ends)"
                    written = "-" if b.written is None else f"{100 * b.written:.0f}%"
                    table.add_row(sizes, case.device, b.name, b.dtype, written, f"{b.max_abs:.3g}", f"{b.max_rel:.3g}",
                                  f"{b.rtol:g} / {b.atol:g}", verdict)
                    sizes = ""
            stdout.print(table)
            for case in k.cases:
                for b in case.buffers:
                    if b.where:
                        worst = "; ".join(f"[{', '.join(map(str, w['at']))}] expected {w['expected']:.6g}, got "
                                          f"{w['actual']:.6g}" for w in b.where["worst"][:3])
                        stdout.print(f"  {b.name} ({', '.join(f'{n}={v}' for n, v in case.sizes.items())}): "
                                     f"{b.mismatches} wrong, {b.where['detail']}\n    worst: {worst}",
                                     markup=False, highlight=False, soft_wrap=True)
            strays = {}  # one line per distinct stray access or false assumption, with its cases
            for n, case in enumerate(k.cases):
                for stray in case.strays:
                    label = "FALSE" if stray["access"] == "assume" else "OUTSIDE"
                    strays.setdefault((label, describe(stray)), set()).add(n)
            for (label, text), cases in list(strays.items())[:5]:
                stdout.print(f"  [red]{label}[/]: the port's {text} (in {len(cases)} of {len(k.cases)} cases)",
                             highlight=False)
        for note in k.input_notes:
            stdout.print(f"  inputs: {note}", markup=False, highlight=False)
        for note in k.target_notes:
            stdout.print(f"  on other targets: {note}", markup=False, highlight=False)
        for arch, info in k.compile.items():
            mark = {True: "[green]ok[/]", False: "[red]FAILED[/]", None: "[yellow]skipped[/]"}[info.get("ok")]
            seconds = f" ({info['seconds']:.1f}s)" if info.get("seconds") else ""
            stdout.print(f"  compile {arch}: {mark} {info.get('message', '')}{seconds}", highlight=False)
    total = len(report.kernels)
    good = sum(k.verdict == "equivalent" for k in report.kernels)
    stdout.print(f"{good}/{total} kernels equivalent in {report.seconds:.1f}s"
                 + ("" if report.gpu else " (no GPU: CPU runs only)"))


_tree_options = [
    click.option("--allow-tf32", is_flag=True, help=ALLOW_TF32),
    click.option("-I", "include_dirs", multiple=True, metavar="DIR", help="CUDA include directory."),
    click.option("-D", "defines", multiple=True, metavar="MACRO[=V]", help="CUDA preprocessor define."),
    click.option("-p", "compile_commands", type=click.Path(dir_okay=False, path_type=str),
                 help="compile_commands.json: each file's -I/-D from its entry."),
    click.option("--include", multiple=True, metavar="GLOB", help="Only paths (relative to SRC) matching GLOB."),
    click.option("--exclude", multiple=True, metavar="GLOB", help="Skip paths (relative to SRC) matching GLOB."),
    click.option("--jobs", "-j", default=0, help="Worker processes (default: the core count)."),
    click.option("--timeout", default=300.0, show_default=True,
                 help="Seconds per file conversion and per kernel run in verify."),
    click.option("--level", type=click.Choice(["auto", "tile", "thread"]), default="auto", show_default=True,
                 help="auto: best available; tile: require a tile-level rule; thread: accept thread-level."),
    click.option("--report", "reports", multiple=True, metavar="FILE",
                 help="Write a report: .json (CI), .md (PR description) or .html (one page). Repeatable."),
    click.option("--no-cache", is_flag=True, help="Ignore cached results (they are still refreshed)."),
    click.option("--constexpr", "constexprs", multiple=True, metavar="NAME=V",
                 help="Pin a Triton constexpr in every kernel that has it (e.g. BLOCK_SIZE=256)."),
    click.option("--max-kernels", type=click.IntRange(min=1), default=1000, show_default=True,
                 help="The most kernels one file may define (a guard against generated files)."),
]


def _constexprs_or_exit(values) -> tuple:
    try:
        return tuple(sorted(constexpr_values(values).items()))
    except TileportError as exc:
        _fail(exc, 2)


def tree_options(fn):
    for option in reversed(_tree_options):
        fn = option(fn)
    return fn


@main.command()
@click.argument("src", type=click.Path(path_type=str))
@click.option("-o", "--output", "out", type=click.Path(path_type=str), help="Output tree (mirrors SRC).")
@click.option("--verify", "check", is_flag=True, help="Verify every port numerically against its original.")
@click.option("--force", is_flag=True, help="Overwrite outputs tileport did not write.")
@click.option("--dry-run", is_flag=True, help="Show what would port (like `analyze`); write nothing.")
@click.option("--no-compile-check", is_flag=True, help="With --verify: skip the CUDA sm_80/sm_90a compile check.")
@tree_options
def migrate(src, out, check, force, dry_run, no_compile_check, **tree):
    """Port every CUDA/Triton kernel under SRC into OUT (parallel, cached, resumable).

    Exit status: 0 all ported (and verified), 1 some unsupported or failed, 2 usage error, 130 Ctrl-C.
    """
    from porter.migrate.command import migrate_command
    from porter.migrate.runner import MigrateOptions

    tree["constexprs"] = _constexprs_or_exit(tree["constexprs"])
    opts = MigrateOptions(src, out, verify=check, force=force, dry_run=dry_run, compile_check=not no_compile_check,
                          use_cache=not tree.pop("no_cache"), **tree)
    raise SystemExit(migrate_command(opts, stdout, stderr))


@main.command()
@click.argument("src", type=click.Path(path_type=str))
@tree_options
def analyze(src, **tree):
    """What would port under SRC, at which level, and what blocks it; writes nothing but --report."""
    from porter.migrate.command import migrate_command
    from porter.migrate.runner import MigrateOptions

    tree["constexprs"] = _constexprs_or_exit(tree["constexprs"])
    opts = MigrateOptions(src, None, dry_run=True, command="analyze", use_cache=not tree.pop("no_cache"), **tree)
    raise SystemExit(migrate_command(opts, stdout, stderr))


if __name__ == "__main__":
    main()
