#!/usr/bin/env python
"""What the ports look like once TileLang has lowered them: one row per kernel and arch.

    python bench/port_quality.py [FILES...] [--arch sm_80 --arch sm_90a] [--json OUT]

For each CUDA or Triton file (default: every bundled sample) this converts it the way
`tileport convert` does, imports the port as verify does, lowers each kernel's program for
each arch with the port's pass configs (no GPU needed), and prints: level, `T.copy` count in
the program, async copies in the lowered CUDA (cp.async / TMA, counted as verify counts them),
the same and the shared bytes for the port's aligned program when it has one (what the wrapper
takes for whole tiles of aligned, unit-stride rows), pipeline stages, whether the blocks are
rasterized in panels (T.use_swizzle: `tl::rasterization2D...` in the CUDA),
the widest global access (bits), shared bytes, and the port module's lines outside programs
and wrappers (the runtime every port carries). Registers need ptxas: reported when nvcc is on
the PATH, else "-". Programs that take constexprs are lowered with the defaults the port's
launcher would use; a kernel whose lowering fails gets a row saying why. A sample with a
reference program (bench/reference_ports.py: the operation written as tilelang's examples
write it, same tiles) gets its rows too, measured the same way; its aligned columns are the
same program at static whole-tile sizes (TileLang predicates each element of a copy at dynamic
sizes, and a predicated 2-byte copy is no cp.async).
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

_WIDTHS = (("float4", 128), ("uint4", 128), ("int4", 128), ("longlong2", 128), ("double2", 128),
           ("float2", 64), ("uint2", 64), ("int2", 64), ("half2", 32), ("bfloat162", 32))


def default_files() -> list[str]:
    samples = ROOT / "samples"
    return sorted(str(p) for p in (samples / "cuda").glob("*.cu")) + \
        sorted(str(p) for p in (samples / "triton").glob("*.py"))


def widest_global_access(source: str, buffers: list) -> int:
    """Bits of the widest load or store of a global buffer in a lowered kernel's CUDA."""
    best = 32
    for vector, bits in _WIDTHS:
        for name in buffers:
            if re.search(rf"\*\({vector}\*\)\({re.escape(name)} \+", source) or \
                    re.search(rf"\*\({vector}\*\)\({re.escape(name)}\)", source):
                best = max(best, bits)
    return best


def runtime_lines(text: str) -> int:
    """Lines of a port module outside its programs, their T.macro helpers, wrappers and
    docstrings (imports count)."""
    tree = ast.parse(text)
    kept = 0
    for node in tree.body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # the module docstring
        name = getattr(node, "name", "")
        decorators = {ast.unparse(d) for d in getattr(node, "decorator_list", [])}
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not name.startswith("_"):
            continue  # a program factory or a wrapper
        if isinstance(node, ast.FunctionDef) and name.endswith("_program"):
            continue  # the program factory of a kernel whose own name starts with "_"
        if decorators & {"_TritonKernel", "T.macro"}:
            continue  # a Triton launcher (`@_TritonKernel def _attn_fwd`), or kernel code the
            # programs inline (the Philox rounds): not a runtime
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and \
                getattr(node.value.func, "id", "") == "_pointwise_dynamic":
            continue  # a generated kernel's host, the launch helpers' calling convention
        kept += (node.end_lineno or node.lineno) - node.lineno + 1
    return kept


def registers(source: str, arch: str) -> str:
    """Registers per thread from ptxas -v, "-" without nvcc."""
    if shutil.which("nvcc") is None:
        return "-"
    import tilelang

    package = Path(tilelang.__file__).parent
    includes = [package / "src", package / "3rdparty" / "cutlass" / "include"]
    with tempfile.TemporaryDirectory() as tmp:
        cu = Path(tmp) / "k.cu"
        cu.write_text(source)
        run = subprocess.run(["nvcc", f"-arch={arch}", "-std=c++17", "-c", "-Xptxas", "-v",
                              *[f"-I{d}" for d in includes], str(cu), "-o", str(Path(tmp) / "k.o")],
                             capture_output=True, text=True)
        found = re.findall(r"Used (\d+) registers", run.stderr)
        return found[0] if found else "?"


def measure(path: str, archs: list) -> list:
    from porter.diagnostics import TileportError
    from porter.reader import read_source
    from porter.pipeline import print_port, raise_to_tiles
    from porter.verify.port_exec import aligned_arguments, load_port, program_configs

    try:
        module = raise_to_tiles(read_source(path))
    except TileportError as exc:
        return [{"file": Path(path).name, "kernel": "-", "error": exc.diagnostic.message}]
    text = print_port(module, path)
    with tempfile.TemporaryDirectory() as tmp:
        port_path = Path(tmp) / "port_tl.py"
        port_path.write_text(text)
        port = load_port(str(port_path))
        rows = []
        for k in module.kernels:
            program = getattr(port, f"{k.ident}_program", None) or getattr(port, f"{k.name}_program", None)
            import inspect

            program_text = inspect.getsource(program) if program is not None else ""
            stages = re.findall(r"num_stages=(\w+)", program_text)
            # a Triton factory's default (its signature may span lines)
            default = re.search(r"\bstages=(\d+)", program_text.split("):", 1)[0])
            stages = [default.group(1) if s == "stages" and default else s for s in stages]
            base = {"file": Path(path).name, "kernel": k.name,
                    "level": "thread" if "T.get_thread_binding" in program_text else "tile",
                    "t_copy": program_text.count("T.copy("), "stages": ",".join(stages) or "-",
                    "runtime_lines": runtime_lines(text)}
            for arch in archs:
                row = dict(base, arch=arch)
                try:
                    # what the launcher passes: launch-derived constexprs (positional), then
                    # the generic ones, at the values the conversion saw
                    derived = [k.constexprs[n] for n in k.derived_constexprs]
                    generic = {n: v for n, v in k.constexprs.items()
                               if n in getattr(k, "generic", ()) and n not in k.derived_constexprs}
                    buffers = [p.name for p in k.params]
                    configs = program_configs(port, program, generic)  # as the wrapper compiles it
                    row.update(lowered(program(*derived, **generic), arch, configs, buffers))
                    if "aligned" in inspect.signature(program).parameters:
                        # the program the wrapper takes for whole tiles of aligned, unit-stride rows
                        fast_kwargs = {**generic, **aligned_arguments(program)}
                        fast = lowered(program(*derived, **fast_kwargs), arch,
                                       program_configs(port, program, fast_kwargs), buffers)
                        row.update(aligned_async_copies=fast["async_copies"],
                                   aligned_shared_bytes=fast["shared_bytes"])
                except Exception as exc:  # noqa: BLE001 - a lowering TileLang refuses: the row says so
                    row["error"] = refusal(exc)
                rows.append(row)
        return rows


def lowered(func, arch: str, configs: dict, buffers: list) -> dict:
    """The measured columns of one program lowered for one arch."""
    from porter.verify.port_exec import async_copies, lower, shared_bytes

    artifact = lower(func, {"kind": "cuda", "arch": arch}, configs)
    source = artifact.kernel_source
    return {"async_copies": async_copies(source), "global_bits": widest_global_access(source, buffers),
            "swizzle": "yes" if "tl::rasterization2D" in source else "-",
            "shared_bytes": shared_bytes(artifact), "registers": registers(source, arch)}


def refusal(exc: Exception) -> str:
    return f"{type(exc).__name__}: {str(exc).splitlines()[0][:120]}"


def measure_reference(path: str, archs: list) -> list:
    """The rows of the reference program written for this sample (bench/reference_ports.py), if any."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from reference_ports import REFERENCES

    if Path(path).name not in REFERENCES:
        return []
    what, make, *configs = REFERENCES[Path(path).name]
    configs = configs[0] if configs else {}
    rows = []
    for arch in archs:
        row = {"file": Path(path).name, "kernel": f"reference: {what}", "arch": arch, "level": "tile",
               "runtime_lines": "-"}
        try:
            func = make()
            row["t_copy"] = func.script().count("T.copy(")  # as TileLang parsed it
            buffers = ["A", "B", "C", "Q", "K", "V", "O"]
            row.update(lowered(func, arch, configs, buffers), stages=2)
            # at whole tiles, as the port's aligned program: no per-element predicate
            whole = lowered(make(whole_tiles=True), arch, configs, buffers)
            row.update(aligned_async_copies=whole["async_copies"], aligned_shared_bytes=whole["shared_bytes"])
        except Exception as exc:  # noqa: BLE001 - a lowering TileLang refuses: the row says so
            row["error"] = refusal(exc)
        rows.append(row)
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*")
    parser.add_argument("--arch", action="append", default=None)
    parser.add_argument("--json", help="also write the rows here")
    args = parser.parse_args(argv)
    archs = args.arch or ["sm_80", "sm_90a"]
    rows = []
    for path in args.files or default_files():
        rows += measure(path, archs)
        rows += measure_reference(path, archs)
    cols = ["file", "kernel", "arch", "level", "t_copy", "async_copies", "aligned_async_copies", "stages",
            "swizzle", "global_bits", "shared_bytes", "aligned_shared_bytes", "registers", "runtime_lines"]
    print("| " + " | ".join(cols) + " |")
    print("|" + " --- |" * len(cols))
    for r in rows:
        if "error" in r:
            print(f"| {r['file']} | {r['kernel']} | {r.get('arch', '-')} | error: {r['error']} |")
            continue
        print("| " + " | ".join(str(r.get(c, "-")) for c in cols) + " |")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
