"""Which file a kernel belongs to, and which text a header is read in.

A kernel is ported once, with the file that defines it. A file that another file of the
project includes (`kernels.cuh`, or a `.cu` pulled into a runner) is parsed as its includer
sees it: the includer's typedefs and macros come before it (`TColor`, `uchar`), and the
includer's launches and dispatch switches tell its templates' instances and block sizes. An
includer in turn leaves the kernels of the project files it includes to their own ports.

Includes are read from the text (`#include "x"` beside the file or on the include path,
`#include <x>` on the include path): no file is executed, and nothing here parses C++.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])([^">\n]+)[">]', re.MULTILINE)
_KERNEL = re.compile(rb"\b__global__\b")
_LAUNCH = re.compile(r"<<<")
#: The most files a transitive include walk reads (a generated tree must not run it for minutes).
MAX_INCLUDED = 1000


def read_text(path) -> str:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def resolve_includes(path, text: str, include_dirs) -> list[str]:
    """Real paths of the files `text` (the file at `path`) includes that exist: a quoted name
    beside the file first, then on the include path, as the compiler looks."""
    out = []
    for kind, name in _INCLUDE.findall(text):
        bases = ([Path(path).parent] if kind == '"' else []) + [Path(d) for d in include_dirs]
        for base in bases:
            candidate = base / name
            if candidate.is_file():
                out.append(os.path.realpath(candidate))
                break
    return out


def included_files(path, include_dirs, text: str | None = None) -> list[str]:
    """Every file `path` includes, directly or through other includes (real paths, in the order
    found, at most MAX_INCLUDED)."""
    seen: dict = {}
    todo = [(str(path), read_text(path) if text is None else text)]
    while todo and len(seen) < MAX_INCLUDED:
        here, body = todo.pop()
        for found in resolve_includes(here, body, include_dirs):
            if found not in seen and found != os.path.realpath(path):
                seen[found] = True
                todo.append((found, read_text(found)))
    return list(seen)


def defines_kernels(path) -> bool:
    try:
        return bool(_KERNEL.search(Path(path).read_bytes()))
    except OSError:
        return False


class ProjectIncludes:
    """The include graph of a project's CUDA files: each file's includer to parse it in, and the
    project files whose kernels it leaves to their own ports."""

    def __init__(self, files, include_dirs=()):
        self.files = [os.path.realpath(f) for f in files]
        self.includes = {f: included_files(f, include_dirs) for f in self.files}
        members = set(self.files)
        self.includers: dict = {}
        for f, deps in self.includes.items():
            for dep in deps:
                if dep in members:
                    self.includers.setdefault(dep, []).append(f)

    def context_of(self, path) -> str | None:
        """The file whose text `path` is parsed in: one that includes it and that nothing includes
        (a translation unit), one with launches first; None for a file nobody includes."""
        return choose_includer(self.includers.get(os.path.realpath(path), []),
                               lambda f: f in self.includers)

    def foreign_of(self, path) -> list[str]:
        """Project files `path` includes that define kernels: their ports hold those kernels."""
        members = set(self.files)
        return [d for d in self.includes.get(os.path.realpath(path), []) if d in members and defines_kernels(d)]


def choose_includer(includers, is_included) -> str | None:
    """A translation unit over a file someone includes again; one that launches kernels over one
    that does not; then the first by path (the same choice every run)."""
    if not includers:
        return None
    return min(includers, key=lambda f: (is_included(f), not _LAUNCH.search(read_text(f)), f))


def context_in_folder(path, include_dirs=()) -> str | None:
    """The includer of `path` among the CUDA files of its own folder, for a file converted or
    verified alone (migrate looks through the whole tree instead)."""
    here = Path(path).resolve()
    try:
        siblings = sorted(p for p in here.parent.iterdir()
                          if p.suffix.lower() in (".cu", ".cuh") and p.resolve() != here and p.is_file())
    except OSError:
        return None
    graph = {str(p.resolve()): included_files(p, include_dirs) for p in siblings}
    includers = [f for f, deps in graph.items() if str(here) in deps]
    included = {d for deps in graph.values() for d in deps}
    return choose_includer(includers, lambda f: f in included)
