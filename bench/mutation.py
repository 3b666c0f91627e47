#!/usr/bin/env python
"""How often verify catches a wrong port: single-token mutants of every sample port's kernel
bodies, each verified against the original on the cases verify itself draws.

    python bench/mutation.py [FILES...] [--per-kind N] [--jobs N] [--json OUT]

For each CUDA or Triton file (default: every bundled sample) the script converts it as
`tileport convert` does, runs verify's original side once (the same sizes, inputs and
expected outputs `tileport verify` uses), checks that the unmutated port is equivalent, then
makes mutants of the bodies of the port's `T.prim_func`s (never the wrapper or the signature):

    operator     + - * / // % & | << >> swapped for a neighbour
    comparison   < <= > >= == != swapped for a neighbour
    constant     an integer literal +1 or -1, a float literal +1 (halved when +1 is lost)
    index        buf[i] -> buf[i + 1] (the last index of a multi-dimensional access)
    statement    one statement (an assignment, a call, an if, a loop) replaced by `pass`
                 (not a `T.assume` promise or a `T.use_swizzle` block order: dropping
                 either cannot change a result)
    reduction    T.reduce_sum/max/min, T.max/min swapped for another kind
    loop-bound   a loop's extent (T.serial, T.Parallel, T.Pipelined, ...) minus one

At most --per-kind mutants of each kind per port, spread over the body. A mutant is caught
when verify calls it anything but equivalent (a mismatch, or a port that fails to build or
run); it survives when verify passes it. A survivor whose programs (each the port runs, its
aligned program included) TileLang lowers to the same CUDA sources as the port's (sm_80) is
the same kernel on a GPU: it is listed apart and left out of the score
(it cannot change the result). The score is caught / mutants; each survivor is listed with its
line and change, to be shown equivalent or closed by better inputs.
"""

from __future__ import annotations

import argparse
import ast
import copy
import json
import re
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

#: Scalars whose valid range only a sample's host code knows (as in tests/test_verify.py):
#: file -> {scalar: value} for verify's --arg.
SAMPLE_ARGS: dict = {}

KINDS = ("operator", "comparison", "constant", "index", "statement", "reduction", "loop-bound")

_OPERATORS = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Add, ast.Div: ast.Mult,
              ast.FloorDiv: ast.Mult, ast.Mod: ast.FloorDiv, ast.BitAnd: ast.BitOr,
              ast.BitOr: ast.BitAnd, ast.BitXor: ast.BitAnd, ast.LShift: ast.RShift,
              ast.RShift: ast.LShift}
_COMPARISONS = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
                ast.NotEq: ast.Eq}
_REDUCTIONS = {"reduce_sum": "reduce_max", "reduce_max": "reduce_min", "reduce_min": "reduce_max",
               "reduce_absmax": "reduce_max", "max": "min", "min": "max"}
_LOOPS = ("serial", "Parallel", "Pipelined", "vectorized", "unroll")
# calls whose arguments are shapes, dtypes or names, not computation
_DECLARATIONS = ("alloc_shared", "alloc_fragment", "alloc_local", "alloc_var", "dynamic", "Cast")


@dataclass
class Mutant:
    kind: str
    line: int
    change: str  # "a + b -> (a - b)"
    text: str  # the mutated port module


def _t_call(node, names=None) -> str | None:
    """'reduce_sum' for a call `T.reduce_sum(...)` (when in names, if given), else None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
            isinstance(node.func.value, ast.Name) and node.func.value.id == "T":
        if names is None or node.func.attr in names:
            return node.func.attr
    return None


def kernel_bodies(tree: ast.Module) -> list:
    """The statement lists of every `@T.prim_func` inside a module-level `*_program` factory."""
    bodies = []
    for fn in tree.body:
        if isinstance(fn, ast.FunctionDef) and fn.name.endswith("_program"):
            for node in ast.walk(fn):
                if isinstance(node, ast.FunctionDef) and any(
                        ast.unparse(d) == "T.prim_func" for d in node.decorator_list):
                    bodies.append(node.body)
    return bodies


class _Splicer:
    """Replace a node's source segment (ast positions are UTF-8 byte columns)."""

    def __init__(self, text: str):
        self.data = text.encode("utf-8")
        self.starts = [0]
        for i, byte in enumerate(self.data):
            if byte == 0x0A:
                self.starts.append(i + 1)

    def offsets(self, node) -> tuple:
        return (self.starts[node.lineno - 1] + node.col_offset,
                self.starts[node.end_lineno - 1] + node.end_col_offset)

    def segment(self, node) -> str:
        a, b = self.offsets(node)
        return self.data[a:b].decode("utf-8")

    def replace(self, node, new: str) -> str:
        a, b = self.offsets(node)
        return (self.data[:a] + new.encode("utf-8") + self.data[b:]).decode("utf-8")

    def replace_lines(self, node, new: str) -> str:
        """Replace the whole statement (its lines) with `new`, indented as it was."""
        a = self.starts[node.lineno - 1]
        end = node.end_lineno
        b = self.starts[end] if end < len(self.starts) else len(self.data)
        indent = " " * node.col_offset
        return (self.data[:a] + f"{indent}{new}\n".encode() + self.data[b:]).decode("utf-8")


def _expression_mutants(node, splice: _Splicer, declared: bool) -> list:
    out = []
    if declared:
        return out
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        new = ast.BinOp(node.left, _OPERATORS[type(node.op)](), node.right)
        out.append(("operator", node, f"({ast.unparse(new)})"))
    elif isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _COMPARISONS:
        new = ast.Compare(node.left, [_COMPARISONS[type(node.ops[0])]()], node.comparators)
        out.append(("comparison", node, f"({ast.unparse(new)})"))
    elif isinstance(node, ast.Constant) and type(node.value) is int:
        out.append(("constant", node, str(node.value + 1)))
        if node.value > 0:
            out.append(("constant", node, str(node.value - 1)))
    elif isinstance(node, ast.Constant) and type(node.value) is float:
        # +1 vanishes next to a huge constant (FLT_MAX): halve that one instead
        bigger = node.value + 1.0
        out.append(("constant", node, repr(bigger if bigger != node.value else node.value / 2)))
    elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
        index = node.slice.elts[-1] if isinstance(node.slice, ast.Tuple) and node.slice.elts else node.slice
        if not isinstance(index, ast.Slice):
            out.append(("index", index, f"({ast.unparse(index)} + 1)"))
    kind = _t_call(node, _REDUCTIONS)
    if kind:
        out.append(("reduction", node.func, f"T.{_REDUCTIONS[kind]}"))
    return out


def _walk_expressions(node, declared=False):
    """(expression, inside a declaration) for every expression under node, keyword arguments
    (threads=, dim=, num_stages=) left out: they set a mapping, not a result."""
    yield node, declared
    inner = declared or _t_call(node, _DECLARATIONS) is not None
    for field, value in ast.iter_fields(node):
        if field == "keywords":
            continue
        for child in value if isinstance(value, list) else [value]:
            if isinstance(child, ast.expr):
                yield from _walk_expressions(child, inner)


def _statements(body: list):
    for stmt in body:
        yield stmt
        for field in ("body", "orelse"):
            yield from _statements(getattr(stmt, field, []) or [])


def _only_assumptions(stmt) -> bool:
    """`T.assume(...)`, or an `if aligned:` holding nothing else: a promise to the optimizer,
    not a computation. Dropping a true one can change speed, never results, so it is not a
    mutant (a false one is: constants and comparisons inside are still mutated). Likewise
    `T.use_swizzle(...)`: the order blocks run in, which no port's result depends on."""
    if isinstance(stmt, ast.Expr):
        return _t_call(stmt.value, ("assume", "use_swizzle")) is not None
    if isinstance(stmt, ast.If) and not stmt.orelse:
        return all(_only_assumptions(s) for s in stmt.body)
    return False


def all_mutants(text: str) -> list:
    """Every single-token mutant of the port's kernel bodies, in source order."""
    tree = ast.parse(text)
    splice = _Splicer(text)
    found = []
    for body in kernel_bodies(tree):
        for stmt in _statements(body):
            heads = [getattr(stmt, f) for f in ("value", "test", "iter", "target", "targets", "items")
                     if getattr(stmt, f, None) is not None]
            for head in heads:
                for item in head if isinstance(head, list) else [head]:
                    expr = item.context_expr if isinstance(item, ast.withitem) else item
                    if _t_call(expr, ("Kernel",)):
                        for arg in expr.args:  # the grid, not threads=
                            for node, declared in _walk_expressions(arg):
                                found += _expression_mutants(node, splice, declared)
                        continue
                    for node, declared in _walk_expressions(expr):
                        found += _expression_mutants(node, splice, declared)
            if isinstance(stmt, ast.For) and _t_call(stmt.iter, _LOOPS) and stmt.iter.args:
                extent = stmt.iter.args[1] if len(stmt.iter.args) > 1 and _t_call(stmt.iter) == "serial" \
                    else stmt.iter.args[0]
                found.append(("loop-bound", extent, f"({ast.unparse(extent)} - 1)"))
            declaration = isinstance(stmt, ast.Assign) and _t_call(stmt.value, _DECLARATIONS) is not None
            if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.Expr, ast.If, ast.For, ast.While)) and \
                    not declaration and not _only_assumptions(stmt):
                found.append(("statement", stmt, None))
    mutants = []
    for kind, node, new in found:
        if kind == "statement":
            first = splice.segment(node).splitlines()[0]
            mutants.append(Mutant(kind, node.lineno, f"{first.strip()} -> pass", splice.replace_lines(node, "pass")))
        else:
            mutants.append(Mutant(kind, node.lineno, f"{splice.segment(node)} -> {new}", splice.replace(node, new)))
    return mutants


def select(mutants: list, per_kind: int) -> list:
    """At most per_kind mutants of each kind, spread evenly over the body (deterministic)."""
    chosen = []
    for kind in KINDS:
        of_kind = [m for m in mutants if m.kind == kind]
        if len(of_kind) <= per_kind:
            chosen += of_kind
        else:
            step = len(of_kind) / per_kind
            chosen += [of_kind[int(i * step)] for i in range(per_kind)]
    return chosen


# --------------------------------------------------------------------------- running them


def _verdicts(prepared, batch: list, timeout: float) -> list:
    """Verify each port of batch [(path, ...)] on prepared's cases: one verdict per port.
    The ports run in one child; when it crashes or times out, each runs alone."""
    from porter.diagnostics import TileportError
    from porter.verify.driver import apply_results, port_jobs
    from porter.verify.port_exec import run_port_batch

    copies = [copy.deepcopy(prepared) for _ in batch]
    plans = [port_jobs(c) for c in copies]
    try:
        outcomes = run_port_batch([(path, jobs) for path, (jobs, _) in zip(batch, plans)], timeout)
    except TileportError:
        outcomes = []
        for path, (jobs, _) in zip(batch, plans):
            try:
                outcomes.append(run_port_batch([(path, jobs)], timeout)[0])
            except TileportError as exc:
                outcomes.append(exc.diagnostic.code)
    verdicts = []
    for path, c, (jobs, owners), results in zip(batch, copies, plans, outcomes):
        if isinstance(results, str):
            verdicts.append(f"crash ({results})")
            continue
        apply_results(owners, results, path, c.opts)
        kernels = c.report.kernels
        verdicts.append("mismatch" if any(k.verdict == "mismatch" for k in kernels) else
                        "failed" if any(k.verdict != "equivalent" for k in kernels) else "equivalent")
    return verdicts


def _lowered_sources(prepared, batch: list, timeout: float) -> list:
    """TileLang's CUDA source (sm_80) of every program each port of batch runs, as one list per
    port, or None where it could not be lowered. Equal lists mean the same kernels on a GPU."""
    from porter.diagnostics import TileportError
    from porter.verify.driver import port_jobs
    from porter.verify.port_exec import run_port_batch

    checked = copy.deepcopy(prepared)
    checked.opts.compile_check = True
    planned = port_jobs(checked)[0]
    jobs = [{**j, "kind": "lower"} for j in planned if j["kind"] == "compile" and j["arch"] == "sm_80"]
    for job in planned:
        call = job.get("triton")
        if job["kind"] == "run" and call:  # a Triton port: each specialization a case ran
            entry = {"kind": "lower", "program": f"{job['function']}_program", "arch": "sm_80",
                     "program_args": call["program_args"], "program_kwargs": call["program_kwargs"]}
            if entry not in jobs:
                jobs.append(entry)
    if re.search(r"def \w+_program\([^)]*\baligned=False", Path(batch[0]).read_text()):
        # the aligned program too: a mutant of its assumptions or copies lowers like the port's
        # default program, and is the same kernel only if it also lowers like its aligned one
        for job in list(jobs):
            program = job.get("program")
            if job["kind"] == "lower" and program:
                jobs.append({**job, "program_kwargs": {**job.get("program_kwargs", {}), "aligned": True}})
    try:
        outcomes = run_port_batch([(path, jobs) for path in batch], timeout)
    except TileportError:
        outcomes = []
        for path in batch:
            try:
                outcomes += run_port_batch([(path, jobs)], timeout)
            except TileportError:
                outcomes.append(None)
    return [[r.get("source") for r in results] if results and all(r.get("ok") for r in results) else None
            for results in outcomes]


def mutate_file(source: str, per_kind: int = 5, timeout: float = 60.0, chunk: int = 12) -> dict:
    """Convert one file, verify the port and its mutants; the file's row of the report."""
    from porter.diagnostics import TileportError
    from porter.reader import read_source
    from porter.pipeline import print_port, raise_to_tiles
    from porter.verify.driver import VerifyOptions, prepare

    row = {"file": _shown(source), "mutants": 0, "caught": 0, "survivors": [], "note": ""}
    try:
        text = print_port(raise_to_tiles(read_source(source)), source)
    except TileportError as exc:
        row["note"] = f"not converted: {exc.diagnostic.render()}"
        return row
    with tempfile.TemporaryDirectory(prefix="tileport-mutants-") as tmp:
        port = Path(tmp, Path(source).stem + "_tl.py")
        port.write_text(text, encoding="utf-8")
        opts = VerifyOptions(compile_check=False, timeout=timeout, args=dict(SAMPLE_ARGS.get(_shown(source), {})))
        try:
            prepared = prepare(source, str(port), opts, lambda message: None)
        except TileportError as exc:
            row["note"] = f"verify cannot run: {exc.diagnostic.render()}"
            return row
        if any(k.error is not None for k in prepared.report.kernels):
            row["note"] = "verify cannot run: " + "; ".join(
                k.error.render() for k in prepared.report.kernels if k.error is not None)
            return row
        if _verdicts(prepared, [str(port)], timeout) != ["equivalent"]:
            row["note"] = "the unmutated port is not equivalent"
            return row
        mutants = select(all_mutants(text), per_kind)
        paths = []
        for i, m in enumerate(mutants):
            path = Path(tmp, f"mutant_{i:03d}.py")
            path.write_text(m.text, encoding="utf-8")
            paths.append(str(path))
        verdicts = []
        for start in range(0, len(paths), chunk):
            verdicts += _verdicts(prepared, paths[start:start + chunk], timeout)
        # a survivor TileLang lowers to the very CUDA the port lowers to is the same kernel on
        # a GPU (e.g. a dropped T.sync_threads() that TileLang's own barrier pass puts back)
        surviving = [i for i, v in enumerate(verdicts) if v == "equivalent"]
        same = set()
        if surviving:
            base, *lowered = _lowered_sources(prepared, [str(port)] + [paths[i] for i in surviving], timeout)
            same = {i for i, text in zip(surviving, lowered) if base is not None and text == base}
    row["mutants"] = len(mutants)
    row["by_kind"] = {}
    row["same_lowering"] = []
    for i, (m, verdict) in enumerate(zip(mutants, verdicts)):
        caught = verdict != "equivalent"
        if i in same:  # not a mutant that changes the result: left out of the score
            row["same_lowering"].append({"kind": m.kind, "line": m.line, "change": m.change})
            continue
        row["caught"] += caught
        tally = row["by_kind"].setdefault(m.kind, [0, 0])
        tally[0] += caught
        tally[1] += 1
        if not caught:
            row["survivors"].append({"kind": m.kind, "line": m.line, "change": m.change})
    row["mutants"] -= len(row["same_lowering"])
    return row


def _shown(path: str) -> str:
    try:
        return str(Path(path).resolve().relative_to(ROOT))
    except ValueError:
        return path


def default_files() -> list[str]:
    samples = ROOT / "samples"
    return sorted(str(p) for p in (samples / "cuda").glob("*.cu")) + \
        sorted(str(p) for p in (samples / "triton").glob("*.py"))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", help="CUDA or Triton files (default: every sample)")
    parser.add_argument("--per-kind", type=int, default=5, help="mutants of each kind per port")
    parser.add_argument("--jobs", type=int, default=1, help="files mutated in parallel")
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="seconds per child run (a mutant may loop forever: a timeout catches it)")
    parser.add_argument("--json", help="write the rows here")
    ns = parser.parse_args(argv)
    files = ns.files or default_files()
    with ProcessPoolExecutor(max_workers=max(1, ns.jobs)) as pool:
        rows = list(pool.map(mutate_file, files, [ns.per_kind] * len(files), [ns.timeout] * len(files)))
    total = sum(r["mutants"] for r in rows)
    caught = sum(r["caught"] for r in rows)
    print(f"{'file':44} {'mutants':>7} {'caught':>6}  note")
    for r in rows:
        print(f"{r['file']:44} {r['mutants']:>7} {r['caught']:>6}  {r['note']}")
    by_kind = {}
    for r in rows:
        for kind, (c, n) in r.get("by_kind", {}).items():
            by_kind.setdefault(kind, [0, 0])
            by_kind[kind][0] += c
            by_kind[kind][1] += n
    print("\nby kind: " + ", ".join(f"{k} {c}/{n}" for k, (c, n) in by_kind.items()))
    score = caught / total if total else 0.0
    print(f"score: {caught}/{total} mutants caught ({100 * score:.1f} %)")
    same = [(r["file"], s) for r in rows for s in r.get("same_lowering", [])]
    if same:
        print(f"\nleft out, lowered to the port's own CUDA ({len(same)}):")
        for file, s in same:
            print(f"  {file}:{s['line']}  [{s['kind']}]  {s['change']}")
    survivors = [(r["file"], s) for r in rows for s in r["survivors"]]
    if survivors:
        print(f"\nsurvivors ({len(survivors)}):")
        for file, s in survivors:
            print(f"  {file}:{s['line']}  [{s['kind']}]  {s['change']}")
    if ns.json:
        Path(ns.json).write_text(json.dumps({"score": score, "caught": caught, "mutants": total,
                                             "by_kind": by_kind, "rows": rows}, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
