#!/usr/bin/env python
"""Time tileport's ports against their originals on a CUDA GPU.

    python bench/benchmark.py [FILES...] [--scale S] [--reps N] [--json OUT] [--dry-run]

For each CUDA (.cu) or Triton (.py) file (default: every bundled sample) this converts it the
way `tileport convert` does, takes verify's larger problem size with every size parameter
multiplied by --scale (rounded up to the port's aligned tiles; strides those of contiguous
tensors), builds verify's seeded inputs, and
times the original and the port on the GPU: torch.cuda.Event pairs over --reps repetitions,
original and port alternating (these machines are noisy), medians and their ratio reported.
Each kernel is timed in its own child process, so one that faults or hangs gets a row saying
why and the others go on. Without a GPU nothing is timed (one line says so, exit status 0);
--dry-run converts and plans everything and prints the rows it would time, GPU or not.
"""

from __future__ import annotations

import argparse
import ast
import json
import math
import os
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from anywhere: `porter` and `bench` import
    sys.path.insert(0, str(ROOT))

from porter.diagnostics import Loc, TileportError  # noqa: E402

INT32_MAX = 2**31 - 1


@dataclass
class Row:
    """One line of the table: a kernel (or a file that did not convert) and what happened."""

    file: str
    kernel: str = "-"
    level: str = "-"
    sizes: dict = field(default_factory=dict)  # the scaled size parameters (strides left out)
    scalars: dict = field(default_factory=dict)  # every scalar argument, strides included
    grid: tuple = ()
    input_mb: float = 0.0  # one copy of the inputs; the GPU holds two (original's, port's)
    original_ms: float | None = None
    port_ms: float | None = None
    note: str = ""

    @property
    def ratio(self) -> float | None:
        if self.original_ms and self.port_ms is not None:
            return self.port_ms / self.original_ms
        return None

    def as_dict(self) -> dict:
        out = asdict(self)
        out["grid"] = list(self.grid)
        out["ratio"] = self.ratio
        return out


@dataclass
class Plan:
    """What the child process needs to time one kernel (None request: nothing to time)."""

    row: Row
    request: dict | None = None


# --------------------------------------------------------------------------- planning


def default_files() -> list[str]:
    samples = ROOT / "samples"
    paths = sorted((samples / "cuda").glob("*.cu")) + sorted((samples / "triton").glob("*.py"))
    return [shown(p) for p in paths]


def shown(path) -> str:
    """A path relative to the working directory when it lies below it: short table rows."""
    relative = os.path.relpath(Path(path).resolve())
    return str(path) if relative.startswith("..") else relative


def convert(path: str, out_dir: Path, index: int):
    """`tileport convert PATH -o <tmp>/...`: the same three steps as porter/cli.py's convert."""
    from porter.reader import read_source
    from porter.pipeline import print_port, raise_to_tiles

    module = read_source(path)
    module = raise_to_tiles(module, "auto")
    port = out_dir / f"{index:03d}_{Path(path).stem}_tl.py"
    port.write_text(print_port(module, path), encoding="utf-8")
    return module, port


def scaled_problem(kernel, scale: float, given: dict, multiples: dict | None = None) -> tuple[dict, list]:
    """verify's larger problem with each size parameter multiplied by `scale` and rounded up
    to `multiples` (the port's aligned program's, read from its wrapper) and to the tiles the
    original's unmasked loads need; strides as contiguous tensors have them (the layout a
    caller passes, which takes the port's aligned program, not verify's adversarial one);
    the index limit of gathered ids kept at the smallest size.

    Returns (scalars, names of the size parameters)."""
    from porter.ir.extents import INDEX_LIMIT
    from porter.verify.inputs import (_round_up, contiguous_strides, problem_sizes, size_params, stride_test,
                                      whole_tile_sizes)

    problems = problem_sizes(kernel, given)
    scalars = dict(problems[1] if len(problems) > 1 else problems[-1])  # the larger prime problem
    stride = stride_test(kernel)
    found = [s for s in size_params(kernel) if s not in given]
    sizes = [s for s in found if not stride(s)]
    tiles = whole_tile_sizes(kernel)
    for name, multiple in (multiples or {}).items():
        tiles[name] = math.lcm(tiles.get(name, 1), multiple)
    for name in sizes:
        scalars[name] = max(1, round(scalars[name] * scale))
        if name in tiles:
            scalars[name] = _round_up(scalars[name], tiles[name])
    contiguous_strides(kernel, scalars, given)
    if INDEX_LIMIT in scalars:
        scalars[INDEX_LIMIT] = min((scalars[s] for s in sizes), default=16)
    shown_sizes = [s for s in size_params(kernel) if not stride(s)]  # --arg ones too
    return scalars, shown_sizes


def launch_grid(kernel, scalars: dict) -> tuple:
    """The launch grid for these sizes, as driver._grid computes it (without its CPU cap)."""
    from porter.ir.fold import evaluate

    grid = tuple(int(evaluate(g, scalars)) for g in kernel.launch.grid)
    if any(g < 1 for g in grid):
        raise ValueError(f"launch grid {grid} is empty")
    return grid


def plan_kernel(path: str, module, port: Path, kernel, opts, tmp: Path) -> Plan:
    """Sizes, grid and input footprint of one kernel, and the child's request to time it."""
    from porter.pipeline import level_printed
    from porter.verify.driver import _struct_groups, aligned_test
    from porter.verify.inputs import NUMPY_DTYPES, buffer_lengths

    import numpy as np

    row = Row(path, kernel.name + kernel.template_args, level_printed(kernel)[0])
    try:
        multiples, _ = aligned_test(ast.parse(port.read_text(encoding="utf-8")), kernel.ident, kernel.constexprs)
        scalars, sizes = scaled_problem(kernel, opts.scale, opts.given, multiples)
        row.scalars = {k: v for k, v in scalars.items()}
        row.sizes = {s: scalars[s] for s in sizes}
        row.grid = launch_grid(kernel, scalars)
        lengths = buffer_lengths(kernel, scalars, opts.given, cap=0)  # GPU-sized problems: no verify cap
    except TileportError as exc:
        row.note = f"inputs: {exc.diagnostic.code}: {exc.diagnostic.message}"
        return Plan(row)
    except Exception as exc:  # noqa: BLE001 - an odd kernel gets a row, not a traceback
        row.note = f"inputs: {type(exc).__name__}: {exc}"
        return Plan(row)
    row.input_mb = sum(lengths[p.name] * np.dtype(NUMPY_DTYPES[p.dtype]).itemsize
                       for p in kernel.buffers) / 2**20
    widest = max(lengths, key=lengths.get, default=None)
    if widest is not None and lengths[widest] > INT32_MAX:
        row.note = (f"skipped: buffer '{widest}' needs {lengths[widest]} elements, past int32 "
                    "offsets; lower --scale")
        return Plan(row)
    if row.input_mb > opts.max_gb * 1024:
        row.note = f"skipped: inputs need {row.input_mb / 1024:.1f} GiB (> --max-gb {opts.max_gb:g})"
        return Plan(row)
    request = {
        "language": module.language, "kernel": kernel, "original": str(Path(path).resolve()),
        "port": str(port.resolve()), "scalars": scalars, "given": dict(opts.given), "seed": 0,
        "grid": row.grid, "groups": _struct_groups(kernel), "reps": opts.reps, "warmup": opts.warmup,
    }
    if module.language == "cuda":
        # verify builds the front end's host-free text when there is one; the user's tree is
        # never written, so the original's folder goes on the include path
        original = Path(path).resolve()
        text = getattr(module, "emulator_source", None) or original.read_text(encoding="utf-8")
        request.update(
            launch_name=kernel.name + kernel.template_args,
            original_text=f'#line 1 "{original}"\n{text}',
            bench_source=str(tmp / f"{port.stem}_{kernel.ident}.bench.cu"),
            include_dirs=[str(original.parent)], defines=[])
    return Plan(row, request)


def plan_file(path: str, opts, tmp: Path, index: int) -> list[Plan]:
    """Convert one file and plan its kernels; a file that does not convert is one row."""
    try:
        module, port = convert(path, tmp, index)
    except TileportError as exc:
        return [Plan(Row(path, note=f"convert error: {exc.diagnostic.render()}"))]
    except Exception as exc:  # noqa: BLE001 - a front-end bug is a row, not a traceback
        return [Plan(Row(path, note=f"convert error: {type(exc).__name__}: {exc}"))]
    if not module.kernels:
        return [Plan(Row(path, note="no kernel in this file"))]
    return [plan_kernel(path, module, port, k, opts, tmp) for k in module.kernels]


# --------------------------------------------------------------------------- timing


def gpu_status() -> tuple[bool, str]:
    """(GPU present, why not): the parent only asks; it never opens a CUDA context."""
    try:
        import torch
    except Exception as exc:  # noqa: BLE001
        return False, f"torch cannot be imported ({type(exc).__name__}: {exc})"
    if not torch.cuda.is_available():
        return False, "torch.cuda.is_available() is False (no CUDA GPU or driver on this machine)"
    return True, ""


def time_kernel(plan: Plan, opts) -> dict | None:
    """Time one kernel in a child process; fills the row, returns the child's result."""
    from porter.verify.child import run_in_child

    row = plan.row
    try:
        result = run_in_child("bench.timing", plan.request, opts.timeout, Loc(row.file),
                              f"timing '{row.kernel}'", env={"TRITON_INTERPRET": None})
    except TileportError as exc:  # crash or timeout of the child
        row.note = f"failed: {exc.diagnostic.message.splitlines()[0]}"
        return None
    if not result["ok"]:
        row.note = f"{result['stage']} failed: {result['message']}"
        return None
    row.original_ms, row.port_ms = result["original_ms"], result["port_ms"]
    return result


def geomean(values: list) -> float | None:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


# --------------------------------------------------------------------------- output


def format_sizes(sizes: dict) -> str:
    return " ".join(f"{k}={v}" for k, v in sizes.items()) or "-"


def print_table(header: list, lines: list) -> None:
    """Left-aligned text columns, right-aligned numeric ones; the last column is free text."""
    numeric = [i < len(header) - 1 and all(_is_number(line[i]) or line[i] == "-" for line in lines)
               and any(_is_number(line[i]) for line in lines) for i in range(len(header))]
    widths = [max([len(header[i])] + [len(line[i]) for line in lines]) for i in range(len(header))]

    def render(cells):
        parts = [c.rjust(w) if num else c.ljust(w) for c, w, num in zip(cells, widths, numeric)]
        return "  ".join(parts).rstrip()

    print(render(header))
    print("  ".join("-" * w for w in widths))
    for line in lines:
        print(render(line))


def _is_number(text: str) -> bool:
    try:
        float(text.rstrip("x"))
        return True
    except ValueError:
        return False


def dry_run_table(rows: list) -> None:
    header = ["file", "kernel", "level", "sizes", "grid", "inputs MiB", "note"]
    lines = [[r.file, r.kernel, r.level, format_sizes(r.sizes), "x".join(map(str, r.grid)) or "-",
              f"{r.input_mb:.1f}" if r.sizes or r.grid else "-", r.note or "would be timed"]
             for r in rows]
    print_table(header, lines)


def timing_table(rows: list) -> None:
    header = ["file", "kernel", "level", "sizes", "original ms", "port ms", "port/orig", "note"]
    lines = []
    for r in rows:
        lines.append([r.file, r.kernel, r.level, format_sizes(r.sizes),
                      f"{r.original_ms:.4f}" if r.original_ms is not None else "-",
                      f"{r.port_ms:.4f}" if r.port_ms is not None else "-",
                      f"{r.ratio:.2f}x" if r.ratio is not None else "-", r.note])
    print_table(header, lines)


def write_json(path: str, payload: dict) -> None:
    Path(path).write_text(json.dumps(payload, indent=2, default=str) + "\n", encoding="utf-8")


# --------------------------------------------------------------------------- main


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="bench/benchmark.py",
        description="Time tileport's ports (TileLang) against the original CUDA/Triton kernels on a GPU.")
    parser.add_argument("files", nargs="*", metavar="FILES",
                        help="CUDA .cu / Triton .py files (default: samples/cuda/*.cu samples/triton/*.py)")
    parser.add_argument("--scale", type=float, default=16.0,
                        help="multiply verify's problem sizes by this (default 16)")
    parser.add_argument("--reps", type=int, default=20, help="timed repetitions of each (default 20)")
    parser.add_argument("--warmup", type=int, default=3, help="untimed runs of each first (default 3)")
    parser.add_argument("--json", metavar="OUT", help="also write the rows as JSON here")
    parser.add_argument("--dry-run", action="store_true",
                        help="convert and plan every file, print the rows it would time, time nothing")
    parser.add_argument("--arg", dest="args", action="append", default=[], metavar="NAME=VALUE",
                        help="fix a scalar or a buffer's element count, as `tileport verify --arg` (not scaled)")
    parser.add_argument("--max-gb", type=float, default=32.0,
                        help="skip kernels whose inputs (one copy) exceed this many GiB (default 32)")
    parser.add_argument("--timeout", type=float, default=900.0,
                        help="seconds allowed per kernel: inputs, builds, compiles, timing (default 900)")
    opts = parser.parse_args(argv)
    if opts.scale <= 0 or opts.reps < 1 or opts.warmup < 0:
        parser.error("--scale must be > 0, --reps >= 1, --warmup >= 0")
    opts.given = {}
    for item in opts.args:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            parser.error(f"--arg expects NAME=VALUE, got '{item}'")
        opts.given[name.strip()] = value.strip()
    return opts


def main(argv=None) -> int:
    """Exit status 0 once the table is printed, failed kernels included (their rows say why);
    2 for a usage error."""
    opts = parse_args(argv)
    files = opts.files or default_files()
    settings = {"scale": opts.scale, "reps": opts.reps, "warmup": opts.warmup, "dry_run": opts.dry_run}
    if not opts.dry_run:
        present, why = gpu_status()
        if not present:
            print(f"nothing was timed: no CUDA GPU — {why}; --dry-run shows what would be timed")
            if opts.json:
                write_json(opts.json, {**settings, "timed": False, "reason": why, "rows": []})
            return 0
    with tempfile.TemporaryDirectory(prefix="tileport-bench-") as tmp:
        plans = []
        for index, path in enumerate(files):
            print(f"converting {path}", file=sys.stderr, flush=True)
            plans.extend(plan_file(path, opts, Path(tmp), index))
        rows = [p.row for p in plans]
        if opts.dry_run:
            print(f"dry run: {sum(p.request is not None for p in plans)} kernels would be timed, "
                  f"scale {opts.scale:g}, {opts.reps} reps")
            dry_run_table(rows)
            if opts.json:
                write_json(opts.json, {**settings, "timed": False, "rows": [r.as_dict() for r in rows]})
            return 0
        device = None
        todo = [p for p in plans if p.request is not None]
        for number, plan in enumerate(todo, 1):
            print(f"[{number}/{len(todo)}] timing {plan.row.file} {plan.row.kernel} "
                  f"{format_sizes(plan.row.sizes)}", file=sys.stderr, flush=True)
            result = time_kernel(plan, opts)
            device = device or (result or {}).get("device")
    ratios = [r.ratio for r in rows if r.ratio is not None and r.ratio > 0]
    mean = geomean(ratios)
    print(f"device: {device or 'unknown'}; scale {opts.scale:g}; median of {opts.reps} alternating "
          f"repetitions after {opts.warmup} warm-up runs; device time (torch.cuda.Event)")
    timing_table(rows)
    failed = sum(r.ratio is None for r in rows)
    if mean is None:
        print(f"geometric mean port/original: - (no kernel timed, {failed} failed or skipped)")
    else:
        print(f"geometric mean port/original: {mean:.3f}x over {len(ratios)} kernels"
              + (f" ({failed} failed or skipped)" if failed else ""))
    if opts.json:
        write_json(opts.json, {**settings, "timed": True, "device": device, "geomean_ratio": mean,
                               "rows": [r.as_dict() for r in rows]})
    return 0


if __name__ == "__main__":
    sys.exit(main())
