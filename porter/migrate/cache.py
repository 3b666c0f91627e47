"""Content-hash cache of conversions and verdicts, so a rerun redoes only what changed.

A key is the sha256 of everything the result depends on: the source bytes, the options that
change the result, tileport's version and the bytes of its own package files (a code change
invalidates everything), and the versions of tilelang/triton/libclang/torch (plus the C++/CUDA
compilers and GPU presence for verdicts). Headers a CUDA file includes are recorded with their
hashes in the entry and checked on lookup. Entries are JSON files written atomically (temp file
+ rename), so an interrupted run never leaves a torn entry. Compiled artifacts live next to them:
the CUDA emulator's builds in `cuda-emu/` and TileLang's kernel cache in `tilelang/`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

from porter import __version__
from porter.util.files import write_atomically
from porter.util.hashing import content_hash, file_hash

PACKAGE_DIR = Path(__file__).resolve().parents[1]
_DISTS = ("tilelang", "triton", "libclang", "torch")
CACHE_FORMAT = 1


def _package_files() -> list[Path]:
    roots = [PACKAGE_DIR]
    templates = PACKAGE_DIR.parent / "templates"
    if templates.is_dir():
        roots.append(templates)
    files = []
    for root in roots:
        for p in root.rglob("*"):
            if p.is_file() and "__pycache__" not in p.parts and p.suffix not in (".pyc", ".so"):
                files.append(p)
    return sorted(files)


def _dist_versions() -> dict:
    """Versions from the `name-version.dist-info` folders on sys.path: one listdir per folder
    instead of importlib.metadata's full scan (a warm run is a few hundred milliseconds)."""
    wanted = {d.replace("-", "_").lower(): d for d in _DISTS}
    found: dict = {}
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for name in names:
            if name.endswith(".dist-info"):
                dist, _, version = name[: -len(".dist-info")].partition("-")
                key = wanted.get(dist.replace("-", "_").lower())
                if key is not None and key not in found and version:
                    found[key] = version
        if len(found) == len(wanted):
            break
    return found


@lru_cache(maxsize=1)
def tool_fingerprint() -> dict:
    """tileport's version, the digest of its own files, and its dependencies' versions."""
    from importlib import metadata

    parts = []
    for p in _package_files():
        parts.append(p.relative_to(PACKAGE_DIR.parent).as_posix())
        try:
            parts.append(p.read_bytes())
        except OSError:
            parts.append(b"")
    versions = _dist_versions()
    for dist in _DISTS:
        if versions.get(dist) is None:
            try:
                versions[dist] = metadata.version(dist)
            except metadata.PackageNotFoundError:
                versions[dist] = None
    return {"tileport": __version__, "code": content_hash(*parts), "versions": versions, "format": CACHE_FORMAT}


def _first_line(cmd: list[str], last: bool = False) -> str | None:
    if shutil.which(cmd[0]) is None:
        return None
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=30, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    lines = [line for line in out.splitlines() if line.strip()]
    return (lines[-1] if last else lines[0]) if lines else None


@lru_cache(maxsize=1)
def toolchain_fingerprint() -> dict:
    """What else a verdict depends on: the C++ compiler, nvcc, and whether a GPU is present."""
    cxx = os.environ.get("TILEPORT_CXX", "g++")
    return {"cxx": _first_line([cxx, "--version"]), "nvcc": _first_line(["nvcc", "--version"], last=True),
            "gpu": os.path.exists("/dev/nvidiactl")}


class Cache:
    """`root/<kind>/<key[:2]>/<key>.json`; read and write can each be turned off."""

    def __init__(self, root: Path, read: bool = True, write: bool = True):
        self.root = Path(root)
        self.read = read
        self.write = write

    def _path(self, kind: str, key: str) -> Path:
        return self.root / kind / key[:2] / f"{key}.json"

    def get(self, kind: str, key: str) -> dict | None:
        if not self.read:
            return None
        try:
            entry = json.loads(self._path(kind, key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(entry, dict) or entry.get("key") != key:
            return None
        for dep, sha in (entry.get("deps") or {}).items():
            if file_hash(dep) != sha:
                return None
        return entry

    def put(self, kind: str, key: str, value: dict, deps: dict | None = None) -> None:
        if not self.write:
            return
        path = self._path(kind, key)
        text = json.dumps({"key": key, "deps": deps or {}, "value": value})
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(path, text)
        except OSError:
            pass  # a cache that cannot be written only costs time
