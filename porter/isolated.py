"""Read a user's file in a forked child with limits, so no input can take tileport down.

libclang runs inside the process that calls it: a macro that expands to a million terms
segfaults it, and `#include "/dev/zero"` grows it until the machine's OOM killer steps in. The
front ends therefore run in a child forked from the caller (cheap: the imports are already
done) under a cap on its address space, CPU time and file writes; the IR module comes back
pickled through a pipe, and a child that crashed, ran out of memory or time, or sent more
than the output cap is a coded diagnostic in the caller. Where fork is missing the call runs
inline.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import sys
import tempfile
import time

from porter.diagnostics import Loc, TileportError
from porter.kernel_budget import set_file_deadline

#: The child's address space beyond what it starts with (the caller's own mappings).
MEMORY_BYTES = int(os.environ.get("TILEPORT_FRONTEND_MEMORY", str(1 << 30)))
#: Seconds of wall time (and of CPU time) one file's reading may take.
SECONDS = float(os.environ.get("TILEPORT_FRONTEND_SECONDS", "120"))
#: The largest pickled result taken back (a module of 100k kernels is well under it).
OUTPUT_BYTES = 512 << 20
#: Python frames the child may nest: deep expressions fail as TP020, not as a C stack overflow.
RECURSION = 20000


def _address_space() -> int:
    """The bytes this process has mapped now (VmSize), 0 when /proc cannot tell."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _limit_child(seconds: float, memory: int) -> None:
    import resource

    mapped = _address_space()
    if mapped:
        resource.setrlimit(resource.RLIMIT_AS, (mapped + memory, mapped + memory))
    cpu = int(seconds) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    sys.setrecursionlimit(RECURSION)


def _child(write_fd: int, fn, args, kwargs, seconds: float, memory: int) -> None:
    status = 0
    try:
        _limit_child(seconds, memory)
        set_file_deadline(seconds)
        try:
            payload = ("ok", fn(*args, **kwargs))
        except TileportError as exc:
            payload = ("error", exc)
        except MemoryError:
            payload = ("memory", None)
        except RecursionError:
            payload = ("deep", None)
        except Exception as exc:  # noqa: BLE001 - a tileport bug, reported with its traceback
            import traceback

            payload = ("bug", f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=-8)}")
        try:
            data = pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL)
        except (pickle.PicklingError, TypeError, AttributeError, RecursionError, MemoryError) as exc:
            data = pickle.dumps(("bug", f"the result could not be sent back: {exc}"))
        with os.fdopen(write_fd, "wb") as out:
            out.write(data)
    except BaseException:  # noqa: BLE001 - whatever happens, the child never returns into the caller
        status = 70
    finally:
        os._exit(status)


def run_isolated(fn, *args, where: str, seconds: float | None = None, memory: int | None = None, **kwargs):
    """fn(*args, **kwargs) in a forked child under limits; its result, or its TileportError
    raised again here. `where` names the file for the diagnostics of a child that failed."""
    seconds = SECONDS if seconds is None else seconds
    memory = MEMORY_BYTES if memory is None else memory
    if not hasattr(os, "fork") or os.environ.get("TILEPORT_NO_ISOLATION") == "1":
        return fn(*args, **kwargs)
    sys.stdout.flush()
    sys.stderr.flush()
    read_fd, write_fd = os.pipe()
    said = tempfile.TemporaryFile()  # noqa: SIM115 - closed below, after the child; the child's stderr: libclang prints crash dumps there
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        os.dup2(said.fileno(), 2)
        _child(write_fd, fn, args, kwargs, seconds, memory)
    os.close(write_fd)
    chunks, size, deadline, why = [], 0, time.monotonic() + seconds, None
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                why = "time"
                break
            ready, _, _ = select.select([read_fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(read_fd, 1 << 20)
            if not chunk:
                break
            size += len(chunk)
            if size > OUTPUT_BYTES:
                why = "output"
                break
            chunks.append(chunk)
    finally:
        os.close(read_fd)
        if why is not None:
            _kill(pid)
        status = _reap(pid)
    said.seek(0)
    stderr_text = said.read(1 << 20).decode("utf-8", errors="replace")
    said.close()
    loc = Loc(where)
    try:
        return _outcome(why, chunks, status, stderr_text, seconds, memory, loc)
    except TileportError as exc:
        reason = _last_words(stderr_text)
        if reason and exc.diagnostic.code in ("TP018", "TP019", "TP101"):
            exc = TileportError(exc.diagnostic.code, f"{exc.diagnostic.message} (the front end said: {reason})",
                                exc.diagnostic.loc)
        raise exc from None


def _last_words(text: str) -> str:
    """The front end's own reason, from what it printed: 'LLVM ERROR: out of memory'."""
    for line in text.splitlines():
        if line.startswith(("LLVM ERROR:", "terminate called", "Fatal Python error")):
            return line.strip()[:200]
    return ""


def _outcome(why, chunks, status, stderr_text, seconds, memory, loc):
    """The child's result, or the diagnostic for how it failed."""
    if why == "time":
        raise TileportError("TP019", f"reading the file took longer than {seconds:g} s; stopped", loc)
    if why == "output":
        raise TileportError("TP019", f"reading the file produced more than {OUTPUT_BYTES >> 20} MiB of IR; "
                            "stopped", loc)
    try:
        kind, value = pickle.loads(b"".join(chunks))
    except Exception:  # noqa: BLE001 - no (or a cut) result: the child died; say how
        raise TileportError(*_death(status, seconds, memory), loc) from None
    if kind == "ok":
        if stderr_text:  # warnings of a run that worked go where they would have gone
            sys.stderr.write(stderr_text)
        return value
    if kind == "error":
        raise value
    if kind == "memory":
        raise TileportError("TP019", f"reading the file needed more than {memory >> 20} MiB of memory; stopped",
                            loc)
    if kind == "deep":
        raise TileportError("TP020", "the file nests expressions or statements too deeply to read", loc)
    raise TileportError("TP014", f"internal error while reading the file: {value}", loc)


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _reap(pid: int) -> int:
    """The child's wait status (it was killed if it did not end on its own within a second)."""
    for _ in range(100):
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        time.sleep(0.01)
    _kill(pid)
    return os.waitpid(pid, 0)[1]


def _death(status: int, seconds: float, memory: int) -> tuple:
    """(code, message) for a child that sent no result."""
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        if number == signal.SIGXCPU:
            return "TP019", f"reading the file used more than {seconds:g} s of CPU time; stopped"
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        more = "" if number not in (signal.SIGABRT, signal.SIGKILL) else (
            f" (or it needed more than {memory >> 20} MiB of memory)")
        return "TP018", f"the front end crashed ({name}) reading this file{more}; tileport itself is unharmed"
    return "TP018", f"the front end ended without a result (exit status {os.WEXITSTATUS(status)})"
