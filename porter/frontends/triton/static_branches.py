"""Which branch of a module-level `try:` tileport reads, since it never runs the module.

Libraries pick helpers per backend at import time:

    try:
        backend.select(device.vendor)              # runs the library's host code
        shim = backend.get_math_module()
    except ImportError:
        shim = triton.language.extra.libdevice     # a path tileport can read

The front end and verify's kernels-only copy must agree on one branch. A branch is *static*
when it only imports, binds names to names, attribute paths or constants, or nests such
`try`/`if` blocks: reading it needs nothing run. The body is taken when it is static (what
Python does when the imports succeed); otherwise the first static handler; otherwise the body.
"""

from __future__ import annotations

import ast


def taken_branch(st: ast.Try) -> list:
    """The statements of `st` that stand for it: its body or one handler's body."""
    if _static(st.body):
        return st.body
    for handler in st.handlers:
        if _static(handler.body):
            return handler.body
    return st.body


def taken_handler(st: ast.Try) -> ast.excepthandler | None:
    """The handler whose body `taken_branch` takes, or None when it takes the body."""
    branch = taken_branch(st)
    return next((h for h in st.handlers if h.body is branch), None)


def _static(statements: list) -> bool:
    return all(_static_statement(s) for s in statements)


def _static_statement(st) -> bool:
    if isinstance(st, (ast.Import, ast.ImportFrom, ast.Pass)):
        return True
    if isinstance(st, ast.Assign):
        return _static_value(st.value)
    if isinstance(st, ast.AnnAssign):
        return st.value is None or _static_value(st.value)
    if isinstance(st, ast.Try):
        return _static(taken_branch(st))
    if isinstance(st, ast.If):
        return _static(st.body) and _static(st.orelse)
    return False


def _static_value(value) -> bool:
    if isinstance(value, ast.Constant):
        return True
    if isinstance(value, ast.Attribute):
        return _static_value(value.value)
    if isinstance(value, ast.Name):
        return True
    if isinstance(value, (ast.Tuple, ast.List)):
        return all(_static_value(e) for e in value.elts)
    return False
