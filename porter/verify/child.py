"""Run a piece of tileport in a child Python process with a timeout.

User code (original kernels, generated ports, compilers they drive) may crash, hang or print;
a child process turns each of those into a diagnostic instead of a dead tool. Requests and
results travel as pickle files; the child runs in its own session so a timeout kills it and
everything it started. A child is a fork of the warm worker (warm.py, imports paid once) when
one answers, a fresh `python -P -m module` otherwise.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path

from porter.diagnostics import Loc, TileportError
from porter.util.files import write_atomically
from porter.util.processes import PARENT_VARIABLE, crash_message, die_with_parent, kill_tree
from porter.verify import warm

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
        err_path = Path(tmp, "stderr.txt")  # a file: a grandchild holding it open blocks nothing
        with open(in_path, "wb") as f:
            pickle.dump(request, f, protocol=pickle.HIGHEST_PROTOCOL)
        status = run_module(module, [str(in_path), str(out_path)], child_env, err_path, timeout, tmp)
        if status == "timeout":
            raise TileportError(timeout_code, f"{what} timed out after {timeout:g}s", loc)
        if not out_path.exists():
            stderr = err_path.read_text(errors="replace") if err_path.exists() else ""
            raise TileportError(crash_code, crash_message(what, status, stderr), loc)
        with open(out_path, "rb") as f:
            return pickle.load(f)


def run_module(module: str, argv: list, env: dict, err_path: Path, timeout: float,
               private_tmp: str | None = None):
    """`python -m module *argv` with env, its stderr into err_path: a fork of the warm worker,
    or a cold child when none answers. Its exit status (negative: the signal that killed it),
    or "timeout" once it and its process group are killed. private_tmp: the child's TMPDIR, a
    folder the caller removes (tilelang's compiles leave tmp*.cpp / tmp*.so behind)."""
    env = dict(env)
    try:  # the worker's folder as this process sees it, before TMPDIR moves (none when off)
        if warm.enabled(env):
            env.setdefault(warm.FOLDER_VARIABLE, str(warm.folder(env)))
    except OSError:
        pass
    if private_tmp is not None:
        env["TMPDIR"] = private_tmp
    env.pop(PARENT_VARIABLE, None)  # a fork's parent is the worker; _cold sets its own
    status = warm.run(module, argv, env, os.getcwd(), str(err_path), timeout)
    return _cold(module, argv, env, err_path, timeout) if status is None else status


def _cold(module: str, argv: list, env: dict, err_path: Path, timeout: float):
    """`python -P -m module *argv` in its own session (-P: the working directory is not on
    sys.path); its exit status, or "timeout" once it and its process group are killed."""
    env = {**env, PARENT_VARIABLE: str(os.getpid())}
    with open(err_path, "wb") as err:
        proc = subprocess.Popen([sys.executable, "-P", "-m", module, *argv], env=env,
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
                                start_new_session=True)
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_tree(proc)
        return "timeout"
    except BaseException:
        kill_tree(proc)
        raise


def child_io(argv: list, work) -> None:
    """Child side: read the request, call work(request) -> result dict, write it."""
    die_with_parent()
    in_path, out_path = argv[1], argv[2]
    with open(in_path, "rb") as f:
        request = pickle.load(f)
    result = work(request)
    write_atomically(out_path, pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL))
