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

A module-level `if` whose tests only ask the installed Triton what it has
(`if hasattr(triton.language, "make_tensor_descriptor"): ... else: @triton.jit def ...`) is read
as the import reads it: the tests run against Triton itself, the toolchain, never the module.
"""

from __future__ import annotations

import ast
import importlib


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


def triton_modules(body: list) -> dict:
    """name -> the Triton module path a module's top-level imports bind it to (`tl` ->
    `triton.language`, `triton` -> `triton`)."""
    out = {}
    for st in body:
        if isinstance(st, ast.Import):
            for a in st.names:
                if a.name.split(".")[0] == "triton":
                    out[a.asname or "triton"] = a.name if a.asname else "triton"
        elif isinstance(st, ast.ImportFrom) and st.level == 0 and (st.module or "").split(".")[0] == "triton":
            for a in st.names:
                out[a.asname or a.name] = f"{st.module}.{a.name}"
    return out


def taken_if_branch(st: ast.If, modules: dict) -> list | None:
    """The statements an `if`/`elif` chain of Triton feature tests (`hasattr(triton.language,
    "make_tensor_descriptor")`) takes with the installed Triton, as the import does; None when
    a test on the way is anything else (tileport never runs the module's own code)."""
    node = st
    while True:
        value = _triton_test(node.test, modules)
        if value is None:
            return None
        if value:
            return node.body
        if len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):
            node = node.orelse[0]
            continue
        return node.orelse


def _triton_test(test, modules: dict) -> bool | None:
    if isinstance(test, ast.BoolOp):
        values = [_triton_test(v, modules) for v in test.values]
        if None in values:
            return None
        return all(values) if isinstance(test.op, ast.And) else any(values)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        value = _triton_test(test.operand, modules)
        return None if value is None else not value
    if not (isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "hasattr"
            and len(test.args) == 2 and isinstance(test.args[1], ast.Constant)
            and isinstance(test.args[1].value, str)):
        return None
    path, node = [], test.args[0]
    while isinstance(node, ast.Attribute):
        path.insert(0, node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in modules:
        return None
    dotted = modules[node.id].split(".") + path
    try:
        value = importlib.import_module(dotted[0])  # Triton itself: the toolchain, not user code
        for attr in dotted[1:]:
            value = getattr(value, attr)
    except (ImportError, AttributeError):
        return False
    return hasattr(value, test.args[1].value)
