#!/usr/bin/env python
"""How long tileport itself takes, measured in one run on this machine (they are noisy: compare
figures from the same run, never across runs).

    python bench/tool_speed.py [--samples GLOB] [--skip-migrate] [--json OUT]

Prints the wall time of a first `tileport convert` on empty caches, then, per sample, of
`tileport convert` (a fresh process, imports included, caches warm) and,
for samples/cuda/saxpy.cu, `tileport verify` cold (empty tilelang and tileport build caches, in
a scratch folder) and warm (the same caches again), the CUDA emulator's nanoseconds per thread
for a 1M-element element-wise kernel, and, unless --skip-migrate, `tileport migrate --verify`
over samples/ cold, warm with its results cache (nothing changed: every file is a cache hit) and
warm without it (`--no-cache`: every kernel verified again on warm build caches and the warm
worker). Each command runs as a user would run it, in its own process; a command that fails
prints its exit code and its figure is left out.

tilelang's compile of the saxpy port, which a convert is compared with, is given twice: in a
fresh process as `python port.py` pays it (imports included, the way the issue measured it) and
the compile call alone.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def timed(args: list, env: dict) -> tuple:
    """(seconds, return code) of one tileport command in a fresh process."""
    start = time.perf_counter()
    run = subprocess.run([sys.executable, "-m", "porter.cli", *map(str, args)], cwd=ROOT, env=env,
                         capture_output=True, text=True)
    return time.perf_counter() - start, run.returncode


def scratch_env(folder: Path) -> dict:
    """An environment whose build caches (tilelang's, tileport's) live under folder.

    Python writes and reuses bytecode, as for a tool pip installed (pip compiles it at install):
    with PYTHONDONTWRITEBYTECODE=1, which this machine kind's shells set, every tileport command
    compiles its own modules again (0.1-0.15 s each)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["TILELANG_CACHE_DIR"] = str(folder / "tilelang")
    env["XDG_CACHE_HOME"] = str(folder / "xdg")
    env["TILEPORT_CACHE_DIR"] = str(folder / "tileport")
    return env


def emulator_ns_per_thread(tmp: Path) -> float:
    """The CUDA emulator's run time per thread for a 1M-element saxpy (build excluded)."""
    import numpy as np

    from porter.verify.cuda_build import KernelSig, build
    from porter.verify.cuda_exec import run_kernel

    src = tmp / "saxpy_emu.cu"
    src.write_text("__global__ void saxpy(int n, float a, const float* x, float* y) {\n"
                   "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                   "  if (i < n) y[i] = a * x[i] + y[i];\n}\n")
    sig = KernelSig("saxpy", "saxpy", ["int", "float", "const float *", "float *"])
    n = 1 << 20
    x = np.ones(n, np.float32)
    build(str(src), [sig])
    run_kernel(str(src), sig, (n // 256, 1, 1), (256, 1, 1), 0, [n, 2.0, x, x.copy()])  # warm
    start = time.perf_counter()
    run_kernel(str(src), sig, (n // 256, 1, 1), (256, 1, 1), 0, [n, 2.0, x, x.copy()])
    return (time.perf_counter() - start) * 1e9 / n


_COMPILE = """
import sys, time, importlib.util
spec = importlib.util.spec_from_file_location("port", sys.argv[1])
port = importlib.util.module_from_spec(spec); spec.loader.exec_module(port)
import tilelang
start = time.perf_counter()
tilelang.compile(port.saxpy_program(), target={"kind": "cuda", "arch": sys.argv[2]},
                 execution_backend="tvm_ffi", pass_configs=port._PASS_CONFIGS)
print(time.perf_counter() - start)
"""


def tilelang_compile_seconds(port: Path, env: dict) -> tuple | None:
    """tilelang's compile of a port's program for CUDA sm_80 on an empty kernel cache, as (wall
    of the fresh process, imports included; the compile call alone). None without nvcc."""
    start = time.perf_counter()
    run = subprocess.run([sys.executable, "-c", _COMPILE, str(port), "sm_80"], env=env, capture_output=True,
                         text=True)
    wall = time.perf_counter() - start
    try:
        return wall, float(run.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", default="samples/*/*")
    parser.add_argument("--skip-migrate", action="store_true")
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    rows = {"convert": {}, "verify_saxpy": {}, "migrate": {}}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        env = scratch_env(tmp / "caches")
        # bytecode as pip writes it at install, so that the first convert measures tileport's own
        # first use (it precompiles the parse shim into the empty cache), not Python's
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "porter")], env=env,
                       capture_output=True)
        seconds, _ = timed(["convert", ROOT / "samples/cuda/saxpy.cu", "-o", tmp / "first_tl.py"], env)
        rows["convert_first_use"] = round(seconds, 3)
        print(f"convert samples/cuda/saxpy.cu, first use (empty caches): {seconds:.2f} s", flush=True)
        for path in sorted(ROOT.glob(args.samples)):
            if path.suffix not in (".cu", ".py"):
                continue
            out = tmp / f"{path.stem}_tl.py"
            seconds, rc = timed(["convert", path, "-o", out, "--force"], env)
            rows["convert"][str(path.relative_to(ROOT))] = round(seconds, 3) if rc in (0, 1) else None
            print(f"convert {path.relative_to(ROOT)}: {seconds:.2f} s", flush=True)
        saxpy, port = ROOT / "samples/cuda/saxpy.cu", tmp / "saxpy_tl.py"
        timed(["convert", saxpy, "-o", port, "--force"], env)
        compiled = tilelang_compile_seconds(port, scratch_env(tmp / "compile"))
        share = rows["convert"].get("samples/cuda/saxpy.cu")
        if compiled and share:
            wall, alone = compiled
            rows["tilelang_compile_saxpy"] = {"process": round(wall, 3), "compile_call": round(alone, 3)}
            print(f"tilelang compile of the saxpy port (CUDA sm_80): {wall:.2f} s in a fresh process, "
                  f"{alone:.2f} s the call alone; convert saxpy ({share:.2f} s) is {100 * share / wall:.0f} % "
                  f"and {100 * share / alone:.0f} % of them")
        cold_env = scratch_env(tmp / "cold")
        for kind in ("cold", "warm"):
            seconds, rc = timed(["verify", saxpy, port], cold_env)
            rows["verify_saxpy"][kind] = round(seconds, 3) if rc == 0 else None
            print(f"verify saxpy {kind}: {seconds:.2f} s" + ("" if rc == 0 else f" (exit {rc}: left out)"))
        rows["emulator_ns_per_thread"] = round(emulator_ns_per_thread(tmp), 2)
        print(f"emulator: {rows['emulator_ns_per_thread']:.1f} ns per thread (1M-element saxpy)")
        if not args.skip_migrate:
            migrate_env = scratch_env(tmp / "migrate")
            for kind, extra in (("cold", []), ("warm", []), ("warm_no_cache", ["--no-cache"])):
                seconds, rc = timed(["migrate", "samples", "-o", tmp / "out", "--verify", "--force",
                                     "--jobs", "2", *extra], migrate_env)
                rows["migrate"][kind] = round(seconds, 1) if rc == 0 else None
                print(f"migrate --verify samples/ {kind}: {seconds:.1f} s" +
                      ("" if rc == 0 else f" (exit {rc}: left out)"), flush=True)
    from porter.verify import warm

    warm.shutdown_all()  # the workers this run's scratch environments started
    times = [t for t in rows["convert"].values() if t is not None]
    if times:
        print(f"convert: median {sorted(times)[len(times) // 2]:.2f} s, max {max(times):.2f} s over {len(times)} samples")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
