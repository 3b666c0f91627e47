"""libdevice functions the Triton interpreter can run, so verify runs originals that call them.

Triton 3.9's interpreter runs no libdevice: a call of `libdevice.tan(x)` returns None, and the
original's next operation fails ("unsupported operand type(s) for +: 'NoneType'"). Libraries
call libdevice by module attribute (`libdevice.atan2`, `tl_extra_shim.isnan`) as often as by
imported name. `install()` replaces the functions of Triton's libdevice modules, in verify's
child process only, with numpy evaluations of what each computes on the GPU: one row of
`_FUNCTIONS` a function, the numpy function and the dtype of its result (`same` as its first
argument). A function with no row keeps Triton's and stays as unrunnable as before.
"""

from __future__ import annotations

import numpy as np


def _trunc_int(dtype):
    return lambda x: np.trunc(x).astype(dtype)


def _rint_int(dtype):
    return lambda x: np.rint(x).astype(dtype)


def _round_half_away(x):
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


# name -> (numpy function, result dtype: "same" or a Triton dtype name)
_FUNCTIONS = {
    **{n: (getattr(np, f), "same") for n, f in {
        "tan": "tan", "atan": "arctan", "asin": "arcsin", "acos": "arccos", "sinh": "sinh",
        "cosh": "cosh", "tanh": "tanh", "asinh": "arcsinh", "acosh": "arccosh", "atanh": "arctanh",
        "trunc": "trunc", "floor": "floor", "ceil": "ceil", "rint": "rint", "nearbyint": "rint",
        "exp": "exp", "exp2": "exp2", "expm1": "expm1", "log": "log", "log2": "log2",
        "log10": "log10", "log1p": "log1p", "sqrt": "sqrt", "cbrt": "cbrt", "sin": "sin",
        "cos": "cos", "abs": "abs", "fabs": "abs", "atan2": "arctan2", "hypot": "hypot",
        "pow": "power", "fmod": "fmod", "copysign": "copysign", "fmax": "fmax", "fmin": "fmin",
        "nextafter": "nextafter", "remainder": "remainder"}.items()},
    "fast_expf": (np.exp, "same"), "fast_logf": (np.log, "same"), "fast_log2f": (np.log2, "same"),
    "fast_log10f": (np.log10, "same"), "fast_sinf": (np.sin, "same"), "fast_cosf": (np.cos, "same"),
    "fast_tanf": (np.tan, "same"), "fast_tanhf": (np.tanh, "same"), "fast_powf": (np.power, "same"),
    "fast_dividef": (np.divide, "same"), "exp10": (lambda x: np.power(10.0, x).astype(x.dtype), "same"),
    "rsqrt": (lambda x: 1 / np.sqrt(x), "same"), "round": (_round_half_away, "same"),
    "isnan": (np.isnan, "int32"), "isinf": (np.isinf, "int32"), "finitef": (np.isfinite, "int32"),
    "isfinited": (np.isfinite, "int32"), "signbit": (np.signbit, "int32"),
    "llrint": (_rint_int(np.int64), "int64"), "llround": (lambda x: _round_half_away(x).astype(np.int64), "int64"),
    "float2int_rz": (_trunc_int(np.int32), "int32"), "float2int_rn": (_rint_int(np.int32), "int32"),
    "float2ll_rz": (_trunc_int(np.int64), "int64"), "float2ll_rn": (_rint_int(np.int64), "int64"),
    "div_rn": (np.divide, "same"),
}


def _evaluate(name: str, function, result: str):
    import triton.language as tl
    from triton.runtime.interpreter import TensorHandle, _get_np_dtype

    def call(*args, **_):
        tensors = [a for a in args if isinstance(a, tl.tensor)]
        if not tensors:
            raise TypeError(f"libdevice.{name} needs a tensor argument under the interpreter")
        first = tensors[0]
        arrays = [a.handle.data if isinstance(a, tl.tensor) else np.asarray(a) for a in args]
        arrays = np.broadcast_arrays(*arrays)
        with np.errstate(all="ignore"):
            out = function(*arrays)
        scalar = first.type.scalar if result == "same" else getattr(tl, result)
        out = np.asarray(out).astype(_get_np_dtype(scalar))
        shape = list(out.shape)
        ty = tl.block_type(scalar, shape) if shape and first.type.is_block() else scalar
        return tl.tensor(TensorHandle(out, scalar), ty)

    call.__name__ = name
    call.__module__ = "triton.language.extra.libdevice"  # still recognised as math by name
    call.tileport_numpy = True  # exact: triton_exec keeps it rather than a formula (pow of x < 0)
    return call


def install() -> None:
    """Give Triton's libdevice modules numpy evaluations of the functions in the table."""
    import importlib

    for module_name in ("triton.language.extra.libdevice", "triton.language.extra.cuda.libdevice",
                        "triton.language.extra.hip.libdevice"):
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        for name, (function, result) in _FUNCTIONS.items():
            if hasattr(module, name):
                setattr(module, name, _evaluate(name, function, result))
