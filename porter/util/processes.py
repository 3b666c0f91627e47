"""Child processes tileport starts, and what it does to them: a child dies with its parent
(die_with_parent), a stuck one is killed with everything it started (kill_tree), and a crash
reads as one line (crash_message). verify/child.py runs checks in children, migrate/worker.py
runs files in them, porter/isolated.py forks the front ends."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path


#: The pid a cold child expects as its parent (die_with_parent).
PARENT_VARIABLE = "TILEPORT_PARENT_PID"


def die_with_parent() -> None:
    """Linux: this process gets SIGKILL when the process that started it dies, so a `kill -9`
    of tileport leaves no child running. A child whose parent is already gone exits."""
    expected = os.environ.pop(PARENT_VARIABLE, None)  # never handed down to this one's children
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if expected and expected.isdigit() and os.getppid() != int(expected):
        os._exit(1)


def descendants(pid: int) -> list[int]:
    """Every process below pid (from /proc; empty where there is none)."""
    children: dict = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
            ppid = int(text[text.rfind(")") + 2:].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(stat.parent.name))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def kill_tree(proc: subprocess.Popen) -> None:
    """Kill a child and everything under it. A child may start its own in new sessions (verify
    does), so killing its process group is not enough: find them first, then kill all."""
    for _ in range(2):
        pids = descendants(proc.pid) if proc.poll() is None else []
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass


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
