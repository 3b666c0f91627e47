"""What TileLang's C target lacks for verify's CPU runs of ports, supplied in verify's own child
process (never in a port module, which must run on a GPU with tilelang alone). `install` points
a loaded port's `_compiled` here for target "c":

- math: the C target has no lowering for exp, log, erf, tanh, ... (and none at all on 16-bit
  floats): they become libm calls, 16-bit values computed in float32.
- tiles: the C target has no threads, so fragment layouts cannot be inferred and T.fill/T.gemm/
  T.reduce_* fail on real fragments. Allocated with scope "local" (same shapes and dtypes) the tile
  ops keep their meaning and lower to loops; the check that rejects T.Parallel indexing of local
  buffers is relaxed, and T.cumsum/T.cummax become serial scans, while the program is traced.
- bounds: every load and store is checked against its buffer's shape (bounds_checks.py).

bfloat16 (measured on tilelang 0.1.15): the CPU pipeline legalizes bf16 arithmetic to float32
(BF16ComputeLegalize) and the host codegen legalizes bf16 storage to uint16, but the C device
codegen is handed bf16 buffers as they are ("Cannot convert type bfloat16 to C type"), and the
C wrapper has no C type for them (nor the right one for bool buffers, passed as bool * to
the int8_t * the device code takes). Here the device module of a C-target build gets the same
storage legalization the host module gets, and the wrapper passes bf16 buffers as uint16_t
(the same two bytes torch holds).
"""

from __future__ import annotations

import functools
import os
import pathlib
import sys

from porter.util.hashing import content_hash
from porter.verify.port_module import port_constant

_PATCHED = False


@functools.lru_cache(maxsize=1)
def lowering_stamp() -> str:
    """Names the kernel-cache folder of C builds: a digest of the files whose stand-ins and
    passes shape them (tilelang keys its cache by the program's text alone), so a build made
    by other checks, an older tileport's, is never taken for one of this tileport's."""
    here = pathlib.Path(__file__).parent
    return content_hash(*((here / name).read_bytes() for name in ("cpu_target.py", "bounds_checks.py", "bf16.py")))[:16]


def enable_bfloat16() -> None:
    """Let C-target builds in this process take bfloat16 buffers (idempotent)."""
    global _PATCHED
    if _PATCHED:
        return
    import tilelang  # noqa: F401  (imports tilelang.engine.lower)
    from tilelang import tvm
    from tilelang.jit.adapter import wrapper

    lower = sys.modules["tilelang.engine.lower"]
    prepare = lower._prepare_device_codegen_mod

    def prepare_with_bf16_storage(device_mod):
        if all(_is_c_target(f) for f in device_mod.functions.values()):
            device_mod = _widen_bf16_selects(tvm)(device_mod)
            device_mod = tvm.tirx.transform.BF16StorageLegalize()(device_mod)
        return prepare(device_mod)

    lower._prepare_device_codegen_mod = prepare_with_bf16_storage
    wrapper.TLCPUSourceWrapper._TYPE_MAP.setdefault("bfloat16", "uint16_t")
    # the C device code takes a bool buffer as int8_t * (as the CUDA and HIP wrappers' tables
    # say), but the C wrapper declares it bool *: "cannot convert 'bool*' to 'int8_t*'" at its
    # call. One byte each, 0 or 1, as torch holds them.
    wrapper.TLCPUSourceWrapper._TYPE_MAP["bool"] = "int8_t"
    # the C wrapper's table has uint8/16/64 but no uint32 ("Unsupported dtype uint32")
    wrapper.TLCPUSourceWrapper._TYPE_MAP.setdefault("uint32", "uint32_t")
    # the C host wrapper passes a kernel the dynamic sizes of its buffers' shapes but not those
    # of their strides (T.StridedTensor((M, K), (lda, 1))): "too few arguments" at its call. The
    # CUDA wrapper's list (shapes, then strides) is the one the C kernel takes.
    wrapper.TLCPUSourceWrapper.get_dynamic_symbolic_set = _with_strides(
        wrapper.TLCPUSourceWrapper.get_dynamic_symbolic_set)
    # tilelang's kernel cache keys on the program, not on how it was lowered: builds made with
    # these passes live in their own folder, so no artifact of another lowering is reused
    from tilelang import env

    os.environ["TILELANG_CACHE_DIR"] = os.path.join(str(env.TILELANG_CACHE_DIR), f"tileport-c-{lowering_stamp()}")
    _PATCHED = True


def _widen_bf16_selects(tvm):
    """Widen the bf16 reads BF16ComputeLegalize leaves (measured: a guarded load, which
    LegalizeSafeMemoryAccess makes an `if_then_else` call, and any cast in a let-bound value):
    `float(if_then_else(c, x, bf16(0)))` -> `if_then_else(c, float(x), 0.0f)`, and `float(x)` of a
    bf16 load -> its bits shifted into a float's high half, exactly what the legalizer writes."""
    tirx = tvm.tirx
    select = tvm.ir.Op.get("tirx.if_then_else")

    def widen(value, dtype):
        if isinstance(value, tirx.FloatImm):
            return tirx.FloatImm(dtype, value.value)
        if isinstance(value, tirx.BufferLoad) and str(value.dtype) == "bfloat16":
            bits = tirx.Cast("uint32", tirx.call_intrin("uint16", "tirx.reinterpret", value))
            wide = tirx.call_intrin("float32", "tirx.reinterpret",
                                    tirx.shift_left(bits, tirx.IntImm("uint32", 16)))
            return wide if dtype == "float32" else tirx.Cast(dtype, wide)
        return tirx.Cast(dtype, value)

    def post(node):
        if not (isinstance(node, tirx.Cast) and str(node.value.dtype) == "bfloat16"):
            return None
        v = node.value
        if isinstance(v, tirx.Call) and v.op.same_as(select):
            cond, a, b = v.args
            return tirx.Call(node.dtype, select, [cond, widen(a, node.dtype), widen(b, node.dtype)])
        if isinstance(v, (tirx.BufferLoad, tirx.FloatImm)):
            return widen(v, node.dtype)
        return None

    def rewrite(func, mod, ctx):
        return func.with_body(tirx.stmt_functor.ir_transform(func.body, None, post))

    return tirx.transform.prim_func_pass(rewrite, opt_level=0, name="tileport.WidenBF16Reads")


def _with_strides(shapes_only):
    """get_dynamic_symbolic_set that also lists dynamic strides, after the shapes."""
    def symbols(self, prim_func):
        from tilelang import tvm

        found = dict(shapes_only(self, prim_func))
        for param in prim_func.params:
            if param in prim_func.buffer_map:
                for stride in prim_func.buffer_map[param].strides:
                    if isinstance(stride, tvm.tirx.Var) and stride.name not in found:
                        found[stride.name] = str(stride.dtype)
        return list(found.items())
    return symbols


def _is_c_target(func) -> bool:
    target = func.attrs.get("target") if func.attrs is not None else None
    return target is not None and target.kind.name == "c"


def install(module) -> None:
    """Make a loaded port module (or the launch helpers module several ports share) build its
    programs for target "c" (and for no target on a machine without a GPU) with the
    stand-ins above; CUDA builds stay the module's own. Once per module."""
    if getattr(module, "_tileport_c_target", False):
        return
    module._tileport_c_target = True
    own = module._compiled
    cache: dict = {}

    def compiled(name, program, target=None, *options, **keywords):
        if target is None:
            import torch

            target = "cuda" if torch.cuda.is_available() else "c"
        if str(target) != "c":
            return own(name, program, target, *options, **keywords)
        if name not in cache:
            register_cpu_math()
            enable_bfloat16()
            # the port's own configs (no per-access extent guards): an access past a buffer
            # reads or hits verify's guard zone here as it would read garbage on a GPU
            cache[name] = compile_for_c(program, c_configs(port_constant(module, "_PASS_CONFIGS") or {}))
        return cache[name]

    module._compiled = compiled


_LOWERED: set = set()

#: Pass configs that only shape CUDA code: explicit unrolling (the port's fix for a pipelined
#: loop's wait count) made verify's C build of matmul_tiled run past its 300 s limit.
CUDA_ONLY_CONFIGS = ("tl.UnrollLoop",)


def c_configs(configs: dict) -> dict:
    """The port's pass configs as the C target takes them."""
    return {key: value for key, value in configs.items() if key not in CUDA_ONLY_CONFIGS}


def register_cpu_math() -> None:
    """libm lowerings for the C target (float16/bfloat16 computed in float32), once per process."""
    from tilelang import tvm

    def libm(name):
        def lower(op):
            if op.dtype == "float64":
                return tvm.tirx.call_pure_extern("float64", name, *op.args)
            value = tvm.tirx.call_pure_extern("float32", name + "f", *[tvm.tirx.Cast("float32", a) for a in op.args])
            return value if op.dtype == "float32" else tvm.tirx.Cast(op.dtype, value)
        return lower

    # T.round follows CUDA, the target ports are verified for (porter/verify/targets.py)
    calls = {"round": "nearbyint"}
    for name in ("fabs", "fmod", "fma", "exp", "exp2", "log", "log2", "log10", "log1p", "sqrt", "erf", "tanh",
                 "sin", "cos", "tan", "floor", "ceil", "trunc", "pow", "round", "nearbyint", "copysign"):
        if name in _LOWERED:
            continue  # registered already, by an earlier build in this process
        op = tvm.ir.Op.get("tl.fma" if name == "fma" else "tirx." + name)
        tvm.ir.register_intrin_lowering(op.name, "c", f=libm(calls.get(name, name)), level=99)
        _LOWERED.add(name)
    # the integer intrinsics CUDA ports use (porter/frontends/cuda/intrinsics.py) as gcc builtins,
    # with CUDA's results at 0 (__clz(0) == 32), which __builtin_clz leaves undefined. The C
    # codegen declares each extern it calls: the 64-bit forms are the `unsigned long` builtins,
    # whose type is uint64_t's on LP64 (`...ll` with uint64_t "ambiguates built-in declaration")
    for name, lower in (("popcount", _popcount(tvm)), ("clz", _clz(tvm))):
        if name not in _LOWERED:
            tvm.ir.register_intrin_lowering("tirx." + name, "c", f=lower, level=99)
            _LOWERED.add(name)


def _popcount(tvm):
    def lower(op):
        (x,) = op.args
        wide = x.dtype.bits > 32
        count = tvm.tirx.call_pure_extern("int32", "__builtin_popcountl" if wide else "__builtin_popcount",
                                          tvm.tirx.Cast("uint64" if wide else "uint32", x))
        return tvm.tirx.Cast(op.dtype, count)
    return lower


def _clz(tvm):
    def lower(op):
        (x,) = op.args
        bits = x.dtype.bits
        unsigned = tvm.tirx.Cast("uint64" if bits > 32 else "uint32", x)
        leading = tvm.tirx.call_pure_extern("int32", "__builtin_clzl" if bits > 32 else "__builtin_clz", unsigned)
        return tvm.tirx.if_then_else(x == tvm.tirx.const(0, x.dtype), tvm.tirx.const(bits, "int32"), leading)
    return lower


def _serial_scan_macro():
    import tilelang.language as T

    @T.macro
    def serial_scan(src, dst, dim, reverse, is_max):
        """Inclusive scan of a 1-D/2-D buffer along `dim`, one line after another."""
        for line in T.serial(src.shape[1 - dim] if len(src.shape) == 2 else 1):
            acc = T.alloc_var(src.dtype)
            for t in T.serial(src.shape[dim]):
                k = src.shape[dim] - 1 - t if reverse else t
                at = (k,) if len(src.shape) == 1 else ((k, line) if dim == 0 else (line, k))
                if t == 0:
                    acc = src[at]
                elif is_max:
                    acc = T.max(acc, src[at])
                else:
                    acc = acc + src[at]
                dst[at] = acc

    return serial_scan


def _guarded_copy_macro():
    import tilelang.language as T

    @T.macro
    def guarded_copy(src, origin, dst):
        """dst (1-D or 2-D) from src at origin, each element its own bounds test: a position
        past src's shape gets 0, as T.copy's predicate gives on a GPU."""
        rows = dst.shape[0] if len(dst.shape) == 2 else 1
        cols = dst.shape[-1]
        for i in T.serial(rows):
            for j in T.serial(cols):
                at = tuple(origin[:-2]) + (origin[-2] + i, origin[-1] + j) if len(dst.shape) == 2 else \
                    tuple(origin[:-1]) + (origin[-1] + j,)
                here = (i, j) if len(dst.shape) == 2 else (j,)
                inside = at[-1] < src.shape[-1]
                if len(dst.shape) == 2:
                    inside = T.And(at[-2] < src.shape[-2], inside)
                dst[here] = T.if_then_else(inside, T.Cast(dst.dtype, src[at]), T.Cast(dst.dtype, 0))

    return guarded_copy


def _cpu_copy(real_copy, guarded_copy):
    """T.copy for the C target: a copy from a global tensor at an origin (`T.copy(a[r0, c0],
    tile)`, the ports' form) tests each element against the tensor's shape. TileLang 0.1.15
    lowers a synchronous copy whose rows may pass the shape as a vector load of each row, then a
    select, so the C build read past the tensor where a GPU's cp.async is predicated (verify's
    bounds checks then called a right port wrong: FlagGems' addmm at M = 13). Anything else
    is TileLang's own T.copy."""
    import tilelang

    tirx = tilelang.tvm.tirx

    def copy(src, dst, *args, **kwargs):
        if isinstance(src, tirx.BufferLoad) and isinstance(dst, tirx.Buffer) and not args and not kwargs \
                and len(dst.shape) in (1, 2) and len(src.indices) >= len(dst.shape) \
                and src.buffer.scope() == "global":
            return guarded_copy(src.buffer, tuple(src.indices), dst)
        return real_copy(src, dst, *args, **kwargs)
    return copy


def _cpu_scan(is_max, serial_scan):
    """T.cumsum / T.cummax for the C target, which has no lowering for them (whole buffers only)."""
    import tilelang

    def scan(src, dst=None, dim=0, reverse=False, annotations=None):
        buffer = tilelang.tvm.tirx.Buffer
        if not isinstance(src, buffer) or not isinstance(dst, (buffer, type(None))):
            raise NotImplementedError("on the CPU, T.cumsum/T.cummax take whole buffers, not slices")
        serial_scan(src, src if dst is None else dst, dim % len(src.shape), reverse, is_max)
    return scan


def poison_value(dtype):
    """The value unwritten tiles and verify's guard zones hold on the CPU: huge for floats (a
    max or sum that takes it is far off), a bit pattern for integers. dtype: a TileLang or
    numpy dtype (numpy uint16 holds bfloat16 bits, 0x7149: about 1e30)."""
    import numpy as np

    name = str(dtype)
    if name in ("float16",):
        return 60000.0
    if name.startswith("float") or name == "bfloat16":
        return 1e30
    if name == "bool":
        return True
    bits = np.dtype(name).itemsize * 8 if name != "uint16" else 16
    return {8: 90, 16: 23130}.get(bits, 0x3A5A5A5A)


def poison(dtype):
    """poison_value as a TileLang constant of dtype."""
    from tilelang import tvm

    return tvm.tirx.const(poison_value(dtype), str(dtype))


def compile_for_c(program, configs: dict | None = None):
    """Trace `program` with shared/fragment tiles as plain arrays (starting as poison) and
    compile it for the C target with the port's pass configs; tilelang is restored afterwards."""
    import tilelang
    import tilelang.analysis
    import tilelang.language as T

    from porter.verify.bounds_checks import checked_lowering

    def local(shape, dtype, scope=None):
        buffer = T.alloc_local(shape, dtype)
        # shared memory and registers start as garbage on a GPU: a tile read before it is
        # written must not read zeros here, so it starts as a value no kernel computes
        T.evaluate(T.fill(buffer, poison(buffer.dtype)))
        return buffer

    serial_scan = _serial_scan_macro()
    saved = (T.alloc_shared, T.alloc_fragment, T.cumsum, T.cummax, T.copy,
             tilelang.analysis.ParallelLocalIndexChecker)
    T.alloc_shared = T.alloc_fragment = local
    T.cumsum, T.cummax = _cpu_scan(False, serial_scan), _cpu_scan(True, serial_scan)
    T.copy = _cpu_copy(T.copy, _guarded_copy_macro())
    tilelang.analysis.ParallelLocalIndexChecker = lambda: (lambda mod: mod)
    try:
        with checked_lowering():  # every access checked against its buffer's shape
            return tilelang.compile(
                program(), target="c", execution_backend="cython",
                pass_configs={**(configs or {}), "tirx.disable_vectorize": True}, compile_flags=["-O2"])
    finally:
        (T.alloc_shared, T.alloc_fragment, T.cumsum, T.cummax, T.copy,
         tilelang.analysis.ParallelLocalIndexChecker) = saved
