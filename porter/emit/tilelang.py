"""IR kernels -> a TileLang Python module.

Each source kernel becomes a program factory `<name>_program()` holding one `@T.prim_func`:
`T.Kernel` over the original grid (symbolic in the size parameters, so one compiled kernel
serves every problem size) and `T.Parallel` over the block tile, with the body inside it; and
a wrapper `<name>(...)` with the original's parameter order taking torch tensors. The IR
arrives ready (`kernel.printable`, transforms/printable.py); the printing decisions (names,
how a value is spelled, the wrapper's checks) are made here; `templates/` only lays the text out.
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

from porter import __version__
from porter.emit.expressions import ExprEmitter, dtype_ref, tuple_text
from porter.emit.layout import bullet, docstring, lay_out_module
from porter.emit.generated_hosts import elementwise_decorator, host_text
from porter.emit.triton_launch import LAUNCH_DEFAULTS, add_variants, host_python, triton_view
from porter.ir import philox
from porter.ir.fold import try_int
from porter.ir.loops import insert_before_continue, pipeline_stages
from porter.ir.nodes import (
    Alloc, Assign, Atomic, BinOp, Break, BufferParam, Call, Comment, Const, Continue, Decl, For, If,
    Kernel, Module, Store, Sync, UnaryOp, Var, While,
)
from porter.ir.printer import format_expr, region_text
from porter.ir.tiles import (
    Copy, CopyOut, Cumsum, Fill, Gemm, ParallelFor, Reduce, TileBuffer, TileStore,
)
from porter.ir.tile_queries import fp32_products
from porter.ir.walk import all_exprs, declared_names, walk_stmts
from porter.jinja_env import environment
from porter.emit.cuda_templates import key_text as _key_text, template_ports
from porter.ir.symbolic_ints import int_text
from porter.util.names import PORT_MODULE_NAMES, PYTHON_RESERVED, fresh_name

def _templates_dir() -> Path:
    """Top-level templates/ in a checkout; porter/templates once installed."""
    here = Path(__file__).resolve().parent.parent
    for candidate in (here.parent / "templates", here / "templates"):
        if (candidate / "module.py.j2").is_file():
            return candidate
    raise FileNotFoundError("tileport's templates/ folder is missing")
_LANES = ("tx", "ty", "tz")
_WIDENED = {"uint8": "int32", "uint16": "int32", "uint32": "int64", "uint64": "int64"}
_BLOCKS = ("bx", "by", "bz")
_RESERVED = PYTHON_RESERVED | PORT_MODULE_NAMES | {
    "torch", "kernel", "target", "range", "len", "min", "max", "abs", "int", "float", "bool", "sum", "pow",
    "round", "type", "id", "input", "object", "str"}


@dataclass
class KernelView:
    """What the template needs to lay out one kernel."""

    name: str
    program: str
    prim_func: str
    source: str
    line: int
    launch_note: str
    level: str
    rule: str | None = None
    dynamic: list = field(default_factory=list)     # (python name, its value: T.dynamic(...) as text)
    signature: list = field(default_factory=list)   # "name: annotation"
    kernel_line: str = ""
    body: list = field(default_factory=list)        # lines inside `with T.Kernel`, relative indentation
    wrapper_params: list = field(default_factory=list)
    call_args: list = field(default_factory=list)
    buffers: list = field(default_factory=list)     # (name, dtype) for wrapper checks
    # (name, dtype, "(M, K)", helper): buffers passed as views, by _shaped (or _batched: a leading
    # dimension of as many matrices as the tensor holds)
    shaped: list = field(default_factory=list)
    narrowed: list = field(default_factory=list)    # views the wrapper cuts to the grid's rows
    narrowed_flat: list = field(default_factory=list)  # flat buffers it cuts so (one element a row)
    batched: bool = False                           # a view with a batch count (the runtime's _batched)
    aligned: str = ""                               # the wrapper's test for the aligned program
    factory_params: list = field(default_factory=list)
    compile_key: str = ""                           # _compiled's key and program, as Python text
    program_call: str = ""
    unrolled_arg: str = ""                          # ", unrolled=True": _compiled's unrolled
    constexprs: list = field(default_factory=list)  # (name, value)
    derived: list = field(default_factory=list)     # (name, Python expression over wrapper params)
    triton: dict | None = None                      # Triton's calling convention (triton_view)
    # CUDA's `kernel[grid, block, shared_bytes](...)`: the block and shared bytes the port was
    # made for, and the wrapper parameters that take the caller's grid axes (name, axis)
    cuda: dict | None = None
    unpacked: list = field(default_factory=list)    # (buffer, `_member(...)`): a struct's pointer field
    nested_members: bool = False                    # a struct field's path has a dot (`o.x`)
    template_keywords: list = field(default_factory=list)  # CUDA: a generic template's `BLOCK=256`
    texture_extents: list = field(default_factory=list)  # (parameter, its texture, axis, channels)
    views: list = field(default_factory=list)  # (buffer, the original's element dtype, the port's)
    required: list = field(default_factory=list)  # wrapper parameters defaulted only for their place
    generated: str = ""  # the host function of a generated kernel (generated_hosts.py)
    # a generated elementwise kernel printed as its body over element values: the decorator,
    # signature, return annotation and lines of the function the launch helpers' `_elementwise`
    # runs (transforms/elementwise_body.py)
    elementwise: dict | None = None


def _environment():
    env = environment(_templates_dir())
    env.filters["bullet"] = bullet
    env.filters["docstring"] = docstring
    env.globals["launch_defaults"] = LAUNCH_DEFAULTS
    return env


class KernelEmitter:
    """Prints one form of a kernel from `kernel.printable` (transforms/printable.py made it: this
    class changes no IR) as the KernelView the module template lays out."""

    def __init__(self, kernel: Kernel, source_name: str, values: Kernel | None = None):
        if kernel.printable is None:
            raise ValueError(f"kernel {kernel.name!r} is not ready to print (transforms/printable.py)")
        self.k = kernel
        self.values = values or kernel  # a generic port prints kernel (stand-ins), defaults from values
        self.source_name = source_name
        ready = kernel.printable
        self.body = ready.body
        self.handles = {("thread_idx", a): _LANES[a] for a in range(3)}
        self.handles.update({("block_idx", a): _BLOCKS[a] for a in range(3)})
        self.handles.update(ready.thread_names)  # `int tid = threadIdx.x;`: the user's name
        self.names = self._names(ready.declared)
        launch = kernel.launch
        self.port_grid = ready.port_grid  # the port's T.Kernel grid
        builtins = {}
        for axis in range(3):
            builtins[("thread_idx", axis)] = self.handles[("thread_idx", axis)] if axis < len(launch.block) else "0"
            builtins[("block_idx", axis)] = self.handles[("block_idx", axis)] if axis < len(self.port_grid) else "0"
            builtins[("block_dim", axis)] = str(launch.block[axis]) if axis < len(launch.block) else "1"
        self.constants = {n: v for n, v in kernel.constexprs.items()
                          if isinstance(v, (int, float)) and not isinstance(v, bool)}
        self.expr = ExprEmitter(self.names, builtins, self.constants, exp2_float32=kernel.language == "triton")
        self.grid_names = []
        if kernel.language == "triton" and not launch.tile_grid:
            # the grid is the caller's (`kernel[grid](...)`): parameters of the prim_func
            taken = set(self.names.values()) | set(self.handles.values()) | set(kernel.constexprs)
            self.grid_names = [_safe(f"grid_{'xyz'[a]}", taken) for a in range(len(launch.grid))]
        for axis in range(3):
            grid = self.port_grid[axis] if axis < len(self.port_grid) else Const(1, "int32")
            builtins[("grid_dim", axis)] = self.grid_names[axis] if axis < len(self.grid_names) \
                else self.expr(grid)
        self.mutable = {s.var.name for s in walk_stmts(self.body) if isinstance(s, Assign)}

    def _names(self, declared) -> dict:
        """IR name -> how the body refers to it (unsigned scalars are read through a cast)."""
        taken: set = set(self.handles.values())
        names = {}
        self.param_names = {}
        for p in self.k.params:
            self.param_names[p.name] = _safe(p.name, taken)
            names[p.name] = self.param_names[p.name]
            if not isinstance(p, BufferParam) and p.dtype in _WIDENED:
                names[p.name] = f"T.Cast({dtype_ref(p.dtype)}, {names[p.name]})"
        for name in (*declared, *declared_names(self.body)):
            if name not in names:
                names[name] = _safe(name, taken)
        return names

    # ------------------------------------------------------------------ view

    def view(self) -> KernelView:
        """What the module template lays out for this kernel: its parameters, constants, the
        program factory, the body at its level, and the calling convention around it."""
        k = self.k
        v = KernelView(name=k.ident, program=f"{k.ident}_program", prim_func=k.ident,
                       source=self.source_name, line=k.loc.line, launch_note=self._launch_note(),
                       level="tile", rule="element-wise: T.Parallel over the block")
        self.parameters(v)
        self.constants_of(v)
        self.specialization(v)
        grid, handles, threads = self.program_body(v)
        self.calling_convention(v, grid, handles, threads)
        return v

    def parameters(self, v: KernelView) -> None:
        """The prim_func's signature (tensors shaped or flat, scalars widened where TileLang has
        no unsigned type), the wrapper's parameters and call arguments (a struct by value, a
        texture's extents), and the sizes TileLang binds from tensors (T.dynamic)."""
        k = self.k
        taken = set(self.names.values()) | set(self.param_names.values())
        struct_names, fields = {}, {}
        # sizes that are a 2-D buffer's shape: TileLang binds them from the tensor (T.dynamic)
        shape_sizes = {d for p in k.params if isinstance(p, BufferParam) and p.shape
                       for d in tuple(p.shape) + tuple(p.strides or ()) if isinstance(d, str) and d != "*"}
        for p in k.params:
            name = self.param_names[p.name]
            if self.grid_names and getattr(p, "grid_axis", None) is not None:
                continue  # the caller's grid replaces it
            if p.name in shape_sizes:
                arguments = f'"{name}"' if p.dtype == "int32" else f'"{name}", "{p.dtype}"'
                unit = p.name in k.aligned.unit_strides  # 1 in the aligned program: the view's rows are contiguous
                if unit:
                    declared = f"1 if aligned else T.dynamic({arguments})"
                else:
                    declared = f"T.dynamic({arguments})"
                v.dynamic.append((name, declared))
                v.wrapper_params.append(name)
                continue
            if isinstance(p, BufferParam) and p.shape:
                # "*": a batch dimension, as many matrices as the tensor holds (bound from it)
                count = _safe(f"{p.name}_batches", taken) if "*" in p.shape else None
                if count:
                    taken.add(count)
                    v.batched = True
                    v.dynamic.append((count, f'T.dynamic("{count}")'))

                def dim(d, wrapper=False, count=count):
                    if d == "*":
                        return "None" if wrapper else count  # _batched counts them
                    return self.param_names[d] if isinstance(d, str) else int_text(d)
                dims = tuple_text(dim(d) for d in p.shape)
                given = tuple_text(dim(d, wrapper=True) for d in p.shape)
                if p.strides:
                    steps = tuple_text(self.param_names.get(x, str(x)) for x in p.strides)
                    v.signature.append(f"{name}: T.StridedTensor({dims}, {steps}, {dtype_ref(p.dtype)})")
                    v.shaped.append((name, p.dtype, f"{given}, {steps}", "_batched" if count else "_shaped"))
                elif count:  # a batch of contiguous matrices: whole matrices apart
                    v.signature.append(f"{name}: T.Tensor({dims}, {dtype_ref(p.dtype)})")
                    extents = [dim(d, wrapper=True) for d in p.shape[1:]]
                    steps = tuple_text([" * ".join(extents)] + [" * ".join(extents[n + 1:]) or "1"
                                                                for n in range(len(extents))])
                    v.shaped.append((name, p.dtype, f"{given}, {steps}", "_batched"))
                else:
                    v.signature.append(f"{name}: T.Tensor({dims}, {dtype_ref(p.dtype)})")
                    v.shaped.append((name, p.dtype, given, "_shaped"))
            elif isinstance(p, BufferParam):
                if getattr(p, "view_of", ""):  # the caller's tensor of the original's type, as these
                    v.views.append((name, p.view_of, p.dtype))
                extent = _safe(f"{p.name}_numel", taken)
                v.dynamic.append((extent, f'T.dynamic("{extent}")'))
                v.signature.append(f"{name}: T.Tensor(({extent},), {dtype_ref(p.dtype)})")
                v.buffers.append((name, p.dtype))
            elif p.dtype in _WIDENED:
                # TileLang takes no unsigned scalars: pass a wider signed one, read it unsigned.
                v.signature.append(f"{name}: {dtype_ref(_WIDENED[p.dtype])}")
            else:
                # a bool parameter is annotated T.bool (the string "bool" there is no dtype to
                # TVMScript: `T.And(flag, ...)` then got an ffi.Function)
                v.signature.append(f"{name}: {'T.bool' if p.dtype == 'bool' else dtype_ref(p.dtype)}")
            member = getattr(p, "member", None)
            extent_of = getattr(p, "texture_extent", None)
            if extent_of is not None:  # a texture's size: taken from its tensor unless given
                texture = self.param_names[extent_of[0]]
                v.wrapper_params.append(f"{name}=None")
                v.call_args.append(name)
                v.texture_extents.append((name, texture, extent_of[1], k.param(extent_of[0]).texture.channels))
                continue
            if member is None:
                v.wrapper_params.append(name)
                v.call_args.append(name)
                continue
            # a struct passed by value: the wrapper takes the struct, the kernel one scalar a field
            struct = _safe(member.struct, taken) if member.struct not in struct_names else struct_names[member.struct]
            if member.struct not in struct_names:
                struct_names[member.struct] = struct
                v.wrapper_params.append(struct)
                fields[member.struct] = 0
            field_of = f'_member({struct}, "{member.field}", {fields[member.struct]})'
            v.nested_members = v.nested_members or "." in member.field
            if isinstance(p, BufferParam):  # a tensor the struct holds: taken out before the checks
                v.unpacked.append((name, field_of))
                v.call_args.append(name)
            else:
                v.call_args.append(field_of)
            fields[member.struct] += 1
        # a parameter after a texture's defaulted extents (the caller's grid axis, appended last)
        # takes a default too, which the wrapper refuses when it is left out
        defaulted = False
        for i, param in enumerate(v.wrapper_params):
            if "=" in param:
                defaulted = True
            elif defaulted:
                v.wrapper_params[i] = f"{param}=None"
                v.required.append(param)

    def constants_of(self, v: KernelView) -> None:
        """The constexprs the port fixes, a generic template's keywords, the constexprs the
        launch derives from scalar arguments."""
        k = self.k
        v.constexprs = [(n, repr(val)) for n, val in k.constexprs.items()
                        if n not in k.derived_constexprs and not (k.language == "cuda" and n in k.generic)]
        if k.language == "cuda":  # a generic template's values: the factory's and wrapper's keywords
            v.template_keywords = [f"{self.param_names.get(n, n)}={self.values.constexprs[n]!r}" for n in k.generic]
        v.derived = [(n, host_python(e, self.param_names)) for n, e in self.values.derived_constexprs.items()]

    def program_body(self, v: KernelView) -> tuple:
        """The `T.Kernel` body at the kernel's level (tile statements, thread-level code, or one
        T.Parallel over the block); (grid, block handles, threads) for the T.Kernel line."""
        k, launch = self.k, self.k.launch
        # a Triton port takes the caller's grid as parameters: its host expression (which may
        # call host-only helpers such as next_power_of_2) is never printed in the kernel
        grid = list(self.grid_names) if k.language == "triton" and self.grid_names else \
            [self.expr(g) for g in self.port_grid] or ["1"]
        if k.printable.rows:  # several rows per block: ROWS, computed by the factory from threads
            rows, widest = k.printable.rows
            v.dynamic.append((int_text(rows), f"max(1, threads // {int_text(widest)})"))
            grid[0] = f"T.ceildiv({grid[0]}, {int_text(rows)})"
            shaped = {p.name for p in k.params if getattr(p, "shape", None)}
            v.narrowed = [self.param_names[name] for name in k.printable.narrowed if name in shaped]
            v.narrowed_flat = [self.param_names[name] for name in k.printable.narrowed if name not in shaped]
        handles = ", ".join(self.handles[("block_idx", a)] for a in range(len(grid)))
        body, level = self.body, k.printable.level
        if level == "tile":
            # Tile level: whole-tile statements; each element-wise step is its own T.Parallel.
            v.level = "tile"
            v.rule = ", ".join(tile_primitives(body)) or "T.Parallel steps"
            v.rule = f"rule {k.rule}: {v.rule}" if k.rule else f"blocks: {v.rule}"
            threads = int_text(k.printable.threads)
            v.body = self.allocations(body)
            v.body += self.block(body, 0) or ["T.evaluate(0)"]
        elif level == "thread":
            # Thread-level: barriers, shared memory, shuffles and atomics need real threads.
            v.level = "thread"
            v.rule = f"not raised: {k.not_raised}" if k.not_raised else None
            block = [int_text(b) for b in k.printable.block]
            threads = block[0] if len(block) == 1 else "[" + ", ".join(block) + "]"
            v.body = [f"{self.handles[('thread_idx', d)]} = T.get_thread_binding({d})" for d in range(len(block))]
            v.body += self.allocations(body)
            v.body += self.block(body, 0)
        else:
            threads = int_text(k.printable.threads)
            lanes = [self.handles[("thread_idx", a)] for a in reversed(range(len(launch.block)))]
            extents = [int_text(b) for b in reversed(k.printable.lanes)]
            v.body = self.allocations(body)  # the lanes of vector accesses
            v.body += [f"for {', '.join(lanes)} in T.Parallel({', '.join(extents)}):"]
            v.body += self.block(body, 1) or ["    T.evaluate(0)"]
        return grid, handles, threads

    def calling_convention(self, v: KernelView, grid: list, handles: str, threads: str) -> None:
        """The T.Kernel line and what surrounds the body: Triton's `kernel[grid](...)` and its
        generated host, CUDA's `kernel[grid, block, shared_bytes](...)`, block swizzling, the
        aligned program's assumptions."""
        k = self.k
        if k.printable.swizzle is not None:  # Triton's GROUP_M order, as TileLang's block rasterization
            v.body = [f"T.use_swizzle({self.expr(k.printable.swizzle)})"] + v.body
        if k.language == "triton":
            if self.grid_names:
                v.signature += [f"{g}: T.int32" for g in self.grid_names]
                v.call_args += ["*grid"]
            v.triton = triton_view(self, threads, lanes_are_threads=v.level == "thread", aligned=bool(v.aligned),
                                   unrolled=self.k.aligned.unrolled)
            if v.level != "thread":
                threads = "threads"  # num_warps * 32, the caller's
            if self.values.generated:
                v.generated = host_text(k.ident, self.values.generated, v.triton["positional"])
                if k.printable.elementwise is not None:
                    v.elementwise = self.elementwise_view(k.printable.elementwise)
        if k.language == "cuda" and self.values.cuda_launch:
            block, shared = self.values.cuda_launch
            axes = [(self.param_names[p.name], p.grid_axis) for p in k.params
                    if getattr(p, "grid_axis", None) is not None]
            # per positional parameter, the dtype of the tensor it takes (a template's port picks
            # the instance by them)
            dtypes = dict(v.buffers) | {name: dtype for name, dtype, *_ in v.shaped}
            v.cuda = {"block": repr(tuple(block)), "shared": shared,
                      "axes": "{" + ", ".join(f'"{n}": {a}' for n, a in axes) + "}",
                      "dtypes": _key_text([dtypes.get(n) for n in v.wrapper_params]) if k.template_params else ""}
        v.kernel_line = f"with T.Kernel({', '.join(grid)}, threads={threads}) as {_tuple(handles, len(grid))}:"
        if v.aligned:  # what the aligned program may assume, for TileLang's copy vectorizer
            v.body = ["if aligned:"] + [f"    T.assume({self.param_names[n]} % {int_text(m)} == 0)"
                                        for n, m in _each_multiple(self.k.aligned.sizes)] + v.body

    def elementwise_view(self, body) -> dict:
        """A generated elementwise kernel as the function of one element's values that the
        launch helpers' `_elementwise` runs: its decorator, signature (each input annotated
        with its dtype), return annotation (the outputs') and lines."""
        outputs = [f"T.{d}" for d in body.outputs]  # annotations: T.bool is a dtype there
        lines = [f"{self.names[s.var.name]} = {self.expr(s.init)}" for s in body.lets]
        lines.append("return " + ", ".join(self.expr(r) for r in body.results))
        return {"decorator": elementwise_decorator(self.values.generated),
                "signature": ", ".join(f"{self.param_names[n]}: T.{d}" for n, d, _ in body.inputs),
                "returns": outputs[0] if len(outputs) == 1 else f"({', '.join(outputs)})", "lines": lines}

    def specialization(self, v: KernelView) -> None:
        """The program factory's parameters and how the wrapper compiles: per launch-derived
        constexpr, per generic template value, and, for a kernel with an aligned specialization
        (whole tiles, 16-byte aligned 2-D operands: TileLang's async copies), per `aligned`."""
        names = [n for n, _ in v.derived]
        if self.k.language == "cuda":
            names += list(self.k.generic)
        if (self.k.aligned.sizes or self.k.aligned.unit_strides or _has_aligned_program(self.k.body)) and v.shaped:
            tests = [f"{self.param_names[n]} == 1" for n in self.k.aligned.unit_strides]
            tests += [f"{self.param_names[n]} % {int_text(m)} == 0" for n, m in _each_multiple(self.k.aligned.sizes)]
            # unmasked tiles at the program id: the caller's grid launches no tile past the size
            tests += [f"grid[{axis}] * {int_text(tile)} <= {self.param_names[n]}"
                      for axis, n, tile in self.k.aligned.grid if n in self.param_names]
            # the operands the aligned program copies into shared tiles (cp.async, TMA); a view
            # only read or written through registers needs no alignment
            tiles = {s.name: s.scope for s in walk_stmts(self.k.body) if isinstance(s, TileBuffer)}
            staged = {s.buffer for s in walk_stmts(self.k.body) if isinstance(s, Copy) and tiles.get(s.tile) == "shared"}
            operands = [name for name, *_ in v.shaped if name in {self.param_names.get(b, b) for b in staged}]
            tests.append(f"_aligned16({', '.join(operands or [name for name, *_ in v.shaped])})")
            v.aligned = " and ".join(tests)
            names.append("aligned")
        v.factory_params = names[:-1] + ["aligned=False"] if v.aligned else list(names)
        if self.k.language == "cuda":  # a generic template value defaults to the instance's
            defaults = dict(keyword.split("=", 1) for keyword in v.template_keywords)
            v.factory_params = [f"{n}={defaults[n]}" if n in defaults else n for n in v.factory_params]
        if names:
            v.compile_key = f'("{v.name}", {", ".join(names)})'
            v.program_call = f"lambda: {v.program}({', '.join(names)})"
        else:
            v.compile_key, v.program_call = f'"{v.name}"', v.program
        # _compiled unrolls loops before code generation where a pipeline's wait counts need it
        if pipeline_stages(self.k.body) >= 3 or self.k.aligned.unrolled == "always":
            v.unrolled_arg = ", unrolled=True"
        elif self.k.aligned.unrolled == "aligned" and v.aligned:
            v.unrolled_arg = ", unrolled=aligned"

    def allocations(self, body) -> list:
        """Shared and local arrays, declared once at the top of the kernel as TileLang requires."""
        lines = []
        for s in walk_stmts(body):
            if isinstance(s, TileBuffer):
                fn = "T.alloc_shared" if s.scope == "shared" else "T.alloc_fragment"
                shape = tuple_text(int_text(d) for d in s.shape)
                lines.append(f"{self.names[s.name]} = {fn}({shape}, {dtype_ref(s.dtype)})")
            elif isinstance(s, Alloc):
                fn = "T.alloc_shared" if s.scope == "shared" else "T.alloc_local"
                joiner = " x " if self.k.language == "cuda" and self.k.generic else "x"
                dims = joiner.join(int_text(d) for d in s.shape)
                note = f"  # {s.scope} {s.dtype}[{dims}] (row-major)" if len(s.shape) > 1 else ""
                size = int_text(self.k.printable.alloc_sizes[s.name])
                lines.append(f"{self.names[s.name]} = {fn}(({size},), {dtype_ref(s.dtype)}){note}")
        return lines

    def _launch_note(self) -> str:
        L = self.values.launch
        grid = ", ".join(format_expr(g) for g in L.grid)
        where = {"launch-site": f"from the launch site (line {L.loc.line})" if L.loc else "from the launch site",
                 "inferred": "inferred from the kernel's guards (no launch site found)",
                 "given": "given on the command line",
                 "given-block": "block given on the command line, grid inferred",
                 "template-launch-block": "block from a launch that names this instantiation (inside "
                                          "host code tileport reads as a template), grid inferred",
                 "caller": "the caller's (a library kernel: no launch site, no mask that bounds it)",
                 "caller-axes": "no launch site: the axes no guard bounds are the caller's (" +
                                ", ".join(p.name for p in self.values.params if getattr(p, "grid_axis", None)
                                          is not None) + ", parameters of the port), the others from "
                                "the guards",
                 "launch-site-caller-axes": "block from the launch site; the grid axes no guard bounds are "
                                            "the caller's (" + ", ".join(
                                                p.name for p in self.values.params
                                                if getattr(p, "grid_axis", None) is not None) +
                                            ", parameters of the port), the others from the guards",
                 "launch-site-block": "block from the launch site, grid inferred from the guards "
                                      "(the launch's grid is computed at run time)"}.get(L.origin, L.origin)
        note = "".join(f"; {n}" for n in (L.note, self.values.note) if n)
        if L.tile_grid:
            tiles = ", ".join(format_expr(g) for g in L.tile_grid)
            order = f", in T.use_swizzle({format_expr(L.swizzle)}) order (Triton's grouped order as " \
                "TileLang writes it)" if L.swizzle is not None else ""
            note += f"; the port's grid: ({tiles}) tiles{order}"
        block = f"block {tuple(L.block)}"
        if tuple(L.block) == (1,) and L.threads:  # a raised kernel: TileLang's threads, no SIMT lanes
            block = f"{L.threads} threads"
        elif self.k.language == "triton" and L.threads:
            # a Triton program's block is its tile; its threads are num_warps * 32
            tile = " x ".join(str(extent) for extent in L.block)
            block = f"{L.threads} threads, a {tile} tile per program"
        return f"grid ({grid}), {block}, {where}{note}"

    # ------------------------------------------------------------------ statements

    def block(self, stmts, depth: int) -> list:
        """The lines of a statement list at `depth` indents: each statement by its printer
        (_STATEMENTS); a node type with none is an error, never silence."""
        lines = []
        for s in stmts:
            printer = _STATEMENTS.get(type(s))
            if printer is None:
                raise TypeError(f"the emitter has no printer for {type(s).__name__} statements")
            lines += printer(self, s, depth, "    " * depth)
        return lines

    def comment(self, s: Comment, depth: int, pad: str) -> list:
        return [f"{pad}# {s.text}"]

    def declaration(self, s: Decl, depth: int, pad: str) -> list:
        name = self.names[s.var.name]
        if s.var.name in self.mutable or s.init is None:
            lines = [f"{pad}{name} = T.alloc_var({dtype_ref(s.var.dtype)})"]
            return lines + ([f"{pad}{name} = {self.expr(s.init)}"] if s.init is not None else [])
        return [f"{pad}{name} = {self.expr(s.init)}"]

    def assignment(self, s: Assign, depth: int, pad: str) -> list:
        return [f"{pad}{self.names[s.var.name]} = {self.expr(s.value)}"]

    def store(self, s: Store, depth: int, pad: str) -> list:
        return [f"{pad}{self.names[s.buffer]}[{self.expr(s.index)}] = {self.expr(s.value)}"]

    def branch(self, s: If, depth: int, pad: str) -> list:
        cond, then, orelse = s.cond, s.then, s.orelse
        if not then and orelse:
            cond, then, orelse = UnaryOp("!", cond, "bool"), orelse, []
        if not then:
            return []
        lines = [f"{pad}if {self.expr(cond)}:", *self.block(then, depth + 1)]
        return lines + ([f"{pad}else:", *self.block(orelse, depth + 1)] if orelse else [])

    def while_loop(self, s: While, depth: int, pad: str) -> list:
        return [f"{pad}while {self.expr(s.cond)}:"] + (self.block(s.body, depth + 1) or [f"{pad}    T.evaluate(0)"])

    def jump(self, s, depth: int, pad: str) -> list:
        return [f"{pad}{'break' if isinstance(s, Break) else 'continue'}"]

    def barrier(self, s: Sync, depth: int, pad: str) -> list:
        return [f"{pad}T.sync_threads()" if s.kind == "block" else f"{pad}T.sync_warp()"]

    def atomic(self, s: Atomic, depth: int, pad: str) -> list:
        word = f"{self.names.get(s.buffer, s.buffer)}[{self.expr(s.index)}]"
        if s.op == "lock":
            # test-and-set: on a word that is 0 (free) or 1 (held), atomic_max returns what
            # compare-and-swap(0 -> 1) would
            return [f"{pad}while T.atomic_max({word}, {self.expr(s.value)}, "
                    f'memory_order="acq_rel", return_prev=True) == 1:',
                    f"{pad}    T.evaluate(0)  # spin until the lock is free"]
        return [f"{pad}T.atomic_{s.op}({word}, {self.expr(s.value)})"]

    def declared_at_top(self, s, depth: int, pad: str) -> list:
        return []  # arrays and tiles: allocations() declares them at the top of the kernel

    def parallel_loop(self, s: ParallelFor, depth: int, pad: str) -> list:
        its = ", ".join(self.names[x.name] for x in s.vars)
        extents = ", ".join(int_text(n) for n in s.extents)
        return [f"{pad}for {its} in T.Parallel({extents}):"] + (self.block(s.body, depth + 1)
                                                                 or [f"{pad}    T.evaluate(0)"])

    def tile_store(self, s: TileStore, depth: int, pad: str) -> list:
        idx = ", ".join(self.expr(i) for i in s.indices)
        return [f"{pad}{self.names[s.buffer]}[{idx}] = {self.expr(s.value)}"]

    def fill(self, s: Fill, depth: int, pad: str) -> list:
        if _clears(s):
            return [f"{pad}T.clear({self.names[s.buffer]})"]
        return [f"{pad}T.fill({self.names[s.buffer]}, {self.expr(s.value)})"]

    def product(self, s: Gemm, depth: int, pad: str) -> list:
        return self.gemm(s, pad)

    def copy(self, s: Copy, depth: int, pad: str) -> list:
        origin = region_text(s.origin, s.spans, self.expr)
        return [f"{pad}T.copy({self.names.get(s.buffer, s.buffer)}[{origin}], {self.names[s.tile]})"]

    def copy_out(self, s: CopyOut, depth: int, pad: str) -> list:
        origin = region_text(s.origin, s.spans, self.expr)
        return [f"{pad}T.copy({self.names[s.tile]}, {self.names.get(s.buffer, s.buffer)}[{origin}])"]

    def reduction(self, s: Reduce, depth: int, pad: str) -> list:
        return [f"{pad}T.reduce_{s.op}({self.names[s.src]}, {self.names[s.dst]}, dim={s.dim})"]

    def scan(self, s: Cumsum, depth: int, pad: str) -> list:
        rev = ", reverse=True" if s.reverse else ""
        return [f"{pad}T.cumsum({self.names[s.src]}, {self.names[s.dst]}, dim={s.dim}{rev})"]

    def serial_loop(self, s: For, depth: int, pad: str) -> list:
        return self.loop(s, depth)

    def gemm(self, s: Gemm, pad: str) -> list:
        """T.gemm on tensor cores, or, for fp32 operands the original multiplies in fp32, the
        product summed over k in order per accumulator element (T.gemm of float32 tiles is TF32)."""
        a, b, c = self.names[s.a], self.names[s.b], self.names[s.c]
        tiles = {t.name: t for t in walk_stmts(self.body) if isinstance(t, TileBuffer)}
        flags = (", transpose_A=True" if s.transpose_a else "") + (", transpose_B=True" if s.transpose_b else "")
        if not fp32_products(s, self.body):
            clear = ", clear_accum=True" if s.clear else ""
            return [f"{pad}T.gemm({a}, {b}, {c}{flags}{clear})"]
        rows, depth = tiles[s.a].shape[::-1] if s.transpose_a else tiles[s.a].shape
        cols = tiles[s.b].shape[0] if s.transpose_b else tiles[s.b].shape[1]
        i, j, k = (_safe(n, set(self.names.values())) for n in (f"{c}_i", f"{c}_j", f"{c}_k"))
        def read(tile, index):
            same = tiles[tile].dtype == tiles[s.c].dtype
            return f"{self.names[tile]}[{index}]" if same else \
                f"T.Cast({dtype_ref(tiles[s.c].dtype)}, {self.names[tile]}[{index}])"

        lines = [f"{pad}T.clear({c})"] if s.clear else []
        return lines + [f"{pad}for {i}, {j} in T.Parallel({int_text(rows)}, {int_text(cols)}):",
                        f"{pad}    for {k} in T.serial({int_text(depth)}):",
                        f"{pad}        {c}[{i}, {j}] = {c}[{i}, {j}] + "
                        f"{read(s.a, f'{k}, {i}' if s.transpose_a else f'{i}, {k}')} * "
                        f"{read(s.b, f'{j}, {k}' if s.transpose_b else f'{k}, {j}')}"]

    def loop(self, s: For, depth: int) -> list:
        pad = "    " * depth
        name = self.names[s.var.name]
        step = try_int(s.step)
        bound = _upper_bound(s)
        body_assigns = s.var.name in {x.var.name for x in walk_stmts(s.body) if isinstance(x, Assign)}
        if step == 1 and bound is not None and not body_assigns and s.var.name not in self.mutable:
            start = self.expr(s.start)
            if s.vectorized and start == "0":
                header = f"for {name} in T.vectorized({self.expr(bound)}):"
                return [f"{pad}{header}"] + self.block(s.body, depth + 1)
            if s.stages and start == "0":
                stages = "stages" if self.k.language == "triton" else s.stages  # Triton: the launch's num_stages
                header = f"for {name} in T.Pipelined({self.expr(bound)}, num_stages={stages}):"
                return [f"{pad}{header}"] + (self.block(s.body, depth + 1) or [f"{pad}    T.evaluate(0)"])
            header = f"for {name} in T.serial({self.expr(bound)}):" if start == "0" else \
                f"for {name} in T.serial({start}, {self.expr(bound)}):"
            return [f"{pad}{header}"] + (self.block(s.body, depth + 1) or [f"{pad}    T.evaluate(0)"])
        # General C for-loop: a mutable loop variable and a while loop, exactly as written.
        increment = Assign(s.var, BinOp("+", s.var, s.step, s.var.dtype))
        lines = [f"{pad}{name} = T.alloc_var({dtype_ref(s.var.dtype)})",
                 f"{pad}{name} = {self.expr(s.start)}",
                 f"{pad}while {self.expr(s.cond)}:"]
        lines += self.block(insert_before_continue(s.body, [increment]) + [increment], depth + 1)
        return lines


#: Statement node type -> the KernelEmitter method that prints it (returns are removed by
#: the front end and have none: printing one is an error).
_STATEMENTS = {
    Comment: KernelEmitter.comment, Decl: KernelEmitter.declaration, Assign: KernelEmitter.assignment,
    Store: KernelEmitter.store, If: KernelEmitter.branch, For: KernelEmitter.serial_loop,
    While: KernelEmitter.while_loop, Break: KernelEmitter.jump, Continue: KernelEmitter.jump,
    Sync: KernelEmitter.barrier, Atomic: KernelEmitter.atomic, Alloc: KernelEmitter.declared_at_top,
    TileBuffer: KernelEmitter.declared_at_top, ParallelFor: KernelEmitter.parallel_loop,
    TileStore: KernelEmitter.tile_store, Fill: KernelEmitter.fill, Gemm: KernelEmitter.product,
    Copy: KernelEmitter.copy, CopyOut: KernelEmitter.copy_out, Reduce: KernelEmitter.reduction, Cumsum: KernelEmitter.scan,
}


def tile_primitives(body) -> list:
    """The TileLang tile primitives a tile-level body uses, for reports."""
    names = {Gemm: "T.gemm", Reduce: "T.reduce", Cumsum: "T.cumsum", Fill: "T.fill", Copy: "T.copy",
             CopyOut: "T.copy"}
    used = {"T.clear" if _clears(s) else names[type(s)]
            for s in walk_stmts(body) if type(s) in names and not fp32_products(s, body)}
    if any(fp32_products(s, body) for s in walk_stmts(body)):
        used.add("fp32 FMA tiles (the original's precision; --allow-tf32 for tensor cores)")
    if any(isinstance(s, For) and s.stages for s in walk_stmts(body)):
        used.add("T.Pipelined")
    widened = sorted({s.widened for s in walk_stmts(body) if isinstance(s, Gemm) and s.widened})
    if widened:
        used.add(f"float32 accumulation (the original sums in {', '.join(widened)})")
    return sorted(used)


def _clears(s) -> bool:
    """A Fill of zero: TileLang's T.clear."""
    return isinstance(s, Fill) and isinstance(s.value, Const) and float(s.value.value) == 0.0


def port_level(kernel: Kernel) -> tuple:
    """(level, rule) a printable kernel is printed at: "tile" or "thread" (ir/tile_queries.py's
    level_of), and a description of what the program uses."""
    view = KernelEmitter(kernel, "").view()
    return view.level, view.rule


def _has_aligned_program(body) -> bool:
    """Whether the body branches on `aligned` (match/copies.py's T.copy), also when nothing but
    the operands' 16-byte alignment selects it (masked rows of a contiguous view)."""
    return any(isinstance(s, If) and s.cond == Var("aligned", "bool") for s in walk_stmts(body))


def _each_multiple(aligned_sizes: dict) -> list:
    """(size, multiple) pairs of a kernel's aligned sizes; a size several tiles step over (a
    Triton `seq_len` by BLOCK_M and BLOCK_N) has a tuple, one test each."""
    return [(n, m) for n, ms in aligned_sizes.items() for m in (ms if isinstance(ms, tuple) else (ms,))]


def _upper_bound(s: For):
    """`var < U` (or `var <= U`) as the loop's exclusive bound U, else None."""
    c = s.cond
    if isinstance(c, BinOp) and c.a == s.var and c.op in ("<", "<="):
        if c.op == "<":
            return c.b
        return BinOp("+", c.b, Const(1, c.b.dtype), c.b.dtype)
    return None


def _safe(name: str, taken: set) -> str:
    if not name.strip("_"):
        name = "unused"  # `for _ in range(...)`: TVMScript's parser discards `_` bindings
    return fresh_name(name if name not in _RESERVED and name.isidentifier() else f"{name}_", taken, numbered=False)


def _tuple(handles: str, n: int) -> str:
    return f"({handles})" if n > 1 else handles


def _names_tuple(names: list) -> str:
    """A tuple of strings as Python text (`("a",)`, `("a", "b")`), "" for none."""
    if not names:
        return ""
    quoted = [f'"{n}"' for n in names]
    return f"({', '.join(quoted)}{',' if len(quoted) == 1 else ''})"


def _kernel_view(k: Kernel, source_name: str) -> KernelView:
    """One kernel's view; a Triton kernel printed from its stand-in conversion when generic,
    with its flag/enum variants."""
    def make(kernel):
        return KernelEmitter(kernel.emit_as or kernel, source_name, values=kernel).view()

    view = make(k)
    if view.triton is not None:
        view.triton.setdefault("variants", [])
        view.triton.setdefault("merged", None)  # the variants' bodies as one (variant_bodies.py)
        view.triton.setdefault("uncovered", None)
        if k.variants:
            add_variants(view, k, make)
    return view


def emit_module(module: Module, source_name: str | None = None, shared_launcher: bool = False) -> str:
    """The whole port as Python source; same input, byte-identical output. `shared_launcher`:
    the port imports its launch helpers from the `_tileport_launch.py` beside it
    (launcher_text) instead of holding them."""
    source_name = source_name or module.source_file
    views = [_kernel_view(k, source_name) for k in module.kernels]
    template = _environment().get_template("module.py.j2")
    taken = {name for v in views for name in (v.name, v.program, f"_{v.name}", f"{v.name}_kernel")}
    templates = template_ports(module.kernels, views, taken) if module.language == "cuda" else []
    failures = [{"name": f.name, "line": f.loc.line, "code": f.diagnostic.code,
                 "message": _docstring_safe(f.diagnostic.message)} for f in module.failures]
    text = template.render(version=__version__, source=source_name, language=module.language,
                           kernels=views, failures=failures, templates=templates, deep_pipelines=any(_deep_pipelines(v) for v in views),
                           unrolled_when_aligned=_names_tuple([v.program for k, v in zip(module.kernels, views)
                                                               if k.aligned.unrolled == "aligned" and v.aligned]),
                           unrolled_always=_names_tuple([v.program for k, v in zip(module.kernels, views)
                                                         if k.aligned.unrolled == "always"]),
                           philox=_philox_constants(module), shared=[_SHARED] if shared_launcher else [])
    if shared_launcher:
        names = launcher_names_used(text)
        text = re.sub(rf"^( *)(from \S+ import ){_SHARED}$",
                      lambda m: "\n".join(m.group(1) + m.group(2) + ", ".join(group)
                                          for group in _packed(names, len(m.group(1) + m.group(2)))),
                      text, flags=re.MULTILINE)
        if not re.search(r"\btorch\.", text):  # the helpers alone used it
            text = text.replace("\nimport torch\n", "\n", 1)
    return lay_out_module(text)


def _packed(names: list, indent: int, width: int = 88) -> list:
    """The names in groups whose `from ... import a, b` lines fit `width` (black leaves such
    lines as they are, where one parenthesised import takes a line per name)."""
    groups, line = [], []
    for name in names:
        if line and indent + len(", ".join(line + [name])) > width:
            groups.append(line)
            line = []
        line.append(name)
    return groups + [line] if line else groups


#: Where the rendered port lists the launch helpers it imports, filled in once its text shows
#: which it calls.
_SHARED = "_TILEPORT_LAUNCH_HELPERS_"

#: The file name of a migrated folder's shared launch helpers.
LAUNCHER_FILE = "_tileport_launch.py"


@functools.lru_cache(maxsize=1)
def launcher_text() -> str:
    """The shared launch helpers module: every helper a port may call (templates/launcher.py.j2)."""
    everything = _Everything()
    text = _environment().get_template("launcher.py.j2").render(
        version=__version__, kernels=[everything], templates=[everything], deep_pipelines=True,
        unrolled_when_aligned="", unrolled_always="", philox=None)
    return lay_out_module(text)


@functools.lru_cache(maxsize=1)
def _launcher_names() -> tuple:
    tree = ast.parse(launcher_text())
    names = [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
    names += [t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)]
    return tuple(sorted(set(names)))


def launcher_names_used(text: str) -> list:
    """The shared helpers a port's text calls (its `_compiled` is its own, from `_compiler`)."""
    used = set(re.findall(r"\b_\w+", text.replace(_SHARED, ""))) - {"_compiled"}  # the port's own
    return sorted(used & set(_launcher_names()), key=str.lower)


class _Everything:
    """A stand-in kernel view with every part the helpers template can include switched on."""

    def __getattr__(self, name):
        return True


def _philox_constants(module: Module) -> dict | None:
    """The Philox constants for the module's `_philox` macro when a kernel (any form the port
    prints) draws random numbers; None when none does."""
    forms = [f for k in module.kernels for f in (k, k.emit_as, *k.variants, *k.launch_values) if f is not None]
    if not any(isinstance(e, Call) and e.func == "philox" for f in forms for e in all_exprs(f.body)):
        return None
    return {"rounds": philox.ROUNDS, "key_a": f"0x{philox.KEY_A:08X}", "key_b": f"0x{philox.KEY_B:08X}",
            "round_a": f"0x{philox.ROUND_A:08X}", "round_b": f"0x{philox.ROUND_B:08X}"}


def _deep_pipelines(view: KernelView) -> bool:
    """Whether a kernel's program may be compiled with loops unrolled: 3 stages or more (a
    literal count, or Triton's num_stages, which the launch may raise), or an aligned program
    that pipelines two products in one loop."""
    return bool(view.unrolled_arg or (view.triton or {}).get("unrolled_arg"))


def _docstring_safe(text: str) -> str:
    return text.replace("\\", "/").replace('"""', "'''").replace("\n", " ")
