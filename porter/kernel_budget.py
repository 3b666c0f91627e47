"""A time budget per kernel, so one kernel that converts slowly costs only itself.

The front ends convert a file's kernels one after another inside one child (porter.isolated)
whose wall and CPU time are capped for the whole file. Without a per-kernel budget, one kernel
that takes the file's whole allowance loses every neighbour with it. Each kernel therefore
gets `TILEPORT_KERNEL_SECONDS` (60 s by default), and never more than what is left of the
file's allowance less a margin to send the result back: a kernel past its budget is stopped
and reported (TP019) and the next kernel starts; once the file's time is spent, the kernels
not yet started are reported without being tried.

The budget is a SIGALRM timer, so it works only in a process's main thread; elsewhere
(conversion called from a worker thread) kernels run unbudgeted under the caller's limits.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time

#: Seconds kept back from the file's allowance to pickle and send the module back.
MARGIN = 2.0
#: The file deadline of this process (time.monotonic()), set by porter.isolated in its child.
_file_deadline: float | None = None


class OutOfTime(BaseException):  # noqa: N818 - not an error the front ends may catch and retry
    """Raised inside a kernel's conversion when its budget ends. A BaseException, so the
    front ends' `except TileportError` / `except Exception` retries do not swallow it."""

    def __init__(self, seconds: float, file_spent: bool):
        super().__init__(seconds)
        self.seconds = seconds
        self.file_spent = file_spent

    def message(self, kernel: str) -> str:
        if self.file_spent:
            return (f"the file's time (TILEPORT_FRONTEND_SECONDS) ran out before kernel '{kernel}' "
                    "was converted; stopped")
        return (f"converting kernel '{kernel}' took longer than {self.seconds:g} s "
                "(TILEPORT_KERNEL_SECONDS); stopped, the file's other kernels still convert")


def kernel_seconds() -> float:
    return float(os.environ.get("TILEPORT_KERNEL_SECONDS", "60"))


def set_file_deadline(seconds: float | None) -> None:
    """Called once in the child that reads a file: its kernels share `seconds` from now."""
    global _file_deadline
    _file_deadline = None if seconds is None else time.monotonic() + seconds - MARGIN


@contextlib.contextmanager
def kernel_budget():
    """Run one kernel's conversion under its budget; OutOfTime when it is spent."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return
    cap = kernel_seconds()  # 0 turns the per-kernel budget off (the file's still holds)
    seconds, file_spent = cap, False
    if _file_deadline is not None:
        left = _file_deadline - time.monotonic()
        if left <= 0.05:
            raise OutOfTime(0.0, True)
        if cap <= 0 or left < cap:
            seconds, file_spent = left, True
    if seconds <= 0:
        yield
        return

    def expire(signum, frame):
        raise OutOfTime(seconds, file_spent)

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
