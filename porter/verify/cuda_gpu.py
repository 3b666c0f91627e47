"""Run an ORIGINAL CUDA kernel on a real GPU: nvcc builds the user's file with a launcher.

Used by verify only when `torch.cuda.is_available()`; the CPU emulator stays the reference
everywhere else. The build and the run happen in a child process with a timeout, like every
other execution of user code.
"""

from __future__ import annotations

import ctypes
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from porter.diagnostics import Loc, TileportError
from porter.util.cache_root import cache_root
from porter.util.files import replaced_atomically
from porter.util.hashing import content_hash
from porter.verify.child import child_io, run_in_child
from porter.verify.cuda_exec import _pack_scalar


def launcher_source(kernel: str, param_types: list) -> str:
    """`extern "C"` entry point: pointers arrive as device pointers, scalars by address."""
    args = []
    for i, ctype in enumerate(param_types):
        if "*" in ctype:
            args.append(f"({ctype})a[{i}]")
        else:
            args.append(f"*({ctype}*)a[{i}]")
    return (
        f'\nextern "C" int tp_gpu_launch(void** a, int gx, int gy, int gz, int bx, int by, int bz, int smem) {{\n'
        f"  {kernel}<<<dim3(gx, gy, gz), dim3(bx, by, bz), smem>>>({', '.join(args)});\n"
        f"  cudaError_t e = cudaGetLastError();\n"
        f"  if (e == cudaSuccess) e = cudaDeviceSynchronize();\n"
        f"  return (int)e;\n}}\n")


def build(source_path: str, kernel: str, param_types: list, arch: str, include_dirs=(), defines=(),
          cache_dir: str | None = None) -> Path:
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        raise TileportError("TP415", "nvcc not found: cannot run the original on the GPU", Loc(source_path))
    text = Path(source_path).read_text(encoding="utf-8") + launcher_source(kernel, param_types)
    key = content_hash(repr((text, arch, tuple(include_dirs), tuple(defines))))[:20]
    root = Path(cache_dir or cache_root()) / "cuda-gpu"
    root.mkdir(parents=True, exist_ok=True)
    lib = root / f"{key}.so"
    if lib.exists():
        return lib
    src = root / f"{key}.cu"
    src.write_text(f'#line 1 "{source_path}"\n' + text, encoding="utf-8")
    with replaced_atomically(lib) as tmp:
        cmd = [nvcc, "-shared", "-Xcompiler", "-fPIC", "-O2", f"-arch={arch}", "-Dmain=tp_original_main",
               "-o", str(tmp), str(src)]
        cmd += [f"-I{d}" for d in include_dirs] + [f"-D{d}" for d in defines]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            first = next((ln for ln in proc.stderr.splitlines() if "error" in ln), proc.stderr.strip()[:300])
            raise TileportError("TP416", f"nvcc failed: {first}", Loc(source_path))
    return lib


def run_kernel(source_path: str, kernel: str, param_types: list, grid: tuple, block: tuple, smem: int,
               args: list, timeout: float = 120.0, include_dirs=(), defines=()) -> list:
    request = {"source_path": source_path, "kernel": kernel, "param_types": list(param_types),
               "grid": tuple(grid) + (1,) * (3 - len(grid)), "block": tuple(block) + (1,) * (3 - len(block)),
               "smem": smem, "args": args, "include_dirs": list(include_dirs), "defines": list(defines)}
    result = run_in_child("porter.verify.cuda_gpu", request, timeout, Loc(source_path),
                          "the original on the GPU", codes=("TP411", "TP412"))
    if not result["ok"]:
        raise TileportError(result.get("code", "TP411"), result["message"], Loc(source_path))
    return result["args"]


def _work(req: dict) -> dict:
    try:
        import torch

        major, minor = torch.cuda.get_device_capability()
        lib = ctypes.CDLL(str(build(req["source_path"], req["kernel"], req["param_types"],
                                    f"sm_{major}{minor}", req["include_dirs"], req["defines"])))
        tensors, holders, pointers = [], [], []
        for index, (a, ctype) in enumerate(zip(req["args"], req["param_types"])):
            if isinstance(a, np.ndarray):
                t = torch.from_numpy(a.copy()).cuda()
                tensors.append(t)
                pointers.append(ctypes.c_void_p(t.data_ptr()))
            else:
                tensors.append(a)
                holder = ctypes.create_string_buffer(_pack_scalar(index, ctype, a))
                holders.append(holder)
                pointers.append(ctypes.cast(ctypes.pointer(holder), ctypes.c_void_p))
        array = (ctypes.c_void_p * len(pointers))(*[p.value for p in pointers])
        start = time.perf_counter()
        status = lib.tp_gpu_launch(array, *req["grid"], *req["block"], int(req["smem"]))
        seconds = time.perf_counter() - start
        if status != 0:
            return {"ok": False, "code": "TP411", "message": f"CUDA error {status} from the original kernel"}
        out = [t.cpu().numpy() if isinstance(t, torch.Tensor) else t for t in tensors]
        return {"ok": True, "args": out, "seconds": seconds}
    except TileportError as exc:
        return {"ok": False, "code": exc.diagnostic.code, "message": exc.diagnostic.message}
    except Exception as exc:  # noqa: BLE001 - reported to the parent
        return {"ok": False, "code": "TP411", "message": f"{type(exc).__name__}: {exc}"}


if __name__ == "__main__":
    child_io(sys.argv, _work)
