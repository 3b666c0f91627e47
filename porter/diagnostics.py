"""Coded diagnostics: every user-facing failure is a `file:line:col: error TPxxx: message`.

Codes are stable; docs/diagnostics.md documents each one. Code ranges:
TP0xx input/usage, TP1xx CUDA front end, TP2xx Triton front end, TP3xx emit,
TP4xx verify (could not run), TP5xx verify (mismatch).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Loc:
    """A source position; line and col are 1-based, 0 when unknown."""

    file: str
    line: int = 0
    col: int = 0

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


@dataclass(frozen=True)
class Diagnostic:
    code: str
    message: str
    loc: Loc | None = None
    severity: str = "error"

    def render(self) -> str:
        where = f"{self.loc}: " if self.loc else ""
        return f"{where}{self.severity} {self.code}: {self.message}"


class TileportError(Exception):
    """Raised for any failure that should reach the user as a diagnostic, never a traceback."""

    def __init__(self, code: str, message: str, loc: Loc | None = None):
        super().__init__(message)
        self.diagnostic = Diagnostic(code, message, loc)

    def __str__(self) -> str:
        return self.diagnostic.render()

    def __reduce__(self):
        # pickled as its state, not its constructor's arguments (subclasses take others): the
        # isolated front end sends its diagnostics back this way
        return _restore, (type(self), self.args, self.__dict__)


def _restore(cls, args, state):
    error = cls.__new__(cls)
    Exception.__init__(error, *args)
    error.__dict__.update(state)
    return error


@dataclass(frozen=True)
class KernelFailure:
    """A kernel of a file that did not convert, and why; its neighbours still do."""

    name: str
    loc: Loc
    diagnostic: Diagnostic


class NoKernelConverted(TileportError):
    """Every kernel of a file failed: the first failure is the file's diagnostic, and each
    kernel's own is in `failures`."""

    def __init__(self, failures: list):
        first = failures[0].diagnostic
        super().__init__(first.code, first.message, first.loc)
        self.failures = list(failures)
