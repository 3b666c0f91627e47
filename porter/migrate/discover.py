"""Find the kernel sources under SRC: what to port, what holds no kernel, what cannot be read.

Walking is read-only and never blocks or loops: a directory symlink is followed once (one that
leads back to a directory already walked, a loop, is reported and not walked), FIFOs, sockets
and devices are never opened, dangling links are reported, and .py files are only scanned for
a Triton decorator (the front end decides what really is a kernel). Hidden entries (`.name`)
and `__pycache__` are not walked.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path

from porter.diagnostics import Diagnostic, Loc, TileportError
from porter.frontends.load import CUDA_SUFFIXES, decode_source, file_kind

PY_SUFFIX = ".py"
_TRITON_JIT = re.compile(rb"@\s*(?:triton\s*\.\s*)?jit\b")
_SKIP_DIRS = {"__pycache__"}


@dataclass
class SourceFile:
    """One thing found under SRC that tileport has something to say about."""

    rel: str                  # posix path relative to SRC (the link's path for symlinks)
    path: Path                # SRC / rel
    language: str | None      # "cuda", "triton" or None (unknown: unreadable directory...)
    kind: str                 # "candidate" | "no-kernel" | "bad" | "skipped"
    diagnostic: Diagnostic | None = None
    output_rel: str | None = None  # where the port goes, relative to OUT (candidates only)


def _language(name: str) -> str | None:
    lower = name.lower()
    if lower.endswith(CUDA_SUFFIXES):
        return "cuda"
    if lower.endswith(PY_SUFFIX):
        return "triton"
    return None


def _matches(rel: str, patterns) -> bool:
    name = rel.rsplit("/", 1)[-1]
    return any(fnmatchcase(rel, p) or fnmatchcase(name, p) for p in patterns)


def _diag(code: str, message: str, path: Path, severity: str = "error") -> Diagnostic:
    return Diagnostic(code, message, Loc(str(path)), severity)


def _file_entry(rel: str, path: Path, language: str) -> SourceFile:
    """Classify one file without ever blocking on it."""
    try:
        st = os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return SourceFile(rel, path, language, "bad",
                              _diag("TP009", "symlink loop: the link never reaches a file", path))
        what = "dangling symlink (its target does not exist)" if path.is_symlink() else \
            f"cannot stat the file: {exc.strerror}"
        return SourceFile(rel, path, language, "bad", _diag("TP001", what, path))
    if not stat.S_ISREG(st.st_mode):
        return SourceFile(rel, path, language, "bad",
                          _diag("TP001", f"not a regular file ({file_kind(st.st_mode)}); not read", path))
    if not os.access(path, os.R_OK):
        return SourceFile(rel, path, language, "bad",
                          _diag("TP001", "cannot read the file: permission denied", path))
    if language == "triton":
        try:
            data = path.read_bytes()
        except OSError as exc:
            return SourceFile(rel, path, language, "bad",
                              _diag("TP001", f"cannot read the file: {exc.strerror}", path))
        try:
            decode_source(data, str(path))
        except TileportError as exc:  # binary or not UTF-8: a bad file, not a file without kernels
            return SourceFile(rel, path, language, "bad", _diag("TP002", exc.diagnostic.message, path))
        if not (b"triton" in data and _TRITON_JIT.search(data)):
            return SourceFile(rel, path, language, "no-kernel",
                              _diag("TP200", "no @triton.jit kernel in this file", path, "note"))
    return SourceFile(rel, path, language, "candidate")


def discover(src: Path, include=(), exclude=(), avoid: Path | None = None) -> list[SourceFile]:
    """Every CUDA/Triton source under src (sorted by path), plus what could not be walked.

    include/exclude: glob patterns matched against the path relative to src (and the name).
    avoid: a directory never walked into (the output tree).
    """
    root = Path(src)
    found: list[SourceFile] = []
    avoid_real = os.path.realpath(avoid) if avoid is not None else None
    root_st = os.stat(root)
    walked = {(root_st.st_dev, root_st.st_ino): ""}
    stack = [("", root, [(root_st.st_dev, root_st.st_ino)])]
    while stack:
        rel_dir, directory, ancestors = stack.pop()
        try:
            with os.scandir(directory) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            found.append(SourceFile(rel_dir or ".", directory, None, "bad",
                                    _diag("TP001", f"cannot read the directory: {exc.strerror}", directory)))
            continue
        subdirs = []
        for entry in entries:
            if entry.name.startswith(".") or entry.name in _SKIP_DIRS:
                continue
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            path = directory / entry.name
            try:
                is_dir = entry.is_dir(follow_symlinks=True)
            except OSError:
                is_dir = False
            if is_dir:
                if exclude and _matches(rel, exclude):
                    continue
                if avoid_real is not None and os.path.realpath(path) == avoid_real:
                    continue
                try:
                    st = os.stat(path)
                except OSError as exc:
                    found.append(SourceFile(rel, path, None, "bad",
                                            _diag("TP001", f"cannot open the directory: {exc.strerror}", path)))
                    continue
                ident = (st.st_dev, st.st_ino)
                if ident in walked:
                    how = ("symlink loop: it points back to a directory above it" if ident in ancestors
                           else f"already walked as '{walked[ident] or '.'}'")
                    found.append(SourceFile(rel, path, None, "skipped",
                                            _diag("TP009", f"{how}; not walked again", path, "warning")))
                    continue
                walked[ident] = rel
                subdirs.append((rel, path, ancestors + [ident]))
                continue
            language = _language(entry.name)
            if language is None:
                continue
            if include and not _matches(rel, include):
                continue
            if exclude and _matches(rel, exclude):
                continue
            found.append(_file_entry(rel, path, language))
        stack.extend(reversed(subdirs))
    found.sort(key=lambda f: f.rel)
    _assign_outputs(found)
    return found


def _assign_outputs(files: list[SourceFile]) -> None:
    """`dir/name.cu` -> `dir/name_tl.py`; when two sources share a stem, `name_cu_tl.py` etc."""
    def plain(f):
        p = Path(f.rel)
        return (p.parent / f"{p.stem}_tl.py").as_posix()

    def qualified(f):
        p = Path(f.rel)
        return (p.parent / f"{p.stem}_{p.suffix.lstrip('.').lower()}_tl.py").as_posix()

    candidates = [f for f in files if f.kind == "candidate"]
    counts: dict = {}
    for f in candidates:
        counts[plain(f)] = counts.get(plain(f), 0) + 1
    for f in candidates:
        f.output_rel = plain(f) if counts[plain(f)] == 1 else qualified(f)
