"""A warm worker: a long-lived process that has torch, tilelang and triton imported once and
forks a fresh child for each piece of user code tileport runs (a port, an original kernel).

A cold child pays 3-5 s of imports on every `tileport verify`; a fork of this process pays
milliseconds. Each child is still its own process (its own session: a timeout kills it and
everything it started), starts from the worker's pristine state (nothing one kernel sets,
registers or patches reaches the next) and runs with the caller's environment and working
directory. The worker is started on first use, one per user, toolchain and tileport source
(the socket's name hashes them, so an edited checkout never talks to a stale worker), and
exits after IDLE_S seconds without a request. When it cannot start or answer, callers run
today's cold children (child.run_in_child): the warm worker only ever saves time.

TILEPORT_WARM=0 turns it off.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from porter.util.hashing import content_hash

REPO_ROOT = Path(__file__).resolve().parents[2]
#: Seconds without a request after which the worker exits.
IDLE_S = float(os.environ.get("TILEPORT_WARM_IDLE", "300"))
#: Seconds a caller waits for a worker it started before it runs a cold child instead.
START_WAIT_S = 30.0
#: Modules the worker imports up front (what the children of verify import).
PRELOAD = ("numpy", "torch", "tilelang", "tilelang.language", "triton", "triton.language",
           "porter.verify.port_exec", "porter.verify.triton_exec", "porter.verify.cpu_target")
#: Environment variables that change what an import does: part of the worker's identity.
_IDENTITY_PREFIXES = ("TILELANG", "TVM", "TRITON", "TORCH", "CUDA", "PYTHON", "OMP_", "MKL_", "LD_",
                      "PATH", "HOME", "CC", "CXX", "TILEPORT_CACHE_DIR")


def enabled(env: dict | None = None) -> bool:
    return (os.environ if env is None else env).get("TILEPORT_WARM", "1") not in ("0", "", "no", "false")


def _identity(env: dict) -> str:
    """A digest of what the worker's imports depend on: the interpreter, the environment
    variables imports read, and tileport's own source (file sizes and modification times)."""
    parts = [sys.executable, sys.version]
    for key in sorted(env):
        if key.startswith(_IDENTITY_PREFIXES):
            value = env[key]
            if key == "PYTHONPATH":  # REPO_ROOT put first by more than one caller: one path
                value = os.pathsep.join(dict.fromkeys(p for p in value.split(os.pathsep) if p))
            parts.append(f"{key}={value}")
    for path in sorted((REPO_ROOT / "porter").rglob("*.py")):
        st = path.stat()
        parts.append(f"{path}:{st.st_size}:{st.st_mtime_ns}")
    return content_hash(*parts)[:20]


#: Where a caller's sockets live, handed down to its children: their TMPDIR is private to each
#: call (child.py) and must not move the worker.
FOLDER_VARIABLE = "TILEPORT_WARM_DIR"


def folder(env: dict | None = None) -> Path:
    """This user's folder of worker sockets (mode 0700): $TILEPORT_WARM_DIR when a caller
    handed one down, else under $XDG_RUNTIME_DIR or the temp folder."""
    env = os.environ if env is None else env
    if env.get(FOLDER_VARIABLE):
        found = Path(env[FOLDER_VARIABLE])
    else:
        base = env.get("XDG_RUNTIME_DIR") or tempfile.gettempdir()
        found = Path(base, f"tileport-warm-{os.getuid()}")
    found.mkdir(mode=0o700, exist_ok=True)
    return found


def socket_path(env: dict) -> Path:
    return folder(env) / f"{_identity(env)}.sock"


# ----------------------------------------------------------------------------- client side


def run(module: str, argv: list, env: dict, cwd: str, stderr_path: str, timeout: float):
    """Run `python -m module *argv` as a fork of the warm worker. Returns the child's exit
    status (negative: killed by that signal), "timeout" after killing it on a timeout, or None
    when no worker could take the request (the caller runs a cold child). With no worker
    running, one is started and waited for (up to START_WAIT_S)."""
    if not enabled(env):
        return None
    try:
        path = socket_path(env)
    except OSError:  # no private folder for the socket (read-only runtime dir, ...): cold children
        return None
    conn = _connect(path)
    if conn is None:  # start one and wait for it: its imports are the ones a cold child pays
        starter = _start_worker(path, env)
        deadline = time.monotonic() + START_WAIT_S
        while conn is None and time.monotonic() < deadline and starter is not None:
            time.sleep(0.05)
            conn = _connect(path)
            if conn is None and starter.poll() not in (None, 0):
                return None  # it failed to start (0: another caller's worker holds the lock)
        if conn is None:
            return None
    with conn:
        try:
            request = {"module": module, "argv": list(argv), "env": env, "cwd": cwd, "stderr": stderr_path}
            conn.sendall(json.dumps(request).encode() + b"\n")
            reader = conn.makefile("rb")
            started = json.loads(reader.readline() or b"null")
            if not started or "pid" not in started:
                return None
        except (OSError, ValueError):
            return None
        pid = started["pid"]
        deadline = time.monotonic() + timeout
        try:
            conn.settimeout(max(0.01, deadline - time.monotonic()))
            line = reader.readline()
            return int(json.loads(line)["status"]) if line else _lost(pid)
        except TimeoutError:
            _kill(pid)
            return "timeout"
        except (OSError, ValueError, KeyError):
            _kill(pid)
            return _lost(pid)


def _connect(path: Path):
    try:
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.settimeout(5.0)
        conn.connect(str(path))
        return conn
    except OSError:
        conn.close()
        return None


def _lost(pid: int):
    """The worker went away while its child ran: the child is killed, the call is a crash."""
    _kill(pid)
    return -signal.SIGKILL


def _kill(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)  # the child leads its own session and process group
    except (ProcessLookupError, PermissionError):
        pass


def _start_worker(path: Path, env: dict):
    """Start a worker for path in the background (it detaches; a second one started at the
    same time finds the lock taken and exits with status 0). Its Popen, None if it cannot."""
    try:
        worker_env = dict(env)
        worker_env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), env.get("PYTHONPATH")) if p)
        return subprocess.Popen([sys.executable, "-P", "-m", "porter.verify.warm", str(path)], env=worker_env,
                                cwd="/", stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)
    except OSError:
        return None


def shutdown_all() -> int:
    """Ask every worker of this user to exit (tests call this at the end of a session): each
    takes no new work and exits once the children it runs have finished."""
    stopped = 0
    for path in folder().glob("*.sock"):
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
                conn.settimeout(2.0)
                conn.connect(str(path))
                conn.sendall(b'{"quit": true}\n')
                conn.recv(16)
                stopped += 1
        except OSError:
            pass
    return stopped


# ----------------------------------------------------------------------------- worker side


def serve(path: Path) -> None:
    lock = open(str(path) + ".lock", "w")  # noqa: SIM115 - held (flock) while the worker serves
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return  # another worker serves this path
    os.environ.pop("TILEPORT_RUN", None)
    import importlib

    for name in PRELOAD:
        with contextlib.suppress(Exception):  # a missing package is the child's business
            importlib.import_module(name)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # after the imports, which may set their own
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    if path.exists():
        path.unlink()
    listener.bind(str(path))
    listener.listen(64)
    running: dict = {}  # child pid -> the connection waiting for its status
    last = time.monotonic()
    quitting = False  # asked to stop: takes no new work, lets the running children finish
    try:
        while True:
            # a running child is reaped within 20 ms of its exit; an idle worker sleeps longer
            watched = [*running.values()] if quitting else [listener, *running.values()]
            ready, _, _ = select.select(watched, [], [], 0.02 if running else 0.5)
            for pid, conn in list(running.items()):
                if conn in ready:  # the caller went away (killed, or timed out): so does its child
                    _kill(pid)
            if listener in ready:
                conn, _ = listener.accept()
                last = time.monotonic()
                request = _read_request(conn)
                if request is None:
                    conn.close()
                elif request.get("quit"):
                    conn.sendall(b"bye\n")
                    conn.close()
                    quitting = True
                    path.unlink(missing_ok=True)  # new callers start a fresh worker,
                    lock.close()  # which may take the lock while these children finish
                else:
                    pid = _fork_child(request, listener, [listener, lock, *running.values(), conn])
                    try:
                        conn.sendall(json.dumps({"pid": pid}).encode() + b"\n")
                    except OSError:
                        _kill(pid)
                    running[pid] = conn
            _reap(running)
            if running:
                last = time.monotonic()
            elif quitting or time.monotonic() - last > IDLE_S:
                break
    finally:
        listener.close()
        if not quitting:
            path.unlink(missing_ok=True)
            lock.close()  # let go first: _remove_lock takes it again to know it is nobody's
        _remove_lock(path)  # nothing of this worker stays in TMPDIR
        for pid in running:  # only on SIGTERM or an error: a quit waits for them
            _kill(pid)


def _remove_lock(path: Path) -> None:
    """Remove the worker's lock file (and its folder when empty) unless another worker holds
    it now: taken again without waiting, it is nobody's (a worker that quit let it go)."""
    lock_path = Path(str(path) + ".lock")
    try:
        lock = open(lock_path, "a")  # noqa: SIM115 - held while the request is served
    except OSError:
        return
    with lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return  # a newer worker serves this path
        if not path.exists():
            lock_path.unlink(missing_ok=True)
            try:
                path.parent.rmdir()  # only when empty (no other worker's socket in it)
            except OSError:
                pass


def _read_request(conn: socket.socket):
    conn.settimeout(5.0)
    data = b""
    try:
        while not data.endswith(b"\n"):
            chunk = conn.recv(1 << 16)
            if not chunk:
                return None
            data += chunk
        return json.loads(data)
    except (OSError, ValueError):
        return None


def _reap(running: dict) -> None:
    while running:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        conn = running.pop(pid, None)
        if conn is None:
            continue
        code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
        try:
            conn.sendall(json.dumps({"status": code}).encode() + b"\n")
        except OSError:
            pass
        conn.close()


def _fork_child(request: dict, listener, inherited: list) -> int:
    pid = os.fork()
    if pid:
        return pid
    code = 1
    try:
        os.setsid()
        for s in inherited:
            s.close()
        null = os.open(os.devnull, os.O_RDWR)
        err = os.open(request["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(null, 0)
        os.dup2(null, 1)
        os.dup2(err, 2)
        os.environ.clear()
        os.environ.update(request["env"])
        tempfile.tempdir = None  # recomputed from the caller's TMPDIR (each call has its own)
        os.chdir(request["cwd"])
        sys.argv = [request["module"], *request["argv"]]
        import runpy
        import warnings

        # the module was preloaded: runpy warns that it runs a second copy as __main__ (meant)
        warnings.filterwarnings("ignore", message=".*found in sys.modules after import", category=RuntimeWarning)
        try:
            runpy.run_module(request["module"], run_name="__main__", alter_sys=True)
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # noqa: BLE001 - the traceback is the crash message
        import traceback

        traceback.print_exc()
        code = 1
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


if __name__ == "__main__":
    serve(Path(sys.argv[1]))
