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

import sys

_PATCHED = False


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
            device_mod = tvm.tirx.transform.BF16StorageLegalize()(device_mod)
        return prepare(device_mod)

    lower._prepare_device_codegen_mod = prepare_with_bf16_storage
    wrapper.TLCPUSourceWrapper._TYPE_MAP.setdefault("bfloat16", "uint16_t")
    _PATCHED = True


def _is_c_target(func) -> bool:
    target = func.attrs.get("target") if func.attrs is not None else None
    return target is not None and target.kind.name == "c"
