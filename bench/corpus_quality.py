#!/usr/bin/env python
"""How the verified tile-level ports of a whole migrated corpus read: one row per port file.

    python bench/corpus_quality.py REPORT.json [--json OUT] [--rows]

REPORT is a `tileport migrate --verify --report` file; the ports are read where it wrote them,
never converted again. For each port with a kernel verified equivalent at tile level, per such
kernel's program (`<name>_program`): its `T.copy` count, its global buffers passed shaped
(`T.Tensor((M, N), ...)`, `T.StridedTensor`) or flat (`T.Tensor((x_numel,), ...)`), and whether
it moves its block loads and stores with `T.copy` between shaped views (a copy, and no flat
buffer indexed inside a `T.Parallel`: one read or written only at scalar indices moves no
block; an elementwise body is measured on the launch helpers' program that runs it); per
port: the module's non-blank lines against the non-blank lines of the original's
`@triton.jit` functions it ports. The summary gives what issue 44 counts: the share of ports
whose every verified kernel moves its tiles with T.copy between shaped views, and the median
ratio of module lines to kernel lines, and for the ports with a `T.gemm` (GEMM, attention,
dequantize-matmul) whether each kernel's aligned program has asynchronous copies on sm_80 and
sm_90a, as the report's compile check counted them (this reads text and the report only, so a
whole corpus takes seconds; bench/port_quality.py lowers the samples itself).
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: `porter` imports
    sys.path.insert(0, str(ROOT))

from porter.verify.port_module import elementwise_bodies  # noqa: E402


def non_blank(lines) -> int:
    return sum(1 for line in lines if line.strip())


def triton_kernel_lines(source: str) -> int:
    """Non-blank lines of the `@triton.jit` functions of a Triton file, decorators included."""
    tree = ast.parse(source)
    lines = source.splitlines()
    total = 0
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef):
            continue
        if not any("jit" in ast.unparse(d) for d in node.decorator_list):
            continue
        first = min([d.lineno for d in node.decorator_list] + [node.lineno])
        total += non_blank(lines[first - 1:node.end_lineno])
    return total


def program_measures(port: str, kernel: str) -> dict | None:
    """T.copy count and shaped/flat buffers of `<kernel>_program` in a port, None if absent."""
    tree = ast.parse(port)
    factory = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == f"{kernel}_program"), None)
    if factory is None:
        return None
    copies = sum(1 for n in ast.walk(factory) if isinstance(n, ast.Call) and ast.unparse(n.func) == "T.copy")
    shaped = flat = 0
    flat_names, in_blocks, affine_blocks = set(), set(), set()
    for func in (n for n in ast.walk(factory) if isinstance(n, ast.FunctionDef) and n is not factory):
        if not any(ast.unparse(d) == "T.prim_func" for d in func.decorator_list):
            continue
        for arg in func.args.args:
            note = arg.annotation
            if not (isinstance(note, ast.Call) and ast.unparse(note.func) in ("T.Tensor", "T.StridedTensor")):
                continue
            dims = note.args[0] if note.args else None
            one_dim = isinstance(dims, ast.Tuple) and len(dims.elts) == 1
            if ast.unparse(note.func) == "T.Tensor" and one_dim and ast.unparse(dims.elts[0]).endswith("_numel"):
                flat += 1
                flat_names.add(arg.arg)
            else:
                shaped += 1
        for loop in ast.walk(func):
            if isinstance(loop, ast.For) and isinstance(loop.iter, ast.Call) and \
                    ast.unparse(loop.iter.func) == "T.Parallel":
                lanes = _lane_names(loop)
                lets = {n.targets[0].id: n.value for n in ast.walk(loop) if isinstance(n, ast.Assign)
                        and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)}
                for n in ast.walk(loop):
                    if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and _names(n.slice) & lanes:
                        in_blocks.add(n.value.id)
                        if _lane_affine(n.slice, lanes, lets):
                            affine_blocks.add(n.value.id)
    # a flat buffer read or written element by element across a block (inside a T.Parallel, at
    # an index that follows the lanes) is a block load or store not moved by T.copy; one only
    # read or written at a scalar index (`mean_ptr[row] = mean`, every lane the same element)
    # moves no block. Of those, an index affine in the lanes (`row * S + i`) is what a T.copy
    # could move; one read through another buffer or a division of a lane (`w[idx[i]]`,
    # `x[(i // D) * S]`) is a gather, which no copy moves
    flat_blocks = len(flat_names & in_blocks)
    affine = len(flat_names & affine_blocks)
    return {"t_copy": copies, "shaped": shaped, "flat": flat, "flat_blocks": flat_blocks,
            "copies_between_shaped": copies > 0 and flat_blocks == 0,
            "flat_affine_blocks": affine, "affine_blocks_copied": copies > 0 and affine == 0}


def _lane_affine(index, lanes: set, lets: dict) -> bool:
    """Whether an index is affine in the T.Parallel's lanes (`lanes`: its variables and the
    locals that follow them, _lane_names): sums, differences and products with at most one
    factor following the lanes, of names, numbers, casts and those locals (read through
    `lets`, the loop's assignments)."""
    def affine(node, depth):
        if isinstance(node, ast.Constant):
            return True
        if isinstance(node, ast.Name):
            return node.id not in lets or node.id not in lanes or (depth < 8 and affine(lets[node.id], depth + 1))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return affine(node.operand, depth)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            return affine(node.left, depth) and affine(node.right, depth)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            return affine(node.left, depth) and affine(node.right, depth) and \
                not (_names(node.left) & lanes and _names(node.right) & lanes)
        if isinstance(node, ast.Call) and ast.unparse(node.func) == "T.Cast" and len(node.args) == 2:
            return affine(node.args[1], depth)
        if isinstance(node, ast.Tuple):
            return all(affine(e, depth) for e in node.elts)
        return not _names(node) & lanes  # anything else is fine where no lane reaches it
    return affine(index, 0)


def kernel_measures(port: str, kernel: str, helpers: Path) -> dict | None:
    """program_measures of a kernel's program: its own `<kernel>_program`, or for an
    elementwise body (`@_elementwise(...) def kernel(x: T.float32)`) the launch helpers'
    `_elementwise_program` that runs it (in the port when it holds its helpers, else in the
    folder's `_tileport_launch.py`)."""
    if kernel not in elementwise_bodies(ast.parse(port)):
        return program_measures(port, kernel)
    if "def _elementwise_program(" in port:
        return program_measures(port, "_elementwise")
    return program_measures(helpers.read_text(encoding="utf-8"), "_elementwise") if helpers.is_file() else None


def _names(node) -> set:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _lane_names(loop: ast.For) -> set:
    """The T.Parallel's variables and the locals its body computes from them (`offs = i + x`)."""
    lanes = _names(loop.target)
    assigns = [n for n in ast.walk(loop) if isinstance(n, ast.Assign)]
    while True:
        more = {t.id for n in assigns if _names(n.value) & lanes for t in n.targets if isinstance(t, ast.Name)}
        if more <= lanes:
            return lanes
        lanes |= more


def corpus_rows(report: dict, base: Path) -> list:
    """One row per port file with a kernel verified equivalent at tile level."""
    source_root = (base / report["source_root"]).resolve()
    output_root = (base / report["output_root"]).resolve()
    rows = []
    for f in report["files"]:
        kernels = [k for k in f.get("kernels", []) if k.get("verdict") == "equivalent" and k.get("level") == "tile"]
        if not kernels or not f.get("output"):
            continue
        port = (output_root / f["output"]).read_text(encoding="utf-8")
        source = (source_root / f["path"]).read_text(encoding="utf-8")
        helpers = output_root / Path(f["output"]).parent / "_tileport_launch.py"
        measures = {k["name"]: kernel_measures(port, k["name"].split("<")[0], helpers) for k in kernels}
        found = {n: m for n, m in measures.items() if m is not None}
        row = {"file": f["path"], "language": f.get("language"), "kernels": len(kernels),
               "t_copy": sum(m["t_copy"] for m in found.values()),
               "shaped": sum(m["shaped"] for m in found.values()), "flat": sum(m["flat"] for m in found.values()),
               "copies_between_shaped": bool(found) and all(m["copies_between_shaped"] for m in found.values()),
               "affine_blocks_copied": bool(found) and all(m["affine_blocks_copied"] for m in found.values()),
               "module_lines": non_blank(port.splitlines()),
               "gemm": any("T.gemm(" in _program_text(port, n.split("<")[0]) for n in found)}
        # the compile check's count of asynchronous copies in each kernel's aligned program (a
        # kernel compiled without an aligned program has none; one not compiled, no count)
        for arch in ARCHS:
            checks = [((k.get("verify") or {}).get("compile") or {}).get(arch) for k in kernels]
            row[f"async_{arch}"] = sum(_async_copies(c) for c in checks) \
                if all(c and c.get("ok") is not None for c in checks) else None
        if f.get("language") == "triton":
            row["kernel_lines"] = triton_kernel_lines(source)
            row["ratio"] = round(row["module_lines"] / max(row["kernel_lines"], 1), 2)
        rows.append(row)
    return rows


def _async_copies(check: dict) -> int:
    """A compile check's async copies in the aligned program (reports before the count was kept
    say it in the message only; a kernel without an aligned program has none)."""
    if "async_copies" in check:
        return check["async_copies"]
    found = re.search(r"aligned program: (\d+) async copies", check.get("message") or "")
    return int(found.group(1)) if found else 0


def _program_text(port: str, kernel: str) -> str:
    """The source of `<kernel>_program` in a port ("" when absent)."""
    tree = ast.parse(port)
    factory = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == f"{kernel}_program"), None)
    return ast.unparse(factory) if factory is not None else ""


#: The archs the compile check builds for.
ARCHS = ("sm_80", "sm_90a")


def summary(rows: list) -> str:
    if not rows:
        return "no verified tile-level ports in this report"
    moving = sum(r["copies_between_shaped"] for r in rows)
    ratios = [r["ratio"] for r in rows if "ratio" in r]
    line = (f"{len(rows)} ports with verified tile-level kernels: {moving} ({100 * moving / len(rows):.0f} %) "
            f"move their tiles with T.copy between shaped views; T.copy in {sum(r['t_copy'] > 0 for r in rows)}")
    affine = sum(r.get("affine_blocks_copied", False) for r in rows)
    line += (f"; {affine} ({100 * affine / len(rows):.0f} %) copy every block whose index is affine in "
             "the lanes (gathers through other buffers or divided lanes left out)")
    if ratios:
        line += f"; module lines / kernel lines: median {statistics.median(ratios):.1f}, max {max(ratios):.1f}"
    gemms = [r for r in rows if r.get("gemm")]
    if gemms:
        counted = [r for r in gemms if all(r.get(f"async_{a}") is not None for a in ARCHS)]
        both = sum(all(r[f"async_{a}"] > 0 for a in ARCHS) for r in counted)
        line += (f"; ports with a T.gemm: {len(gemms)}, async copies in the aligned program on "
                 f"{' and '.join(ARCHS)}: {both} of the {len(counted)} compile-checked")
    return line


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report")
    parser.add_argument("--json", help="also write the rows here")
    parser.add_argument("--rows", action="store_true", help="print the table of ports too")
    args = parser.parse_args(argv)
    path = Path(args.report)
    report = json.loads(path.read_text(encoding="utf-8"))
    rows = corpus_rows(report, Path.cwd())
    if args.rows:
        cols = ["file", "kernels", "t_copy", "shaped", "flat", "copies_between_shaped", "module_lines",
                "kernel_lines", "ratio", "gemm", "async_sm_80", "async_sm_90a"]
        print("| " + " | ".join(cols) + " |")
        print("|" + " --- |" * len(cols))
        for r in rows:
            print("| " + " | ".join(str(r.get(c, "-")) for c in cols) + " |")
    print(summary(rows))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
