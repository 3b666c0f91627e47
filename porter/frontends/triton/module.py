"""The per-file driver of the Triton front end: which functions are kernels, their parameters,
constexpr values, generic constexprs and variants, launch geometry (TritonFrontend).

The file is parsed, never imported or run. Every `@triton.jit` function that is launched
(`kernel[grid](...)`) or called by no other jit function and returns nothing becomes a Kernel;
the others are helpers, inlined where they are called (kernels.py). Constexpr values come from
`--constexpr`, the launch site, the autotune config, `@triton.heuristics`, the default, or are
chosen from their use (choose.py); the judge it is handed (generic/constexprs.py, by
porter/reader.py) proves which ones the port can take as parameters, and flags/enums become
variants.

Parameters. A parameter used as the base of the address of a `tl.load` / `tl.store` (or
passed a torch tensor at the launch site) is a BufferParam; the others are ScalarParams.
constexpr parameters are listed in `Kernel.constexprs` with the value the port was converted
for (`Kernel.constexpr_origin` says where it came from): `--constexpr`, else the launch site's
arguments, else the autotune config (`config` picks one), else `@triton.heuristics`, else the
parameter's default, else chosen from its use.

Dtype heuristics (Triton pointers and scalars are untyped in the source):
  * buffers: `dtypes[name]` when given; else the host code: the tensor passed at the launch
    site, traced through assignments, `.half()` / `.to(torch.float16)` / `.contiguous()`...,
    `torch.randn(..., dtype=...)`, `torch.empty_like(x)` and the callers of the host function
    (several different dtypes at the callers count as no answer; an autograd Function's forward
    is called through `.apply`, its backward's `ctx.saved_tensors` are what forward saved), or
    its `assert x.dtype == torch.float16`; a tensor made `*_like` another
    launch argument gets that argument's dtype; else the kernel: `.to(tl.float32)` applied to a
    load (directly or to the variable holding it) suggests the buffer holds float16, and
    storing a value explicitly cast `.to(tl.float16)` / `.to(tl.bfloat16)` suggests that dtype;
    else float32.
  * scalars: `dtypes[name]` when given; else an annotation (`n: tl.int32`); else what the host
    passes (an int or a float: literals, `.numel()`, `.stride(i)`, `x.shape`, `float`
    annotations, defaults); else use in the kernel: a scalar combined with float data or a float
    literal is float32 (unless it is part of an index computation, which involves program ids,
    lanes or loads), otherwise int32.
Pointer, scalar-type and dtype evidence found while converting feeds the next conversion of the
same kernel until nothing changes.
"""

from __future__ import annotations

import ast
import dataclasses
import itertools
import math
from pathlib import Path

from porter.diagnostics import Diagnostic, KernelFailure, Loc, NoKernelConverted, TileportError
from porter.kernel_budget import OutOfTime, kernel_budget
from porter.frontends.triton import generators
from porter.frontends.triton.constexpr_functions import Dtype, is_compile_time
from porter.frontends.triton.modules import ModuleIndex, find_module
from porter.frontends.triton.host import (
    GridBuilder, HConfig, HConst, HDict, HDType, HostEval, HScalar, HTensor, HTuple,
    ModuleInfo,
)
from porter.frontends.triton.choose import power_first, MAX_VARIANTS, choose_value, discrete_choices
from porter.frontends.triton.tiles import NeedTiles
from porter.frontends.triton.values import (
    DTypeValue, FnV, ModuleValue, StaticValue, TL_DTYPES, TL_UNSUPPORTED_DTYPES, TORCH_DTYPES, pyconst_dtype,
)
from porter.ir.extents import annotate_buffers
from porter.ir.nodes import Builtin, BufferParam, Const, Kernel, Launch, Module, ScalarParam, Var
from porter.ir.walk import all_exprs, declared_names, stmt_exprs, walk_expr, walk_stmts

from porter.frontends.triton.grids import infer_grid
from porter.frontends.triton.kernels import KernelConverter
from porter.frontends.triton.retry import _NeedPointer, _Retype
from porter.frontends.triton.tables import _RESERVED, _unique

_TRITON_MODULES = ("triton.language", "triton.language.core", "triton.language.math",
                   "triton.language.standard", "triton.language.semantic")


def _pinnable(kernel: Kernel) -> dict:
    """The constexpr values of a conversion that another conversion can be pinned to (plain
    values; not those the launch derives from the arguments)."""
    return {n: v for n, v in kernel.constexprs.items() if n not in kernel.derived_constexprs and
            isinstance(v, (bool, int, float, str))}


def _unused_scalars_typed_as(variant: Kernel, main: Kernel) -> Kernel:
    """The variant with each scalar parameter its body never reads typed as in the main form:
    its use is what types a scalar, and a flag's branch may be its only use (`if
    HAS_SMOOTHING: g = g - eps`), so the other form would take `eps` as an int and its
    signature would differ from the main form's (the port then dropped that form)."""
    dtypes = {p.name: p.dtype for p in main.scalars}
    for form in (variant, variant.emit_as):  # (emit_as: the stand-in conversion it prints from)
        if form is None:
            continue
        read = {e.name for e in all_exprs(form.body) if isinstance(e, Var)}
        form.params = [dataclasses.replace(p, dtype=dtypes[p.name])
                       if isinstance(p, ScalarParam) and p.name not in read and p.name in dtypes else p
                       for p in form.params]
    return variant


class TritonFrontend:
    def __init__(self, path: str, config: int | None = None, dtypes: dict | None = None, grid=None,
                 constexprs: dict | None = None, siblings: dict | None = None, find_generic=None):
        self.path = path
        # find_generic(kernel, reconvert, exclude) -> (generic names, stand-in print): the
        # judge of which constexprs the port's program may take (generic/constexprs.py,
        # handed over by porter/reader.py); None: every constexpr stays fixed
        self.find_generic = find_generic
        self.siblings = {} if siblings is None else siblings  # other tree modules' front ends
        self.modules = ModuleIndex()
        self.config = config
        self.pinned = dict(constexprs or {})  # --constexpr NAME=V: fixed, whatever the launch says
        self.overrides: dict = {}  # stand-in values while testing a port for genericity
        self.forced_pointers: dict = {}  # kernel -> pointer params found in any of its variants
        self.launch_choices: dict = {}  # kernel -> {constexpr: the values its launch may pass}
        self.origins: dict = {}  # kernel -> {constexpr: where its value came from}
        self.dtypes = {name: _given_dtype(name, dtype) for name, dtype in (dtypes or {}).items()}
        self.given_grid = tuple(int(g) for g in grid) if grid else None
        self._globals: dict = {}
        self._importing: set = set()  # tree imports being read (a cycle reads as nothing)
        self.derived: dict = {}        # kernel -> {constexpr: stand-in value}
        self.config_notes: dict = {}   # kernel -> which autotune config the port took
        self.derived_exprs: dict = {}  # kernel -> {constexpr: IR expression over its scalars}
        self.dtype_of_tensor: dict = {}  # kernel -> {constexpr: HDType following a tensor's dtype}
        self.generated: dict = {}  # kernel -> the calling convention of the generator that made it

    def loc(self, node) -> Loc:
        return Loc(self.path, getattr(node, "lineno", 0), getattr(node, "col_offset", -1) + 1)

    # ------------------------------------------------------------------ entry

    def run(self) -> Module:
        try:
            with open(self.path, encoding="utf-8") as f:
                source = f.read()
        except (OSError, UnicodeDecodeError) as exc:
            raise TileportError("TP202", f"cannot read this file: {exc}", Loc(self.path)) from exc
        try:
            tree = ast.parse(source, filename=self.path)
        except SyntaxError as exc:
            raise TileportError("TP201", f"Python syntax error: {exc.msg}",
                                Loc(self.path, exc.lineno or 0, exc.offset or 0)) from exc
        expansions, refused = generators.expand(tree, self.path)
        self.generated = {e.name: e.host for e in expansions}
        if expansions:
            tree = generators.expanded_tree(tree, expansions)
        self.info = ModuleInfo(self.path, tree)
        self.host = HostEval(self.info)
        self.host.imported = self.imported_host_value
        kernels = self.kernel_functions()
        nested = self._nested_kernels(tree)
        refusals = [KernelFailure(fn.name, self.loc(fn), exc.diagnostic) for fn, exc in refused]
        if not kernels and not nested and refusals:
            raise NoKernelConverted(refusals)
        if not kernels and not nested:
            generated = self._generated_kernels(tree)
            if generated is not None:
                fn, decorator = generated
                raise TileportError("TP203", f"'{fn.name}' uses triton.language under the decorator "
                                    f"@{decorator}, which generates its kernels: tileport reads "
                                    "@triton.jit functions and does not expand other decorators",
                                    self.loc(fn))
            raise TileportError("TP200", "no @triton.jit kernel in this file", Loc(self.path, 1, 1))
        converted, failures = [], [self._nested_failure(fn, host) for fn, host in nested]
        failures += refusals
        for fn in kernels:
            try:
                with kernel_budget():
                    converted.append(self._convert_generated(fn) if fn.name in self.generated
                                     else self.convert_generic(fn))
            except OutOfTime as out:
                failures.append(KernelFailure(fn.name, self.loc(fn), Diagnostic(
                    "TP019", out.message(fn.name), self.loc(fn))))
            except TileportError as exc:
                diagnostic = exc.diagnostic
                if diagnostic.loc is None:  # raised where no node was at hand: the kernel's line
                    diagnostic = dataclasses.replace(diagnostic, loc=self.loc(fn))
                failures.append(KernelFailure(fn.name, self.loc(fn), diagnostic))
            except RecursionError:
                failures.append(KernelFailure(fn.name, self.loc(fn), Diagnostic(
                    "TP014", f"kernel '{fn.name}' is nested too deeply to convert", self.loc(fn))))
            except Exception as exc:  # noqa: BLE001 - an internal error costs this kernel only
                failures.append(KernelFailure(fn.name, self.loc(fn), Diagnostic(
                    "TP014", f"internal error converting kernel '{fn.name}': "
                    f"{type(exc).__name__}: {exc}", self.loc(fn))))
        if not converted:
            raise NoKernelConverted(failures)
        for kernel in converted:  # a generator's kernel: the port keeps the library's convention
            kernel.generated = self.generated.get(kernel.name)
        module = Module(self.path, "triton", converted)
        module.failures = failures
        module.dependencies = sorted(self.siblings)
        return module

    def _convert_generated(self, fn: ast.FunctionDef) -> Kernel:
        """A generated elementwise kernel, converted for the first input dtype its body takes
        (float32; int32 where Triton refuses the body on floats: `a & b`, `~x`); the first
        refusal when none does."""
        host = self.generated[fn.name]
        first = None
        for dtype in generators.INPUT_DTYPES:
            generators.retype(fn, host, dtype)
            try:
                return self.convert_generic(fn)
            except TileportError as exc:
                first = first or exc
                if exc.diagnostic.code != "TP225":
                    break
        raise first

    def convert_generic(self, fn: ast.FunctionDef) -> Kernel:
        """Convert `fn`, find the constexprs its port can take as parameters, and convert it
        for the other values of its flags and enums (each a variant the port dispatches on;
        a value the kernel cannot be converted for is left out, and the port refuses it)."""
        try:
            kernel = self._convert_with_generic(fn, {})
        except TileportError as exc:
            kernel = self._other_flag_values(fn, exc)
        # a pointer unused under one flag value (`if HAS_BIAS: tl.load(b_ptr ...)`) stays one
        self.forced_pointers[fn.name] = {p.name for p in kernel.buffers}
        saved_dtypes = dict(self.dtypes)
        for p in kernel.buffers:
            self.dtypes.setdefault(p.name, p.dtype)
        # a generic constexpr needs no variants: the program takes any value of it
        choices = {n: c for n, c in self._choices(fn, kernel.constexprs).items()
                   if kernel.constexpr_origin.get(n) != "--constexpr" and n not in kernel.generic}
        combos = [dict(zip(choices, values)) for values in itertools.product(*choices.values())]
        if len(combos) > MAX_VARIANTS:
            return kernel
        try:
            for combo in combos[1:]:
                try:
                    kernel.variants.append(_unused_scalars_typed_as(self._convert_with_generic(fn, combo), kernel))
                except TileportError as exc:  # the port refuses these values; say so and why
                    left = ", ".join(f"{n}={v!r}" for n, v in combo.items())
                    d = exc.diagnostic
                    why = f"{d.code} at line {d.loc.line if d.loc else '?'}: {d.message}"
                    kernel.note = "; ".join(x for x in (kernel.note, f"{left} left out ({why})") if x)
            self._launch_values(fn, kernel)
        finally:
            self.dtypes = saved_dtypes
        return kernel

    def _other_flag_values(self, fn, exc: TileportError) -> Kernel:
        """The kernel failed at its flags' and enums' first values (the matmul tutorial's
        `IS_INT8`, taken True, bitcasts to fp8): the first other combination of their values
        that converts is the port's main form, and the port refuses the values left out;
        with none, the first failure."""
        values = {n: v.value for n, v in getattr(self, "_last_values", {}).items() if isinstance(v, StaticValue)}
        choices = self._choices(fn, values) if values else {}
        combos = [dict(zip(choices, vs)) for vs in itertools.product(*choices.values())]
        for combo in combos[1:MAX_VARIANTS]:
            try:
                kernel = self._convert_with_generic(fn, combo)
            except TileportError:
                continue
            left = ", ".join(f"{n}={v!r}" for n, v in combos[0].items())
            why = f"{exc.diagnostic.code} at line {exc.diagnostic.loc.line}: {exc.diagnostic.message}"
            kernel.note = "; ".join(x for x in (kernel.note, f"{left} left out ({why})") if x)
            return kernel
        raise exc

    def _launch_values(self, fn, kernel: Kernel) -> None:
        """The other values the launch may pass to a generic constexpr, each converted once so
        that verify runs it (the port's program is the same for all)."""
        room = MAX_VARIANTS - 1 - len(kernel.variants)
        for n, launched in self.launch_choices.get(fn.name, {}).items():
            if n not in kernel.generic:
                continue
            for value in launched:
                if value == kernel.constexprs.get(n) or room <= 0:
                    continue
                try:
                    other = self._convert_overriding(fn, {**_pinnable(kernel), n: value})
                except TileportError:
                    continue  # a value this kernel cannot take is left to the launch to refuse
                other.constexpr_origin[n] = "launch site"
                kernel.launch_values.append(other)
                room -= 1

    def _choices(self, fn, values: dict) -> dict:
        """Flag/enum constexpr -> the values to convert it for: those the kernel's tests name
        (choose.py) and those its launch may pass (`3 if causal else 1`), the current first."""
        choices = discrete_choices(fn, values)
        for n, launched in self.launch_choices.get(fn.name, {}).items():
            choices[n] = list(dict.fromkeys([values[n]] + choices.get(n, []) + launched))
        return choices

    def _convert_overriding(self, fn, overrides: dict) -> Kernel:
        """One conversion of `fn` with these constexpr values in place of its own."""
        self.overrides = overrides
        try:
            return self.convert_kernel(fn)
        finally:
            self.overrides = {}

    def _convert_with_generic(self, fn, fixed: dict) -> Kernel:
        """One conversion with `fixed` constexpr values, and its generic constexprs."""

        def reconvert(overrides: dict) -> Kernel:
            return self._convert_overriding(fn, {**fixed, **overrides})

        try:
            kernel = reconvert({})  # each Kernel keeps copies of the front end's per-kernel state
        except TileportError as exc:
            kernel = self._larger_choices(fn, fixed, reconvert, exc)
        # flags and enums the kernel tests are variants; a value list from the launch
        # (`G = 64`, `if N <= 1024: G = 256`) may still be generic
        enums = set(discrete_choices(fn, kernel.constexprs))
        # stand-in conversions keep every other constexpr at this kernel's value (a value chosen
        # after a failed static_assert would otherwise be chosen anew)
        pinned = _pinnable(kernel)

        def with_stand_ins(overrides: dict) -> Kernel:
            return reconvert({**pinned, **overrides})

        # a tl.static_range bound sets how many copies of the loop body the port holds: never
        # generic (and its stand-ins could unroll hundreds of copies)
        unrolled = _loop_bound_names(fn, ("static_range",))
        if self.find_generic is not None:
            kernel.generic, kernel.emit_as = self.find_generic(kernel, with_stand_ins, exclude=enums | unrolled)
        for n in fixed:
            kernel.constexpr_origin[n] = "variant"
        return kernel

    def _nested_kernels(self, tree) -> list:
        """(kernel, host function) for each @triton.jit function defined inside a function or
        class (the old matmul tutorial's `f8_to_f16` defines and launches its `kernel`): it is
        created when the host runs, and its names may be the host's locals."""
        out = []

        def visit(node, host):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    if host is not None and isinstance(child, ast.FunctionDef) and \
                            any(self.info.is_jit(d) for d in child.decorator_list):
                        out.append((child, host))
                    visit(child, child if host is None else host)
                else:
                    visit(child, host)
        visit(tree, None)
        return out

    def _nested_failure(self, fn, host) -> KernelFailure:
        kind = "class" if isinstance(host, ast.ClassDef) else "function"
        return KernelFailure(fn.name, self.loc(fn), Diagnostic(
            "TP205", f"kernel '{fn.name}' is defined inside the {kind} '{host.name}' (line {host.lineno}): "
            "tileport ports kernels defined at module level", self.loc(fn)))

    def _generated_kernels(self, tree):
        """(function, decorator) of a function that uses `tl.*` under a decorator that is not
        triton's (a library's kernel template, such as `@libentry()` or `@pointwise(...)`)."""
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef) or not node.decorator_list:
                continue
            uses_tl = any(isinstance(n, ast.Attribute) and self.info.qualname(n).startswith("triton.language")
                          for n in ast.walk(node))
            if not uses_tl:
                continue
            for d in node.decorator_list:
                q = self.info.qualname(d.func if isinstance(d, ast.Call) else d)
                if q and not q.startswith("triton") and q.split(".")[-1] not in ("jit", "autotune", "heuristics"):
                    return node, ast.unparse(d.func if isinstance(d, ast.Call) else d)
        return None

    def _larger_choices(self, fn, fixed, reconvert, exc) -> Kernel:
        """A `tl.static_assert` failed on chosen constexpr values (`BLOCK_N <= HEAD_DIM` with
        HEAD_DIM chosen): try the chosen sizes all equal (64, then 32), then in reverse order;
        else report the first attempt's failure past the assert (what stops the kernel where
        its own checks pass: the tutorial's TMA attention stops at a descriptor load), or the
        assert's."""
        chosen = {n: v.value for n, v in self._last_values.items()
                  if self.origins.get(fn.name, {}).get(n, "").startswith("chosen") and
                  isinstance(v.value, int) and not isinstance(v.value, bool)} \
            if exc.diagnostic.code == "TP229" else {}
        names = list(chosen)
        attempts = [dict.fromkeys(names, 64), dict.fromkeys(names, 32),
                    dict(zip(names, reversed(list(chosen.values()))))]
        further = None
        for attempt in attempts if chosen else ():
            try:
                kernel = reconvert(attempt)
            except TileportError as failure:
                if further is None and failure.diagnostic.code != "TP229":
                    further = failure
                continue
            for n in chosen:
                kernel.constexpr_origin[n] = "chosen"
            return kernel
        raise further or exc

    def kernel_functions(self) -> list:
        called = set()
        for fn in self.info.jit.values():
            for node in ast.walk(fn):
                if isinstance(node, ast.Call):
                    f = node.func
                    name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
                    if name in self.info.jit and name != fn.name:
                        called.add(name)
        out = []
        for name, fn in self.info.jit.items():
            returns_value = any(isinstance(n, ast.Return) and n.value is not None for n in ast.walk(fn))
            if name in self.info.launches or (name not in called and not returns_value):
                out.append(fn)
        return out

    # ------------------------------------------------------------------ module globals

    def global_value(self, name: str, node=None):
        if name in self._globals:
            return self._globals[name]
        self._globals[name] = None  # an import cycle between tree modules resolves to nothing
        try:
            value = self._global_value(name, node)
        except BaseException:
            del self._globals[name]
            raise
        self._globals[name] = value
        return value

    def _global_value(self, name: str, node):
        if name in self.info.jit:
            return FnV("jit", name, self.info.jit[name], self)
        in_tree = self.tree_value(name)
        if in_tree is not None:
            return in_tree
        if name in self.info.imports:
            return self.resolve_path(self.info.imports[name], node)
        module = self.info.scopes[0]
        b = self.host.lookup(name, module, (10**9, 0))
        if b is not None:
            ev = module.events[name][b.index]
            if ev.kind == "import":
                return self.resolve_path(ev.value, node)
            if ev.kind == "def":
                if isinstance(ev.node, ast.FunctionDef) and is_compile_time(ev.node, self.info.qualname):
                    return FnV("compile_time", name, ev.node, self)
                return None
            value = self.from_host(self.host.binding_value(b))
            if value is None and ev.kind == "assign" and not ev.path:
                return self._alias(ev.value, node)
            return value
        if name in ("min", "max", "abs", "int", "float", "bool", "len", "range", "print",
                    "isinstance", "round"):
            return FnV("py", name)
        if name == "tl":
            return ModuleValue("triton.language")
        if name == "triton":
            return ModuleValue("triton")
        return None

    def compile_time_lookup(self, name: str):
        """A module-level name as a compile-time function reads it (constexpr_functions.py):
        Python constants, dtypes, `tl`, and other compile-time functions; KeyError else."""
        value = self.global_value(name)
        if isinstance(value, StaticValue):
            return value.value
        if isinstance(value, DTypeValue):
            return Dtype(value.dtype)
        if isinstance(value, ModuleValue) and value.path in ("triton.language", "triton.language.core"):
            return "tl" if value.path == "triton.language" else "tl.core"
        if isinstance(value, FnV) and value.kind == "compile_time":
            return value.node
        if isinstance(value, FnV) and value.kind == "tl":
            return f"tl.{value.name}"
        raise KeyError(name)

    def _alias(self, expr, node, scope=None):
        """A module-level name bound to a path of kernel-usable values (`rsqrt =
        libdevice.rsqrt`, `tanh = shim.tanh` where `shim` is a math module, `helper =
        other_helper`), to what a helper of this file returns (`exp = get_exp()`), or to a
        choice between paths the host decides (`fast if FLAG else tl.exp`): what the path
        names, else None."""
        if isinstance(expr, ast.Name):
            return self.global_value(expr.id, node)
        if isinstance(expr, ast.Attribute):
            base = self._alias(expr.value, node)
            if isinstance(base, ModuleValue):
                return self.module_attr(base, expr.attr, node)
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and not expr.args \
                and not expr.keywords:  # `exp = get_exp()`: the path a helper of this file returns
            found = self.host_function(expr.func.id, self.info.scopes[0])
            if found is not None and found[1] is self.host:
                returns = [r for r in ast.walk(found[0]) if isinstance(r, ast.Return) and r.value]
                if len(returns) == 1:
                    return self._alias(returns[0].value, node, self.info.scope_of.get(id(found[0])))
        if isinstance(expr, ast.IfExp):  # a choice the host can make statically
            test = self.host.value(expr.test, scope or self.info.scopes[0])
            if isinstance(test, HConst):
                return self._alias(expr.body if test.value else expr.orelse, node, scope)
        return None

    def tree_value(self, name: str):
        """A name imported from a module of the user's tree (read, never imported): a
        `@triton.jit` helper, a module constant, or the module itself (`tle.program_id`)."""
        imported = self._tree_import(name)
        if imported is not None:
            value = self.sibling(imported[0]).global_value(imported[1])
            if value is not None or imported[0].name != "__init__.py":
                return value
            # `from pkg import module`: a submodule the package's __init__ does not bind
        if name in self.info.import_from:
            module, level, attr = self.info.import_from[name]
            source = find_module(self.path, f"{module}.{attr}" if module else attr, level)
            return ModuleValue(f"tree:{source}") if source is not None else None
        if name in self.info.import_module:
            source = find_module(self.path, self.info.import_module[name], 0)
            return ModuleValue(f"tree:{source}") if source is not None else None
        return None

    def _tree_import(self, name: str):
        """(module file, attribute) of `from M import attribute as name` when M is in the tree."""
        if name not in self.info.import_from:
            return None
        module, level, attr = self.info.import_from[name]
        source = find_module(self.path, module, level)
        return (source, attr) if source is not None else None

    def host_function(self, name: str, scope, depth: int = 0):
        """(FunctionDef, HostEval) of the host helper `name` called in `scope`: a function of
        this file, or one imported from a module of the tree (`from .utils import helper`,
        followed through re-exports)."""
        b = self.host.lookup(name, scope, (10**9, 0))
        if b is not None:
            ev = self.host._scope_ids[b.scope].events[b.name][b.index]
            if ev.kind == "def" and isinstance(ev.node, ast.FunctionDef):
                return ev.node, self.host
        imported = self._tree_import(name)
        if imported is None or depth > 8:
            return None
        other = self.sibling(imported[0])
        return other.host_function(imported[1], other.info.scopes[0], depth + 1)

    def imported_host_value(self, name: str, depth: int = 0):
        """The host value of `name` imported from a module of the tree (a dtype table, a
        constant), as that module binds it at its top level; None when it is not one."""
        imported = self._tree_import(name)
        if imported is None or depth > 8 or imported in self._importing:
            return None
        other = self.sibling(imported[0])
        self._importing.add(imported)
        try:
            node = ast.Name(imported[1], ast.Load(), lineno=10**9, col_offset=0)
            return other.host.value(node, other.info.scopes[0])
        finally:
            self._importing.discard(imported)

    def sibling(self, source) -> TritonFrontend:
        """The front end of another module of the tree, parsed once per conversion."""
        key = str(source)
        if key not in self.siblings:
            fe = TritonFrontend(key, siblings=self.siblings)
            fe.modules = self.modules  # one parse per file for the whole conversion
            self.siblings[key] = fe
            tree = self.modules.tree(source)
            fe.info = ModuleInfo(key, tree if tree is not None else ast.Module(body=[], type_ignores=[]))
            fe.host = HostEval(fe.info)
            fe.host.imported = fe.imported_host_value
        return self.siblings[key]

    @staticmethod
    def from_host(v):
        if isinstance(v, HConst):
            return StaticValue(v.value)
        if isinstance(v, HDType) and v.dtype:
            return DTypeValue(v.dtype)
        if isinstance(v, HTuple) and all(isinstance(i, HConst) for i in v.items):
            return StaticValue(tuple(i.value for i in v.items))
        return None

    def resolve_path(self, path: str, node=None):
        if path in ("triton",) or path in _TRITON_MODULES or path.startswith("triton.language.extra"):
            if path.startswith("triton.language.extra") and not path.endswith("libdevice") and \
                    path.split(".")[-1] not in ("extra", "cuda", "hip"):
                return FnV("libdevice", path.split(".")[-1])
            return ModuleValue(path)
        if path == "math":
            return ModuleValue("math")
        if "." in path:
            prefix, attr = path.rsplit(".", 1)
            base = self.resolve_path(prefix, node)
            if isinstance(base, ModuleValue):
                return self.module_attr(base, attr, node)
        return ModuleValue(path)

    def module_attr(self, mod: ModuleValue, name: str, node):
        p = mod.path
        if p.startswith("tree:"):
            value = self.sibling(p[len("tree:"):]).global_value(name, node)
            if value is None:
                raise TileportError("TP226", f"'{name}' is not a @triton.jit function or constant "
                                    f"of {Path(p[5:]).name}", self.loc(node))
            return value
        if "libdevice" in p:
            return FnV("libdevice", name)
        if p.startswith("triton.language.extra"):
            if name in ("cuda", "hip", "libdevice"):
                return ModuleValue(f"{p}.{name}")
            return FnV("libdevice", name)
        if p in _TRITON_MODULES:
            if name in TL_DTYPES:
                return DTypeValue(TL_DTYPES[name])
            if name in TL_UNSUPPORTED_DTYPES:
                return DTypeValue(name)  # comparable (`x.dtype.element_ty == tl.float8e5`); not usable
            if name in ("math", "core", "standard", "semantic"):
                return ModuleValue(f"triton.language.{name}")
            if name == "extra":
                return ModuleValue("triton.language.extra")
            return FnV("tl", name)
        if p == "triton":
            if name == "language":
                return ModuleValue("triton.language")
            return FnV("tl", name)
        if p == "math":
            if name in ("pi", "e", "inf", "nan", "tau"):
                return StaticValue(getattr(math, name))
            return FnV("pymath", name)
        raise TileportError("TP217", f"'{p}.{name}' cannot be used in a kernel", self.loc(node))

    # ------------------------------------------------------------------ kernels

    def convert_kernel(self, fn: ast.FunctionDef) -> Kernel:
        loc = self.loc(fn)
        args = fn.args
        if args.vararg or args.kwarg or args.kwonlyargs:
            raise TileportError("TP216", f"kernel '{fn.name}' has *args/**kwargs/keyword-only "
                                "parameters; not supported", loc)
        params = list(args.posonlyargs) + list(args.args)
        defaults = dict(zip([p.arg for p in params[len(params) - len(args.defaults):]], args.defaults))
        constexpr_names = [p.arg for p in params if self._is_constexpr_annotation(p.annotation)]
        runtime = [p.arg for p in params if p.arg not in constexpr_names]
        site = self.info.launches.get(fn.name)
        site_args = site.args_by_param(fn) if site else {}
        config = self._autotune_config(fn)
        constexprs = self._constexpr_values(fn, constexpr_names, site, site_args, config, defaults)

        # what is known before converting: annotations, then the host (dtypes wins over both)
        fixed_scalar, host_tensor = {}, {}
        pointers = set(self.forced_pointers.get(fn.name, ()))
        for p in params:
            if p.arg in constexpr_names:
                continue
            ann = self._annotation_dtype(p.annotation)
            if ann == "pointer" or (isinstance(ann, tuple)):
                pointers.add(p.arg)
                if isinstance(ann, tuple) and p.arg not in self.dtypes:
                    host_tensor[p.arg] = HTensor(ann[1])
                continue
            if ann:
                fixed_scalar[p.arg] = ann
                continue
            hv = self.host.value(site_args[p.arg], site.scope) if p.arg in site_args else None
            if isinstance(hv, HTensor):
                pointers.add(p.arg)
                host_tensor[p.arg] = hv
            elif isinstance(hv, HConst) and isinstance(hv.value, (int, float, bool)):
                fixed_scalar[p.arg] = pyconst_dtype(hv.value)
            elif isinstance(hv, HScalar):
                fixed_scalar[p.arg] = "float32" if hv.kind == "float" else "int32"

        for name in _loop_bound_names(fn):  # a loop bound is an integer, whatever else it meets
            if name in runtime and name not in fixed_scalar and name not in pointers:
                fixed_scalar[name] = "int32"
        float_guess: set = set()
        int_evidence: set = set()  # scalars some pass saw used as integers: never guessed float
        hints: dict = {}
        tile_mode = False
        kernel_body = None
        conv = None
        for _ in range(3 * len(params) + 6):
            scalar_dtypes = {p: self.dtypes.get(p) or fixed_scalar.get(p) or
                             ("float32" if p in float_guess else "int32")
                             for p in runtime if p not in pointers}
            for p in list(fixed_scalar):
                if p in pointers:
                    fixed_scalar.pop(p)
            buffer_dtypes = {p: self._buffer_dtype(p, pointers, host_tensor, hints)
                             for p in runtime if p in pointers}
            for n, follows in self.dtype_of_tensor.get(fn.name, {}).items():
                same = [p for p in sorted(buffer_dtypes)
                        if self._tensor_binding(p, host_tensor, site, site_args) == follows.like]
                if same and n in constexprs:
                    constexprs[n] = DTypeValue(follows.of(buffer_dtypes[same[0]]))
            unknown = {p for p in scalar_dtypes if p not in fixed_scalar}
            conv = KernelConverter(self, fn, runtime, constexprs, scalar_dtypes, buffer_dtypes,
                                   unknown, tile_mode, self._num_stages(site, config))
            # buffers whose dtype nothing but the kernel's own use can tell
            conv.guessed = {p for p in pointers if p not in self.dtypes and
                            not (p in host_tensor and host_tensor[p].dtype)}
            kernel_body = None
            try:
                kernel_body = conv.convert()
            except NeedTiles:
                tile_mode = True
                continue
            except _Retype:
                hints.update(conv.evidence.buffer_hints)
                fixed_scalar.update({p: "int32" for p in conv.evidence.int_params})
                continue
            except _NeedPointer as need:
                if need.name in pointers:  # pragma: no cover - defensive
                    raise
                pointers.add(need.name)
                continue
            int_evidence |= conv.evidence.int_params & unknown
            new_float = (conv.evidence.float_params & unknown) - float_guess - int_evidence
            new_hints = {b: d for b, d in conv.evidence.buffer_hints.items() if hints.get(b) != d}
            if not new_float and not new_hints:
                break
            float_guess |= new_float
            hints.update(new_hints)
        if kernel_body is None:
            raise TileportError("TP224", f"could not tell the pointer parameters of kernel "
                                f"'{fn.name}' apart from its scalars", loc)

        ir_params = []
        for p in params:
            if p.arg in constexpr_names:
                continue
            ploc = self.loc(p)
            if p.arg in pointers:
                ir_params.append(BufferParam(p.arg, conv.buffer_dtypes[p.arg], loc=ploc))
            else:
                ir_params.append(ScalarParam(p.arg, conv.scalar_dtypes[p.arg], loc=ploc))
        kernel = Kernel(fn.name, "triton", ir_params, kernel_body, None, loc,
                        constexprs={n: (v.dtype if isinstance(v, DTypeValue) else v.value)
                                    for n, v in constexprs.items()})
        kernel.derived_constexprs = dict(self.derived_exprs.get(fn.name, {}))
        kernel.dtype_constexprs = tuple(n for n, v in constexprs.items() if isinstance(v, DTypeValue))
        kernel.constexpr_origin = dict(self.origins.get(fn.name, {}))
        kernel.note = self.config_notes.get(fn.name, "")
        kernel.fastest_strides = {b: tuple(sorted(s)) for b, s in conv.evidence.fastest_strides.items()}
        kernel.launch = self._launch(kernel, fn, conv, site, config, constexprs)
        annotate_buffers(kernel)
        return kernel

    def _tensor_binding(self, param: str, host_tensor: dict, site, site_args: dict):
        """The host binding of the tensor the launch passes for pointer `param` (for a
        constexpr that is that tensor's dtype), or None."""
        h = host_tensor.get(param)
        if h is not None and h.dtype is None and h.like is not None:
            return h.like
        arg = site_args.get(param)
        if isinstance(arg, ast.Name) and site is not None:
            return self.host.lookup(arg.id, site.scope, (arg.lineno, arg.col_offset))
        return None

    def _is_constexpr_annotation(self, ann) -> bool:
        if ann is None:
            return False
        if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
            return ann.value.split(".")[-1] == "constexpr"
        return self.info.qualname(ann).split(".")[-1] == "constexpr"

    def _annotation_dtype(self, ann):
        """IR dtype of a `tl.int32`-style annotation; "pointer" / ("pointer", dtype) for pointers."""
        if ann is None:
            return None
        if isinstance(ann, ast.Call) and self.info.qualname(ann.func).endswith("pointer_type") \
                and ann.args:
            inner = self._annotation_dtype(ann.args[0])
            return ("pointer", inner) if isinstance(inner, str) and inner != "pointer" else "pointer"
        if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
            text = ann.value.split(".")[-1]
        else:
            q = self.info.qualname(ann)
            if not q:
                return None
            text = q.split(".")[-1] if q.startswith("triton") or q in ("float", "int", "bool") else ""
        if text in TL_DTYPES:
            return TL_DTYPES[text]
        if text in ("float",):
            return "float32"
        if text in ("int",):
            return "int32"
        if text == "bool":
            return "bool"
        if text in ("pointer_type", "tensor"):
            return "pointer"
        return None

    def _buffer_dtype(self, p, pointers, host_tensor, hints) -> str:
        if p in self.dtypes:
            return self.dtypes[p]
        hv = host_tensor.get(p)
        if hv is not None and hv.dtype:
            return hv.dtype
        if hv is not None and hv.like is not None:
            group = [q for q in sorted(pointers) if (h := host_tensor.get(q)) is not None
                     and h.dtype is None and h.like == hv.like]
            for q in group:
                if q in self.dtypes:
                    return self.dtypes[q]
            if p in hints:
                return hints[p]
            for q in group:
                if q in hints:
                    return hints[q]
        return hints.get(p, "float32")

    def _autotune_config(self, fn):
        dec = self.info.autotune.get(fn.name)
        if dec is None:
            return None
        node = dec.args[0] if dec.args else next((k.value for k in dec.keywords if k.arg == "configs"),
                                                 None)
        if node is None:
            return None
        configs = self.host.value(node, self.info.scopes[0])
        if not isinstance(configs, HTuple) or not configs.items:
            return None
        index = self.config if self.config is not None else _general_config(configs.items)
        if not 0 <= index < len(configs.items):
            raise TileportError("TP204", f"autotune config {index} does not exist: kernel "
                                f"'{fn.name}' has {len(configs.items)} configs", self.loc(dec))
        cfg = configs.items[index]
        if isinstance(cfg, HConfig):
            values = ", ".join(f"{k}={v.value}" for k, v in cfg.kwargs.items() if isinstance(v, HConst))
            self.config_notes[fn.name] = (f"autotune config {index} of {len(configs.items)} "
                                          f"({values}; pick another with --config N)")
        return cfg if isinstance(cfg, HConfig) else None

    def _constexpr_values(self, fn, names, site, site_args, config, defaults) -> dict:
        values = {}
        missing = {}
        origin = self.origins.setdefault(fn.name, {})
        origin.clear()
        self.derived.pop(fn.name, None)
        self.derived_exprs.pop(fn.name, None)
        tensor_dtypes = self.dtype_of_tensor.setdefault(fn.name, {})
        tensor_dtypes.clear()
        for n in names:
            v = None
            if n in self.overrides:
                values[n] = StaticValue(self.overrides[n])
                origin[n] = "stand-in"
                continue
            if n in self.pinned:
                values[n] = StaticValue(self.pinned[n])
                origin[n] = "--constexpr"
                continue
            if n in site_args:
                hv = self.host.value(site_args[n], site.scope)
                v = self.from_host(hv)
                if v is None and isinstance(hv, HDType) and hv.like is not None:
                    # `torch_to_triton_dtype[x.dtype]`: x's buffer dtype, once the kernel has it
                    tensor_dtypes[n] = hv
                    v = DTypeValue(hv.of("float32"))
                options = [o if isinstance(o, StaticValue) else self.from_host(o) if not isinstance(o, (int, float))
                           else StaticValue(o) for o in getattr(hv, "options", ())]
                if v is None and options and all(isinstance(o, StaticValue) for o in options):
                    # `stage = 3 if causal else 1`: each value the launch can pass is a variant
                    v = options[0]
                    self.launch_choices.setdefault(fn.name, {})[n] = [o.value for o in options]
                if v is None:
                    v = self._derived_constexpr(fn, n, site, site_args, values)
                if v is None:
                    missing[n] = f"its launch-site value `{ast.unparse(site_args[n])}` is not a " \
                                 "compile-time constant, nor computed from the kernel's arguments"
            if v is not None:
                origin[n] = "derived" if n in self.derived_exprs.get(fn.name, {}) else "launch site"
            if v is None and config is not None and n in config.kwargs:
                v = self.from_host(config.kwargs[n])
                if v is not None:
                    origin[n] = "autotune config"
            if v is not None:
                values[n] = v
        default_values = {}
        for n in names:
            if n not in values and n in defaults:
                v = self.from_host(self.host.value(defaults[n], self.info.scopes[0]))
                if v is not None:
                    default_values[n] = v
        before = set(values)
        self._heuristics(fn, names, values, default_values, site, site_args)
        origin.update({n: "heuristics" for n in set(values) - before})
        taken = {v.value for v in values.values() if isinstance(v, StaticValue)}
        for n in power_first(fn, names):
            if n in values:
                continue
            if n in default_values:
                values[n] = default_values[n]
                origin[n] = "default"
                continue
            chosen = choose_value(fn, n, taken, {k: v.value for k, v in values.items() if isinstance(v, StaticValue)})
            if chosen is None:
                reason = missing.get(n, "no launch site, autotune config or default gives it")
                raise TileportError("TP220", f"constexpr '{n}' of kernel '{fn.name}' has no value: "
                                    f"{reason}; pass --constexpr {n}=VALUE", self.loc(fn))
            values[n] = StaticValue(chosen)
            taken.add(chosen)
            origin[n] = "chosen" if n not in missing else "chosen (the launch computes it at run time)"
        self._last_values = {n: values[n] for n in names}
        return dict(self._last_values)

    def _derived_constexpr(self, fn, name, site, site_args, values):
        """A constexpr the launch computes from the kernel's own scalar arguments (`BLOCK =
        triton.next_power_of_2(n_cols)`): the port is compiled per value, computed by its
        wrapper with the same expression. The body is converted with a stand-in power of two
        that no other constexpr has, so that every use prints by name."""
        params = [p.arg for p in list(fn.args.posonlyargs) + list(fn.args.args)
                  if not self._is_constexpr_annotation(p.annotation)]
        builder = GridBuilder(self.host, site, fn, {p: "int32" for p in params if p in site_args},
                              {}, self.host_function)
        expr = builder.host_expr(site_args[name])
        if expr is None or not any(isinstance(e, Var) for e in walk_expr(expr)):
            return None
        used = {v.value for v in values.values() if isinstance(v, StaticValue)} | \
            {v for v in self.derived.get(fn.name, {}).values()}
        stand_in = 1024
        while stand_in in used:
            stand_in *= 2
        self.derived.setdefault(fn.name, {})[name] = stand_in
        self.derived_exprs.setdefault(fn.name, {})[name] = expr
        return StaticValue(stand_in, name)

    def _heuristics(self, fn, names, values, default_values, site, site_args):
        dec = self.info.heuristics.get(fn.name)
        if dec is None:
            return
        node = dec.args[0] if dec.args else next((k.value for k in dec.keywords if k.arg == "values"),
                                                 None)
        if not isinstance(node, ast.Dict):
            return
        keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
        known = {}
        for n, v in list(values.items()) + [(n, v) for n, v in default_values.items()
                                             if n not in keys]:
            known[n] = HConst(v.value) if isinstance(v, StaticValue) else HDType(v.dtype)
        for pname, arg in site_args.items():
            if pname not in known and site is not None:
                known[pname] = self.host.value(arg, site.scope)
        for k, lam in zip(node.keys, node.values):
            if not (isinstance(k, ast.Constant) and k.value in names and k.value not in values):
                continue
            if not isinstance(lam, ast.Lambda) or len(lam.args.args) != 1:
                continue
            scope = self.info.scope_of.get(id(lam), self.info.scopes[0])
            hv = self.host.value(lam.body, scope, {lam.args.args[0].arg: HDict(known)})
            v = self.from_host(hv)
            if v is not None:
                values[k.value] = v
                known[k.value] = hv

    # ------------------------------------------------------------------ launch

    def _grid_params(self, kernel, fn, site, constexprs):
        """A grid computed from host values the kernel never receives (`grid = (M,)`): each such
        dim becomes a scalar parameter of the port (named after the host value when it is a
        name) that the caller passes, as the launch does. None when no dim can be expressed
        either way."""
        scalar_dtypes = {p.name: p.dtype for p in kernel.scalars}
        cvals = {n: v.value for n, v in constexprs.items() if isinstance(v, StaticValue)}
        dims = GridBuilder(self.host, site, fn, scalar_dtypes, cvals).build(partial=True)
        if not dims or len(dims) > 3:
            return None
        # not a local of the kernel either (`bh = tl.program_id(1)` beside a host `bh` of the
        # grid): the two would be one name to the IR, and the grid's size would read as the id
        taken = {p.name for p in kernel.params} | set(constexprs) | _RESERVED | set(declared_names(kernel.body))
        out = []
        for axis, d in enumerate(dims):
            if not isinstance(d, ast.AST):
                out.append(d)
                continue
            hint = d.id if isinstance(d, ast.Name) else f"grid_{'xyz'[axis]}"
            name = _unique(hint, taken)
            taken.add(name)
            kernel.params.append(ScalarParam(name, "int32", loc=site.loc, grid_axis=axis))
            out.append(Var(name, "int32"))
        return tuple(out)

    def _free_grid(self, kernel) -> tuple:
        """One size parameter per grid axis the kernel reads (`grid_x`, ...), not an argument
        of the original: the port takes the grid from its caller, verify chooses it."""
        used = {e.axis for s in walk_stmts(kernel.body) for x in stmt_exprs(s)
                for e in walk_expr(x) if isinstance(e, Builtin) and e.kind in ("block_idx", "grid_dim")}
        taken = {p.name for p in kernel.params} | set(kernel.constexprs) | _RESERVED | set(declared_names(kernel.body))
        dims = []
        for axis in range(max(used | {0}) + 1):
            name = _unique(f"grid_{'xyz'[axis]}", taken)
            taken.add(name)
            kernel.params.append(ScalarParam(name, "int32", grid_axis=axis))
            dims.append(Var(name, "int32"))
        return tuple(dims)

    def _launch_option(self, site, config, name: str):
        """An int launch option (`num_warps=8`, `num_stages=3`): the launch site's (or its
        warmup call's), else the autotune config's, else None."""
        node = site.keyword(name) if site is not None else None
        hv = self.host.value(node, site.scope) if node is not None else None
        if not (isinstance(hv, HConst) and isinstance(hv.value, int)) and config is not None:
            hv = getattr(config, name, None)
        return hv.value if isinstance(hv, HConst) and isinstance(hv.value, int) else None

    def _num_stages(self, site, config) -> int:
        """Software-pipeline depth for K loops: the launch's or config's num_stages, else 2."""
        stages = self._launch_option(site, config, "num_stages")
        return 2 if stages is None else max(1, min(stages, 4))

    def _num_warps(self, site, config) -> int:
        warps = self._launch_option(site, config, "num_warps")
        return 4 if warps is None else warps

    def _launch(self, kernel, fn, conv, site, config, constexprs) -> Launch:
        lane = conv.lane
        block = tuple(reversed(lane)) if lane else (1,)
        threads = self._num_warps(site, config) * 32
        if self.given_grid:
            return Launch(tuple(Const(g, "int32") for g in self.given_grid), block, 0, "given",
                          None, threads)
        grid = None
        if site is not None:
            scalar_dtypes = {p.name: p.dtype for p in kernel.scalars}
            cvals = {n: v.value for n, v in constexprs.items() if isinstance(v, StaticValue)}
            grid = GridBuilder(self.host, site, fn, scalar_dtypes, cvals).build()
        if grid is not None and len(grid) > 3:
            raise TileportError("TP240", f"the launch site at line {site.loc.line} gives a {len(grid)}-D grid; "
                                "a launch grid has 1 to 3 dimensions", site.loc)
        if grid is not None:
            used = {e.axis for s in walk_stmts(kernel.body) for x in stmt_exprs(s)
                    for e in walk_expr(x) if isinstance(e, Builtin) and
                    e.kind in ("block_idx", "grid_dim")}
            while len(grid) < max(used | {0}) + 1:
                grid = grid + (Const(1, "int32"),)
            return Launch(grid, block, 0, "launch-site", site.loc, threads)
        try:
            grid = infer_grid(kernel)
        except TileportError as exc:
            if site is None:
                # a library kernel: the caller's grid, sized by verify like any other size
                return Launch(self._free_grid(kernel), block, 0, "caller", None, threads)
            grid = self._grid_params(kernel, fn, site, constexprs)
            if grid is not None:
                return Launch(grid, block, 0, "launch-site", site.loc, threads)
            text = ast.unparse(site.grid)
            raise TileportError("TP240", f"the grid `{text}` of the launch site at line "
                                f"{site.loc.line} uses host values kernel '{kernel.name}' does not "
                                "receive, and the kernel's masks do not give it either; pass --grid",
                                kernel.loc) from exc
        return Launch(grid, block, 0, "inferred", site.loc if site else None, threads)


def _given_dtype(name: str, dtype: str) -> str:
    """A --dtype value as an IR dtype: Triton's names (`float16`, `int1`, `tl.float16`) or
    torch's (`half`, `torch.float32`); TP007 for anything else (`float77` is no type)."""
    short = dtype.strip().removeprefix("tl.").removeprefix("torch.")
    if short in TL_DTYPES:
        return TL_DTYPES[short]
    if short in TORCH_DTYPES:
        return TORCH_DTYPES[short]
    known = ", ".join(sorted(set(TL_DTYPES) | set(TORCH_DTYPES)))
    raise TileportError("TP007", f"--dtype {name}={dtype}: not a dtype tileport knows (one of {known})")


def _loop_bound_names(fn, kinds=("range", "static_range")) -> set:
    """Names used directly as the bounds or step of `range` / `tl.range` loops in `fn` (of
    `kinds`: the loop functions' short names)."""
    names = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.For) and isinstance(node.iter, ast.Call):
            f = node.iter.func
            short = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            if short in kinds:
                names |= {a.id for a in node.iter.args if isinstance(a, ast.Name)}
    return names


def _general_config(configs: list) -> int:
    """The autotune config a port is built for when none is asked: the first whose constexprs
    hold no 1 (FlagGems' scaled_softmax lists BLOCK_Q=1 first: a block of one row is the
    degenerate case the other configs generalise), else the first."""
    for index, cfg in enumerate(configs):
        values = [v.value for v in cfg.kwargs.values() if isinstance(v, HConst)] if isinstance(cfg, HConfig) else []
        if values and not any(type(v) is int and v == 1 for v in values):
            return index
    return 0


def convert_triton(path: str, config: int | None = None, dtypes: dict | None = None, grid=None,
                   constexprs: dict | None = None, find_generic=None) -> Module:
    """Convert the @triton.jit kernels of a Python file (read with `ast`, never run) to IR.

    config: which `@triton.autotune` config to port; dtypes: param name -> IR dtype, overriding
    the heuristics; grid: a fixed grid (ints) for kernels whose grid cannot be read or inferred;
    constexprs: values pinned for constexprs of every kernel (`--constexpr NAME=V`); find_generic:
    the judge of generic constexprs (TritonFrontend; porter/reader.py hands emit's over).
    """
    return TritonFrontend(path, config, dtypes, grid, constexprs, find_generic=find_generic).run()

