"""The part of a Triton file its kernels need, so verify never runs the module's top level.

Published Triton files run tests and benchmarks at import (the official tutorials do), ask
`triton.runtime.driver.active` for a GPU, or import packages this machine lacks. Verify imports
instead a copy that keeps only the kernels and what they reference: the `@triton.jit`
functions (their `@triton.autotune` / `@triton.heuristics` decorators dropped: verify passes
every constexpr itself), the imports, constants and definitions their bodies name, and nothing
else. Every other top-level statement becomes blank lines, so line numbers in the copy are the
original's and errors point at the user's file. The kernels a library's decorator generates
(porter/frontends/triton/generators.py) are written after them, around the scalar functions.
Modules of the user's tree that the kernels import from (`from .utils import helper`,
`import mylib.language as tle`) are extracted the same way beside the copy; the user's folder
is never put on `sys.path`.
"""

from __future__ import annotations

import ast
from pathlib import Path

from porter.frontends.triton import generators
from porter.frontends.triton.modules import find_module
from porter.frontends.triton.static_branches import taken_branch, taken_handler, taken_if_branch, triton_modules
from porter.util.hashing import content_hash

_JIT = ("jit",)
_STATEMENTS_KEPT_WHOLE = (ast.Import, ast.ImportFrom, ast.Assign, ast.AnnAssign, ast.Pass, ast.Expr)


def extract(source: str, out_dir: str | Path) -> Path:
    """Write the kernels-only copy of `source` (and of the tree modules it needs) into
    `out_dir`; returns the copy of `source`."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    return _Extractor(out).module(Path(source).resolve(), None, Path(source).name)


class _Extractor:
    def __init__(self, out: Path):
        self.out = out
        self.done: dict = {}  # resolved path -> module name of its copy
        self.wanted: dict = {}  # resolved path -> the names importers asked of it
        self.parsed: dict = {}  # resolved path -> (text, ast.Module)

    def module(self, path: Path, wanted: set | None, file_name: str | None = None) -> Path:
        text, tree = self._parsed(path)
        lines = text.splitlines(keepends=True)
        jit = [n for n in tree.body if isinstance(n, ast.FunctionDef) and _is_jit(n)]
        binders = {name: _plainest(sts, name) for name, sts in _top_level_binders(tree).items()}
        roots = {n.name for n in jit} | set(wanted or ())
        if jit:  # Triton's jit wants `triton.language` among a kernel's globals, read or not
            roots |= {name for name, sts in binders.items() if any(map(_imports_triton, sts))}
        kept: dict = {}  # id(stmt) -> stmt
        pending = list(roots)
        seen = set()
        while pending:
            name = pending.pop()
            if name in seen:
                continue
            seen.add(name)
            for st in binders.get(name, ()):
                if id(st) in kept:
                    continue
                kept[id(st)] = st
                pending.extend(_free_names(st))
        replaced = {}
        for st in kept.values():
            if isinstance(st, (ast.Import, ast.ImportFrom)):
                replaced[id(st)] = self._import(path, st, seen)
        keep_lines = [False] * (len(lines) + 1)
        for st in tree.body:
            if id(st) not in kept:
                continue
            first = min([st.lineno] + [d.lineno for d in getattr(st, "decorator_list", [])])
            for line in range(first, st.end_lineno + 1):
                keep_lines[line] = True
            if isinstance(st, ast.FunctionDef):
                for d in st.decorator_list:
                    if not _is_jit_decorator(d):
                        for line in range(d.lineno, d.end_lineno + 1):
                            keep_lines[line] = False
        headers = {}  # line -> its text: the test of a kept `if` of imports
        modules = triton_modules(tree.body)
        for st in tree.body:
            if id(st) in kept and isinstance(st, ast.If):
                for offset, text in enumerate(_taken_branch_header(st, lines, modules)):
                    headers[st.lineno + offset] = text
            elif id(st) in kept and isinstance(st, ast.Try) and taken_handler(st) is not None:
                headers.update(_taken_handler_lines(st, lines))
        new = []
        starts = {st.lineno: st for st in tree.body if id(st) in replaced}
        skip_until = 0
        for number, line in enumerate(lines, start=1):
            if number in starts:
                st = starts[number]
                new.append(replaced[id(st)] + "\n")
                skip_until = st.end_lineno
                continue
            if number <= skip_until or not keep_lines[number]:
                new.append("\n")
                continue
            new.append(headers.get(number, line))
        # the kernels a library's decorator would generate (FlagGems' @pointwise_dynamic),
        # after every original line: around the scalar functions kept above, unchanged
        new += ["\n" + generators.kernel_source(e) for e in generators.expand(tree, str(path), annotate=False)[0]]
        if file_name is None:
            digest = content_hash(str(path))[:10]
            file_name = f"_tileport_{path.stem}_{digest}.py"
        target = self.out / file_name
        target.write_text("".join(new), encoding="utf-8")
        return target

    def _import(self, importer: Path, st, needed: set) -> str:
        """The import statement, pointed at the extracted copy when it names a tree module.
        Of `from M import a, b` only the names the kept code reads are imported; a name that
        is a submodule of package M (`from pkg.utils import language as tle`) imports that
        submodule's copy, as Python imports a submodule its package does not bind."""
        if isinstance(st, ast.ImportFrom):
            source = find_module(str(importer), st.module, st.level)
            if source is None:
                return ast.unparse(st)
            wanted = [a for a in st.names if (a.asname or a.name) in needed] or st.names
            parts, names = [], []
            for a in wanted:
                sub = None
                if source.name == "__init__.py" and a.name not in self._bound(source):
                    sub = find_module(str(importer), f"{st.module or ''}.{a.name}".lstrip("."), st.level)
                if sub is not None:
                    parts.append(f"import {self._copy_of(sub, None)} as {a.asname or a.name}")
                else:
                    names.append(a)
            if names:
                parts.insert(0, f"from {self._copy_of(source, {a.name for a in names})} import " +
                             ", ".join(f"{a.name} as {a.asname}" if a.asname else a.name for a in names))
            return "; ".join(parts)
        parts = []
        for a in st.names:
            source = find_module(str(importer), a.name, 0)
            if source is None:
                parts.append(f"import {a.name}" + (f" as {a.asname}" if a.asname else ""))
            elif a.asname:
                parts.append(f"import {self._copy_of(source, None)} as {a.asname}")
            else:
                parts.append(f"import {a.name}")  # `import pkg.mod` binds pkg: left as it is
        return "; ".join(parts)

    def _parsed(self, path: Path) -> tuple:
        """(text, tree) of a module, read and parsed once per extraction (a package's
        `__init__` is consulted for every name imported from it, and copied again when an
        importer wants more)."""
        key = str(path.resolve())
        if key not in self.parsed:
            text = path.read_text(encoding="utf-8")
            self.parsed[key] = (text, ast.parse(text, filename=str(path)))
        return self.parsed[key]

    def _bound(self, path: Path) -> set:
        """The names the module's top level binds (`from it import name` reads those)."""
        return set(_top_level_binders(self._parsed(path)[1]))

    def _copy_of(self, source: Path, names: set | None) -> str:
        """The module name of `source`'s copy, written again when an importer wants names an
        earlier copy left out (two files import different helpers of one package)."""
        key = str(source.resolve())
        wanted = self.wanted.setdefault(key, set())
        if key not in self.done or not (names or set()) <= wanted:
            wanted |= names or set()
            self.done.setdefault(key, None)  # an import cycle extracts the module once
            self.done[key] = self.module(source.resolve(), set(wanted)).stem
        return self.done[key] or f"_tileport_{source.stem}"


def _imports_triton(st) -> bool:
    if isinstance(st, ast.Import):
        return any(a.name.split(".")[0] == "triton" for a in st.names)
    return isinstance(st, ast.ImportFrom) and (st.module or "").split(".")[0] == "triton"


def _is_jit_decorator(d) -> bool:
    target = d.func if isinstance(d, ast.Call) else d
    name = target.attr if isinstance(target, ast.Attribute) else target.id if isinstance(target, ast.Name) else ""
    return name in _JIT


def _is_jit(fn: ast.FunctionDef) -> bool:
    return any(_is_jit_decorator(d) for d in fn.decorator_list)


def _top_level_binders(tree: ast.Module) -> dict:
    """name -> top-level statements that bind it (imports, assignments, definitions, and
    `try:` blocks made only of those)."""
    out: dict = {}

    def bind(name, st):
        out.setdefault(name, []).append(st)

    for st in tree.body:
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bind(st.name, st)
        elif isinstance(st, (ast.Import, ast.ImportFrom)):
            for a in st.names:
                bind(a.asname or a.name.split(".")[0], st)
        elif isinstance(st, (ast.Assign, ast.AnnAssign)):
            targets = st.targets if isinstance(st, ast.Assign) else [st.target]
            for t in targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        bind(n.id, st)
        elif isinstance(st, (ast.Try, ast.If)) and _only_bindings(st):
            for name in _branch_bindings(st):
                bind(name, st)
    return out


def _branch_bindings(st) -> set:
    """The names a `try:` or `if` block binds at the top level: imports, assignments and the
    functions and classes its branches define (not the locals inside those)."""
    names: set = set()
    for s in _branch_statements(st):
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(s.name)
        elif isinstance(s, (ast.Try, ast.If)):
            names |= _branch_bindings(s)
        else:
            for n in ast.walk(s):
                if isinstance(n, ast.alias):
                    names.add(n.asname or n.name.split(".")[0])
                elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                    names.add(n.id)
    return names


def _branch_statements(st) -> list:
    if isinstance(st, ast.Try):
        return st.body + [s for h in st.handlers for s in h.body] + st.orelse + st.finalbody
    return st.body + st.orelse


def _only_bindings(st) -> bool:
    """A `try:` or `if` whose every branch only imports, assigns or defines a jit function (a
    version or backend switch: `if triton_3: from ...libdevice import tanh else: ...`, a
    `@triton.jit` fallback where the installed Triton lacks a builtin)."""
    if isinstance(st, (ast.Try, ast.If)):
        return all(_only_bindings(s) for s in _branch_statements(st))
    return isinstance(st, _STATEMENTS_KEPT_WHOLE) or (isinstance(st, ast.FunctionDef) and _is_jit(st))


def _taken_branch_header(st: ast.If, lines: list, modules: dict) -> list:
    """The lines of a kept `if`'s test, as `if True:`: verify takes the first branch (the
    CUDA machine the original targets, as the front end reads such tests) without running
    the host code the test calls (`compare_version(...)`, `is_npu_available()`). A test that
    only asks the installed Triton what it has (`hasattr(triton.language,
    "make_tensor_descriptor")`) stays: the branch for this Triton is the one that imports."""
    if taken_if_branch(st, modules) is not None:
        return lines[st.lineno - 1:st.body[0].lineno - 1]
    last = st.body[0].lineno - 1
    indent = lines[st.lineno - 1][: len(lines[st.lineno - 1]) - len(lines[st.lineno - 1].lstrip())]
    return [indent + "if True:\n"] + ["\n"] * (last - st.lineno)


def _taken_handler_lines(st: ast.Try, lines: list) -> dict:
    """line -> text for a kept `try:` whose taken branch is a handler (static_branches): the
    handler's body runs under `if True:` and the rest of the block is blank, so the copy never
    runs the library's host code the body calls."""
    handler = taken_handler(st)
    indent = lines[st.lineno - 1][: len(lines[st.lineno - 1]) - len(lines[st.lineno - 1].lstrip())]
    first, last = handler.body[0].lineno, handler.body[-1].end_lineno
    out = {n: "\n" for n in range(st.lineno, st.end_lineno + 1) if not first <= n <= last}
    out[handler.lineno] = indent + "if True:\n"
    return out


def _plainest(statements: list, name: str) -> list:
    """`import triton` and `import triton.tools.experimental_descriptor` both bind `triton`:
    keep the plain one (a submodule import may need what this machine lacks)."""
    plain = [st for st in statements if isinstance(st, ast.Import) and
             any(a.name == name and a.asname is None for a in st.names)]
    return plain or statements


def _free_names(st) -> set:
    """Global names a statement reads: for a function, the names its body loads that are
    neither its parameters nor assigned in it (a kernel's `x = tl.load(...)` must not keep a
    top-level `x = torch.rand(...)` of the tests), and what its kept (jit) decorators read:
    the dropped autotune/heuristics decorators' configs are not needed."""
    if isinstance(st, (ast.Import, ast.ImportFrom)):
        return set()
    if isinstance(st, ast.If):  # its test is replaced (_taken_branch_header): only the branches
        return set().union(*(_free_names(s) for s in st.body + st.orelse))
    if isinstance(st, ast.Try):
        return set().union(*(_free_names(s) for s in taken_branch(st) + st.finalbody))
    if not isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        return {n.id for n in ast.walk(st) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    body = st.body if isinstance(st.body, list) else [st.body]
    loads = {n.id for part in body for n in ast.walk(part) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    local = set()
    for node in ast.walk(st):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            local.add(node.id)
        elif isinstance(node, ast.arg):
            local.add(node.arg)
    outer = set()  # decorators, defaults and annotations are read in the enclosing scope
    kept_decorators = [d for d in getattr(st, "decorator_list", []) if _is_jit_decorator(d)]
    for expr in kept_decorators + list(st.args.defaults) + \
            [d for d in st.args.kw_defaults if d is not None] + \
            [a.annotation for a in st.args.args + st.args.posonlyargs + st.args.kwonlyargs if a.annotation]:
        outer |= {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}
    return (loads - local) | outer
