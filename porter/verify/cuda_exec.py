"""Run one original CUDA kernel on the CPU, in a child process, as tileport's reference.

The library is built (and cached) in the calling process by cuda_build; the kernel itself runs in
`python -m porter.verify.cuda_exec` so that a crash, a hang or a barrier deadlock in user code
becomes a diagnostic instead of taking tileport down:

    TP411  the kernel crashed (signal), with the CUDA thread and, for a stray access next to an
           argument buffer, which buffer and how far out of bounds
    TP412  the kernel did not finish within the timeout
    TP413  the emulator proved a barrier deadlock or a divergent __syncthreads()
    TP414  the launch configuration is invalid (grid/block/shared memory limits)

Every pointer argument lives in its own mapping with inaccessible guard pages on both sides, so
reads and writes just outside a buffer crash deterministically instead of passing silently.
"""

from __future__ import annotations

import ctypes
import mmap
import os
import pickle
import re
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from porter.diagnostics import Loc, TileportError
from porter.verify import bf16
from porter.verify.bounds_checks import MARKER as STRAY_MARKER
from porter.verify.child import run_module
from porter.verify.cuda_build import (
    KernelSig,
    build,
    is_pointer_type,
    launcher_name,
    runtime_library,
    symbol_accessor_name,
)

# runtime status codes (tp_emu.h TP_RT_*)
_RT_BAD_CONFIG, _RT_DEADLOCK, _RT_UNSUPPORTED = 1, 3, 4

# C spellings of scalar parameter types -> numpy dtype (LP64)
_SCALAR_DTYPES: dict[str, str] = {
    "bool": "bool",
    "char": "int8",
    "signed char": "int8",
    "unsigned char": "uint8",
    "short": "int16",
    "short int": "int16",
    "signed short": "int16",
    "unsigned short": "uint16",
    "unsigned short int": "uint16",
    "int": "int32",
    "signed": "int32",
    "signed int": "int32",
    "unsigned": "uint32",
    "unsigned int": "uint32",
    "long": "int64",
    "long int": "int64",
    "signed long": "int64",
    "unsigned long": "uint64",
    "unsigned long int": "uint64",
    "long long": "int64",
    "long long int": "int64",
    "signed long long": "int64",
    "unsigned long long": "uint64",
    "unsigned long long int": "uint64",
    "size_t": "uint64",
    "ssize_t": "int64",
    "ptrdiff_t": "int64",
    "int8_t": "int8",
    "uint8_t": "uint8",
    "int16_t": "int16",
    "uint16_t": "uint16",
    "int32_t": "int32",
    "uint32_t": "uint32",
    "int64_t": "int64",
    "uint64_t": "uint64",
    "float": "float32",
    "double": "float64",
    "__half": "float16",
    "half": "float16",
    "__nv_bfloat16": "bfloat16",
    "nv_bfloat16": "bfloat16",
}


_INT_WORDS = {"signed", "unsigned", "short", "long", "int", "char"}


def _base_type(spelling: str) -> str:
    """'const unsigned  int' -> 'unsigned int'; 'long unsigned int' -> 'unsigned long';
    'std::size_t *' -> 'size_t'."""
    words = [
        w
        for w in spelling.replace("std::", "").replace("*", " ").split()
        if w not in ("const", "volatile", "__restrict__", "__restrict", "restrict")
    ]
    if words and set(words) <= _INT_WORDS:  # builtin integer: any word order
        u = "unsigned " if "unsigned" in words else ""
        if "char" in words:
            return u + "char" if u or "signed" not in words else "signed char"
        if "short" in words:
            return u + "short"
        return u + {0: "int", 1: "long", 2: "long long"}[min(2, words.count("long"))]
    return " ".join(words)


float_to_bf16_bits = bf16.to_bits
bf16_bits_to_float = bf16.from_bits


def _pack_scalar(index: int, ctype: str, value: Any) -> bytes:
    """The bytes a by-value parameter of C type `ctype` receives."""
    base = _base_type(ctype)
    dtype = _SCALAR_DTYPES.get(base)
    where = f"kernel argument {index + 1} ({ctype})"
    if dtype == "bfloat16":
        if isinstance(value, np.uint16):
            return value.tobytes()  # already bfloat16 bits
        return float_to_bf16_bits(float(value)).tobytes()
    if dtype is not None:
        if isinstance(value, np.ndarray) and value.size != 1:
            raise ValueError(f"{where} is a scalar, got an array of shape {value.shape}")
        if np.dtype(dtype).kind in "iub" and isinstance(value, float) and not value.is_integer():
            raise ValueError(f"{where} is an integer, got {value!r}")
        try:
            if isinstance(value, (np.ndarray, np.generic)):  # numpy values: the caller chose
                return np.asarray(value).astype(dtype).reshape(()).tobytes()
            return np.array(value, dtype=dtype).tobytes()  # Python values: range-checked
        except (OverflowError, TypeError, ValueError) as e:
            raise ValueError(f"{where}: cannot pass {value!r}: {e}") from e
    # structs, vector types, typedefs we do not know: raw bytes from the caller
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, (np.ndarray, np.generic)):
        return np.ascontiguousarray(value).tobytes()
    raise ValueError(
        f"{where}: unknown scalar type; pass a numpy scalar/array or bytes with its exact layout"
    )


class StructArg:
    """A struct passed by value that holds pointers: its bytes, and at each pointer field's
    byte offset the array that field points to (the child writes the array's address there)."""

    def __init__(self, raw: bytes, pointers: Mapping[int, np.ndarray]):
        self.raw, self.pointers = bytes(raw), dict(pointers)


def _check_buffer(index: int, ctype: str, arr: Any) -> None:
    where = f"kernel argument {index + 1} ({ctype})"
    if not isinstance(arr, np.ndarray):
        raise ValueError(
            f"{where} is a pointer: pass a numpy array (or None), got {type(arr).__name__}"
        )
    dtype = _SCALAR_DTYPES.get(_base_type(ctype))
    if dtype is not None:
        size = 2 if dtype == "bfloat16" else np.dtype(dtype).itemsize
        if arr.dtype.itemsize != size:
            raise ValueError(
                f"{where} points at {size}-byte elements but the array has dtype {arr.dtype}"
            )


def _dims(v: int | Sequence[int], what: str) -> tuple[int, int, int]:
    t = (v,) if isinstance(v, (int, np.integer)) else tuple(v)
    if not 1 <= len(t) <= 3:
        raise ValueError(f"{what} must have 1 to 3 dimensions, got {v!r}")
    return tuple(int(x) for x in t) + (1,) * (3 - len(t))  # type: ignore[return-value]


def run_kernel(
    source_path: str | os.PathLike,
    sig: KernelSig,
    grid: int | Sequence[int],
    block: int | Sequence[int],
    smem_bytes: int,
    args: Sequence[Any],
    timeout: float = 60.0,
    include_dirs: Iterable[str | os.PathLike] = (),
    defines: Iterable[str] = (),
    *,
    constants: Mapping[str, Any] | None = None,
    cache_dir: str | os.PathLike | None = None,
) -> list[Any]:
    """Run kernel `sig` from `source_path` once over `grid` x `block` threads on the CPU.

    args: one per parameter. Pointer parameters take numpy arrays (any dtype, float16 included;
    pass bfloat16 as uint16 bit patterns) or None; other parameters take Python/numpy scalars,
    converted to the parameter's C type (bfloat16 from a float is rounded to nearest even); a
    struct holding pointers takes a StructArg, and comes back with its arrays' contents.
    constants: optional {variable name: array or bytes} copied into __constant__/__device__
    variables of the file before the launch; a dict of bytes is updated with what the
    variables hold after it (a kernel may write a __device__ variable).
    Returns args with every array replaced by its contents after the kernel ran (fresh arrays
    of the same dtype and shape); scalars and None come back unchanged.
    """
    if len(args) != len(sig.param_types):
        raise ValueError(
            f"kernel {sig.launch_name} takes {len(sig.param_types)} arguments, got {len(args)}"
        )
    packed: list[tuple] = []
    for i, (ctype, value) in enumerate(zip(sig.param_types, args, strict=True)):
        if isinstance(value, StructArg):
            fields = [(at, np.ascontiguousarray(a), f"field at byte {at} of kernel argument {i + 1} ({ctype})")
                      for at, a in value.pointers.items()]
            packed.append(("struct", value.raw, fields))
        elif is_pointer_type(ctype):
            if value is None:
                packed.append(("buf", None, ""))
                continue
            _check_buffer(i, ctype, value)
            n = value.size
            label = f"kernel argument {i + 1} ({ctype}, {n} element{'s' * (n != 1)})"
            packed.append(("buf", np.ascontiguousarray(value), label))
        else:
            packed.append(("val", _pack_scalar(i, ctype, value)))
    consts = []
    for name, data in (constants or {}).items():
        if isinstance(data, (bytes, bytearray, memoryview)):
            raw = bytes(data)
        else:
            raw = np.ascontiguousarray(data).tobytes()
        consts.append((symbol_accessor_name(name), name, raw))

    lib = build(
        source_path, [sig], include_dirs, defines, cache_dir=cache_dir,
        symbols=[c[1] for c in consts],
    )  # fmt: skip
    job = {
        "runtime": str(runtime_library(cache_dir)),
        "library": str(lib),
        "launcher": launcher_name(sig),
        "grid": _dims(grid, "grid"),
        "block": _dims(block, "block"),
        "smem": int(smem_bytes),
        "args": packed,
        "constants": consts,
    }
    loc = Loc(str(source_path))
    with tempfile.TemporaryDirectory(prefix="tp-emu-run-") as tmp:
        job_path, out_path = Path(tmp) / "job.pkl", Path(tmp) / "out.pkl"
        job_path.write_bytes(pickle.dumps(job, protocol=pickle.HIGHEST_PROTOCOL))
        env = dict(os.environ)
        pkg_root = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = pkg_root + os.pathsep + env.get("PYTHONPATH", "")
        env.pop("PYTHONFAULTHANDLER", None)  # our crash handler reports the CUDA thread instead
        err_path = Path(tmp) / "stderr.txt"
        returncode = run_module("porter.verify.cuda_exec", [str(job_path), str(out_path)], env, err_path,
                                timeout, tmp)
        if returncode == "timeout":
            raise TileportError(
                "TP412",
                f"kernel {sig.launch_name} timed out after {timeout:g}s on the CPU emulator "
                "(deadlock? a spin-wait on another block? an infinite loop?)",
                loc,
            )
        stderr = err_path.read_text(errors="replace") if err_path.exists() else ""
        if returncode < 0:
            crash_loc = _crash_location(stderr, str(lib), source_path) or loc
            raise TileportError("TP411", _crash_message(sig, -returncode, stderr), crash_loc)
        if returncode != 0 or not out_path.exists():
            tail = "\n".join(stderr.strip().splitlines()[-5:])
            raise TileportError(
                "TP411", f"the kernel runner for {sig.launch_name} failed: {tail}", loc
            )
        result = pickle.loads(out_path.read_bytes())
        # stray-access reports of a checked build (bounds_checks.py) reach the caller's stderr
        strays = [ln for ln in stderr.splitlines() if ln.startswith(STRAY_MARKER)]
        if strays:
            sys.stderr.write("\n".join(strays) + "\n")
            sys.stderr.flush()

    if not result["ok"]:
        status, message = result["status"], result["message"]
        where = loc
        if result.get("file"):
            f = result["file"]
            shown = str(source_path) if Path(f) == Path(source_path).resolve() else f
            where = Loc(shown, int(result.get("line") or 0))
        code = {_RT_DEADLOCK: "TP413", _RT_BAD_CONFIG: "TP414", _RT_UNSUPPORTED: "TP414"}.get(
            status, "TP411"
        )
        raise TileportError(code, f"kernel {sig.launch_name}: {message}", where)
    out = list(args)
    for i, arr in result["arrays"].items():
        out[i] = arr.reshape(np.shape(args[i]))
    for (i, at), arr in result.get("fields", {}).items():
        out[i] = StructArg(args[i].raw, {**out[i].pointers, at: arr.reshape(np.shape(args[i].pointers[at]))})
    if isinstance(constants, dict):
        for name, data in result.get("constants", {}).items():
            if isinstance(constants.get(name), bytes):
                constants[name] = data
    return out


def _crash_location(stderr: str, library: str, source_path: str | os.PathLike) -> Loc | None:
    """Source line of the faulting instruction, from the runtime's `tileport-emu-pc:` report."""
    src = Path(source_path).resolve()
    a = re.search(r"^(?:\S+: )?(/[^:\n]+):(\d+): .*Assertion .* failed", stderr, re.MULTILINE)
    if a:  # assert() in device code names its own line
        return Loc(str(source_path) if Path(a[1]).resolve() == src else a[1], int(a[2]))
    m = re.search(r"^tileport-emu-pc: (0x[0-9a-f]+) (.+)$", stderr, re.MULTILINE)
    if not m or Path(m.group(2)).resolve() != Path(library).resolve():
        return None
    try:
        out = subprocess.run(
            ["addr2line", "-i", "-e", library, m.group(1)],
            capture_output=True, text=True, timeout=10, check=False,
        ).stdout  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return None
    emu = Path(__file__).resolve().parent / "cuda_emu"
    for line in out.splitlines():  # innermost inlined frame first
        file, _, rest = line.rpartition(":")
        lno = re.match(r"\d+", rest)
        if not file or file == "??" or not lno or emu in Path(file).resolve().parents:
            continue
        shown = str(source_path) if Path(file).resolve() == src else file
        return Loc(shown, int(lno.group()))
    return None


def _crash_message(sig: KernelSig, signum: int, stderr: str) -> str:
    try:
        name = signal.Signals(signum).name
    except ValueError:
        name = f"signal {signum}"
    emu = [ln.split("tileport-emu: ", 1)[1] for ln in stderr.splitlines() if "tileport-emu: " in ln]
    other = [ln.strip() for ln in stderr.splitlines() if ln.strip() and "tileport-emu" not in ln]
    msg = f"kernel {sig.launch_name} crashed: " + (emu[-1] if emu else f"signal {name}")
    if other and name == "SIGABRT":  # an assert() message or similar
        msg += f" ({re.sub(r'^python[0-9.]*: ', '', other[-1])})"
    return msg


# ----------------------------------------------------------------------------- child process


class _GuardedBuffer:
    """A copy of an argument array whose end abuts an inaccessible page (and whose page-aligned
    start follows one), so the first stray access outside it faults."""

    _libc = None

    def __init__(self, arr: np.ndarray):
        page = mmap.PAGESIZE
        self.shape, self.dtype = arr.shape, arr.dtype
        self.nbytes = arr.nbytes
        padded = max(16, -(-self.nbytes // 16) * 16)  # keep 16-byte alignment (vector loads)
        body = -(-padded // page) * page
        self.map = mmap.mmap(-1, page + body + page, prot=mmap.PROT_READ | mmap.PROT_WRITE)
        base = ctypes.addressof(ctypes.c_char.from_buffer(self.map))
        if _GuardedBuffer._libc is None:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
            _GuardedBuffer._libc = libc
        _GuardedBuffer._libc.mprotect(base, page, 0)
        _GuardedBuffer._libc.mprotect(base + page + body, page, 0)
        self.offset = page + body - padded
        self.address = base + self.offset
        view = np.frombuffer(self.map, dtype=np.uint8, count=self.nbytes, offset=self.offset)
        view[:] = np.ascontiguousarray(arr).reshape(-1).view(np.uint8)

    def result(self) -> np.ndarray:
        raw = np.frombuffer(self.map, dtype=np.uint8, count=self.nbytes, offset=self.offset)
        return raw.copy().view(self.dtype).reshape(self.shape)


def _child_main(job_path: str, out_path: str) -> int:
    job = pickle.loads(Path(job_path).read_bytes())
    rt = ctypes.CDLL(job["runtime"], mode=ctypes.RTLD_GLOBAL)
    rt.tp_rt_error_message.restype = ctypes.c_char_p
    rt.tp_rt_error_file.restype = ctypes.c_char_p
    rt.tp_rt_error_line.restype = ctypes.c_uint
    rt.tp_rt_note_buffer.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]
    lib = ctypes.CDLL(job["library"])

    nargs = len(job["args"])
    argv = (ctypes.c_void_p * max(1, nargs))()
    keep: list[Any] = []
    buffers: dict[int, _GuardedBuffer] = {}
    fields: dict[tuple, _GuardedBuffer] = {}  # (argument, byte offset) of a struct's pointer field
    for i, a in enumerate(job["args"]):
        if a[0] == "buf":
            if a[1] is None:
                argv[i] = None
                continue
            buf = _GuardedBuffer(a[1])
            label = a[2].encode()
            keep.append(label)
            rt.tp_rt_note_buffer(buf.address, buf.nbytes, label)
            buffers[i] = buf
            argv[i] = buf.address
        else:
            raw = ctypes.create_string_buffer(a[1], max(16, len(a[1])))
            keep.append(raw)
            argv[i] = ctypes.addressof(raw)
            for at, array, label in a[2] if a[0] == "struct" else ():
                buf = _GuardedBuffer(array)
                keep.append(label.encode())
                rt.tp_rt_note_buffer(buf.address, buf.nbytes, keep[-1])
                fields[(i, at)] = buf
                ctypes.memmove(argv[i] + at, ctypes.byref(ctypes.c_void_p(buf.address)), ctypes.sizeof(ctypes.c_void_p))

    symbols = []  # (name, address, bytes given): read back after the run
    for accessor, name, data in job["constants"]:
        fn = getattr(lib, accessor)
        fn.restype = ctypes.c_void_p
        fn.argtypes = [ctypes.POINTER(ctypes.c_ulong)]
        size = ctypes.c_ulong()
        addr = fn(ctypes.byref(size))
        if len(data) > size.value:
            message = f"{len(data)} bytes given for `{name}`, which holds {size.value}"
            result = {
                "ok": False,
                "status": _RT_BAD_CONFIG,
                "file": "",
                "line": 0,
                "message": message,
            }
            Path(out_path).write_bytes(pickle.dumps(result))
            return 0
        ctypes.memmove(addr, data, len(data))
        symbols.append((name, addr, data))

    launch = getattr(lib, job["launcher"])
    launch.restype = ctypes.c_int
    launch.argtypes = [ctypes.c_void_p] + [ctypes.c_int] * 7
    rc = launch(argv, *job["grid"], *job["block"], job["smem"])
    if rc != 0:
        result = {
            "ok": False,
            "status": rc,
            "message": (rt.tp_rt_error_message() or b"").decode(errors="replace"),
            "file": (rt.tp_rt_error_file() or b"").decode(errors="replace"),
            "line": rt.tp_rt_error_line(),
        }
    else:
        result = {"ok": True, "arrays": {i: b.result() for i, b in buffers.items()},
                  "fields": {key: b.result() for key, b in fields.items()},
                  "constants": {name: ctypes.string_at(addr, len(data)) for name, addr, data in symbols}}
    Path(out_path).write_bytes(pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    from porter.util.processes import die_with_parent

    die_with_parent()
    sys.exit(_child_main(sys.argv[1], sys.argv[2]))
