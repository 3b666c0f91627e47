"""What TileLang's C target lacks for verify's CPU runs of ports, supplied in verify's own child
process (never in a port module, which must run on a GPU with tilelang alone).

bfloat16 (measured on tilelang 0.1.15): the CPU pipeline legalizes bf16 arithmetic to float32
(BF16ComputeLegalize) and the host codegen legalizes bf16 storage to uint16, but the C device
codegen is handed bf16 buffers as they are ("Cannot convert type bfloat16 to C type"), and the
C wrapper has no C type for them. Here the device module of a C-target build gets the same
storage legalization the host module gets, and the wrapper passes bf16 buffers as uint16_t
(the same two bytes torch holds).
"""

from __future__ import annotations

import os
import sys

_PATCHED = False
#: Bump when the passes below change: it names the kernel-cache folder of builds made with them.
LOWERING = "bf16-1"


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
    # tilelang's kernel cache keys on the program, not on how it was lowered: builds made with
    # these passes live in their own folder, so no artifact of another lowering is reused
    from tilelang import env

    os.environ["TILELANG_CACHE_DIR"] = os.path.join(str(env.TILELANG_CACHE_DIR), f"tileport-c-{LOWERING}")
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


def _is_c_target(func) -> bool:
    target = func.attrs.get("target") if func.attrs is not None else None
    return target is not None and target.kind.name == "c"
