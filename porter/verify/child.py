"""Run a piece of tileport in a child Python process with a timeout.

User code (original kernels, generated ports, compilers they drive) may crash, hang or print;
a child process turns each of those into a diagnostic instead of a dead tool. Requests and
results travel as pickle files; the child runs in its own session so a timeout kills it and
everything it started.
"""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from porter.diagnostics import Loc, TileportError

REPO_ROOT = Path(__file__).resolve().parents[2]


def run_in_child(module: str, request: dict, timeout: float, loc: Loc, what: str,
                 codes: tuple = ("TP441", "TP442"), env: dict | None = None) -> dict:
    """`python -m module IN OUT`; returns the unpickled result dict the child wrote.

    codes: (crash code, timeout code) for the diagnostics raised here.
    """
    crash_code, timeout_code = codes
    child_env = dict(os.environ)
    for key, value in (env or {}).items():  # None removes a variable
        if value is None:
            child_env.pop(key, None)
        else:
            child_env[key] = value
    child_env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(REPO_ROOT), child_env.get("PYTHONPATH")) if p)
    with tempfile.TemporaryDirectory(prefix="tileport-child-") as tmp:
        in_path, out_path = Path(tmp, "in.pkl"), Path(tmp, "out.pkl")
        with open(in_path, "wb") as f:
            pickle.dump(request, f, protocol=pickle.HIGHEST_PROTOCOL)
        proc = subprocess.Popen([sys.executable, "-m", module, str(in_path), str(out_path)],
                                env=child_env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, start_new_session=True)
        try:
            _, stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            kill_group(proc)
            raise TileportError(timeout_code, f"{what} timed out after {timeout:g}s", loc) from None
        except BaseException:
            kill_group(proc)
            raise
        if not out_path.exists():
            raise TileportError(crash_code, crash_message(what, proc.returncode,
                                                          stderr.decode(errors="replace")), loc)
        with open(out_path, "rb") as f:
            return pickle.load(f)


def kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.communicate()


def crash_message(what: str, returncode: int, stderr: str, tail: int = 1500) -> str:
    if returncode < 0:
        try:
            how = f"was killed by signal {signal.Signals(-returncode).name}"
        except ValueError:
            how = f"was killed by signal {-returncode}"
    else:
        how = f"exited with status {returncode} without a result"
    text = stderr.strip()[-tail:]
    return f"{what} {how}" + (f"\n{text}" if text else "")


def child_io(argv: list, work) -> None:
    """Child side: read the request, call work(request) -> result dict, write it."""
    in_path, out_path = argv[1], argv[2]
    with open(in_path, "rb") as f:
        request = pickle.load(f)
    result = work(request)
    tmp = out_path + ".tmp"
    with open(tmp, "wb") as f:
        pickle.dump(result, f, protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(tmp, out_path)
