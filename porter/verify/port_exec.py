"""Run a generated TileLang port, and compile it for CUDA archs, in a child process.

On the CPU the port runs through TileLang's C target (the wrapper's target="c"); the CUDA
compile check lowers the same program for sm_80 / sm_90a and builds a cubin with nvcc when
one is installed, then checks launch limits the compiler does not (threads, shared memory).
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import sys
import time
import traceback
from pathlib import Path

import numpy as np

from porter.diagnostics import Loc
from porter.util.files import write_atomically
from porter.util.hashing import content_hash
from porter.verify.bounds_checks import CapturedStderr, checked_lowering, strays
from porter.verify.child import child_io, run_in_child
from porter.verify.port_module import launcher_module, port_constant

# Shared memory per block (bytes) a kernel may use on each arch, and threads per block.
SHARED_LIMIT = {"sm_80": 163 * 1024, "sm_90a": 227 * 1024}
MAX_THREADS = 1024


def run_port_jobs(port_path: str, jobs: list, timeout: float = 300.0) -> list:
    """Each job: {"kind": "run", "function", "args", "target"}, {"kind": "compile", "program",
    "arch"} or {"kind": "lower", "program", "arch"} (the CUDA source only). Returns one result
    dict per job, in order."""
    request = {"port_path": str(Path(port_path).resolve()), "jobs": [_encode(j) for j in jobs]}
    result = run_in_child("porter.verify.port_exec", request, timeout, Loc(port_path), "the port",
                          codes=("TP441", "TP442"))
    return result["results"]


def run_port_batch(batch: list, timeout: float = 300.0) -> list:
    """Several ports in one child (imports paid once): batch is [(port_path, jobs), ...];
    returns each port's result list. A crash or timeout of the child raises for the whole
    batch (the caller retries its ports one by one to learn which)."""
    request = {"batch": [{"port_path": str(Path(p).resolve()), "jobs": [_encode(j) for j in jobs]}
                         for p, jobs in batch]}
    where = Loc(batch[0][0]) if batch else Loc("")
    result = run_in_child("porter.verify.port_exec", request, timeout, where, "the ports",
                          codes=("TP441", "TP442"))
    return result["batch"]


def _encode(job: dict) -> dict:
    if job["kind"] != "run":
        return job
    args = []
    bf16 = job.get("bf16") or []  # per argument: its uint16 bits are bfloat16 (unlisted: yes)
    for i, a in enumerate(job["args"]):
        if isinstance(a, np.ndarray):
            is_bf16 = bf16[i] if i < len(bf16) else True
            args.append({"array": np.ascontiguousarray(a), "bf16": a.dtype == np.uint16 and is_bf16})
        else:
            args.append({"scalar": a.item() if isinstance(a, np.generic) else a})
    return {**job, "args": args}


# --------------------------------------------------------------------------- child side


def load_port(path: str):
    """Import a port module for running on this machine: its CPU builds (target "c") go through
    verify's C-target stand-ins (cpu_target.py)."""
    from porter.verify.cpu_target import install

    folder = str(Path(path).resolve().parent)
    if folder not in sys.path:  # a migrated port imports `_tileport_launch` from its folder
        sys.path.append(folder)
    spec = importlib.util.spec_from_file_location(f"tileport_port_{abs(hash(path))}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    if hasattr(module, "_compiled"):
        install(module)
    for name, value in list(vars(module).items()):
        if getattr(value, "program", None) is not None and getattr(value, "kernel", None) is not None:
            # an elementwise body's host (`@_elementwise`): its kernel and program by the names
            # verify runs and compiles
            setattr(module, f"{name}_kernel", value.kernel)
            setattr(module, f"{name}_program", value.program)
    helpers = launcher_module(module)
    if helpers is not None and hasattr(helpers, "_compiled"):
        install(helpers)  # the launch helpers compile the elementwise programs themselves
    return module


def _failure(exc: BaseException, port_path: str) -> dict:
    line = 0
    for frame in traceback.extract_tb(exc.__traceback__):
        if Path(frame.filename).resolve() == Path(port_path):
            line = frame.lineno or 0
    message = str(exc).strip()
    match = re.search(re.escape(Path(port_path).name) + r'", line (\d+)', message)
    if match:
        line = int(match.group(1))
    if len(message) > 1500:
        message = message[:700] + "\n...\n" + message[-700:]
    return {"ok": False, "type": type(exc).__name__, "message": message, "line": line}


_SIGNATURE = re.compile(r'__global__\s+void\s+(?:__launch_bounds__\([^)]*\)\s*)?(\w+)\s*\(([^)]*)\)\s*\{')


def is_thread_level(module, function: str) -> bool:
    import inspect

    program = getattr(module, f"{function}_program", None)
    try:
        source = inspect.getsource(program) if program is not None else ""
    except (OSError, TypeError):
        return False
    return "T.get_thread_binding" in source


#: (module id, function, program arguments) -> (prim_func, CUDA source, shared bytes) of the
#: thread-level ports this child lowered.
_EMULATED: dict = {}


def _emulate(module, job: dict) -> dict:
    """A thread-level port: lower it to CUDA C with TileLang and run that on the CPU emulator
    (TileLang's C target has no SIMT threads)."""
    from tilelang import tvm

    from porter.verify.cuda_build import KernelSig, default_cache_dir
    from porter.verify.cuda_exec import run_kernel

    call = job.get("triton")
    key = (id(module), job["function"], repr(call and (call["program_args"], call["program_kwargs"])))
    if key not in _EMULATED:  # every case of a kernel runs the same lowering
        factory = getattr(module, f"{job['function']}_program")
        kwargs = call["program_kwargs"] if call else {}
        func = factory(*call["program_args"], **kwargs) if call else factory()
        with checked_lowering() as preludes:  # accesses outside a buffer or tile are reported
            artifact = lower(func, {"kind": "cuda", "arch": "sm_80"}, program_configs(module, factory, kwargs))
        _EMULATED[key] = (func, "".join(preludes.values()) + artifact.kernel_source, shared_bytes(artifact))
    func, source, smem = _EMULATED[key]
    values = {}
    args = [a["array"].copy() if "array" in a else a["scalar"] for a in job["args"]]
    if call:  # a Triton port takes the original's arguments and then the grid
        everything = args
        args = [everything[i] for i in call["keep"]] + list(job["grid"])
    for param, value in zip(func.params, args):
        if param in func.buffer_map:
            buffer = func.buffer_map[param]
            values[buffer.name] = value
            extent = buffer.shape[0]
            if not isinstance(extent, (int, tvm.tirx.IntImm)):
                values[str(extent)] = int(value.size)
        else:
            values[param.name] = value
    match = _SIGNATURE.search(source)
    if match is None:
        raise RuntimeError("could not find the kernel in TileLang's CUDA output")
    names, types = [], []
    for piece in match.group(2).split(","):
        piece = piece.strip()
        name = re.split(r"[\s*&]+", piece)[-1]
        names.append(name)
        types.append(piece[: len(piece) - len(name)].strip())
    missing = [n for n in names if n not in values]
    if missing:
        raise RuntimeError(f"lowered kernel takes parameters the port does not: {missing}")
    # a folder named by the source's content: the emulator's build cache keys on the path too
    folder = default_cache_dir() / "emulated-ports" / content_hash(source)[:20]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{job['function']}_port.cu"
    if not path.exists():
        write_atomically(path, source)
    sig = KernelSig(launch_name=match.group(1), symbol=match.group(1), param_types=types)
    start = time.perf_counter()
    with CapturedStderr() as captured:
        out = run_kernel(str(path), sig, tuple(job["grid"]), tuple(job["block"]), smem,
                         [values[n] for n in names], timeout=job.get("timeout", 300.0))
    seconds = time.perf_counter() - start
    by_name = dict(zip(names, out))
    results = []
    for param, value in zip(func.params, args):
        # a buffer the lowered kernel dropped (never used, e.g. under a false template flag)
        # comes back as it went in
        results.append(by_name.get(func.buffer_map[param].name, value) if param in func.buffer_map
                       else value)
    if call:
        outputs = list(everything)
        for j, i in enumerate(call["keep"]):
            outputs[i] = results[j]
        results = outputs
    return {"ok": True, "args": results, "seconds": seconds, "emulated": True, "lowered": source,
            "strays": strays(captured.text)}


def _regroup(values: list, groups) -> list:
    """Fields of a struct parameter travel flat; the wrapper takes them as one tuple."""
    out, i = [], 0
    starts = {first: count for first, count in groups}
    while i < len(values):
        if i in starts:
            out.append(tuple(values[i:i + starts[i]]))
            i += starts[i]
        else:
            out.append(values[i])
            i += 1
    return out


#: Elements of guard zone before and after each buffer a port gets (see _guarded).
GUARD = 256


def _guarded(array: np.ndarray) -> tuple:
    """(storage, view): the buffer inside a guard zone of GUARD elements on each side that
    holds the poison unwritten tiles hold (cpu_target.poison): a port that reads past a buffer
    reads huge values (its result is off), one that writes past it changes the zone."""
    from porter.verify.cpu_target import poison_value

    storage = np.empty(array.size + 2 * GUARD, array.dtype)
    storage[:GUARD] = storage[GUARD + array.size:] = poison_value(array.dtype)
    storage[GUARD: GUARD + array.size] = array.reshape(-1)
    return storage, storage[GUARD: GUARD + array.size].reshape(array.shape)


def _outside(storage: np.ndarray, size: int, dtype) -> int:
    """Elements of a buffer's guard zone the port changed."""
    from porter.verify.cpu_target import poison_value

    zone = np.concatenate([storage[:GUARD], storage[GUARD + size:]])
    fill = np.full(zone.size, poison_value(dtype), dtype=zone.dtype)
    return int(np.count_nonzero((zone.view(np.uint8) != fill.view(np.uint8)).reshape(zone.size, -1).any(axis=1)))


def _run(module, job: dict, torch) -> dict:
    if job.get("target", "c") == "c" and is_thread_level(module, job["function"]):
        return _emulate(module, job)
    tensors, guards = [], []
    for a in job["args"]:
        if "array" in a:
            storage, view = _guarded(a["array"])
            guards.append((storage, a["array"].size, a["array"].dtype))
            t = torch.from_numpy(view)
            tensors.append(t.view(torch.bfloat16) if a["bf16"] else t)
        else:
            guards.append(None)
            tensors.append(a["scalar"])
    # a generated kernel's launcher: its `<name>` is the library's host function
    fn = getattr(module, job.get("launcher") or job["function"])
    target = job.get("target", "c")
    if target == "cuda":
        tensors = [t.cuda() if isinstance(t, torch.Tensor) else t for t in tensors]
    start = time.perf_counter()
    call = job.get("triton")
    with CapturedStderr() as captured:
        if call:  # Triton's calling convention: the original's arguments, grid and constexprs
            # a kernel that declares `num_warps: tl.constexpr` takes it once, as Triton's launch does
            options = {"num_warps": call["num_warps"], **call["constexprs"]}
            fn(*[tensors[i] for i in call["keep"]], grid=tuple(job["grid"]), target=target, **options)
        elif job.get("cuda") and hasattr(fn, "__getitem__"):
            # as CUDA launches it: the grid's axes replace the port's grid parameters
            launch = job["cuda"]
            given = [t for i, t in enumerate(tensors) if i not in launch["grid_axes"]]
            # the block the port was made for (`convert --block 64`; verify's own reading of the
            # original takes the default), which the grid's caller axes do not depend on
            block = getattr(fn, "_block", tuple(launch["block"]))
            fn[tuple(job["grid"]), block, launch["shared"]](
                *_regroup(given, job.get("groups", ())), target=target)
        else:
            fn(*_regroup(tensors, job.get("groups", ())), target=target)
    if target == "cuda":
        torch.cuda.synchronize()
        tensors = [t.cpu() if isinstance(t, torch.Tensor) else t for t in tensors]
    seconds = time.perf_counter() - start
    out, outside = [], {}
    for i, (t, a, guard) in enumerate(zip(tensors, job["args"], guards)):
        if "array" in a:
            out.append((t.view(torch.uint16) if a["bf16"] else t).numpy().copy())
            written_outside = _outside(*guard) if target != "cuda" and guard is not None else 0
            if written_outside:
                outside[i] = written_outside
        else:
            out.append(t)
    return {"ok": True, "args": out, "seconds": seconds, "outside": outside, "strays": strays(captured.text)}


def aligned_arguments(factory) -> dict:
    """The keywords that select a program factory's aligned program for a compile check
    (aligned=True), {} for a factory without one."""
    import inspect

    return {"aligned": True} if "aligned" in inspect.signature(factory).parameters else {}


def _compile(module, job: dict) -> dict:
    import tilelang

    arch = job["arch"]
    if shutil.which("nvcc") is None:
        return {"ok": None, "message": "nvcc not found: cubin compile check skipped"}
    import inspect

    factory = getattr(module, job["program"])
    args, kwargs = job.get("program_args", ()), job.get("program_kwargs", {})
    func = factory(*args, **kwargs)
    target, configs = {"kind": "cuda", "arch": arch}, program_configs(module, factory, kwargs)
    start = time.perf_counter()
    kernel = tilelang.compile(func, target=target, execution_backend="tvm_ffi", pass_configs=configs)
    seconds = time.perf_counter() - start
    source = kernel.get_kernel_source()
    problems = []
    for bound in re.findall(r"__launch_bounds__\((\d+)", source):
        if int(bound) > MAX_THREADS:
            problems.append(f"{bound} threads per block exceeds {MAX_THREADS}")
    shared = shared_bytes(lower(func, target, configs))  # a cached compile keeps no lowered module
    if shared > SHARED_LIMIT.get(arch, 48 * 1024):
        problems.append(f"{shared} bytes of shared memory exceeds {SHARED_LIMIT[arch]} on {arch}")
    result = {"ok": not problems, "seconds": seconds, "shared_bytes": shared,
              "message": "; ".join(problems) or f"cubin built for {arch}, {shared} B shared memory"}
    if "aligned" in inspect.signature(factory).parameters:
        # the program the wrapper takes for whole tiles: its copies should be asynchronous
        fast_kwargs = {**kwargs, **aligned_arguments(factory)}
        fast = tilelang.compile(factory(*args, **fast_kwargs), target=target, execution_backend="tvm_ffi",
                                pass_configs=program_configs(module, factory, fast_kwargs))
        copies = async_copies(fast.get_kernel_source())
        result["async_copies"] = copies
        result["message"] += f"; aligned program: {copies} async copies"
    if "T.gemm(" in inspect.getsource(factory):
        result["tensor_cores"] = tensor_core_instructions(kernel)
        result["message"] += f", T.gemm as {result['tensor_cores'] or 'no tensor-core instructions'}"
    return result


def _lowered(module, job: dict) -> dict:
    """TileLang's CUDA source of one program of the port (no nvcc needed): two ports whose
    lowered sources are the same text are the same kernel on that arch."""
    factory = getattr(module, job["program"])
    kwargs = job.get("program_kwargs", {})
    func = factory(*job.get("program_args", ()), **kwargs)
    artifact = lower(func, {"kind": "cuda", "arch": job.get("arch", "sm_80")}, program_configs(module, factory, kwargs))
    return {"ok": True, "source": artifact.kernel_source}


def async_copies(source: str) -> int:
    """Asynchronous global-to-shared copies in a lowered kernel's CUDA (cp.async, TMA)."""
    return len(re.findall(r"cp_async_gs|cp\.async\.(?:ca|cg)|tma_load", source))


def tensor_core_instructions(kernel) -> str:
    """The tensor-core instructions in the kernel's PTX (`wgmma`, `mma.sync`), or ""."""
    try:
        ptx = kernel._get_ptx()  # tilelang runs nvcc --ptx with its own flags
    except Exception as exc:  # noqa: BLE001 - reported, not fatal
        return f"(no PTX: {type(exc).__name__})"
    found = [name for name in ("wgmma", "mma.sync") if name in ptx]
    return " + ".join(found)


def lower(func, target: dict, configs: dict | None = None):
    """TileLang's lowering of a port for one CUDA arch (kernel source and device module), with the
    pass configs the port compiles with."""
    import tilelang
    from tilelang import tvm

    with tvm.transform.PassContext(config=configs or {}), tvm.target.Target(target):
        return tilelang.lower(func, target=target)


def pass_configs(module, stages: int = 2, unrolled: bool = False) -> dict:
    """The pass configs a port module compiles a program of `stages` pipeline stages with
    (`_PASS_CONFIGS`, or `_DEEP_PIPELINE_CONFIGS` from 3 stages or when `unrolled`), {} for
    older ports."""
    deep = port_constant(module, "_DEEP_PIPELINE_CONFIGS")
    if deep and (stages >= 3 or unrolled):
        return dict(deep)
    return dict(port_constant(module, "_PASS_CONFIGS") or {})


def program_configs(module, factory, kwargs: dict) -> dict:
    """The pass configs the port's wrapper compiles `factory(**kwargs)` with: unrolled at 3
    stages or more, for an aligned program the module lists in `_UNROLLED_WHEN_ALIGNED`
    (a loop of two products), and any program it lists in `_UNROLLED_ALWAYS`."""
    name = getattr(factory, "__name__", "")
    unrolled = (bool(kwargs.get("aligned")) and name in getattr(module, "_UNROLLED_WHEN_ALIGNED", ())) or \
        name in getattr(module, "_UNROLLED_ALWAYS", ())
    return pass_configs(module, program_stages(factory, kwargs), unrolled)


def program_stages(factory, kwargs: dict) -> int:
    """The pipeline stages a program factory builds with these arguments: its `stages`
    parameter (given or default), else the most `num_stages=N` its source writes (2 if none)."""
    import inspect

    if "stages" in kwargs:
        return int(kwargs["stages"])
    parameter = inspect.signature(factory).parameters.get("stages")
    if parameter is not None and isinstance(parameter.default, int):
        return parameter.default
    try:
        source = inspect.getsource(factory)
    except (OSError, TypeError):
        return 2
    return max((int(n) for n in re.findall(r"num_stages=(\d+)", source)), default=2)


def shared_bytes(artifact) -> int:
    """Shared memory a lowered port's block allocates (TileLang merges its arrays)."""
    from tilelang import tvm

    sizes = []

    def visit(node):
        if type(node).__name__ == "AllocBuffer" and node.buffer.scope().startswith("shared"):
            count = 1
            for extent in node.buffer.shape:
                count *= int(extent)
            sizes.append(count * tvm.DataType(str(node.buffer.dtype)).bits // 8)

    for fn in artifact.device_mod.functions.values():
        tvm.tirx.stmt_functor.post_order_visit(fn.body, visit)
    return sum(sizes)


def _work(request: dict) -> dict:
    if "batch" in request:
        return {"batch": [_work(entry)["results"] for entry in request["batch"]]}
    port_path = request["port_path"]
    results = []
    try:
        import torch

        module = load_port(port_path)
    except BaseException as exc:  # noqa: BLE001 - report, do not crash
        failure = _failure(exc, port_path)
        return {"results": [failure for _ in request["jobs"]]}
    for job in request["jobs"]:
        try:
            kind = job["kind"]
            results.append(_run(module, job, torch) if kind == "run" else
                           _lowered(module, job) if kind == "lower" else _compile(module, job))
        except BaseException as exc:  # noqa: BLE001
            results.append(_failure(exc, port_path))
    return {"results": results}


if __name__ == "__main__":
    child_io(sys.argv, _work)
