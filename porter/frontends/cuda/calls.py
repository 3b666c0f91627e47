"""CUDA calls: builtins from the mapping table, barriers, atomics, warp shuffles and votes,
cooperative-group methods, and `__device__` functions (inlined), plus the calls that have no
TileLang equivalent and get a diagnostic."""

from __future__ import annotations

import math

from porter.builtins import CUDA_BUILTINS, CUDA_OUT_PARAMETER, CUDA_OUT_VALUES, LOG2E
from porter.diagnostics import TileportError
from porter.frontends.cuda import parse as ct
from porter.frontends.cuda.scope import _Scope
from porter.frontends.cuda.types import dtype_of, is_pointer, is_reference, vector_info
from porter.frontends.cuda import groups, intrinsics
from porter.frontends.cuda.textures import FETCHES, SURFACE_READS, SURFACE_WRITES, is_texture_type
from porter.ir.returns import eliminate_returns
from porter.ir.nodes import Alloc, Assign, BinOp, Builtin, Call, Cast, Const, Decl, Load, Return, Store, UnaryOp, Var


_UNSUPPORTED_CALLS = {
    "__syncthreads_count": "__syncthreads_count", "__syncthreads_and": "__syncthreads_and",
    "__syncthreads_or": "__syncthreads_or",
    "atomicCAS": "atomicCAS (compare-and-swap loops)",
}
_SYNCS = {"__syncthreads": "block", "__syncwarp": "warp"}
# atomics whose result is unused. atomicExch is an atomic store then (T.atomic_store); atomicOr is
# T.atomic_or (integers, one element). The scoped forms port to device-wide atomics: `_system`
# only adds visibility to the host and other GPUs while the kernel runs, `_block` only promises
# atomicity among the block's threads; a device-wide atomic keeps every guarantee either gives, so
# the memory a kernel leaves is one it could leave.
_ATOMICS = {f"{name}{scope}": op for name, op in (("atomicAdd", "add"), ("atomicMax", "max"), ("atomicMin", "min"),
                                                  ("atomicSub", "sub"), ("atomicExch", "store"),
                                                  ("atomicOr", "or"))
            for scope in ("", "_block", "_system")}
_SHUFFLES = {"__shfl_sync": "shfl", "__shfl_down_sync": "shfl_down", "__shfl_up_sync": "shfl_up",
             "__shfl_xor_sync": "shfl_xor"}
#: The mask of a whole warp: shuffles and votes under it carry no mask in the IR.
FULL_MASK = 0xFFFFFFFF
_VOTES = {"__ballot_sync": "ballot", "__any_sync": "any", "__all_sync": "all"}
_WMMA = ("load_matrix_sync", "store_matrix_sync", "mma_sync", "fill_fragment")
_NO_EQUIVALENT = {"__trap": "'__trap()' (abort the kernel) has no TileLang equivalent",
                  "__brkpt": "'__brkpt()' has no TileLang equivalent",
                  "coalesced_threads": "coalesced_threads() (the set of threads active at this "
                                       "point) has no TileLang equivalent",
                  **{n: f"'{n}' (threads split by a run-time value into groups) has no TileLang "
                        "equivalent" for n in ("binary_partition", "labeled_partition")},
                  "this_grid": "grid-wide cooperative groups (this_grid, grid.sync) have no TileLang "
                               "equivalent; split the kernel at the grid barrier",
                  **{n: f"'{n}()' reads {what}, which has no TileLang equivalent (TileLang exposes no "
                        "timer); time the kernel from the host" for n, what in (
                      ("clock", "the SM's cycle counter"), ("clock64", "the SM's cycle counter"),
                      ("__globaltimer", "the GPU's nanosecond timer"))},
                  **{f"__threadfence{scope}": f"'__threadfence{scope}()' (a memory fence) has no TileLang "
                                              "equivalent: TileLang orders memory only through its atomics' "
                                              "memory_order" for scope in ("", "_block", "_system")},
                  **{name: f"'{name}' in device code (the CUDA device runtime) has no TileLang equivalent"
                     for name in ("cudaMalloc", "cudaFree", "cudaDeviceSynchronize", "cudaGetLastError",
                                  "cudaPeekAtLastError", "cudaGetErrorString", "cudaGetDevice", "cudaStreamCreateWithFlags",
                                  "cudaStreamDestroy", "cudaMemcpyAsync", "cudaMemsetAsync")},
                  **{f"__{op}_{mode}": f"'__{op}_{mode}' (arithmetic rounded {way}) has no TileLang "
                                      "equivalent: TileLang has no rounding modes"
                     for op in ("fadd", "fsub", "fmul", "fdiv", "fsqrt", "frcp", "fmaf",
                                "dadd", "dsub", "dmul", "ddiv", "dsqrt", "drcp", "fma")
                     for mode, way in (("rd", "down"), ("ru", "up"), ("rz", "toward zero"))},
                  "cudaGraphSetConditional": "'cudaGraphSetConditional' (a CUDA graph's conditional node) has "
                                             "no TileLang equivalent",
                  **{f"{name}{scope}": f"'{name}{scope}' has no TileLang equivalent: TileLang's atomics are "
                                       "add, max, min, or, load and store"
                     for name in ("atomicInc", "atomicDec", "atomicAnd", "atomicXor")
                     for scope in ("", "_block", "_system")}}


#: types whose values have no TileLang equivalent, by the start of their canonical spelling
def _no_tilelang_equivalent(name: str, call) -> str | None:
    """Why a call has no TileLang equivalent (textures, wmma, dynamic parallelism), else None."""
    if name in _NO_EQUIVALENT:
        return _NO_EQUIVALENT[name]
    if name.startswith("tex") and name[3:4] in ("1", "2", "3", "C"):
        args = list(call.get_arguments())
        if name in FETCHES and args and is_texture_type(args[0].type):
            return None  # a texture object's fetch: its reads and arithmetic (textures.py)
        return f"texture fetch '{name}' has no TileLang equivalent; read the buffer directly"
    if name.startswith(("curand", "skipahead")):
        return f"cuRAND device API '{name}' has no TileLang equivalent: TileLang has no cuRAND " \
               "generators, and their state (curandState & co., a struct kept in memory between " \
               "calls and kernels) has no TileLang buffer type"
    if name.startswith("surf") and name.endswith(("read", "write")):
        args = list(call.get_arguments())
        if name in SURFACE_READS or name in SURFACE_WRITES:
            if len(args) > 1 and is_texture_type(args[0 if name in SURFACE_READS and "&" not in
                                                    [t.spelling for t in args[0].get_tokens()][:1] else 1].type):
                return None  # a surface object's element access (textures.py)
        return f"surface access '{name}' has no TileLang equivalent; read or write the buffer directly"
    if name in _WMMA:
        return f"wmma '{name}' has no thread-level TileLang equivalent; tensor-core GEMMs port " \
               "through T.gemm (tile level)"
    if any(ch.kind.name == "CALL_EXPR" and ch.spelling == "__cudaPushCallConfiguration"
           for ch in call.get_children()):
        return f"launching '{name}' from a kernel (dynamic parallelism) has no TileLang equivalent"
    return None


#: Operators on two CUDA vector values that cuda_fp16.hpp & co. declare (half2 + half2): the
#: scalar builtin each lane applies.
_VECTOR_OPERATORS = {"operator+": "__hadd", "operator-": "__hsub", "operator*": "__hmul", "operator/": "__hdiv"}


class ReturnedPointer:
    """Where an inlined function's `return p;` puts a pointer: (buffer, offset), set once."""

    bound = None


class CallsMixin:
    """Methods of CudaFrontend that turn a call into IR."""

    def call(self, c, scope):
        name = c.spelling
        loc = ct.loc_of(c)
        args = list(c.get_arguments())
        callee = c.referenced
        if name in _UNSUPPORTED_CALLS:
            raise TileportError("TP151", f"{_UNSUPPORTED_CALLS[name]} is not supported yet", loc)
        if name in _ATOMICS or name in _SYNCS:
            raise TileportError("TP153", f"the result of '{name}' is used; only atomics whose result "
                                "is ignored are supported yet", loc)
        element = self.packed_element(c, scope)
        if element is not None:
            return element
        fetched = self.texture_fetch(c, scope)
        if fetched is not None:
            return fetched[0]
        target = self.group_target(c, scope)
        if target is not None:
            values = [self.expr(a, scope) for a in args]
            dtype = dtype_of(c.type, loc) if name not in ("sync",) else "int32"
            return groups.method(target, name, values, dtype, loc)
        if name == "reduce" and args and self.group_arg(args[0], scope) is not None:
            value = self.expr(args[1], scope)
            functor = args[2].type.get_canonical().spelling if len(args) > 2 else ""
            stmts, result = groups.reduce(self.group_arg(args[0], scope), value, functor, value.dtype,
                                          self.unique("cg_reduce", scope), loc)
            self.prelude.extend(stmts)
            return result
        if name in ("this_thread_block", "tiled_partition"):
            raise TileportError("TP155", f"'{name}()' must initialise a named group variable", loc)
        if name in _SHUFFLES:
            values = [self.expr(a, scope) for a in args[1:]]
            dtype = dtype_of(c.type, loc)
            width = ct.evaluate(args[3]) if len(args) > 3 else 32
            if not isinstance(width, int):  # a power of two the caller passes
                width = self.coerce(values[2], "int32")
            return groups.shuffle(_SHUFFLES[name], self.coerce(values[0], dtype), self.coerce(values[1], "int32"),
                                  width, dtype, loc, self.partial_mask(args[0], scope))
        if name in groups.WARP_REDUCES:  # sm_80's __reduce_add_sync & co.
            dtype = dtype_of(c.type, loc)
            if self.partial_mask(args[0], scope):
                raise TileportError("TP151", f"'{name}' under a partial mask is not supported yet (TileLang "
                                    "may move the shuffles it takes out of the branch that names the lanes); "
                                    "the whole warp (0xffffffff) is", loc)
            return groups.warp_reduce(name, self.coerce(self.expr(args[1], scope), dtype), dtype,
                                      lambda e: self.materialize(e, "warp_reduced", scope, loc))
        if name in _VOTES:
            pred = self.as_bool(self.expr(args[1], scope))
            return Call(_VOTES[name], (pred,) + self.partial_mask(args[0], scope), dtype_of(c.type, loc))
        if callee is not None and self.is_device_function(callee):
            return self.inline(callee, args, scope, loc, want_value=True)[1]
        through_lambda = self.call_lambda(c, scope, loc, want_value=True)
        if through_lambda is not None:
            return through_lambda[1]
        target_fn = self.function_argument(c) if not name else None
        if target_fn is not None:  # `warp_reduction(val)` in `template<float (*warp_reduction)(float)>`
            return self.inline(target_fn, args, scope, loc, want_value=True)[1]
        if name == "dim3" or not name:
            value = ct.evaluate(c)
            if value is not None:
                return self.literal(value, c)
        if name in CUDA_OUT_PARAMETER and callee is not None and not self.is_device_function(callee):
            return self.out_parameter_call(c, scope, loc)
        entry = CUDA_BUILTINS.get(name)
        if entry is None and _no_tilelang_equivalent(name, c) is not None:
            raise TileportError("TP156", _no_tilelang_equivalent(name, c), loc)
        if entry is None:
            if name.startswith(("atomic", "__shfl")) or name.endswith("_sync"):
                raise TileportError("TP152", f"'{name}' (atomics and warp primitives) is not "
                                    "supported yet", loc)
            raise TileportError("TP138", f"call to unknown function '{name}'", loc)
        kind, canonical = entry
        dtype = dtype_of(c.type, loc)
        if kind == "ldg":
            inner = self.skip_parens(args[0])
            if inner.kind == self.K.UNARY_OPERATOR and ct.unary_operator(inner) == "&":
                return self.expr(self.first_child(inner), scope)
            buf, off = self.pointer(inner, scope)
            return Load(buf, off if off is not None else Const(0, "int32"), self.buffer_dtype(buf))
        if kind == "const":
            return Const(float(canonical), dtype)
        if kind == "lane":  # `__low2float(h2)`: one component of a half2, as the result type
            parts = self.vector_expr(args[0], scope, vector_info(args[0].type)[1])
            return self.coerce(parts[int(canonical)], dtype)
        values = [self.expr(a, scope) for a in args]
        if kind == "intrinsic":  # integer intrinsics: arguments as the declared parameter types
            params = [dtype_of(p.type, loc) for p in callee.get_arguments()]
            values = [self.coerce(v, t) for v, t in zip(values, params)]
            return intrinsics.build(canonical, values, dtype, lambda v, n: self.materialize(v, n, scope, loc))
        return self.scalar_builtin(name, kind, canonical, values, dtype, loc)

    def out_parameter_call(self, c, scope, loc):
        """`frexp(x, &e)`: the result, with the value it writes through its pointer argument
        assigned (a local, a buffer element: `&e`, `&a[i]`, or a pointer parameter)."""
        args = list(c.get_arguments())
        dtype = dtype_of(c.type, loc)
        target = self.skip_parens(self.skip_implicit(args[CUDA_OUT_PARAMETER[c.spelling]]))
        x = self.coerce(self.expr(args[0], scope), dtype)
        mantissa, exponent = intrinsics.frexp(x, dtype, lambda v, n: self.materialize(v, n, scope, loc))
        if target.kind == self.K.UNARY_OPERATOR and ct.unary_operator(target) == "&":
            self.prelude.append(self.assign(self.first_child(target), exponent, scope, loc))
        else:
            buf, off = self.pointer(target, scope)
            index = off if off is not None else Const(0, "int32")
            self.prelude.append(Store(buf, index, self.coerce(exponent, self.buffer_dtype(buf)), loc))
        return mantissa

    def out_values_call(self, c, scope, loc) -> list | None:
        """`sincosf(x, &s, &c)`: each value assigned where its pointer argument points (a local,
        a buffer element, a pointer parameter); None for another call."""
        if c.kind != self.K.CALL_EXPR or c.spelling not in CUDA_OUT_VALUES or \
                (c.referenced is not None and self.is_device_function(c.referenced)):
            return None
        args = list(c.get_arguments())
        dtype = dtype_of(args[0].type, loc)
        x = self.materialize(self.coerce(self.expr(args[0], scope), dtype), f"{c.spelling.strip('_')}_x", scope, loc)
        out = []
        for function, target_c in zip(CUDA_OUT_VALUES[c.spelling], args[1:]):
            angle = x
            if function.endswith("pi"):  # pi * (x less its nearest even integer): exact, |.| <= pi
                even = BinOp("*", Const(2.0, dtype), Call("nearbyint", (BinOp("*", x, Const(0.5, dtype), dtype),),
                                                          dtype), dtype)
                angle = BinOp("*", BinOp("-", x, even, dtype), Const(math.pi, dtype), dtype)
            value = Call(function[:3], (angle,), dtype)
            target = self.skip_parens(self.skip_implicit(target_c))
            if target.kind == self.K.UNARY_OPERATOR and ct.unary_operator(target) == "&":
                out.append(self.assign(self.first_child(target), value, scope, loc))
            else:
                buf, off = self.pointer(target, scope)
                out.append(Store(buf, off if off is not None else Const(0, "int32"),
                                 self.coerce(value, self.buffer_dtype(buf)), loc))
        return out

    def partial_mask(self, mask_c, scope) -> tuple:
        """() for the full warp (0xffffffff), else (mask,): the lanes a `__shfl_*_sync` or vote
        names (reduction's reduce7 reduces 16 partial sums under a ballot of tid < 16)."""
        mask = ct.evaluate(mask_c)
        if isinstance(mask, int) and mask & FULL_MASK == FULL_MASK:  # 0xffffffff, ~0, -1
            return ()
        return (self.coerce(self.expr(mask_c, scope), "uint32"),)

    def scalar_builtin(self, name, kind, canonical, values, dtype, loc):
        """A builtin row of porter/builtins.py applied to IR values, as `dtype`."""
        if kind == "math":
            values = [self.coerce(v, dtype) for v in values]
            return Call(canonical, tuple(values), dtype)
        if kind == "exp-as-exp2":
            x = self.coerce(values[0], dtype)
            return Call(canonical, (BinOp("*", x, Const(LOG2E, dtype), dtype),), dtype)
        if kind == "binop":
            return BinOp(canonical, self.coerce(values[0], dtype), self.coerce(values[1], dtype), dtype)
        if kind == "unop":
            return UnaryOp(canonical, self.coerce(values[0], dtype), dtype)
        if kind == "cmp":
            return BinOp(canonical, values[0], values[1], "bool")
        if kind == "cast":
            return Cast(dtype, values[0]) if values[0].dtype != dtype else values[0]
        if kind == "recip":
            return BinOp("/", Const(1.0, dtype), self.coerce(values[0], dtype), dtype)
        if kind == "saturate":
            v = self.coerce(values[0], dtype)
            return Call("min", (Call("max", (v, Const(0.0, dtype)), dtype), Const(1.0, dtype)), dtype)
        raise TileportError("TP138", f"unsupported builtin '{name}'", loc)

    def vector_builtin(self, c, scope, lanes: int):
        """The components of a half2 / bfloat162 builtin's result (`__hadd2`, `__halves2half2`,
        `__float22half2_rn`, `__half22float2`, `a + b` of two half2), else None."""
        name, loc = c.spelling, ct.loc_of(c)
        args = list(c.get_arguments())
        lane = vector_info(c.type)[0]
        entry = CUDA_BUILTINS.get(name)
        if entry is None and name in _VECTOR_OPERATORS and args and all(vector_info(a.type) for a in args):
            entry = ("lanes", _VECTOR_OPERATORS[name])
        if entry is None or entry[0] not in ("lanes", "pack", "splat", "convert"):
            return None
        kind, canonical = entry
        if kind == "pack":
            return [self.coerce(self.expr(a, scope), lane) for a in args]
        if kind == "splat":
            value = self.coerce(self.expr(args[0], scope), lane)
            return [value] * lanes
        if kind == "convert":
            return [self.coerce(x, lane) for x in self.vector_expr(args[0], scope, lanes)]
        parts = [self.vector_expr(a, scope, lanes) if vector_info(a.type) else [self.expr(a, scope)] * lanes
                 for a in args]
        scalar_kind, scalar = CUDA_BUILTINS[canonical]
        return [self.scalar_builtin(canonical, scalar_kind, scalar, [p[k] for p in parts], lane, loc)
                for k in range(lanes)]

    def is_device_function(self, callee) -> bool:
        static_method = callee.kind == self.K.CXX_METHOD and callee.is_static_method()
        if callee.kind not in (self.K.FUNCTION_DECL, self.K.FUNCTION_TEMPLATE) and not static_method \
                and not self.is_stateless_method(callee):
            return False
        definition = callee.get_definition()
        if definition is None or not definition.location.file:
            return False
        if definition.location.file.name.startswith(str(ct.SHIM_DIR)):
            return False
        return any(ch.kind == self.K.COMPOUND_STMT for ch in definition.get_children())

    def is_stateless_method(self, callee) -> bool:
        """A method of a struct without fields (`SharedMemory<T>::operator T*()`,
        `getPointer()`): it reads no object, so it inlines like a free function."""
        if callee.kind not in (self.K.CXX_METHOD, self.K.CONVERSION_FUNCTION):
            return False
        parent = callee.semantic_parent
        return parent is not None and parent.kind in (self.K.STRUCT_DECL, self.K.CLASS_DECL) and \
            not list(parent.type.get_canonical().get_fields())

    def pointer_call(self, c, scope, loc):
        """A `__device__` function returning a pointer into a buffer or shared array (the
        SharedMemory<T> idiom: `extern __shared__ int s[]; return (T*)s;`): inlined, and the
        pointer it returns is the call's value."""
        _, result = self.inline(c.referenced, list(c.get_arguments()), scope, loc, want_value=True)
        if not isinstance(result, ReturnedPointer) or result.bound is None:
            raise TileportError("TP133", f"'{c.spelling}' must return one pointer, on every path", loc)
        return result.bound

    def inline(self, callee, args, scope, loc, want_value: bool, captured=None):
        """Inline a __device__ function: params bound to args, locals renamed, returns folded.
        captured: a lambda's enclosing scope (a copy), which its body sees."""
        definition = callee.get_definition()
        name = definition.spelling
        key = definition.hash  # an overload (or another instantiation) is not recursion
        if key in self._inline_stack:
            raise TileportError("TP139", f"recursive __device__ function '{name}' cannot be inlined", loc)
        depth = len(self._inline_stack)
        try:
            inner = captured if captured is not None else _Scope()
            inner.result = None
            params = list(definition.get_arguments())
            written = self.assigned_decls(definition)  # by-value params the body changes
            for p, a in zip(params, args):
                texture = self.texture_of(a, scope) if is_texture_type(p.type) else None
                if texture is not None:  # the caller's texture parameter, sampled as it is
                    inner.textures[p.hash] = texture
                    continue
                group = groups.group_of_type(p.type)
                if group is not None:  # the argument's group: a tile passed as a thread_group
                    inner.groups[p.hash] = self.group_arg(a, scope) or group
                    continue
                if is_pointer(p.type) and self.pointer_to_local(p, a, scope, loc, into=inner):
                    continue  # `&tnear` to `float *tnear`: the caller's local
                if is_pointer(p.type) and vector_info(p.type.get_pointee()) is not None:
                    # `half2 *v` given a half2 array or buffer: the same view, `lanes` at a time
                    inner.vector_views[p.hash] = self.vector_pointer(a, scope, vector_info(p.type.get_pointee())[1],
                                                                     ct.loc_of(a))
                    continue
                if is_pointer(p.type):
                    inner.pointers[p.hash] = self.pointer(a, scope)
                    continue
                by_ref = is_reference(p.type)
                vector = vector_info(p.type.get_pointee() if by_ref else p.type)
                if vector is not None:
                    # `float4& v` aliases the caller's components; `float4 v` is a copy, made
                    # only when the body changes it or a component is not a plain value
                    parts = self.vector_expr(a, scope, vector[1])
                    keep = (Var,) if by_ref else (Var, Const)
                    inner.vectors[p.hash] = [
                        x if isinstance(x, keep) and (by_ref or p.hash not in written)
                        else self.materialize(self.coerce(x, vector[0]), f"{name}_{p.spelling}_{k}", scope, loc)
                        for x, k in zip(parts, "xyzw")]
                    continue
                packed = self.packed_info(p.type.get_pointee() if by_ref else p.type)
                if packed is not None:
                    inner.packed[p.hash] = inner.arrays[p.hash] = \
                        self.packed_argument(p, a, packed, name, written, scope, loc)
                    continue
                fields = self.record_fields(p.type.get_pointee() if by_ref else p.type, loc)
                aliased = self.record_parts(a, scope) if by_ref and fields is not None else None
                if aliased is not None:  # `Segment &s`: the caller's locals themselves
                    inner.structs[p.hash] = dict(zip([f for f, _ in fields], aliased))
                    continue
                if fields is not None:
                    inner.structs[p.hash] = self.record_argument(p, a, fields, name, written, scope, loc)
                    continue
                if by_ref:
                    # `uint &a`: the caller's variable or buffer element itself (its writes are
                    # the caller's); a temporary bound to a const reference is a plain value
                    lvalue = self.skip_implicit(a).kind in (
                        self.K.DECL_REF_EXPR, self.K.ARRAY_SUBSCRIPT_EXPR, self.K.MEMBER_REF_EXPR, self.K.UNARY_OPERATOR)
                    target = (self.target_var(a, scope) or self.lvalue_load(a, scope)) if lvalue else None
                    pointee = dtype_of(p.type.get_pointee(), ct.loc_of(p), what=f"parameter '{p.spelling}'")
                    if target is not None and target.dtype == pointee:
                        inner.values[p.hash] = target
                        continue
                    if not p.type.get_pointee().is_const_qualified():
                        raise TileportError("TP120", f"'{p.spelling}' is a reference to something that is "
                                            "not a variable or buffer element", ct.loc_of(a))
                dtype = dtype_of(p.type.get_pointee() if by_ref else p.type, ct.loc_of(p),
                                 what=f"parameter '{p.spelling}'")
                value = self.coerce(self.expr(a, scope), dtype)
                if isinstance(value, (Const, Var, Builtin)) and p.hash not in written:
                    inner.values[p.hash] = value
                else:
                    var = Var(self.unique(f"{name}_{p.spelling}", scope), dtype)
                    self.prelude.append(Decl(var, value, loc))
                    inner.values[p.hash] = var
            result = None
            packed = self.packed_info(definition.result_type) if want_value else None
            fields = self.record_fields(definition.result_type, loc) if want_value and not packed else None
            vector = vector_info(definition.result_type) if want_value else None
            if packed is not None:  # a packed record: a local array
                result = inner.result = self.packed_local(f"{name}_result", packed, scope, loc)
            elif fields is not None:  # a struct result: one local per field
                result = inner.result = self.record_locals(f"{name}_result", fields, scope)
            elif want_value and is_pointer(definition.result_type):
                result = inner.result = ReturnedPointer()
            elif vector is not None:  # a float4 result: one local per component
                result = inner.result = [Var(self.unique(f"{name}_result_{k}", scope), vector[0])
                                         for k in "xyzw"[:vector[1]]]
            elif want_value:
                returned = definition.result_type
                if is_reference(returned):  # `float& f(...)` used as a value reads what it refers to
                    returned = returned.get_pointee()
                dtype = dtype_of(returned, loc, what=f"result of '{name}'")
                result = Var(self.unique(f"{name}_result", scope), dtype)
                inner.result = result
            inner.values.update({k: v for k, v in scope.values.items() if k not in inner.values})
            inner.arrays.update(scope.arrays)
            inner.groups.update({k: v for k, v in scope.groups.items() if k not in inner.groups})
            body_cursor = [ch for ch in definition.get_children() if ch.kind == self.K.COMPOUND_STMT][0]
            saved = self.prelude
            self.prelude = []
            # on the stack for its body only: `f(x, f(y, z))` evaluates its arguments in the caller
            self._inline_stack.append(key)
            body = self.block(body_cursor, inner)
            body = self.prelude + body
            self.prelude = saved
            body = eliminate_returns(body, in_function=True, loc=loc, fresh=lambda n: self.unique(n, scope))
            if isinstance(result, ReturnedPointer):
                self.prelude.extend(s for s in body if not isinstance(s, Return))
                return [], result
            if isinstance(result, Alloc):
                self.prelude.append(result)
            elif isinstance(result, (dict, list)):
                self.prelude.extend(Decl(v, None, loc) for v in (result.values() if isinstance(result, dict)
                                                                 else result))
            elif want_value:
                simple = self.single_return(body, result)
                if simple is not None:
                    return [], simple
                self.prelude.append(Decl(result, None, loc))
            self.prelude.extend(body)
            return [], result
        finally:
            del self._inline_stack[depth:]

    def function_argument(self, call):
        """The function a call through a template's function parameter reaches (in the
        instantiation clang shows it as an unnamed reference to `&warpReduceSum`), else None."""
        node = self.first_child(call)
        for _ in range(6):
            if node is None:
                return None
            ref = node.referenced if node.kind == self.K.DECL_REF_EXPR else None
            if ref is not None and ref.kind == self.K.FUNCTION_DECL and node.spelling:
                return ref if self.is_device_function(ref) else None
            kids = [k for k in node.get_children() if k.kind.is_expression()]
            node = kids[-1] if len(kids) == 1 else None
        return None

    def function_reference(self, c):
        """The __device__ function an argument names (`reduce_sum_max_op`, `&op`), else None."""
        for node in c.walk_preorder():
            if node.kind == self.K.DECL_REF_EXPR and node.referenced is not None and \
                    node.referenced.kind == self.K.FUNCTION_DECL:
                return node.referenced if self.is_device_function(node.referenced) else None
        return None

    def materialize(self, value, name, scope, loc) -> Var:
        var = Var(self.unique(name, scope), value.dtype)
        self.prelude.append(Decl(var, value, loc))
        return var

    def assigned_decls(self, function) -> set:
        """Hashes of the declarations a function body assigns to (=, op=, ++, --)."""
        out = set()
        for c in function.walk_preorder():
            target = None
            if c.kind == self.K.COMPOUND_ASSIGNMENT_OPERATOR or \
                    (c.kind == self.K.BINARY_OPERATOR and ct.binary_operator(c) == "="):
                target = self.first_child(c)
            elif c.kind == self.K.UNARY_OPERATOR and ct.unary_operator(c) in ("post++", "pre++", "post--", "pre--"):
                target = self.first_child(c)
            target = self.skip_implicit(target) if target is not None else None
            while target is not None and target.kind == self.K.MEMBER_REF_EXPR:  # `s.field = v` changes s
                target = self.skip_implicit(self.first_child(target))
            if target is not None and target.kind == self.K.DECL_REF_EXPR and target.referenced is not None:
                out.add(target.referenced.hash)
        return out

    @staticmethod
    def single_return(body, result):
        """`{ return expr; }` inlines as the expression itself, with no temporaries."""
        if len(body) == 1 and isinstance(body[0], Assign) and body[0].var == result:
            return body[0].value
        return None

    def sized_partition(self, c, loc):
        """("tile", n) for `cg::tiled_partition(parent, n)` (the size an argument) with a constant n,
        else None; a run-time n is TP155."""
        c = self.skip_implicit(c) if c is not None else None
        while c is not None and c.kind == self.K.UNEXPOSED_EXPR and len(list(c.get_children())) == 1:
            c = self.skip_implicit(self.first_child(c))
        if c is None or c.kind != self.K.CALL_EXPR or c.spelling != "tiled_partition":
            return None
        args = list(c.get_arguments())
        if len(args) != 2:
            return None
        size = ct.evaluate(args[1])
        if not isinstance(size, int) or size < 1 or size & (size - 1) or size > 32:
            raise TileportError("TP155", "tiled_partition(group, n) is supported for a constant n that is a "
                                "power of two up to 32", loc)
        return ("tile", size)

    def group_target(self, call, scope):
        """The group a method call is made on (`warp.shfl_down(...)`), else None."""
        callee = self.first_child(call)
        if callee is None or callee.kind != self.K.MEMBER_REF_EXPR:
            return None
        return self.group_arg(self.first_child(callee), scope)

    def group_arg(self, c, scope):
        c = self.skip_implicit(c)
        for _ in range(4):  # a group passed by value: its copy constructor's argument
            if c is None or c.kind != self.K.CALL_EXPR or c.referenced is None or \
                    c.referenced.kind != self.K.CONSTRUCTOR or len(list(c.get_arguments())) != 1:
                break
            c = self.skip_implicit(list(c.get_arguments())[0])
        if c is not None and c.kind == self.K.DECL_REF_EXPR and c.referenced is not None:
            return scope.groups.get(c.referenced.hash)
        return None
