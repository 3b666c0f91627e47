"""CUDA front end: libclang AST -> tileport IR.

Finds every `__global__` kernel, inlines the `__device__` functions it calls, folds macros and
constants (clang has already expanded them), and reads `<<<grid, block, smem>>>` launch sites in
host code to learn the block size and how the grid follows the problem size. Nothing after this
module sees a libclang cursor.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from porter.diagnostics import Diagnostic, KernelFailure, Loc, NoKernelConverted, TileportError
from porter.frontends.cuda import parse as ct
from porter.frontends.cuda.types import (
    FUNCTIONPROTO, POINTER, kind_id, dtype_of, is_array, is_pointer, is_reference, is_scalar, is_struct, is_void, pointee_dtype, vector_info,
)
from porter.frontends.cuda import groups
from porter.frontends.cuda.unported import first_unported
from porter.builtins import CUDA_OUT_PARAMETER
from porter.frontends.cuda.calls import (
    _ATOMICS, _SYNCS, _UNSUPPORTED_CALLS, CallsMixin, ReturnedPointer, _no_tilelang_equivalent,
)
from porter.frontends.cuda.memory import MemoryMixin
from porter.frontends.cuda.packed import PackedMixin
from porter.frontends.cuda.lambdas import LambdasMixin, is_lambda
from porter.frontends.cuda.locals import LocalsMixin
from porter.frontends.cuda.records import RecordsMixin
from porter.frontends.cuda.async_copies import AsyncCopiesMixin
from porter.frontends.cuda.scope import _Scope
from porter.frontends.cuda.textures import TexturesMixin, is_texture_type, size_textures
from porter.frontends.cuda.launch import LaunchReader
from porter.frontends.cuda.generic_templates import stand_in_block, stand_in_instances, stand_in_launch
from porter.frontends.cuda.templates import find_instantiations, instantiation_source, kernel_templates, template_values
from porter.frontends.cuda.units import Inventory, is_user_cursor
from porter.kernel_budget import OutOfTime, kernel_budget
from porter.ir.extents import annotate_buffers
from porter.ir.geometry import infer_launch
from porter.ir.loops import insert_before_continue, until_break
from porter.ir.returns import eliminate_returns
from porter.transforms.split_reassigned import split_reassigned
from porter.ir.fold import fold
from porter.ir.walk import walk_expr, walk_stmts
from porter.ir.nodes import (
    Alloc, Assign, Atomic, BinOp, Break, Builtin, BufferParam, Cast, Const, Continue, Decl, For, If,
    Kernel, Load, Module, Return, ScalarParam, Select, Store, Sync, UnaryOp, Var, While, is_float,
)
from porter.util.names import PYTHON_RESERVED

_BUILTIN_VARS = {"threadIdx": "thread_idx", "blockIdx": "block_idx", "blockDim": "block_dim",
                 "gridDim": "grid_dim"}


class CudaFrontend(MemoryMixin, RecordsMixin, PackedMixin, CallsMixin, LambdasMixin, AsyncCopiesMixin, TexturesMixin,
                   LocalsMixin):
    """Convert one CUDA translation unit into an IR Module."""

    def __init__(self, path: str, include_dirs=(), defines=(), block=None, grid=None, context=None,
                 foreign=()):
        # path: the file whose kernels are ported; self.path: the translation unit parsed, which
        # is its includer when it has one (see includers.py); foreign: files whose kernels are
        # other ports'
        self.source = path
        self.path = context or path
        self.owned = None if not context else {os.path.realpath(path)}
        self.foreign = {os.path.realpath(f) for f in foreign}
        self.include_dirs, self.defines = include_dirs, defines
        self.given_block, self.given_grid = block, grid
        self.ci = ct.cindex()
        self.K = self.ci.CursorKind
        self._fresh = 0
        self._inline_stack: list[str] = []
        self.prelude: list = []
        self._buffer_dtypes: dict = {}
        self._taken: set = set()
        self._moved: set = set()  # decls the kernel being converted assigns to (moving pointers)
        self._host_samplers: dict = {}  # file -> its texture variables' samplers (textures.py)

    # ------------------------------------------------------------------ entry

    def run(self) -> Module:
        parsed = ct.parse(self.path, self.include_dirs, self.defines)
        self.instances = {}
        templates = kernel_templates(parsed.tu, self.K, lambda c: is_user_cursor(c) and self.ports(c.location.file.name))
        if templates:
            parsed = self.instantiate(parsed, templates)
        inventory = Inventory(parsed.tu, parsed.errors)
        mine = [d for d in inventory.kernels() if self.ports(self.defining_file(d))]
        kernels = [d for d in mine if d.cursor.kind != self.K.FUNCTION_TEMPLATE]
        if not mine:
            theirs = sorted({os.path.basename(self.defining_file(d)) for d in inventory.kernels()
                             if os.path.realpath(self.defining_file(d)) in self.foreign})
            raise TileportError("TP100", "no __global__ kernel found in this file" + (
                f" (the kernels it includes are ported with the files that define them: {', '.join(theirs)})"
                if theirs else ""), Loc(self.source, 1, 1))
        launches = LaunchReader(self, inventory.host_functions()).read()
        out, failures = [], []
        user_names = inventory.function_names()
        stand_ins = [d for d in kernels if self.instance_of(d) is not None and self.instance_of(d).stand_in_of]
        for d in kernels:
            if d in stand_ins:
                continue
            k = d.cursor
            inst = self.instances.get(k.semantic_parent.spelling if k.semantic_parent else "")
            name = inst.name + inst.template_args if inst else k.spelling
            errors = inventory.errors_reaching(d)
            try:
                # an instance's copy of a template may not parse (its arguments, a launch of
                # itself): the template as written is scanned too
                written = [t for t in inventory.kernels() if inst is not None and t.name == inst.name
                           and t.cursor.kind == self.K.FUNCTION_TEMPLATE]
                unported = first_unported([r.cursor for r in inventory.reaching(d, *written)
                                           if r.kind in ("kernel", "device", "member")], self.K, user_names)
                if unported is not None:
                    raise unported  # before parse errors: they are often the construct's own
                if errors:
                    raise errors[0]
                key = (inst.name, inst.template_args) if inst else k.spelling
                with kernel_budget():
                    out.append(self.convert_kernel(k, launches.get(key), inst))
                if inst is not None and inst.origin == "chosen":
                    chosen = (f"template arguments {inst.template_args} chosen by tileport: nothing in this file "
                              "instantiates the template (type parameters take float, value parameters their "
                              "default, else 256, the default block size)")
                    out[-1].note = "; ".join(filter(None, [out[-1].note, chosen]))
            except OutOfTime as out_of_time:
                failures.append(KernelFailure(name, ct.loc_of(k), Diagnostic(
                    "TP019", out_of_time.message(name), ct.loc_of(k))))
            except TileportError as exc:
                failures.append(KernelFailure(name, ct.loc_of(k), exc.diagnostic))
            except (RecursionError, ValueError, KeyError, TypeError, AttributeError, IndexError) as exc:
                # a tileport bug costs this kernel only; the message says what to report
                failures.append(KernelFailure(name, ct.loc_of(k), Diagnostic(
                    "TP014", f"internal error in tileport while converting this kernel: "
                    f"{type(exc).__name__}: {exc}", ct.loc_of(k))))
        self.convert_stand_ins(stand_ins, out)
        if not kernels:
            names = ", ".join(t.spelling for t in templates)
            raise TileportError("TP121", f"template kernel(s) {names} are never launched with explicit "
                                "template arguments in this file, so they cannot be instantiated",
                                Loc(self.source, templates[0].location.line, 1))
        if not out:
            raise NoKernelConverted(failures)
        # a template stays whole while any instance of it converted (reduce7<int> failing must
        # not empty reduce7<float>'s body in the original verify builds)
        failed = {f.name.split("<")[0] for f in failures} - {k.name for k in out}
        # kernels other files' ports hold run in their own builds: emptied in this one (a kernel
        # the emulator cannot compile must not cost this file's)
        failed |= {d.name for d in inventory.kernels() if not self.ports(self.defining_file(d))}
        sources = self.emulator_sources(inventory, failed, parsed.missing)
        for header in sorted({d.file for d in inventory.definitions} - {self.path} - set(sources)):
            text = self._original_text(header)
            if _EMULATOR_REWRITES.search(text):
                sources[header] = text  # its CUDA syntax is rewritten for the emulator too
        emulator_source = sources.pop(self.path, None)
        if self.path != self.source and emulator_source is None:
            emulator_source = self._original_text(self.path)  # the includer is what the emulator builds
        return Module(self.source, "cuda", out, emulator_source, failures=failures,
                      emulator_headers=sources, stand_ins=list(parsed.missing),
                      context=self.path if self.path != self.source else None)

    def instance_of(self, d):
        """The Instantiation a kernel declaration is a copy of, or None."""
        parent = d.cursor.semantic_parent
        return self.instances.get(parent.spelling if parent else "")

    def convert_stand_ins(self, stand_ins: list, converted: list) -> None:
        """Each converted instance's stand-in conversions (generic_templates.py), on the kernel
        as `stand_ins`; one that does not convert leaves the instance without."""
        by_namespace = {self.instances_namespace(k): k for k in converted if k.template_params}
        for d in stand_ins:
            inst = self.instance_of(d)
            real = by_namespace.get(inst.stand_in_of)
            if real is None:
                continue
            inst.block = stand_in_block(tuple(real.launch.block), self.instances[inst.stand_in_of], inst)
            launch = stand_in_launch(real.launch, self.instances[inst.stand_in_of], inst, inst.block)
            try:
                with kernel_budget():
                    kernel = self.convert_kernel(d.cursor, launch, inst)
            except (OutOfTime, TileportError, RecursionError, ValueError, KeyError, TypeError, AttributeError,
                    IndexError):
                real.stand_ins = []
                by_namespace.pop(inst.stand_in_of)
                continue
            real.stand_ins = [*real.stand_ins, kernel]

    def instances_namespace(self, kernel) -> str:
        """The namespace of the instance a converted kernel came from."""
        return next((n for n, inst in self.instances.items() if not inst.stand_in_of and
                     inst.name == kernel.name and inst.template_args == kernel.template_args), "")

    def ports(self, file: str) -> bool:
        """Whether kernels defined in `file` are this port's (not another file's of the project)."""
        real = os.path.realpath(file)
        return real not in self.foreign and (self.owned is None or real in self.owned)

    def defining_file(self, d) -> str:
        """The file that defines a kernel: a template instance's is its template's."""
        inst = self.instances.get(d.cursor.semantic_parent.spelling if d.cursor.semantic_parent else "")
        return inst.file if inst is not None and inst.file else d.file

    def emulator_sources(self, inventory, failed: set, missing) -> dict:
        """The user's files as the CPU emulator must build them: what does not compile here cut
        (see Inventory.emulator_sources), then parsed again, since a cut can break its users (a
        host function reading a global of a missing header's type); a few rounds settle it."""
        sources = inventory.emulator_sources(failed, self._original_text)
        for _ in range(4):
            if not sources:
                return sources
            text = sources.get(self.path, self._original_text(self.path))
            headers = {h: t for h, t in sources.items() if h != self.path}
            again = ct.parse(self.path, self.include_dirs, self.defines, text, missing, headers)
            rest = Inventory(again.tu, again.errors)
            if not rest.has_errors:
                return sources
            more = rest.emulator_sources(failed, lambda p: sources.get(p) or self._original_text(p))
            if not more:
                return sources
            sources.update(more)
        return sources

    def _original_text(self, path: str) -> str:
        return open(path, encoding="utf-8", errors="surrogateescape").read()

    def instantiate(self, parsed, templates):
        """Re-parse with one plain copy of each template kernel per launched instantiation."""
        text = Path(self.path).read_text(encoding="utf-8")
        extra = []
        real = find_instantiations(parsed.tu, self.K, templates)
        tokens = {t.spelling: [tok.spelling for tok in t.get_tokens()] for t in templates}
        for inst in real + stand_in_instances(real, tokens, len(real)):
            template = next(t for t in templates if t.spelling == inst.name)
            extra.append(instantiation_source(template, inst, self.K))
            inst.file = template.location.file.name
            self.instances[inst.namespace] = inst
        if not extra:
            return parsed
        return ct.parse(self.path, self.include_dirs, self.defines, text + "".join(extra), parsed.missing)

    # ------------------------------------------------------------------ kernels

    def convert_kernel(self, cursor, launch, inst=None) -> Kernel:
        loc = ct.loc_of(cursor)
        self._fresh = 0
        self._taken = set()
        scope = _Scope()
        params = []
        self._textures = []
        viewed = self.cast_only_params(cursor)
        for position, p in enumerate(cursor.get_arguments()):
            ploc = ct.loc_of(p)
            c_type = p.type.spelling if inst is None and not is_scalar(p.type) else _plain_spelling(p.type)
            if is_texture_type(p.type):
                params.append(self.texture_param(p, position, scope, ploc))
            elif is_pointer(p.type) and vector_info(p.type.get_pointee()) is not None:
                # `float4 *v`, `uchar4 *img`, `typedef float2 Cplx; Cplx *a`: the same bits as a
                # flat buffer of the component type, seen `lanes` elements at a time
                dtype, _lanes = vector_info(p.type.get_pointee())
                params.append(BufferParam(p.spelling, dtype, c_type=c_type, loc=ploc))
                scope.vector_views[p.hash] = (p.spelling, None)
            elif is_pointer(p.type) and self.record_layout(p.type.get_pointee()) is not None:
                # `Vertex *v` of `struct {float x, y, z, w;}`: a flat buffer of the field type, a
                # struct every `stride` elements
                dtype = self.record_layout(p.type.get_pointee())[0]
                params.append(BufferParam(p.spelling, dtype, c_type=c_type, loc=ploc))
                scope.record_views[p.hash] = (p.spelling, None)
            elif is_pointer(p.type) and p.hash in viewed:  # read only as other elements: the same bits
                params.append(BufferParam(p.spelling, viewed[p.hash], c_type=c_type, loc=ploc,
                                          view_of=pointee_dtype(p.type, ploc)))
                scope.pointers[p.hash] = (p.spelling, None)
            elif is_pointer(p.type):
                refusal = self.record_buffer_refusal(p.type.get_pointee())
                if refusal is not None:
                    raise TileportError(*refusal, ploc)
                dtype = pointee_dtype(p.type, ploc)
                params.append(BufferParam(p.spelling, dtype, c_type=c_type, loc=ploc))
                scope.pointers[p.hash] = (p.spelling, None)
            elif is_struct(p.type) or vector_info(p.type) is not None:
                fields = self.struct_params(p, c_type, ploc)
                params += fields
                scope.structs[p.hash] = {f.member.field: Var(f.name, "pointer" if isinstance(f, BufferParam)
                                                             else f.dtype) for f in fields}
                if vector_info(p.type) is not None:  # `uchar4 color`, `uint3 size`: its components
                    scope.vectors[p.hash] = [Var(f.name, f.dtype) for f in fields]
            else:
                dtype = dtype_of(p.type, ploc, what=f"parameter '{p.spelling}'")
                params.append(ScalarParam(p.spelling, dtype, c_type=c_type, loc=ploc))
                scope.values[p.hash] = Var(p.spelling, dtype)
        self._buffer_dtypes = {p.name: p.dtype for p in params if isinstance(p, BufferParam)}
        body_cursor = [c for c in cursor.get_children() if c.kind == self.K.COMPOUND_STMT][0]
        self._moved = self.assigned_decls(cursor)
        self._alignments = {}
        self._dynamic_shared = {}  # `extern __shared__` name (as written and as emitted) -> its Alloc
        self._globals = {}  # __constant__/__device__ variable -> (its BufferParam, the Alloc shaping it)
        self._byte_strides = {}  # scalar in a byte offset (`(char *)p + y * pitch`) -> bytes per element
        self._offset_terms = {}  # moving pointer offset local -> the names its moves add
        moving = []  # pointer parameters the kernel advances: an offset variable each
        for p in cursor.get_arguments():
            if p.hash in self._moved and p.hash in scope.pointers:
                moving += self.moving_pointer(p, scope.pointers[p.hash], scope, ct.loc_of(p))
        self._shared_globals, self._hoisted = {}, []  # `__shared__` arrays at namespace scope (memory.py)
        body = moving + self.block(body_cursor, scope)
        body = self._hoisted + body
        body = eliminate_returns(body, fresh=lambda name: self.unique(name, scope))
        body = split_reassigned(body, lambda name: self.unique(name, scope))
        params += [param for param, _ in self._globals.values()]
        params += self.texture_params()
        kernel = Kernel(cursor.spelling, "cuda", params, body, None, loc,
                        template_args=inst.template_args if inst else "")
        if inst is not None:
            kernel.template_params, kernel.template_values = template_values(cursor, inst, self.K)
        kernel.note = "; ".join(self.texture_notes())
        scalars = {p.name for p in params if isinstance(p, ScalarParam)}
        kernel.sizing.alignments = {n: k for n, k in self._alignments.items() if n in scalars}
        kernel.sizing.byte_strides = {n: k for n, k in self._byte_strides.items() if n in scalars}
        if launch is not None and launch.grid is None:
            # the launch site gave the block but its grid could not be traced to the parameters
            line = launch.loc.line if launch.loc else "?"
            # the axes no guard sizes are the caller's (grid_x ... parameters of the port)
            launch = infer_launch(kernel, launch.block, self.given_grid, caller_grid=True,
                                  why=f"has a launch site (line {line}) whose grid uses host values the "
                                      "kernel does not receive,")
            launch.origin = "launch-site-caller-axes" if launch.origin == "caller-axes" else "launch-site-block"
            launch.loc = ct.loc_of(cursor) if launch.loc is None else launch.loc
            launch.note = "; ".join(filter(None, [launch.note, f"the launch site (line {line}) computes the "
                                                  "grid from host values the kernel does not receive"]))
        # no launch site at all: a library kernel, whose caller chooses what no guard bounds
        # (the block of a template's launch inside host code that names it, when constant)
        block = self.given_block or (inst.block or inst.block_parameter() if inst is not None else None)
        kernel.launch = launch if launch is not None else infer_launch(kernel, block, self.given_grid,
                                                                       caller_grid=True)
        if launch is None and not self.given_block and block and kernel.launch.origin == "given-block":
            kernel.launch.origin = "template-launch-block"
        self.size_dynamic_shared(kernel)
        block = tuple(kernel.launch.block) + (1,) * (3 - len(kernel.launch.block))
        smem = kernel.launch.smem_bytes if isinstance(kernel.launch.smem_bytes, int) else 0
        kernel.cuda_launch = (block, smem if self._dynamic_shared else 0)
        annotate_buffers(kernel)
        size_textures(kernel)
        return kernel

    @staticmethod
    def size_dynamic_shared(kernel: Kernel) -> None:
        """`extern __shared__ T s[]` holds as many elements as the launch's shared bytes allow."""
        from porter.ir.nodes import dtype_bits

        for s in walk_stmts(kernel.body):
            if isinstance(s, Alloc) and s.dynamic:
                if not isinstance(kernel.launch.smem_bytes, int):
                    raise TileportError("TP145", f"'extern __shared__ {s.name}[]' is sized by a runtime "
                                        "value at the launch site; TileLang needs a constant size", s.loc)
                if kernel.launch.smem_bytes == 0 and kernel.launch.origin != "launch-site":
                    # no launch says how many bytes: two elements per thread (a tree reduction's
                    # `s[tid + stride]`), which the port's header states; verify launches the
                    # original with the same bytes
                    threads = 1
                    for b in kernel.launch.block:
                        threads *= b
                    kernel.launch.smem_bytes = 2 * threads * dtype_bits(s.dtype) // 8
                    kernel.launch.note = "; ".join(filter(None, [kernel.launch.note, (
                        f"no launch gives the shared-memory bytes of 'extern __shared__ {s.name}[]': the "
                        f"port takes {kernel.launch.smem_bytes} (two elements per thread)")]))
                count = kernel.launch.smem_bytes * 8 // dtype_bits(s.dtype)
                if count <= 0:
                    raise TileportError("TP144", f"'extern __shared__ {s.name}[]' is sized at launch, but "
                                        "no launch site gives the shared-memory bytes", s.loc)
                s.shape = (count,)

    # ------------------------------------------------------------------ statements

    def block(self, cursor, scope) -> list:
        out = []
        children = list(cursor.get_children()) if cursor.kind == self.K.COMPOUND_STMT else [cursor]
        for c in children:
            out += self.statement(c, scope)
        return out

    _nest = 0  # loops and branches around the statement being converted

    def statement(self, c, scope) -> list:
        nested = c.kind in (self.K.IF_STMT, self.K.FOR_STMT, self.K.WHILE_STMT, self.K.DO_STMT)
        self._nest += nested
        try:
            return self._statement(c, scope)
        finally:
            self._nest -= nested

    def _statement(self, c, scope) -> list:
        K = self.K
        loc = ct.loc_of(c)
        if c.kind == K.COMPOUND_STMT:
            return self.block(c, scope)
        if c.kind == K.NULL_STMT:
            return []
        if c.kind == K.DECL_STMT:
            out = []
            for d in c.get_children():
                pre, decls = self.with_prelude(lambda d=d: self.declaration(d, scope))
                out += pre + decls
            return out
        if c.kind == K.IF_STMT:
            kids = list(c.get_children())
            if len(kids) not in (2, 3):
                raise TileportError("TP112", "if statement with an initialiser is not supported", loc)
            pre, cond = self.with_prelude(lambda: self.as_bool(self.expr(kids[0], scope)))
            then = self.block(kids[1], scope)
            orelse = self.block(kids[2], scope) if len(kids) == 3 else []
            return pre + [If(cond, then, orelse, loc)]
        if c.kind == K.FOR_STMT:
            return self.for_loop(c, scope)
        if c.kind == K.RETURN_STMT:
            kids = list(c.get_children())
            if isinstance(scope.result, Alloc):  # a packed record: element by element
                info = (scope.result.dtype, scope.result.shape[0], None)
                pre, values = self.with_prelude(lambda: self.packed_value(kids[0], info, scope))
                return pre + self.packed_stores(scope.result, values, loc) + [Return(loc)]
            if isinstance(scope.result, list):  # a float4 & co.: component by component
                pre, values = self.with_prelude(
                    lambda: self.vector_expr(kids[0], scope, len(scope.result)))
                return pre + [Assign(v, self.coerce(e, v.dtype), loc)
                              for v, e in zip(scope.result, values) if e is not None] + [Return(loc)]
            if isinstance(scope.result, dict):  # a struct: field by field
                fields = [(f, v.dtype) for f, v in scope.result.items()]
                pre, values = self.with_prelude(lambda: self.record_value(kids[0], fields, scope))
                return pre + [Assign(v, self.coerce(e, v.dtype), loc)
                              for v, e in zip(scope.result.values(), values or [])] + [Return(loc)]
            if isinstance(scope.result, ReturnedPointer):
                if self._nest or scope.result.bound is not None:
                    raise TileportError("TP133", "a function returning a pointer must return it once, "
                                        "outside loops and branches", loc)
                scope.result.bound = self.pointer(kids[0], scope)
                return [Return(loc)]
            if scope.result is not None:
                if not kids:
                    raise TileportError("TP113", "return without a value in a value function", loc)
                pre, value = self.with_prelude(lambda: self.expr(kids[0], scope))
                return pre + [Assign(scope.result, self.coerce(value, scope.result.dtype), loc), Return(loc)]
            return [Return(loc)]
        if c.kind == K.WHILE_STMT:
            cond_c, body_c = list(c.get_children())[-2:]
            pre, cond = self.with_prelude(lambda: self.as_bool(self.expr(cond_c, scope)))
            if not pre and isinstance(cond, Const) and cond.value:  # `while (1) {... break; ...}`
                return until_break(self.block(body_c, scope), Var(self.unique("looping", scope), "int32"), loc)
            if pre:  # `while (--n)`, `while (step(x) > 0)`: the condition's statements each trip
                exit_ = If(UnaryOp("!", cond, "bool"), [Break(loc)], [], loc)
                return until_break(pre + [exit_] + self.block(body_c, scope),
                                   Var(self.unique("looping", scope), "int32"), loc)
            return [While(cond, self.block(body_c, scope), loc)]
        if c.kind == K.DO_STMT:
            body_c, cond_c = list(c.get_children())
            body = self.block(body_c, scope)
            pre, cond = self.with_prelude(lambda: self.as_bool(self.expr(cond_c, scope)))
            exit_ = If(UnaryOp("!", cond, "bool"), [Break(loc)], [], loc)
            return until_break(body + pre + [exit_], Var(self.unique("looping", scope), "int32"), loc)
        if c.kind == K.BREAK_STMT:
            return [Break(loc)]
        if c.kind == K.CONTINUE_STMT:
            return [Continue(loc)]
        if c.kind in (K.SWITCH_STMT, K.GOTO_STMT, K.LABEL_STMT):
            raise TileportError("TP116", f"{c.kind.name.lower()} is not supported", loc)
        if c.kind == K.UNEXPOSED_STMT:
            # `#pragma unroll` and attributes wrap the statement they apply to.
            out = []
            for child in c.get_children():
                out += self.statement(child, scope)
            return out
        if c.kind == K.ASM_STMT:
            raise TileportError("TP150", "inline PTX asm has no TileLang equivalent", loc)
        pre, stmts = self.with_prelude(lambda: self.expression_statement(c, scope))
        return pre + stmts

    def declaration(self, d, scope) -> list:
        loc = ct.loc_of(d)
        if d.kind != self.K.VAR_DECL:
            return []
        kinds = {ch.kind for ch in d.get_children()}
        init_cursor = self.initializer(d)
        if "wmma::" in d.type.get_canonical().spelling:
            raise TileportError("TP156", "wmma fragments have no thread-level TileLang equivalent; "
                                "tensor-core GEMMs port through T.gemm (tile level)", loc)
        if "cooperative_groups::block_tile_memory" in d.type.get_canonical().spelling:
            return []  # the library's scratch for tiles over 32 threads: the port needs none
        group = groups.group_of_type(d.type)
        if group is not None:
            sized = self.sized_partition(init_cursor, loc)
            # a cooperative group: a name for threads, no code (`thread_group t =
            # tiled_partition(b, 16)` is a tile of 16, `thread_group g = tile;` that tile, whatever
            # the declared type says)
            given = self.group_arg(init_cursor, scope) if init_cursor is not None else None
            scope.groups[d.hash] = sized or given or group
            return []
        copies = self.async_declaration(d, init_cursor, scope, loc)
        if copies is not None:  # a pipeline or barrier object (async_copies.py)
            return copies
        if is_lambda(d.type):
            return self.lambda_declaration(d, init_cursor, scope, loc)
        if is_reference(d.type):
            return self.reference_declaration(d, init_cursor, scope, loc)
        vector = vector_info(d.type)
        if vector is not None:
            # float4 & co. become one scalar local per component (v.x -> v_x ...)
            dtype, lanes = vector
            parts = [Var(self.unique(f"{d.spelling}_{c}", scope), dtype) for c in "xyzw"[:lanes]]
            scope.vectors[d.hash] = parts
            values = self.vector_expr(init_cursor, scope, lanes) if init_cursor is not None else [None] * lanes
            values = [None] * lanes if values is None else values
            return [Decl(v, self.coerce(e, dtype) if e is not None else None, loc) for v, e in zip(parts, values)]
        packed = None if is_array(d.type) else self.packed_info(d.type)
        if packed is not None:
            return self.packed_declaration(d, packed, init_cursor, scope, loc)
        fields = None if is_array(d.type) else self.record_fields(d.type, loc)
        if fields is not None:
            return self.record_declaration(d, fields, init_cursor, scope, loc)
        if is_struct(d.type) and not list(d.type.get_canonical().get_fields()) and \
                self.K.CUDASHARED_ATTR not in kinds:
            return []  # `SharedMemory<T> smem;`: an object without state, only its methods matter
        if self.K.CUDASHARED_ATTR in kinds or is_array(d.type):
            return self.array_declaration(d, scope, shared=self.K.CUDASHARED_ATTR in kinds,
                                          init=init_cursor)
        if is_pointer(d.type):
            if (init_cursor is None or self.is_null(init_cursor)) and d.hash in self._moved and \
                    vector_info(d.type.get_pointee()) is None:
                # `float *p = NULL;` / `float *pixel;` set later: bound to a buffer at its first
                # assignment (pointer_update), its offset a local from here on
                return self.moving_pointer(d, (None, None), scope, loc)
            if init_cursor is None:
                raise TileportError("TP141", f"uninitialised pointer '{d.spelling}'", loc)
            if self.pointer_to_local(d, init_cursor, scope, loc):
                return []
            if self.vector_view(d, init_cursor, scope):
                return []
            scope.pointers[d.hash] = self.pointer(init_cursor, scope)
            if d.hash in self._moved:
                return self.moving_pointer(d, scope.pointers[d.hash], scope, loc)
            return []
        dtype = dtype_of(d.type, loc, what=f"variable '{d.spelling}'")
        var = Var(self.unique(d.spelling, scope), dtype)
        scope.values[d.hash] = var
        init = self.coerce(self.expr(init_cursor, scope), dtype) if init_cursor is not None else None
        return [Decl(var, init, loc)]

    def initializer(self, d):
        kids = [ch for ch in d.get_children()
                if ch.kind.is_expression() and ch.kind != self.K.TYPE_REF]
        return kids[-1] if kids else None

    def for_loop(self, c, scope) -> list:
        loc = ct.loc_of(c)
        init, cond, inc, body = self.for_parts(c)
        if init is None and cond is not None and inc is not None:
            # `for (; c < C; c += step)` over a variable set before
            return self.while_form(cond, inc, body, scope, loc)
        if init is None or cond is None or inc is None:
            raise TileportError("TP117", "for loops need a condition and an increment", loc)
        init_stmts = self.statement(init, scope)
        if not init_stmts or not all(isinstance(s, (Decl, Assign)) for s in init_stmts):
            raise TileportError("TP117", "for loop initialiser must set the loop variables", loc)
        if len(init_stmts) > 1:
            inductive = self.induction_loop(init_stmts, cond, inc, body, scope, loc)
            if inductive is not None:
                return inductive
            return init_stmts + self.while_form(cond, inc, body, scope, loc)
        first = init_stmts[0]
        var = first.var
        start = first.init if isinstance(first, Decl) else first.value
        pre, cond_e = self.with_prelude(lambda: self.as_bool(self.expr(cond, scope)))
        if pre:
            raise TileportError("TP117", "a loop condition may not call a multi-statement "
                                "__device__ function", ct.loc_of(cond))
        step = self.loop_step(inc, var, scope)
        if step is not None and not is_float(var.dtype):
            return [For(var, start, cond_e, step, self.block(body, scope), loc)]
        # a float counter (imageDenoising's `for (float i = -r; i <= r; i++)`) or any other
        # increment (s >>= 1, i *= 2, ...): TIR counts loops in integers only
        # The loop as `init; while (cond) {body; inc}`.
        increment = self.statement(inc, scope)  # `i <<= 1`, also with others (`i += s, p += q`)
        if not any(isinstance(x, Assign) and x.var == var for x in increment):
            raise TileportError("TP117", "the for loop increment must update the loop variable",
                                ct.loc_of(inc))
        body_ir = insert_before_continue(self.block(body, scope), increment)
        return init_stmts + [While(cond_e, body_ir + increment, loc)]

    def while_form(self, cond, inc, body, scope, loc) -> list:
        """A for loop's condition, body and increment as `while (cond) {body; increment}`, the
        increment also before each `continue`."""
        pre, cond_e = self.with_prelude(lambda: self.as_bool(self.expr(cond, scope)))
        if pre:
            raise TileportError("TP117", "a loop condition may not call a multi-statement "
                                "__device__ function", ct.loc_of(cond))
        increment = self.statement(inc, scope)
        return [While(cond_e, insert_before_continue(self.block(body, scope), increment) + increment, loc)]

    def induction_loop(self, init_stmts, cond, inc, body, scope, loc):
        """`for (int a = a0, b = b0; a <= end; a += sa, b += sb)` where the body never writes
        a or b: a counted loop over a, with b computed from the trip count (`b = b0 + (a - a0) /
        sa * sb`), so loop bounds and buffer extents stay readable. None: not of that shape."""
        parts = self.comma_parts(inc)
        loop_vars = [s.var for s in init_stmts]
        if len(parts) != len(loop_vars) or any(not isinstance(s, Decl) for s in init_stmts):
            return None
        steps = []
        for var in loop_vars:
            found = [st for st in (self.loop_step(p, var, scope) for p in parts) if st is not None]
            if len(found) != 1:
                return None
            steps.append(found[0])
        written = {scope.values[h].name for h in self.assigned_decls(body)
                   if isinstance(scope.values.get(h), Var)}
        if any(v.name in written for v in loop_vars):
            return None
        pre, cond_e = self.with_prelude(lambda: self.as_bool(self.expr(cond, scope)))
        if pre:
            return None
        var, start, step = loop_vars[0], init_stmts[0].init, steps[0]
        if is_float(var.dtype):
            return None  # TIR counts loops in integers only: the while form
        out, starts = [], []
        for d in init_stmts[1:]:  # each companion's first value, taken before the loop
            first = Var(self.unique(f"{d.var.name}_start", scope), d.var.dtype)
            out.append(Decl(first, d.init, loc))
            starts.append(first)
        if not isinstance(start, (Const, Var)):
            first = Var(self.unique(f"{var.name}_start", scope), var.dtype)
            out.append(Decl(first, start, loc))
            start = first
        trips = BinOp("/", BinOp("-", var, start, var.dtype), step, var.dtype)
        companions = [Decl(d.var, BinOp("+", first, BinOp("*", self.coerce(trips, d.var.dtype),
                                                             self.coerce(st, d.var.dtype), d.var.dtype),
                                          d.var.dtype), loc)
                      for d, first, st in zip(init_stmts[1:], starts, steps[1:])]
        return out + [For(var, start, cond_e, step, companions + self.block(body, scope), loc)]

    def conditional_expr(self, c, scope):
        """An operand C evaluates only sometimes (`b` of `a && b`, a branch of `c ? a : b`): the
        statements it needs run before the whole expression, so they may only compute (an
        inlined function's locals), never change what the program sees (`x++`, `y = v`)."""
        pre, value = self.with_prelude(lambda: self.expr(c, scope))
        declared = {s.var.name for s in pre if isinstance(s, Decl)}
        for s in walk_stmts(pre):
            if isinstance(s, (Store, Atomic)) or (isinstance(s, Assign) and s.var.name not in declared):
                raise TileportError("TP132", "an assignment, ++ or -- in an operand evaluated only "
                                    "sometimes (after && or ||, in a branch of ?:) is not supported",
                                    ct.loc_of(c))
        self.prelude.extend(pre)
        return value

    def operator_operands(self, c) -> list:
        """The operands of an overloaded operator call (`a = b` of a struct), without the
        reference to the operator itself (a nested `a = b = c` is an operand)."""
        def callee(k) -> bool:  # the operator itself: a function, or a pointer to one
            t = k.type.get_canonical()
            return kind_id(t) == FUNCTIONPROTO or (kind_id(t) == POINTER and kind_id(t.get_pointee()) == FUNCTIONPROTO)

        return [k for k in c.get_children() if k.kind.is_expression() and not callee(k)]

    def comma_parts(self, c) -> list:
        """`a += s, b += t` -> [a += s, b += t]."""
        c = self.skip_parens(c)
        if c.kind == self.K.BINARY_OPERATOR and ct.binary_operator(c) == ",":
            return [p for k in c.get_children() for p in self.comma_parts(k)]
        return [c]

    def for_parts(self, c):
        """libclang drops empty for-clauses, so place each child by the header's semicolons."""
        kids = list(c.get_children())
        body = kids[-1]
        tokens = list(c.get_tokens())
        depth, semis = 0, []
        for t in tokens:
            if t.spelling == "(":
                depth += 1
            elif t.spelling == ")":
                depth -= 1
                if depth == 0:
                    break
            elif t.spelling == ";" and depth == 1:
                semis.append(t.extent.start.offset)
        parts = [None, None, None]
        if len(semis) != 2:
            if len(kids) == 4:
                return kids[0], kids[1], kids[2], body
            return None, None, None, body
        for k in kids[:-1]:
            off = k.extent.start.offset
            slot = 0 if off < semis[0] else 1 if off < semis[1] else 2
            parts[slot] = k
        return parts[0], parts[1], parts[2], body

    def loop_step(self, inc, var: Var, scope):
        K = self.K
        if inc.kind == K.UNARY_OPERATOR and self.target_var(self.first_child(inc), scope) == var:
            op = ct.unary_operator(inc)
            if op in ("post++", "pre++"):
                return Const(1, var.dtype)
            if op in ("post--", "pre--"):
                return Const(-1, var.dtype)
        if inc.kind == K.COMPOUND_ASSIGNMENT_OPERATOR:
            lhs, rhs = list(inc.get_children())
            if self.target_var(lhs, scope) == var and ct.binary_operator(inc) in ("+=", "-="):
                step = self.coerce(self.expr(rhs, scope), var.dtype)
                return step if ct.binary_operator(inc) == "+=" else fold(UnaryOp("-", step, var.dtype))
        if inc.kind == K.BINARY_OPERATOR and ct.binary_operator(inc) == "=":
            lhs, rhs = list(inc.get_children())
            value = self.expr(rhs, scope)
            if self.target_var(lhs, scope) == var:
                value = self.strip_cast(value)
                if isinstance(value, BinOp) and value.op == "+" and self.strip_cast(value.a) == var:
                    return self.coerce(value.b, var.dtype)
        return None

    def moving_pointer(self, d, bound, scope, loc) -> list:
        """A pointer the code advances (`inp += row * C;`, `p++`) keeps its offset into its
        buffer in a 64-bit local, so loops and branches move it as they move the pointer."""
        buf, off = bound
        var = Var(self.unique(f"{d.spelling}_offset", scope), "int64")
        scope.pointers[d.hash] = (buf, var)
        self.offset_terms(var, off)
        return [Decl(var, self.coerce(off, "int64") if off is not None else Const(0, "int64"), loc)]

    def offset_terms(self, var, delta) -> None:
        """What a moving pointer's offset is made of (for the alignment of vector accesses)."""
        if delta is not None:
            names = {e.name for e in walk_expr(delta) if isinstance(e, Var)}
            self._offset_terms.setdefault(var.name, set()).update(names - {var.name})

    def pointer_update(self, c, scope, loc):
        """`p += e`, `p -= e`, `p = q + e` (same buffer), `p++`: the offset local moves."""
        K = self.K
        target = self.skip_implicit(self.first_child(c))
        if target is None or target.kind != K.DECL_REF_EXPR or target.referenced is None:
            return None
        if target.referenced.hash in scope.local_pointers:
            raise TileportError("TP133", f"'{target.spelling}' points to a local variable; re-pointing it "
                                "is not supported (a pointer to a local keeps the local it starts with)", loc)
        bound = scope.pointers.get(target.referenced.hash)
        if bound is None or not isinstance(bound[1], Var) or bound[1].dtype != "int64":
            return None
        buf, var = bound
        if c.kind == K.UNARY_OPERATOR:
            step = Const(1 if "++" in ct.unary_operator(c) else -1, "int64")
            return [Assign(var, BinOp("+", var, step, "int64"), loc)]
        rhs = list(c.get_children())[1]
        if c.kind == K.COMPOUND_ASSIGNMENT_OPERATOR:
            delta = self.coerce(self.expr(rhs, scope), "int64")
            op = ct.binary_operator(c)[:-1]
            self.offset_terms(var, delta)
            return [Assign(var, fold(BinOp(op, var, delta, "int64")), loc)]
        new_buf, new_off = self.pointer(rhs, scope)
        if buf is None:  # its first assignment binds a pointer declared without a buffer
            scope.pointers[target.referenced.hash] = (new_buf, var)
            buf = new_buf
        if new_buf != buf and self._nest == 0:  # re-pointed in straight-line code: a new binding
            return self.moving_pointer(target.referenced, (new_buf, new_off), scope, loc)
        if new_buf != buf:
            raise TileportError("TP133", "a pointer re-pointed to another buffer inside a loop or "
                                "branch is not supported", loc)
        value = self.coerce(new_off, "int64") if new_off is not None else Const(0, "int64")
        return [Assign(var, value, loc)]

    def expression_statement(self, c, scope) -> list:
        K = self.K
        loc = ct.loc_of(c)
        c = self.skip_parens(c)
        while c.kind == K.UNEXPOSED_EXPR and len(list(c.get_children())) == 1:
            c = self.skip_parens(self.first_child(c))  # `s = f(...)` of a struct: a copy operator=
        if (c.kind in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR, K.UNARY_OPERATOR)
                and is_pointer(c.type)):
            moved = self.pointer_update(c, scope, loc)
            if moved is not None:
                return moved
        if c.kind == K.BINARY_OPERATOR and ct.binary_operator(c) == ",":  # `a += s, b += t`
            return [s for part in c.get_children() for s in self.statement(part, scope)]
        if c.kind == K.BINARY_OPERATOR and ct.binary_operator(c) == "=":
            lhs, rhs = list(c.get_children())
            stored = self.bits_copy(lhs, rhs, scope, loc) if vector_info(lhs.type) else self.view_store(
                lhs, rhs, scope, loc)
            if stored is not None:
                return stored
            stored = self.bytes_store(lhs, rhs, scope, loc) if vector_info(lhs.type) else None
            if stored is not None:
                return stored
            vector = vector_info(lhs.type)
            if vector is not None:
                return self.vector_assign(lhs, rhs, vector, scope, loc)
            fields = self.record_fields(lhs.type, loc)
            if fields is not None:
                return self.record_assign(lhs, rhs, fields, scope, loc)
            return [self.assign(lhs, self.expr(rhs, scope), scope, loc)]
        if c.kind == K.COMPOUND_ASSIGNMENT_OPERATOR:
            lhs, rhs = list(c.get_children())
            op = ct.binary_operator(c)[:-1]
            current = self.expr(lhs, scope)
            dtype = current.dtype
            rhs_e = self.expr(rhs, scope)
            if "pointer" in (dtype, rhs_e.dtype):
                raise TileportError("TP133", "this pointer update is not supported (only pointers "
                                    "into a kernel buffer move)", loc)
            # C computes in the common type of both sides, then converts back.
            common = self.common_type(dtype, rhs_e.dtype) if op not in ("<<", ">>") else dtype
            value = BinOp(op, self.coerce(current, common), self.coerce(rhs_e, common), common)
            return [self.assign(lhs, value, scope, loc)]
        if c.kind == K.UNARY_OPERATOR and ct.unary_operator(c) in ("post++", "pre++", "post--", "pre--"):
            target = self.first_child(c)
            current = self.expr(target, scope)
            op = "+" if "++" in ct.unary_operator(c) else "-"
            return [self.assign(target, BinOp(op, current, Const(1, current.dtype), current.dtype),
                                scope, loc)]
        if c.kind == K.CONDITIONAL_OPERATOR:  # `c ? f() : g();`, and what assert() expands to
            cond_c, a, b = list(c.get_children())
            pre, cond = self.with_prelude(lambda: self.as_bool(self.expr(cond_c, scope)))
            return pre + [If(cond, self.statement(a, scope), self.statement(b, scope), loc)]
        if c.kind in (K.CSTYLE_CAST_EXPR, K.CXX_FUNCTIONAL_CAST_EXPR, K.CXX_STATIC_CAST_EXPR) and \
                is_void(c.type):
            inner = [k for k in c.get_children() if k.kind.is_expression()]
            return self.statement(inner[-1], scope) if inner and not self.is_constant(inner[-1]) else []
        surface = self.surface_write(c, scope, loc) if c.kind == K.CALL_EXPR else None
        if surface is not None:  # `surf2Dwrite(v, surf, x, y)`, `surf2Dread(&v, surf, x, y)`
            return surface
        written = self.out_values_call(c, scope, loc)
        if written is not None:  # `sincosf(x, &s, &c)`
            return written
        if c.kind == K.CALL_EXPR and c.spelling in _NO_DATA_EFFECT:
            return []  # assert failures, printf, sleeps: nothing a port computes depends on them
        if c.kind == K.CALL_EXPR and c.spelling in _CACHE_HINT_STORES and \
                vector_info(list(c.get_arguments())[1].type) is not None:
            # `__stcs(reinterpret_cast<int4*>(p), packed.get_bits())`, `__stcs(v4 + i, v)`
            target_c, value_c = list(c.get_arguments())[:2]
            stored = self.bytes_store(None, value_c, scope, loc, address=target_c)
            if stored is not None:
                return stored
            dtype, lanes = vector_info(value_c.type)
            buf, base = self.vector_address_of(target_c, scope, lanes)
            values = [self.coerce(v, dtype) for v in self.vector_expr(value_c, scope, lanes)]
            return self.lane_stores(buf, base, values, loc)
        if c.kind == K.CALL_EXPR and c.spelling in _CACHE_HINT_STORES:
            target_c, value_c = list(c.get_arguments())[:2]
            buf, index = self.pointer(target_c, scope)
            value = self.coerce(self.expr(value_c, scope), self.buffer_dtype(buf))
            return [Store(buf, index if index is not None else Const(0, "int32"), value, loc)]
        if c.kind == K.CALL_EXPR:
            name = c.spelling
            copies = self.async_statement(c, scope, loc)
            if copies is not None:
                return copies
            if _no_tilelang_equivalent(name, c) is not None:
                raise TileportError("TP156", _no_tilelang_equivalent(name, c), loc)
            if name == "operator=":  # struct assignment, e.g. of a float4
                lhs, rhs = self.operator_operands(c)
                stored = self.bits_copy(lhs, rhs, scope, loc) if vector_info(lhs.type) else None
                if stored is not None:
                    return stored  # `LDST128BITS(c[i]) = LDST128BITS(pack[0])`
                stored = self.bytes_store(lhs, rhs, scope, loc) if vector_info(lhs.type) else None
                if stored is not None:
                    return stored  # `*reinterpret_cast<int4*>(p) = packed.get_bits()`
                vector = vector_info(lhs.type)
                if vector is not None:
                    return self.vector_assign(lhs, rhs, vector, scope, loc)
                packed = self.packed_info(lhs.type)
                if packed is not None:
                    return self.packed_assign(lhs, rhs, packed, scope, loc)
                fields = self.record_fields(lhs.type, loc)
                if fields is not None:
                    return self.record_assign(lhs, rhs, fields, scope, loc)
            if name in _UNSUPPORTED_CALLS:
                raise TileportError("TP151", f"{_UNSUPPORTED_CALLS[name]} is not supported yet", loc)
            if name in _SYNCS:
                return [Sync(_SYNCS[name], loc)]
            target = self.group_target(c, scope)
            if target is not None and name == "sync":
                return [groups.sync(target, loc)]
            args = list(c.get_arguments())
            if name == "sync" and len(args) == 1 and self.group_arg(args[0], scope) is not None:
                return [groups.sync(self.group_arg(args[0], scope), loc)]  # cg::sync(g)
            if name in _ATOMICS:
                target_c, value_c = list(c.get_arguments())[:2]
                buf, index = self.pointer(target_c, scope)
                index = index if index is not None else Const(0, "int32")
                value = self.coerce(self.expr(value_c, scope), self.buffer_dtype(buf))
                op = _ATOMICS[name]
                if op == "sub":
                    op, value = "add", fold(UnaryOp("-", value, value.dtype))
                return [Atomic(op, buf, index, value, loc)]
            callee = c.referenced
            if name in CUDA_OUT_PARAMETER and callee is not None and not self.is_device_function(callee):
                self.out_parameter_call(c, scope, loc)  # `frexp(x, &e);` for e alone
                return []
            if callee is not None and self.is_device_function(callee) and \
                    is_void(callee.result_type):
                return self.inline(callee, list(c.get_arguments()), scope, loc, want_value=False)[0]
            if callee is not None and is_void(c.type):
                through_lambda = self.call_lambda(c, scope, loc, want_value=False)
                if through_lambda is not None:
                    return through_lambda[0]
            self.expr(c, scope)
            raise TileportError("TP118", f"the result of '{name}' is unused; only assignments, "
                                "calls of void __device__ functions and loops are statements", loc)
        raise TileportError("TP119", f"unsupported statement ({c.kind.name.lower()})", loc)

    def assign(self, lhs, value, scope, loc):
        var = self.target_var(lhs, scope)
        if var is not None:
            return Assign(var, self.coerce(value, var.dtype), loc)
        target = self.lvalue_load(lhs, scope)
        if target is None:
            raise TileportError("TP120", "assignment target must be a local variable or a buffer "
                                "element", ct.loc_of(lhs))
        return Store(target.buffer, target.index, self.coerce(value, target.dtype), loc)

    def target_var(self, c, scope):
        c = self.skip_parens(self.through_local_pointer(c, scope))
        if c is not None and c.kind == self.K.MEMBER_REF_EXPR:
            return self.vector_member(c, scope) or self.record_member(c, scope)
        if c.kind == self.K.DECL_REF_EXPR and c.referenced is not None:
            v = scope.values.get(c.referenced.hash)
            if isinstance(v, Var):
                return v
        return None

    def lvalue_load(self, c, scope):
        e = self.expr(c, scope)
        return e if isinstance(e, Load) else None

    # ------------------------------------------------------------------ expressions

    def expr(self, c, scope):
        K = self.K
        loc = ct.loc_of(c)
        kind = c.kind
        if kind in (K.UNEXPOSED_EXPR, K.PAREN_EXPR):
            kids = [k for k in c.get_children()]
            if len(kids) != 1:
                value = ct.evaluate(c)
                if value is not None:
                    return self.literal(value, c)
                raise TileportError("TP130", "unsupported expression", loc)
            inner = self.expr(kids[0], scope)
            return self.implicit_cast(inner, c)
        if kind == K.COMPOUND_ASSIGNMENT_OPERATOR:  # `a[i] = (acc += x)`: as the plain `=` above
            self.prelude.extend(self.expression_statement(c, scope))
            return self.expr(list(c.get_children())[0], scope)
        if kind in (K.INTEGER_LITERAL, K.FLOATING_LITERAL, K.CXX_BOOL_LITERAL_EXPR):
            value = ct.evaluate(c)
            if value is None:
                raise TileportError("TP130", "could not read literal", loc)
            return self.literal(value, c)
        if kind == K.DECL_REF_EXPR:
            return self.decl_ref(c, scope)
        if kind == K.MEMBER_REF_EXPR:
            base = self.first_child(c)
            base = self.skip_parens(base) if base is not None else None
            if base is not None and base.kind == K.DECL_REF_EXPR and base.spelling in _BUILTIN_VARS \
                    and c.spelling in ("x", "y", "z"):
                dtype = "uint32"
                return Builtin(_BUILTIN_VARS[base.spelling], "xyz".index(c.spelling), dtype)
            component = self.vector_member(c, scope) or self.record_member(c, scope) or \
                self.record_field_load(c, scope) or self.vector_lane(c, scope)
            if component is not None:
                return component
            size = self.packed_size(c)
            if size is not None:
                return size
            refusal = self.member_refusal(self.first_child(c))
            if refusal is not None:
                raise TileportError(*refusal, loc)
            raise TileportError("TP131", f"member access '.{c.spelling}' is not supported yet "
                                "(structs and vector types come with thread-level support)", loc)
        if kind == K.BINARY_OPERATOR:
            op = ct.binary_operator(c)
            if op == "=":
                # `s[tid] = sum = sum + s[tid + k]`: the inner assignment runs first, and its
                # value is what the target then holds
                self.prelude.extend(self.expression_statement(c, scope))
                return self.expr(list(c.get_children())[0], scope)
            if op == ",":
                raise TileportError("TP132", f"'{op}' inside an expression is not supported", loc)
            a, b = list(c.get_children())
            if op in ("==", "!=") and (is_pointer(a.type) or is_pointer(b.type)):
                # Ports take tensors, never null: `p != NULL` holds for every buffer they get.
                if self.is_null(a) or self.is_null(b):
                    return Const(op == "!=", "bool")
                raise TileportError("TP133", "pointer comparisons are not supported", loc)
            ea = self.expr(a, scope)
            eb = self.conditional_expr(b, scope) if op in ("&&", "||") else self.expr(b, scope)
            dtype = dtype_of(c.type, loc)
            if op in ("&&", "||"):
                return BinOp(op, self.as_bool(ea), self.as_bool(eb), "bool")
            if ea.dtype == "pointer" or eb.dtype == "pointer":
                raise TileportError("TP133", "pointer arithmetic outside an index", loc)
            return fold(BinOp(op, ea, eb, dtype))
        if kind == K.UNARY_OPERATOR:
            op = ct.unary_operator(c)
            inner = self.first_child(c)
            if op == "*" and self.through_local_pointer(c, scope) is not c:  # `*p` of `p = &local`
                return self.expr(self.through_local_pointer(c, scope), scope)
            if op == "*":
                buf, off = self.pointer(inner, scope)
                return Load(buf, off if off is not None else Const(0, "int32"), self.buffer_dtype(buf))
            if op in ("-", "~", "+"):
                value = self.expr(inner, scope)
                return fold(UnaryOp(op, value, dtype_of(c.type, loc))) if op != "+" else value
            if op == "!":
                return fold(UnaryOp("!", self.as_bool(self.expr(inner, scope)), "bool"))
            if op in ("pre++", "pre--", "post++", "post--"):
                # `while (--n)`, `a[i++]`: the update runs first (after the old value is kept,
                # for the postfix forms), in the statement's prelude
                current = self.expr(inner, scope)
                old = self.materialize(current, "old", scope, loc) if op.startswith("post") else None
                self.prelude.extend(self.expression_statement(c, scope))
                return old if old is not None else self.expr(inner, scope)
            raise TileportError("TP134", f"operator '{op}' inside an expression is not supported; "
                                "use it as a statement", loc)
        if kind == K.ARRAY_SUBSCRIPT_EXPR and self.through_local_pointer(c, scope) is not c:
            return self.expr(self.through_local_pointer(c, scope), scope)  # `p[0]` of `p = &local`
        if kind == K.ARRAY_SUBSCRIPT_EXPR:
            component = self.vector_element(c, scope) or self.record_field_load(c, scope)
            if component is not None:
                return component
            buf, idx = self.subscript(c, scope)
            return Load(buf, idx, self.buffer_dtype(buf))
        if kind == K.CALL_EXPR:
            return self.call(c, scope)
        if kind in (K.CSTYLE_CAST_EXPR, K.CXX_STATIC_CAST_EXPR, K.CXX_FUNCTIONAL_CAST_EXPR):
            inner = [k for k in c.get_children() if k.kind.is_expression()][-1]
            value = self.expr(inner, scope)
            dtype = dtype_of(c.type, loc)
            return fold(Cast(dtype, value)) if value.dtype != dtype else value
        if kind == K.CONDITIONAL_OPERATOR:
            cond, a, b = list(c.get_children())
            dtype = dtype_of(c.type, loc)
            return Select(self.as_bool(self.expr(cond, scope)), self.coerce(self.conditional_expr(a, scope), dtype),
                          self.coerce(self.conditional_expr(b, scope), dtype), dtype)
        if kind == K.CXX_REINTERPRET_CAST_EXPR:
            raise TileportError("TP135", "reinterpret_cast (vectorised access) is not supported yet", loc)
        value = ct.evaluate(c)
        if value is not None:
            return self.literal(value, c)
        raise TileportError("TP130", f"unsupported expression ({kind.name.lower()})", loc)

    def decl_ref(self, c, scope):
        ref = c.referenced
        loc = ct.loc_of(c)
        if ref is None:
            # a template's value parameter in an instantiated __device__ function
            # (`matrixMul<16>(...)` reads BLOCK_SIZE): clang names nothing, but knows the value
            value = ct.evaluate(c)
            if value is not None:
                return self.literal(value, c)
            raise TileportError("TP136", f"unknown name '{c.spelling}'", loc)
        if ref.hash in scope.values:
            return scope.values[ref.hash]
        if ref.hash in scope.pointers:
            return Var(ref.spelling, "pointer")
        if ref.kind == self.K.ENUM_CONSTANT_DECL:
            return Const(ref.enum_value, "int32")
        if ref.kind == self.K.VAR_DECL:
            # a `__device__` variable kernels or the host may change is read where it lives, not
            # as its initialiser (`__device__ unsigned errors = 0;` counted from 0 every time)
            mutable = not ref.type.is_const_qualified() and not is_array(ref.type)
            if mutable and self.global_array(ref, loc) is not None:
                name = self._globals[ref.spelling][0].name
                return Load(name, Const(0, "int32"), self.buffer_dtype(name))
            value = ct.evaluate(ref)
            if value is None:
                init = self.initializer(ref)
                value = ct.evaluate(init) if init is not None else None
            if value is not None:
                return self.literal(value, c)
            if c.spelling == "warpSize":
                return Const(32, "int32")
            if not is_array(ref.type) and self.global_array(ref, loc) is not None:
                name = self._globals[ref.spelling][0].name  # a scalar __device__ variable
                return Load(name, Const(0, "int32"), self.buffer_dtype(name))
            size = self.packed_size(c)
            if size is not None:
                return size
            raise TileportError("TP137", f"'{c.spelling}' is not a compile-time constant; global "
                                "device variables are not supported", loc)
        raise TileportError("TP136", f"unsupported reference to '{c.spelling}'", loc)


    # ------------------------------------------------------------------ inlining


    # ------------------------------------------------------------------ helpers

    def with_prelude(self, fn):
        saved = self.prelude
        self.prelude = []
        try:
            value = fn()
            return self.prelude, value
        finally:
            self.prelude = saved

    def is_constant(self, c) -> bool:
        return ct.evaluate(c) is not None

    def skip_implicit(self, c):
        while c is not None and c.kind in (self.K.UNEXPOSED_EXPR, self.K.PAREN_EXPR) and \
                len(list(c.get_children())) == 1:
            c = self.first_child(c)
        return c

    def literal(self, value, c):
        dtype = dtype_of(c.type, ct.loc_of(c))
        if is_float(dtype):
            return Const(float(value), dtype)
        if dtype == "bool":
            return Const(bool(value), "bool")
        return Const(int(value), dtype)

    def implicit_cast(self, inner, c):
        """clang's implicit conversions show as UNEXPOSED_EXPR carrying the converted type."""
        if not is_scalar(c.type):
            return inner
        dtype = dtype_of(c.type, ct.loc_of(c))
        return self.coerce(inner, dtype)

    @staticmethod
    def coerce(e, dtype: str):
        if e.dtype == dtype:
            return e
        return fold(Cast(dtype, e))

    @staticmethod
    def strip_cast(e):
        while isinstance(e, Cast):
            e = e.a
        return e

    def as_bool(self, e):
        if e.dtype == "bool":
            return e
        zero = Const(0.0 if is_float(e.dtype) else 0, e.dtype)
        return BinOp("!=", e, zero, "bool")

    @staticmethod
    def common_type(a: str, b: str) -> str:
        order = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
                 "float16", "bfloat16", "float32", "float64"]
        return max(a, b, key=order.index)

    def first_child(self, c):
        kids = list(c.get_children())
        return kids[0] if kids else None

    def skip_parens(self, c):
        while c is not None and c.kind == self.K.PAREN_EXPR:
            c = self.first_child(c)
        return c

    def unique(self, name: str, scope) -> str:
        """A local name not used anywhere else in the kernel (inlined copies included), made of
        identifier characters (`operator*`'s parameters are `operator_b`)."""
        name = re.sub(r"\W+", "_", name).strip("_") or "v"
        taken = {v.name for v in scope.values.values() if isinstance(v, Var)}
        taken |= set(self._buffer_dtypes) | self._taken
        candidate = name
        while candidate in taken or candidate in _RESERVED:
            self._fresh += 1
            candidate = f"{name}_{self._fresh}"
        self._taken.add(candidate)
        return candidate


#: What the emulator's build rewrites in a file (launches, shared declarations): a user header
#: that holds any of it is built from a rewritten copy, as the main file is.
_EMULATOR_REWRITES = re.compile(r"<<<|\b__shared__\b")

#: Calls with no effect on data: a port drops them (TileLang has no device printf).
_NO_DATA_EFFECT = {"__assert_fail", "__assertfail", "printf", "vprintf", "__nanosleep"}
#: Stores with a cache hint: plain stores to TileLang.
_CACHE_HINT_STORES = {"__stcs", "__stcg", "__stwb", "__stwt"}

# Names that cannot be Python identifiers in the port (the emitter renames clashes with its own).
_RESERVED = {"T", "tilelang"} | PYTHON_RESERVED


def _plain_spelling(ctype) -> str:
    """A parameter type without template aliases (`const T *` -> `const float *`), spelled the way
    CUDA headers spell the half types."""
    spelling = ctype.get_canonical().spelling
    return spelling.replace("_Float16", "__half").replace("__bf16", "__nv_bfloat16")
