"""`tileport verify`: run the ORIGINAL and the PORT on the same inputs and compare every buffer.

The reference is the original really executed (CUDA through the CPU emulator, Triton through
its interpreter); tileport's IR is used only to learn how to call it (parameters, launch
geometry, which scalars are sizes). The port runs through TileLang's C target on the CPU, is
compiled for CUDA sm_80 and sm_90a as a compile check, and runs on a GPU when there is one.
"""

from __future__ import annotations

import dataclasses
import ast
import math
import os
import re
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from porter.diagnostics import Diagnostic, Loc, TileportError
from porter.frontends.load import FIND_INCLUDER
from porter.reader import read_source
from porter.ir.fold import NotConstant, evaluate
from porter.ir.nodes import Atomic, BufferParam, Kernel, Store, is_float
from porter.ir.tiles import Gemm
from porter.ir.walk import walk_stmts
from porter.verify.compare import TOLERANCES, BufferComparison, as_float, compare, written_share
from porter.verify.inputs import (loop_quanta, make_args, problem_sizes, stride_test, unmasked_tile_reads,
                                  whole_tile_sizes)
from porter.verify.locate import buffer_dims
from porter.verify.targets import target_notes
from porter.verify.port_exec import run_port_jobs
from porter.verify.port_module import elementwise_bodies
from porter.util.numbers import next_power_of_2

ARCHS = ("sm_80", "sm_90a")
MAX_PROGRAMS = 1 << 20


@dataclass
class CaseResult:
    sizes: dict
    grid: tuple
    device: str
    buffers: list = field(default_factory=list)
    original_seconds: float = 0.0
    port_seconds: float = 0.0
    constexprs: dict = field(default_factory=dict)  # Triton: the specialization this case ran
    notes: list = field(default_factory=list)  # why the case tests less than it should
    written: dict = field(default_factory=dict)  # buffer -> share of its elements the original changed
    wide: bool = False  # floats drawn from a wide range (inputs.WIDE): tolerances scale with them
    strays: list = field(default_factory=list)  # the port's accesses outside a buffer or tile (bounds_checks)

    @property
    def ok(self) -> bool:
        return all(b.ok for b in self.buffers) and not self.strays


@dataclass
class KernelResult:
    name: str
    loc: Loc
    cases: list = field(default_factory=list)
    compile: dict = field(default_factory=dict)
    error: Diagnostic | None = None
    target_notes: list = field(default_factory=list)  # ops the port uses that differ by target
    input_notes: list = field(default_factory=list)  # what the original assumes of its inputs

    @property
    def verdict(self) -> str:
        if self.error is not None:
            return "could-not-run"
        if any(not c.ok for c in self.cases):
            return "mismatch"
        if any(r.get("ok") is False for r in self.compile.values()):
            return "compile-failed"
        return "equivalent"


@dataclass
class VerifyReport:
    original: str
    port: str
    kernels: list = field(default_factory=list)
    seconds: float = 0.0
    gpu: bool = False

    @property
    def exit_code(self) -> int:
        verdicts = {k.verdict for k in self.kernels}
        if "mismatch" in verdicts:
            return 1
        if verdicts & {"could-not-run", "compile-failed"} or not self.kernels:
            return 3
        return 0

    def as_dict(self) -> dict:
        return {
            "original": self.original, "port": self.port, "seconds": round(self.seconds, 3),
            "gpu": self.gpu, "exit_code": self.exit_code,
            "kernels": [{
                "kernel": k.name, "verdict": k.verdict,
                "error": k.error.render() if k.error else None,
                "compile": k.compile, "target_notes": k.target_notes, "input_notes": k.input_notes,
                "cases": [{"sizes": c.sizes, "constexprs": c.constexprs, "notes": c.notes, "wide": c.wide,
                           "grid": list(c.grid), "device": c.device,
                           "original_seconds": round(c.original_seconds, 4),
                           "port_seconds": round(c.port_seconds, 4), "strays": c.strays,
                           "buffers": [b.as_dict() for b in c.buffers]} for c in k.cases],
            } for k in self.kernels],
        }


@dataclass
class VerifyOptions:
    kernel: str | None = None
    args: dict = field(default_factory=dict)
    rtol: float | None = None
    atol: float | None = None
    seed: int = 0
    include_dirs: tuple = ()
    defines: tuple = ()
    config: int | None = None  # None: the front end's choice (_general_config)
    dtypes: dict = field(default_factory=dict)
    constexprs: dict = field(default_factory=dict)  # Triton constexprs pinned with --constexpr
    timeout: float = 300.0
    compile_check: bool = True
    context: str | None = FIND_INCLUDER  # CUDA: the includer the original is parsed in (load_module)
    foreign: tuple = ()  # CUDA: files whose kernels are other ports' (migrate's one port per file)


def _port_tree(port: str) -> ast.Module:
    """The port's text, parsed (never run here)."""
    try:
        return ast.parse(Path(port).read_text(encoding="utf-8"), filename=port)
    except SyntaxError as exc:
        raise TileportError("TP443", f"the port is not valid Python: {exc.msg}",
                            Loc(port, exc.lineno or 0, exc.offset or 0)) from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise TileportError("TP003", f"cannot read the port: {exc}", Loc(port)) from exc


def _port_functions(tree: ast.Module) -> set:
    names = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    # a Triton port's kernel is a launcher object (`@_TritonKernel def add_kernel(...)`), a
    # generated host an assignment (`abs_func = _pointwise_dynamic(abs_func_kernel, ...)`)
    names |= {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets
              if isinstance(t, ast.Name)}
    # an elementwise body (`@_elementwise(...) def abs_func(x)`) is the host, and carries its
    # kernel and program (port_exec.load_port names them `abs_func_kernel`, `abs_func_program`)
    for name in elementwise_bodies(tree):
        names |= {f"{name}_kernel", f"{name}_program"}
    return names


def aligned_test(tree: ast.Module, function: str, constants: dict | None = None) -> tuple:
    """What a port's wrapper tests before it takes its aligned program (`aligned = M % 64 == 0
    and stride_ak == 1 and ...`), read from the port's parsed text: ({size: multiple}, (names
    that must be 1,)). The wrapper is `function`, or `_function` for a Triton launcher."""
    for fn in tree.body:
        if isinstance(fn, ast.FunctionDef) and fn.name in (function, f"_{function}"):
            for node in ast.walk(fn):
                if isinstance(node, ast.Assign) and [getattr(t, "id", "") for t in node.targets] == ["aligned"]:
                    text = ast.unparse(node.value)
                    multiples = {}
                    for name, m in re.findall(r"\b(\w+) % (\w+) == 0", text):
                        value = int(m) if m.isdigit() else (constants or {}).get(m)  # M % BLOCK_M
                        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                            multiples[name] = math.lcm(multiples.get(name, 1), value)  # every test holds
                    return multiples, tuple(re.findall(r"\b(\w+) == 1\b", text))
    return {}, ()


def port_tiles(tree: ast.Module, function: str) -> dict:
    """Sizes the port's program steps over in tiles (`T.ceildiv(cols, 256)`, `cols // 256`):
    size -> the largest tile, read from the program factory's parsed text."""
    out: dict = {}
    for fn in tree.body:
        if isinstance(fn, ast.FunctionDef) and fn.name == f"{function}_program":
            text = ast.unparse(fn)
            for name, tile in re.findall(r"T\.ceildiv\((\w+), (\d+)\)", text) + \
                    re.findall(r"\b(\w+) // (\d+)\b", text):
                out[name] = max(out.get(name, 1), int(tile))
    return out


def _grid(kernel: Kernel, scalars: dict) -> tuple:
    try:
        grid = tuple(int(evaluate(g, scalars)) for g in kernel.launch.grid)
    except (NotConstant, ValueError, ZeroDivisionError) as exc:
        raise TileportError("TP431", f"cannot evaluate the launch grid of '{kernel.name}' ({exc}); "
                            "pass the sizes with --arg", kernel.loc) from exc
    total = int(np.prod(grid)) if grid else 1
    if any(g < 1 for g in grid) or total > MAX_PROGRAMS:
        raise TileportError("TP431", f"launch grid {grid} of '{kernel.name}' is empty or too large "
                            "for the CPU run; pass smaller sizes with --arg", kernel.loc)
    return grid


def _c_arguments(kernel: Kernel, args: list):
    """The original's C arguments: fields of a struct parameter packed into its bytes (an array
    field's elements too; a pointer field's array travels beside them, cuda_exec.StructArg).

    Returns (arguments, C types, for each IR parameter the index of its C argument)."""
    from porter.verify.cuda_exec import StructArg
    from porter.verify.inputs import NUMPY_DTYPES

    c_args, c_types, where, structs, pointers = [], [], [], {}, {}
    extents = {getattr(p, "texture_extent", None): a for p, a in zip(kernel.params, args)}
    for p, a in zip(kernel.params, args):
        member = getattr(p, "member", None)
        if getattr(p, "grid_axis", None) is not None or getattr(p, "symbol", "") or \
                getattr(p, "texture_extent", None) is not None:
            where.append(None)  # the caller's grid size, a __constant__ variable, a texture's size
            continue
        if getattr(p, "texture", None) is not None:  # a texture object over the port's texels
            where.append(len(c_args))
            sizes = [int(extents.get((p.name, axis), 1)) for axis in range(3)]
            c_args.append(StructArg(texture_object(p.texture, sizes), {0: a}))
            c_types.append(p.c_type)
            continue
        if member is None:
            where.append(len(c_args))
            # a buffer the kernel reads only as other elements: the original's own type, same bytes
            c_args.append(a.view(NUMPY_DTYPES[p.view_of]) if getattr(p, "view_of", "") else a)
            c_types.append(p.c_type)
            continue
        if member.struct not in structs:
            structs[member.struct] = len(c_args)
            c_args.append(np.zeros(member.size, np.uint8))
            c_types.append(member.c_type)
        index = structs[member.struct]
        where.append(index)
        if isinstance(p, BufferParam) and not member.count:
            pointers.setdefault(index, {})[member.offset] = a
            continue
        raw = np.array(a, NUMPY_DTYPES[p.dtype]).reshape(-1)[:member.count or 1].tobytes()
        c_args[index][member.offset: member.offset + len(raw)] = np.frombuffer(raw, np.uint8)
    for index, fields in pointers.items():
        c_args[index] = StructArg(c_args[index].tobytes(), fields)
    return c_args, c_types, where


def texture_object(sampler, sizes: list) -> bytes:
    """The emulator's cudaTextureObject_t for a texture's settings and size, its data pointer
    (offset 0) left for StructArg to fill: width, height, depth, channels, texel, filter,
    address[3], normalized, read mode, as 32-bit ints after the pointer."""
    from porter.frontends.cuda.textures import EMULATOR_CODES, TEXEL_CODES

    fields = [*sizes, sampler.channels, TEXEL_CODES[sampler.texel], EMULATOR_CODES[sampler.filter],
              *(EMULATOR_CODES[m] for m in sampler.address), int(sampler.normalized), EMULATOR_CODES[sampler.read]]
    raw = bytes(8) + np.array(fields, np.int32).tobytes()
    return raw + bytes(-len(raw) % 8)


def _original_value(p, a, out, i):
    """An IR parameter's value after the original ran, from its C argument's (out[i])."""
    member = getattr(p, "member", None)
    if not isinstance(p, BufferParam) or i is None or (member is not None and member.count):
        return a  # a scalar, or an array the struct's bytes held: the kernel got a copy
    if getattr(p, "texture", None) is not None:
        return out[i].pointers[0]
    if getattr(p, "view_of", ""):
        return out[i].view(a.dtype)
    return out[i].pointers[member.offset] if member is not None else out[i]


def _run_original(module, kernel: Kernel, grid: tuple, args: list, original: str, opts: VerifyOptions,
                  device: str = "cpu"):
    """Run the original; returns the IR parameters' values after the run, in IR order."""
    if module.language == "cuda":
        c_args, c_types, where = _c_arguments(kernel, args)
        symbols = {p.symbol: _symbol_bytes(p, a) for p, a in zip(kernel.params, args)
                   if isinstance(p, BufferParam) and p.symbol}
        out = _run_original_c(kernel, grid, c_args, c_types, _smem(kernel, args), original, opts, device,
                              symbols)
        return [_symbol_array(symbols[p.symbol], a) if isinstance(p, BufferParam) and p.symbol
                else _original_value(p, a, out, i) for p, a, i in zip(kernel.params, args, where)]
    return _run_original_triton(kernel, grid, args, original, opts, device)


def _symbol_bytes(param: BufferParam, array) -> bytes:
    """What the original's `__constant__`/`__device__` variable holds: the port's tensor for it,
    cut to the variable's size."""
    data = np.ascontiguousarray(array)
    return data.reshape(-1)[:param.symbol_count].tobytes()


def _symbol_array(data: bytes, like):
    """The variable's bytes after the run, as the port's tensor for it (the rest unchanged)."""
    out = np.array(like, copy=True)
    flat = out.reshape(-1)
    after = np.frombuffer(data, flat.dtype)
    flat[:after.size] = after
    return out


def _run_original_c(kernel: Kernel, grid: tuple, args: list, c_types: list, smem: int, original: str,
                    opts: VerifyOptions, device: str, symbols: dict | None = None):
    """symbols: {variable: bytes} copied into the original's `__constant__`/`__device__`
    variables before the run, and replaced by their bytes after it."""
    if device == "cuda" and symbols:
        raise TileportError("TP414", f"kernel {kernel.name} reads __constant__/__device__ variables "
                            f"({', '.join(symbols)}): the GPU run of the original does not fill them yet; "
                            "verify on the CPU (--device cpu)", kernel.loc)
    from porter.verify.cuda_exec import StructArg

    if device == "cuda" and any(isinstance(a, StructArg) for a in args):
        raise TileportError("TP414", f"kernel {kernel.name} takes a struct holding pointers: the GPU run of "
                            "the original does not build it yet; verify on the CPU (--device cpu)", kernel.loc)
    if device == "cuda":
        from porter.verify import cuda_gpu

        return cuda_gpu.run_kernel(original, kernel.name + kernel.template_args, c_types, grid,
                                   kernel.launch.block, smem, args, timeout=opts.timeout,
                                   include_dirs=opts.include_dirs, defines=opts.defines)
    from porter.verify import cuda_exec
    from porter.verify.cuda_build import KernelSig

    sig = KernelSig(launch_name=kernel.name + kernel.template_args, symbol=kernel.ident,
                    param_types=c_types)
    block = tuple(kernel.launch.block) + (1,) * (3 - len(kernel.launch.block))
    grid3 = tuple(grid) + (1,) * (3 - len(grid))
    return cuda_exec.run_kernel(original, sig, grid3, block, smem, args,
                                    timeout=opts.timeout, include_dirs=opts.include_dirs,
                                    defines=opts.defines, constants=symbols)


def _run_original_triton(kernel: Kernel, grid: tuple, args: list, original: str, opts: VerifyOptions,
                         device: str):
    from porter.verify import triton_exec

    call = triton_call(kernel, args)  # the same arguments, constexprs and warps as the port gets
    kept = call["keep"]
    params = [kernel.params[i] for i in kept]
    bf16 = [j for j, p in enumerate(params) if isinstance(p, BufferParam) and p.dtype == "bfloat16"]
    out = triton_exec.run_kernel(original, kernel.name, grid, [args[i] for i in kept],
                                 constexprs={n: triton_exec.TritonDType(v) if n in kernel.dtype_constexprs else v
                                             for n, v in call["constexprs"].items()},
                                 launch_options={"num_warps": call["num_warps"]},
                                 timeout=opts.timeout, bf16_args=bf16, device=device)
    result = list(args)
    for j, i in enumerate(kept):
        result[i] = out[j]
    return result


def _smem(kernel: Kernel, args: list) -> int:
    smem = kernel.launch.smem_bytes
    if isinstance(smem, int):
        return smem
    scalars = {p.name: a for p, a in zip(kernel.params, args) if not isinstance(p, BufferParam)}
    return int(evaluate(smem, scalars))


@contextmanager
def _original_to_build(module, original: str, opts: VerifyOptions):
    """(path, opts) of the original as the emulator builds it, while the block runs.

    A CUDA file whose host code cannot be compiled here is built from the front end's host-free
    text (good kernels untouched), in a private folder: the main file and the changed headers
    of its own tree mirrored beside it, the original's folder on the include path, empty
    stand-ins for headers this machine lacks. The user's tree is never written; the folder is
    removed when the block ends, by an error too. Any other original is built as it is."""
    original = module.context or original  # a header is built as its includer, which it is part of
    if module.language != "cuda" or (module.emulator_source is None and not module.emulator_headers
                                     and not module.stand_ins):
        yield original, opts
        return
    import dataclasses
    import shutil
    import tempfile

    from porter.frontends.cuda.parse import stand_in_dir
    from porter.verify.cuda_build import prepare_source

    folder = Path(tempfile.mkdtemp(prefix="tileport-original-"))
    try:
        home = Path(original).resolve().parent
        copy = folder / Path(original).name
        text = module.emulator_source if module.emulator_source is not None else \
            Path(original).read_text(encoding="utf-8", errors="surrogateescape")
        copy.write_text(f'#line 1 "{Path(original).resolve()}"\n' + text, encoding="utf-8")
        searched = []  # mirrors of the include directories that hold changed headers (first on the path)
        for header, body in module.emulator_headers.items():
            rel = os.path.relpath(os.path.realpath(header), home)
            if rel.startswith(".."):  # a header of an include directory (`-I Common`): mirrored there
                where = next((d for d in map(os.path.realpath, opts.include_dirs)
                              if not os.path.relpath(os.path.realpath(header), d).startswith("..")), None)
                if where is None:
                    continue  # found by no include directory: built as it is
                mirror = folder / f"_include{list(map(os.path.realpath, opts.include_dirs)).index(where)}"
                if str(mirror) not in searched:
                    searched.append(str(mirror))
                rel = os.path.join(mirror.name, os.path.relpath(os.path.realpath(header), where))
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            # a header g++ reads as it is must say CUDA as the emulator takes it too (its
            # `extern __shared__` arrays, its launches), as the main file's build does
            (folder / rel).write_text(f'#line 1 "{os.path.realpath(header)}"\n' + prepare_source(body),
                                      encoding="utf-8")
        # the original's folder before the -I directories: its `#include "multithreading.h"`
        # is its own, not Common's of the same name (cuda-samples simpleCallback's CUTBarrier)
        include_dirs = tuple(searched) + (str(home),) + tuple(opts.include_dirs)
        if module.stand_ins:
            include_dirs += (str(stand_in_dir(module.stand_ins)),)
        yield str(copy), dataclasses.replace(opts, include_dirs=include_dirs)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _struct_groups(kernel: Kernel) -> list:
    """(first, count) runs of IR parameters that the port's wrapper takes as one struct."""
    groups, last = [], None
    for i, p in enumerate(kernel.params):
        member = getattr(p, "member", None)
        if member is not None and member.struct == last:
            groups[-1][1] += 1
        elif member is not None:
            groups.append([i, 1])
        last = member.struct if member is not None else None
    return [tuple(g) for g in groups]


def _gpu_available() -> bool:
    # torch takes seconds to import: a machine without a GPU device node has no GPU to ask about
    if not any(os.path.exists(node) for node in ("/dev/nvidiactl", "/dev/nvidia0", "/dev/kfd", "/dev/dxg")):
        return False
    try:
        import torch

        return bool(torch.cuda.is_available())
    except Exception:  # noqa: BLE001 - no torch, no GPU
        return False


def verify(original: str, port: str, opts: VerifyOptions | None = None, progress=None) -> VerifyReport:
    """Verify every kernel (or opts.kernel) of ORIGINAL against PORT."""
    opts = opts or VerifyOptions()
    progress = progress or (lambda message: None)
    start = time.perf_counter()
    prepared = prepare(original, port, opts, progress)
    _run_ports(prepared, port, progress)
    prepared.report.seconds = time.perf_counter() - start
    return prepared.report


@dataclass
class Prepared:
    """The original's side of a verification: every case drawn and run, the port not yet."""
    report: VerifyReport
    plans: list  # (KernelResult, CaseResult, kernel, args, expected) per case
    kernels: list
    opts: VerifyOptions


def prepare(original: str, port: str, opts: VerifyOptions, progress) -> Prepared:
    """Draw each kernel's cases and run the original on them (the port is only read: which
    functions it has, which sizes its aligned program wants)."""
    module = read_source(original, include_dirs=opts.include_dirs, defines=opts.defines,
                         config=opts.config, dtypes=opts.dtypes, constexprs=opts.constexprs,
                         context=opts.context, foreign=opts.foreign)
    kernels = module.kernels
    if opts.kernel:
        kernels = [k for k in kernels if opts.kernel in (k.name, k.ident, k.name + k.template_args)]
        if not kernels:
            names = ", ".join(k.ident for k in module.kernels)
            raise TileportError("TP004", f"no kernel named '{opts.kernel}' in {original} (kernels: {names})",
                                Loc(original))
    port_tree = _port_tree(port)
    port_text = Path(port).read_text(encoding="utf-8", errors="replace")
    functions = _port_functions(port_tree)
    with _original_to_build(module, original, opts) as (built, built_opts):
        return _run_originals(module, kernels, original, built, port, port_tree, port_text, functions, built_opts,
                              progress)


def _run_originals(module, kernels: list, shown: str, original: str, port: str, port_tree, port_text: str,
                   functions, opts: VerifyOptions, progress) -> Prepared:
    """prepare's runs of the original (SHOWN: the user's file, ORIGINAL: the file built)."""
    report = VerifyReport(shown, port, gpu=_gpu_available())
    plans = []
    devices = ["cpu", "cuda"] if report.gpu else ["cpu"]
    for kernel in kernels:
        result = KernelResult(kernel.ident, kernel.loc)
        result.target_notes = target_notes(_program_text(port_text, kernel.ident))
        report.kernels.append(result)
        if kernel.ident not in functions or f"{kernel.ident}_program" not in functions:
            result.error = Diagnostic("TP444", f"the port has no function '{kernel.ident}' (or its "
                                      f"'{kernel.ident}_program'); was it generated from this file?",
                                      Loc(port))
            continue
        # one case for its aligned program
        sizes, unit_strides = aligned_test(port_tree, kernel.ident, kernel.constexprs)
        kernel.aligned = dataclasses.replace(kernel.aligned, sizes=sizes, unit_strides=unit_strides)
        kernel.sizing.port_tiles = port_tiles(port_tree, kernel.ident)  # cases span two of its tiles
        try:
            specs = specializations(kernel)
            for spec in specs:
                spec.sizing.port_tiles = kernel.sizing.port_tiles
                # scalars the launch ties to its geometry (a block size also passed as an argument)
                given = {**{k: str(v) for k, v in spec.launch.fixed.items()}, **opts.args}
                # the case's specialization: the constexprs whose value differs between them
                label = {n: v for n, v in spec.constexprs.items() if any(s.constexprs.get(n) != v for s in specs)}
                problems = problem_sizes(spec, given)
                if spec is specs[0]:
                    result.input_notes += whole_tile_notes(spec, problems)
                # the smallest problem once more with wide values: a shift, clamp or overflow
                # path that [-2, 2] never reaches
                for index, (scalars, wide) in enumerate([(p, False) for p in problems] + [(problems[0], True)]):
                    grid = _grid(spec, scalars)
                    for device in devices:
                        progress(f"{kernel.name}: running the original on {device}, sizes {scalars}")
                        t0 = time.perf_counter()
                        scalars, args, expected, notes = _informative_run(
                            module, spec, scalars, given, grid, original, opts, device, opts.seed * 1000 + index, wide)
                        case = CaseResult(dict(scalars), grid, device, original_seconds=time.perf_counter() - t0,
                                          constexprs=label, notes=notes, wide=wide,
                                          written={p.name: written_share(a, e) for p, a, e in
                                                   zip(spec.params, args, expected) if isinstance(p, BufferParam)
                                                   and isinstance(a, np.ndarray) and isinstance(e, np.ndarray)})
                        result.cases.append(case)
                        plans.append((result, case, spec, args, expected))
                if result.cases and all(c.notes and c.notes[0].startswith("unchanged") for c in result.cases):
                    raise TileportError("TP432", f"no case changed an output of '{kernel.name}' (every draw "
                                        "left the buffers it writes as they were): the inputs cannot tell "
                                        "a right port from a wrong one; pass sizes or values with --arg",
                                        kernel.loc)
        except TileportError as exc:
            result.error = exc.diagnostic
            result.cases.clear()
    return Prepared(report, plans, kernels, opts)


def _run_ports(prepared: Prepared, port: str, progress) -> None:
    """All port work in one child process: imports and compiles are paid once."""
    jobs, owners = port_jobs(prepared)
    if not jobs:
        return
    progress(f"running the port ({len(jobs)} jobs)")
    # the compile checks (CUDA archs) run in a child of their own, beside the CPU runs
    groups = [[i for i, j in enumerate(jobs) if j["kind"] == "run"],
              [i for i, j in enumerate(jobs) if j["kind"] != "run"]]
    groups = [g for g in groups if g]
    with ThreadPoolExecutor(max_workers=len(groups)) as pool:
        futures = [pool.submit(run_port_jobs, port, [jobs[i] for i in g], prepared.opts.timeout)
                   for g in groups]
        try:
            answers = [f.result() for f in futures]
        except TileportError as exc:
            for r in prepared.report.kernels:
                if r.error is None:
                    r.error = exc.diagnostic
            return
    results = [None] * len(jobs)
    for g, answer in zip(groups, answers):
        for i, result in zip(g, answer):
            results[i] = result
    apply_results(owners, results, port, prepared.opts)


def port_jobs(prepared: Prepared) -> tuple:
    """The port's child jobs (runs of every case, compile checks) and, for each, what its
    result belongs to."""
    report, plans, kernels, opts = prepared.report, prepared.plans, prepared.kernels, prepared.opts
    jobs, owners = [], []
    for result, case, kernel, args, expected in plans:
        if result.error is None:
            job = {"kind": "run", "function": kernel.ident, "args": args,
                   "groups": _struct_groups(kernel),
                   "target": "c" if case.device == "cpu" else "cuda", "grid": case.grid,
                   "block": tuple(kernel.launch.block), "timeout": opts.timeout,
                   # bfloat16 travels as uint16 bits: the declared type tells which uint16 is which
                   "bf16": [getattr(p, "dtype", "") == "bfloat16" for p in kernel.params]}
            if kernel.language == "triton":
                job["triton"] = triton_call(kernel, args)
            if kernel.generated:  # the port's `<name>` keeps the library's convention
                job["launcher"] = f"{kernel.ident}_kernel"
            elif kernel.cuda_launch:  # CUDA's convention: kernel[grid, block, shared_bytes](*args)
                job["cuda"] = {"block": list(kernel.cuda_launch[0]), "shared": kernel.cuda_launch[1],
                               "grid_axes": [i for i, p in enumerate(kernel.params)
                                             if getattr(p, "grid_axis", None) is not None]}
            jobs.append(job)
            variant = not any(kernel is k for k in kernels)  # a flag variant, another launch value
            owners.append(("run", result, case, kernel, (args, expected, variant)))
    if opts.compile_check:
        for kernel in kernels:
            result = next(r for r in report.kernels if r.name == kernel.ident)
            if result.error is None:
                # launch-derived constexprs: compiled for the largest problem size's values
                sizes = [args for _, _, k, args, _ in plans if k is kernel]
                program_args = derived_values(kernel, sizes[-1]) if sizes else []
                program_kwargs = _generic_values(kernel)
                for arch in ARCHS:
                    jobs.append({"kind": "compile", "program": f"{kernel.ident}_program", "arch": arch,
                                 "program_args": program_args, "program_kwargs": program_kwargs})
                    owners.append(("compile", result, arch, kernel, None))
    return jobs, owners


def apply_results(owners: list, results: list, port: str, opts: VerifyOptions) -> None:
    """Compare each run's buffers with the original's, record each compile check."""
    port_text = Path(port).read_text(encoding="utf-8", errors="replace")
    for (kind, result, what, kernel, data), outcome in zip(owners, results):
        if result.error is not None:
            continue
        if kind == "compile":
            if outcome.get("ok") is False and "type" in outcome:
                outcome = {"ok": False, "message": f"{outcome['type']}: {outcome['message']}"}
            result.compile[what] = {k: v for k, v in outcome.items()
                                    if k in ("ok", "message", "seconds", "shared_bytes", "tensor_cores", "async_copies")}
            continue
        case = what
        if not outcome.get("ok") and data[2] and _refused(outcome):
            # a variant the port was not converted for (its program's signature differs from
            # the main form's, so the emitter left it out): the port refuses it by name, as it
            # refuses any value it was not converted for; noted, not a failure of the rest
            result.cases.remove(case)
            note = f"{_shown_constexprs(case.constexprs)} left out: the port refuses it ({outcome['message']})"
            if note not in result.input_notes:
                result.input_notes.append(note)
            continue
        if not outcome.get("ok"):
            result.error = Diagnostic("TP440", f"the port failed: {outcome['type']}: {outcome['message']}",
                                      Loc(port, outcome.get("line", 0), 0))
            result.cases.clear()
            continue
        case.port_seconds = outcome["seconds"]
        case.strays = outcome.get("strays", [])
        program = _program_text(port_text, kernel.ident)
        before, expected, _ = data
        # how many terms a reordered sum may have: the longest size of the problem (a row, K),
        # not the largest buffer (rows x cols would loosen a row's sum by sqrt(rows))
        stride = stride_test(kernel)
        wide_exp = case.wide and _exp_of_products(kernel, program)
        n = max((v for k, v in case.sizes.items() if type(v) is int and not stride(k)),
                default=max((a.size for a in expected if isinstance(a, np.ndarray)), default=1))
        outside = outcome.get("outside", {})
        chunks = loop_quanta(kernel)
        for i, (p, old, exp, got) in enumerate(zip(kernel.params, before, expected, outcome["args"])):
            if isinstance(p, BufferParam):
                rtol, atol = _tolerances(p.dtype, program, case.device, n, opts, _magnitude(p.dtype, exp))
                if case.wide and opts.atol is None and p.dtype in TOLERANCES:
                    atol = _wide_atol(p.dtype, exp, rtol, atol)
                    if wide_exp and opts.rtol is None:
                        rtol, atol = max(rtol or 0, WIDE_EXP_TOLERANCE), max(atol, WIDE_EXP_TOLERANCE *
                                                                           _magnitude(p.dtype, exp))
                dims = buffer_dims(kernel, p, case.sizes, stride)
                case.buffers.append(compare(p.name, p.dtype, exp, got, rtol, atol, dims,
                                            old if isinstance(old, np.ndarray) else None, chunks))
                case.buffers[-1].written = case.written.get(p.name)
                case.buffers[-1].outside = outside.get(i, 0)


def _refused(outcome: dict) -> bool:
    """Whether a port's run failed on the wrapper's refusal of a constexpr value it was not
    converted for (`_specialised` in the port: templates/triton_launch.py.j2)."""
    return outcome.get("type") == "ValueError" and "this port is specialised for" in outcome.get("message", "")


def _shown_constexprs(values: dict) -> str:
    return ", ".join(f"{n}={v!r}" for n, v in values.items()) or "a variant"


def whole_tile_notes(kernel, problems: list) -> list:
    """A line saying the original loads tiles without a mask (inputs.unmasked_tile_reads),
    which sizes it then needs whole, and whether a case had them."""
    reads = unmasked_tile_reads(kernel)
    tiles = whole_tile_sizes(kernel)
    if not reads or not tiles:
        return []
    names = sorted(tiles)
    whole = sum(all(isinstance(p.get(n), int) and p[n] % tiles[n] == 0 for n in names) for p in problems)
    where = f"{names[0]} is a multiple of {tiles[names[0]]}" if len(names) == 1 else \
        f"{', '.join(names)} are multiples of {', '.join(str(tiles[n]) for n in names)}"
    return [f"the original loads tiles of {', '.join(sorted(reads))} without a mask: it is only defined where "
            f"{where}"
            + ("; every case takes such sizes" if whole == len(problems) else
               f"; {whole} of {len(problems)} cases have such sizes (the others are given with --arg: both sides "
               "read past them there)")]


__all__ = ["verify", "VerifyOptions", "VerifyReport", "KernelResult", "CaseResult", "BufferComparison"]


TF32_TOLERANCE = 1e-2


# primitives that add in their own order, not the original's
REORDERING = ("T.gemm(", "T.reduce_sum(", "T.cumsum(")


def _program_text(port_text: str, ident: str) -> str:
    """The source of the port's `<ident>_program` factory."""
    start = port_text.find(f"def {ident}_program(")
    end = port_text.find("\ndef ", start + 1)
    return port_text[start:end if end > 0 else None] if start >= 0 else ""


def _magnitude(dtype: str, expected) -> float:
    """The largest finite |value| of a float buffer (0 for others)."""
    if not isinstance(expected, np.ndarray) or dtype not in TOLERANCES:
        return 0.0
    values = np.abs(as_float(expected, dtype))
    values = values[np.isfinite(values)]
    return float(values.max()) if values.size else 0.0


#: A wide case's tolerance, relative to the buffer's largest value, for a port that takes the
#: exp of its own products (attention's softmax of Q @ K^T): see _exp_of_products.
WIDE_EXP_TOLERANCE = 1e-2


def _exp_of_products(kernel, program: str) -> bool:
    """Whether the kernel takes a product of tiles (tl.dot) and the port exponentiates
    (attention's softmax of Q @ K^T). In a wide case the logits reach ~1e4 (48 times [-2, 2]
    in each operand), and a summation order other than the original's (T.gemm, or the port's
    FMA tiles) moves them by ~1e-3, which exp amplifies: measured on attention_fwd_small, one
    row of one case 0.35 off among values of 96, all others within 2e-5 (the likely cause, not
    checked: two logits of that row nearly tie). Those cases then check what they are for (a
    shift by the row's max: without it exp overflows to inf) at WIDE_EXP_TOLERANCE of the
    largest value; the other cases keep their tolerances."""
    dots = any(isinstance(s, Gemm) for s in walk_stmts(kernel.body))
    return dots and ("T.exp(" in program or "T.exp2(" in program)


def _wide_atol(dtype: str, expected: np.ndarray, rtol, atol) -> float:
    """A wide case's absolute tolerance: rounding is relative to the magnitude of what was
    summed, so a result that cancels to ~0 among large values gets rtol times the buffer's
    largest value (a softmax's outputs, at most 1, keep the usual atol)."""
    rtol = TOLERANCES[dtype][0] if rtol is None else rtol
    atol = TOLERANCES[dtype][1] if atol is None else atol
    return max(atol, rtol * _magnitude(dtype, expected))


def _tolerances(dtype: str, program: str, device: str, n: int, opts, magnitude: float = 1.0) -> tuple:
    """(rtol, atol) for one buffer (None: compare's per-dtype default; --rtol/--atol win).

    A port that sums in its own order gets the rounding of a sum of n terms (sqrt(n)/16 times
    the dtype's default, at least twice it; n the longest size of the problem), its absolute
    part relative to the buffer's largest value when that exceeds 1 (a weighted average that
    cancels to ~0 among values of 2); a float32 result computed through float16/bfloat16
    intermediates is compared at that type's tolerance; T.gemm on float32 tiles runs in TF32 on
    the GPU (10-bit mantissa products)."""
    rtol, atol = opts.rtol, opts.atol
    if any(p in program for p in REORDERING) and dtype in ("float32", "float16", "bfloat16"):
        base_rtol, base_atol = TOLERANCES[dtype]
        scale = max(2.0, float(np.sqrt(n)) / 16)
        rtol = base_rtol * scale if rtol is None else rtol
        atol = base_atol * scale * max(1.0, magnitude) if atol is None else atol
    if dtype == "float32":
        # computed through 16-bit intermediates (the original rounds them too): a 1-ulp difference
        # before a rounding can flip a 16-bit ulp, so float32 results are as precise as that type
        for narrow in ("bfloat16", "float16"):
            if f"T.Cast(T.{narrow}" in program:
                rtol = max(TOLERANCES[narrow][0], rtol or 0) if opts.rtol is None else rtol
                atol = max(TOLERANCES[narrow][1], atol or 0) if opts.atol is None else atol
                break
    if device == "cuda" and "T.gemm(" in program and dtype == "float32":
        rtol = max(TF32_TOLERANCE, rtol or 0) if opts.rtol is None else rtol
        atol = max(TF32_TOLERANCE, atol or 0) if opts.atol is None else atol
    return rtol, atol


# Draws of new inputs when a case leaves every output unchanged or uniformly constant.
REDRAWS = 2


def _informative_run(module, kernel, scalars, given, grid, original, opts, device, seed, wide=False):
    """Run the original on random inputs; when the run leaves every buffer the kernel writes
    unchanged, or writes one value everywhere (a guard never true, a dropout probability above
    1), draw new inputs (up to REDRAWS times). Returns (args, results, notes): notes say what
    the last draw still lacked."""
    written = written_buffers(kernel)
    notes = []
    for attempt in range(REDRAWS + 1):
        if attempt:  # a float scalar may be what kept the kernel idle (a probability above 1)
            scalars = _redrawn_floats(kernel, scalars, given, seed + attempt)
        args = make_args(kernel, scalars, given, seed + 7919 * attempt, wide)
        expected = _run_original(module, kernel, grid, args, original, opts, device)
        notes = _weak_case(kernel, written, args, expected)
        if not notes:
            break
    return scalars, args, expected, notes


def _redrawn_floats(kernel, scalars: dict, given: dict, seed: int) -> dict:
    """The float scalars drawn again inside (0.05, 0.95): below 1, as a probability must be."""
    rng = np.random.default_rng(seed)
    out = dict(scalars)
    for p in kernel.scalars:
        if is_float(p.dtype) and p.name not in given and p.name in out:
            out[p.name] = float(np.float32(rng.uniform(0.05, 0.95)))
    return out


def _weak_case(kernel, written, args, expected) -> list:
    outputs = [(p, a, e) for p, a, e in zip(kernel.params, args, expected)
               if isinstance(p, BufferParam) and p.name in written and isinstance(e, np.ndarray)]
    if not outputs:
        return []
    changed = [(p, a, e) for p, a, e in outputs if not np.array_equal(a, e, equal_nan=True)]
    if not changed:
        return ["unchanged: the original left every buffer it writes as it was"]
    for p, a, e in changed:
        region = e[a != e] if a.shape == e.shape else e
        if region.size > 1 and np.all(region == region.flat[0]):
            continue
        return []
    return [f"constant: the original wrote one value everywhere in {', '.join(p.name for p, _, _ in changed)}"]


def written_buffers(kernel) -> set:
    """Buffers the kernel stores to or updates atomically."""
    names = set()
    for s in walk_stmts(kernel.body):
        if isinstance(s, (Store, Atomic)):
            names.add(s.buffer)
    return names


def specializations(kernel) -> list:
    """The kernel as converted, then each flag/enum variant of a Triton kernel and each other
    value its launch may pass to a generic constexpr: verify runs the original and the port for
    every one of them."""
    return [kernel] + list(kernel.variants) + list(kernel.launch_values)


def triton_call(kernel, args) -> dict:
    """How verify calls a Triton port: the original's arguments (not the grid sizes verify
    chose for host values), the grid, and every constexpr the original runs with."""
    # grid-size parameters verify chose for host values are not arguments of the original
    keep = [i for i, p in enumerate(kernel.params) if getattr(p, "grid_axis", None) is None]
    derived = dict(zip(kernel.derived_constexprs, derived_values(kernel, args)))
    constexprs = {n: derived.get(n, v) for n, v in kernel.constexprs.items()}
    program_args = [derived[n] for n in kernel.derived_constexprs]
    return {"keep": keep, "constexprs": constexprs, "program_args": program_args,
            "program_kwargs": _generic_values(kernel),
            "num_warps": max(1, (kernel.launch.threads or 128) // 32)}


def _generic_values(kernel) -> dict:
    """The converted values of the constexprs a port's program takes as parameters (derived
    ones are passed positionally)."""
    return {n: kernel.constexprs[n] for n in kernel.generic if n not in kernel.derived_constexprs}


def derived_values(kernel, args) -> list:
    """The values of a kernel's launch-derived constexprs for one argument list, computed with
    the expressions the port's wrapper uses."""
    from porter.emit.triton_launch import host_python

    if not kernel.derived_constexprs:
        return []
    scope = {"_next_power_of_2": next_power_of_2}
    for param, value in zip(kernel.params, args):
        if not isinstance(value, np.ndarray):
            scope[param.name] = value.item() if isinstance(value, np.generic) else value
    names = {p.name: p.name for p in kernel.params}
    return [int(eval(host_python(e, names), {"__builtins__": {"int": int, "min": min, "max": max}}, scope))
            for e in kernel.derived_constexprs.values()]
