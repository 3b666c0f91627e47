"""Child side of the benchmark: time one original kernel and its port on the GPU.

Runs as ``python -m bench.timing IN OUT`` through ``porter.verify.child.run_in_child``, one
process per kernel, because user kernels may fault: a CUDA fault poisons the process's context,
so it must not take the other kernels' timings with it. The inputs are built here, not in the
parent, because at benchmark sizes they can be gigabytes (pickling them would double that).
"""

from __future__ import annotations

import ctypes
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from porter.diagnostics import TileportError
from porter.ir.nodes import BufferParam
from porter.verify.child import child_io

# Assumed SM clock for torch.cuda._sleep (cycles); a too-long hold only costs wall time.
_CLOCK_HZ = 2.0e9
_MAX_HOLD_S = 2.0


# --------------------------------------------------------------------------- CUDA originals


def bench_launcher(kernel: str, param_types: list) -> str:
    """An `extern "C"` launcher that, unlike cuda_gpu's, does not synchronize: a sync per launch
    would put host latency inside the timed interval. It launches on the stream it is given
    (torch's current stream, where the timing events are recorded)."""
    args = [f"({t})a[{i}]" if "*" in t else f"*({t}*)a[{i}]" for i, t in enumerate(param_types)]
    return (
        "\n#include <cuda_runtime.h>\n"
        'extern "C" int tp_bench_launch(void** a, int gx, int gy, int gz, int bx, int by, int bz,\n'
        "                               int smem, void* stream) {\n"
        f"  {kernel}<<<dim3(gx, gy, gz), dim3(bx, by, bz), smem, (cudaStream_t)stream>>>"
        f"({', '.join(args)});\n"
        "  return (int)cudaGetLastError();\n}\n"
        'extern "C" const char* tp_bench_error(int e) { return cudaGetErrorString((cudaError_t)e); }\n')


def _cuda_original(req: dict, args: list, torch):
    """A no-argument callable that launches the original CUDA kernel once, plus its buffers."""
    from porter.verify import cuda_gpu
    from porter.verify.cuda_exec import _pack_scalar
    from porter.verify.driver import _c_arguments, _smem

    kernel = req["kernel"]
    c_args, c_types, _ = _c_arguments(kernel, args)
    source = Path(req["bench_source"])
    source.write_text(req["original_text"] + bench_launcher(req["launch_name"], c_types), encoding="utf-8")
    major, minor = torch.cuda.get_device_capability()
    lib = ctypes.CDLL(str(cuda_gpu.build(str(source), req["launch_name"], c_types, f"sm_{major}{minor}",
                                         req["include_dirs"], req["defines"])))
    lib.tp_bench_launch.restype = ctypes.c_int
    lib.tp_bench_launch.argtypes = [ctypes.POINTER(ctypes.c_void_p)] + [ctypes.c_int] * 7 + [ctypes.c_void_p]
    lib.tp_bench_error.restype = ctypes.c_char_p
    keep, pointers = [], []  # `keep` holds the tensors and scalar bytes the pointers point into
    for index, (a, ctype) in enumerate(zip(c_args, c_types)):
        if "*" in ctype:
            t = torch.from_numpy(np.ascontiguousarray(a)).cuda()
            keep.append(t)
            pointers.append(t.data_ptr())
        else:
            holder = ctypes.create_string_buffer(_pack_scalar(index, ctype, a))
            keep.append(holder)
            pointers.append(ctypes.addressof(holder))
    array = (ctypes.c_void_p * max(len(pointers), 1))(*pointers)
    grid = tuple(req["grid"]) + (1,) * (3 - len(req["grid"]))
    block = tuple(kernel.launch.block) + (1,) * (3 - len(kernel.launch.block))
    smem = _smem(kernel, args)

    def launch():
        stream = torch.cuda.current_stream().cuda_stream
        status = lib.tp_bench_launch(array, *grid, *block, smem, stream)
        if status != 0:
            raise RuntimeError(f"CUDA error {status} launching the original: "
                               f"{lib.tp_bench_error(status).decode()}")

    launch.keep = keep
    return launch


# --------------------------------------------------------------------------- Triton originals


def _triton_original(req: dict, tensors: list, torch):
    """`kernel[grid](*args, **constexprs)` as verify runs it, with the same constexprs
    (launch-derived ones included) and num_warps, on the device tensors."""
    from porter.verify.driver import derived_values
    from porter.verify.triton_exec import _find_kernel, _import_user_module

    kernel = req["kernel"]
    module = _import_user_module(req["original"])
    jit, _ = _find_kernel(module, kernel.name, req["original"])
    kept = [i for i, p in enumerate(kernel.params) if getattr(p, "grid_axis", None) is None]
    launch_args = [tensors[i] for i in kept]
    constexprs = dict(kernel.constexprs)
    constexprs.update(zip(kernel.derived_constexprs, derived_values(kernel, req["host_args"])))
    options = launch_options(kernel, getattr(module, kernel.name), req["original"])
    grid = tuple(req["grid"])

    def launch():
        jit[grid](*launch_args, **constexprs, **options)

    return launch


def launch_options(kernel, launched, source: str) -> dict:
    """num_warps / num_stages as the user's code launches the kernel: verify passes only
    num_warps (the interpreter ignores the rest), but on a GPU the pipeline depth matters.
    An autotuned kernel runs as its first config (the one `tileport convert` ported, --config 0),
    and a literal `num_stages=` at the launch site wins, as in the front end."""
    import ast

    options = {"num_warps": kernel.launch.threads // 32} if kernel.launch.threads else {}
    configs = getattr(launched, "configs", None)
    if configs and getattr(configs[0], "num_stages", None) is not None:
        options["num_stages"] = configs[0].num_stages
    line = getattr(kernel.launch.loc, "line", 0) if kernel.launch.origin == "launch-site" else 0
    try:
        tree = ast.parse(Path(source).read_text(encoding="utf-8")) if line else None
    except (OSError, SyntaxError, UnicodeDecodeError):
        tree = None
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Call) and node.lineno == line:
            for kw in node.keywords:
                if kw.arg == "num_stages" and isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, int):
                    options["num_stages"] = kw.value.value
    return options


# --------------------------------------------------------------------------- the port


def _port(req: dict, tensors: list):
    """The port's wrapper with the original's parameters, on its own copies of the buffers."""
    from porter.verify.port_exec import _load, _regroup

    module = _load(req["port"])
    fn = getattr(module, req["kernel"].ident)
    call_args = _regroup(tensors, req["groups"])

    def launch():
        fn(*call_args, target="cuda")

    return launch


# --------------------------------------------------------------------------- timing


def device_tensors(kernel, args: list, torch) -> list:
    """Buffers as CUDA tensors (bfloat16 ones travel as uint16 bits), scalars as they are."""
    out = []
    for p, a in zip(kernel.params, args):
        if isinstance(p, BufferParam) and isinstance(a, np.ndarray):
            t = torch.from_numpy(np.ascontiguousarray(a))
            if p.dtype == "bfloat16":
                t = t.view(torch.int16).view(torch.bfloat16)
            out.append(t.cuda())
        else:
            out.append(a.item() if isinstance(a, np.generic) else a)
    return out


def hold_stream(torch, seconds: float) -> None:
    """Keep the GPU busy while the timed launches are queued, so each event pair measures the
    kernel on the device and not the host's launch overhead (Python, Triton's launcher,
    TileLang's wrapper); without it a tiny kernel times its launcher instead."""
    sleep = getattr(torch.cuda, "_sleep", None)
    if sleep is not None and seconds > 0:
        sleep(int(min(seconds, _MAX_HOLD_S) * _CLOCK_HZ))


def time_interleaved(original, port, reps: int, warmup: int, torch) -> dict:
    """Median device milliseconds of each, over `reps` repetitions taken alternately (and in
    alternating order), so clock and thermal drift on a noisy machine hit both alike."""
    for _ in range(max(warmup, 1)):  # the first calls compile (Triton JIT, TileLang)
        original()
        port()
    torch.cuda.synchronize()
    start = time.perf_counter()
    original()
    port()
    host_pair = time.perf_counter() - start
    torch.cuda.synchronize()
    events = [[torch.cuda.Event(enable_timing=True) for _ in range(4)] for _ in range(reps)]
    hold_stream(torch, 1.5 * host_pair * reps + 1e-3)
    for r, (o_start, o_end, p_start, p_end) in enumerate(events):
        pairs = [(original, o_start, o_end), (port, p_start, p_end)]
        for fn, begin, end in pairs if r % 2 == 0 else reversed(pairs):
            begin.record()
            fn()
            end.record()
    torch.cuda.synchronize()
    original_ms = [e[0].elapsed_time(e[1]) for e in events]
    port_ms = [e[2].elapsed_time(e[3]) for e in events]
    return {"original_ms": statistics.median(original_ms), "port_ms": statistics.median(port_ms),
            "original_all_ms": original_ms, "port_all_ms": port_ms,
            "host_pair_ms": host_pair * 1e3}


def _work(req: dict) -> dict:
    """Build the inputs, make both launchers, time them; every failure becomes a message that
    names the stage it happened in."""
    stage = "inputs"
    try:
        import torch

        from porter.verify.inputs import make_args

        kernel = req["kernel"]
        args = make_args(kernel, req["scalars"], req["given"], req["seed"])
        req["host_args"] = args
        stage = "original"
        if req["language"] == "cuda":
            original = _cuda_original(req, args, torch)
        else:
            original = _triton_original(req, device_tensors(kernel, args, torch), torch)
        stage = "port"
        port = _port(req, device_tensors(kernel, args, torch))
        del args, req["host_args"]
        # one synchronized run each first, so a fault is blamed on the kernel that made it
        stage = "original run"
        original()
        torch.cuda.synchronize()
        stage = "port run"
        port()
        torch.cuda.synchronize()
        stage = "timing"
        return {"ok": True, **time_interleaved(original, port, req["reps"], req["warmup"], torch),
                "device": torch.cuda.get_device_name()}
    except TileportError as exc:
        return {"ok": False, "stage": stage, "message": f"{exc.diagnostic.code}: {exc.diagnostic.message}"}
    except BaseException as exc:  # noqa: BLE001 - user code: reported as a row, never a traceback
        return {"ok": False, "stage": stage, "message": one_line(exc)}


def one_line(exc: BaseException) -> str:
    """`Type: message` on one line; compiler errors embed tracebacks, whose last line says why."""
    lines = [ln.strip() for ln in str(exc).strip().splitlines() if ln.strip()]
    if lines and lines[0].startswith("Traceback"):
        lines = lines[-1:]
    text = lines[0] if lines else repr(exc)
    return f"{type(exc).__name__}: {text[:300]}"


if __name__ == "__main__":
    child_io(sys.argv, _work)
