"""Other modules of the user's tree, found and read statically (never imported).

Triton code is published as packages: a kernel calls `@triton.jit` helpers of a sibling module
(`from .utils import helper`, `from mylib.ops.utils import helper`, `import mylib.language as
tle` then `tle.program_id(0)`), and launchers compute constexprs with host helpers of another
module. `find_module` maps an import to a file of the tree, else of a package installed in this
environment (located by the import system's path finder, which reads directories and never runs
a package's `__init__`); `ModuleIndex` parses each file once.
"""

from __future__ import annotations

import ast
import functools
import importlib.machinery
import sys
from pathlib import Path

# How far above the importing file an absolute import (`mylib.ops.utils`) is looked for.
_ANCESTORS = 6
# Files larger than this are not read as modules (a guard against reading data files).
_MAX_BYTES = 4 * 1024 * 1024
# Packages the front ends model themselves (their calls are table rows), never read as source.
_MODELLED = frozenset({"triton", "torch", "numpy", "math", "tilelang"})


def find_module(importer: str, module: str | None, level: int = 0) -> Path | None:
    """The file `from <level dots><module> import ...` in `importer` refers to, if it is in the
    user's tree: relative imports from the importer's package, absolute ones from the importer's
    folder and its ancestors. Installed packages (triton, torch) are never returned."""
    if module and module.split(".")[0] in _MODELLED:
        return None
    here = Path(importer).resolve().parent
    parts = module.split(".") if module else []
    if level:
        base = here
        for _ in range(level - 1):
            base = base.parent
        return _module_file(base, parts)
    for _ in range(_ANCESTORS):
        found = _module_file(here, parts)
        if found is not None:
            return found
        if here.parent == here:
            break
        here = here.parent
    return _installed_module(tuple(parts))


def _installed_module(parts: tuple) -> Path | None:
    """The source file of `parts` in a package installed in this environment (site-packages),
    found without importing it; standard-library and compiled modules are not read."""
    if not parts or parts[0] in sys.stdlib_module_names or parts[0] in _MODELLED:
        return None
    root = _installed_root(parts[0])
    if root is None:
        return None
    if root.name == "__init__.py":
        return _module_file(root.parent, list(parts[1:]))
    return root if len(parts) == 1 else None


@functools.lru_cache(maxsize=256)
def _installed_root(top: str) -> Path | None:
    try:
        spec = importlib.machinery.PathFinder.find_spec(top, sys.path)
    except (ImportError, ValueError, OSError):
        return None
    origin = getattr(spec, "origin", None) if spec is not None else None
    if not origin or not origin.endswith(".py"):
        return None
    return Path(origin)


def _module_file(base: Path, parts: list) -> Path | None:
    if not parts:
        init = base / "__init__.py"
        return init if init.is_file() else None
    target = base.joinpath(*parts)
    for candidate in (target.with_suffix(".py"), target / "__init__.py"):
        if candidate.is_file() and candidate.stat().st_size <= _MAX_BYTES:
            return candidate
    return None


class ModuleIndex:
    """Parsed modules of the tree, by resolved path; a file that cannot be read or parsed is
    remembered as None (the import then stays unknown, as an installed package would)."""

    def __init__(self):
        self._trees: dict = {}

    def tree(self, path: Path) -> ast.Module | None:
        key = str(Path(path).resolve())
        if key not in self._trees:
            try:
                text = Path(key).read_text(encoding="utf-8")
                self._trees[key] = ast.parse(text, filename=key)
            except (OSError, UnicodeDecodeError, SyntaxError, ValueError, RecursionError):
                self._trees[key] = None
        return self._trees[key]
