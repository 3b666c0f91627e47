"""Write ports into OUT without ever losing someone's file.

tileport records every file it writes in OUT/.tileport-manifest.json with the hash it wrote.
An existing output may be replaced only when it is tileport's and unchanged since (or holds
exactly the new text already); anything else, a file someone made or edited, is reported as
TP006 and left alone unless --force. No write may land inside SRC, even through a symlink in
OUT. Writes are atomic (temp file + rename), and so is every manifest update.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from porter.diagnostics import Diagnostic, Loc

MANIFEST_NAME = ".tileport-manifest.json"


def text_sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def atomic_write_text(path: Path, text: str) -> None:
    """The CLI's atomic write (temp file + rename); ownership was decided before calling it."""
    from porter.cli import write_atomically

    write_atomically(Path(path), text, force=True)
    umask = os.umask(0)
    os.umask(umask)
    try:
        os.chmod(path, 0o666 & ~umask)  # the temp file was private; the output is an ordinary file
    except OSError:
        pass


def inside(path: str, root: str) -> bool:
    """Whether the real path `path` is `root` or below it (both real paths)."""
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


class Manifest:
    """OUT-relative path -> {"sha256", "source"} of every file tileport wrote there."""

    def __init__(self, out: Path):
        self.path = Path(out) / MANIFEST_NAME
        self.files: dict = {}
        self.dirty = False
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if isinstance(data, dict) and isinstance(data.get("files"), dict):
                self.files = data["files"]
        except (OSError, ValueError):
            pass  # no manifest (or a broken one): nothing in OUT counts as tileport's

    def owns(self, rel: str, current_sha: str | None) -> bool:
        entry = self.files.get(rel)
        return isinstance(entry, dict) and current_sha is not None and entry.get("sha256") == current_sha

    def record(self, rel: str, sha: str, source: str) -> None:
        if self.files.get(rel) != {"sha256": sha, "source": source}:
            self.files[rel] = {"sha256": sha, "source": source}
            self.dirty = True

    def save(self) -> None:
        if self.dirty:
            atomic_write_text(self.path, json.dumps({"schema_version": 1, "tool": "tileport",
                                                     "files": dict(sorted(self.files.items()))}, indent=1))
            self.dirty = False


def _sha_of(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def place(out: Path, rel: str, text: str, source: str, manifest: Manifest, force: bool,
          src_real: str) -> Diagnostic | None:
    """Write `text` to out/rel unless that would lose a file; returns the reason when not."""
    target = Path(out) / rel
    if inside(os.path.realpath(target), src_real):
        return Diagnostic("TP008", "refusing to write inside the source tree (a symlink in the output tree "
                          "points into it)", Loc(str(target)))
    new_sha = text_sha(text)
    if os.path.lexists(target):
        regular = target.is_file() and not target.is_symlink()
        current = _sha_of(target) if regular else None
        if current == new_sha:
            manifest.record(rel, new_sha, source)  # already exactly this port: nothing to write
            return None
        if not (force or (regular and manifest.owns(rel, current))):
            why = "was not written by tileport" if rel not in manifest.files else "was edited since tileport wrote it"
            return Diagnostic("TP006", f"the output exists and {why}; pass --force to overwrite it",
                              Loc(str(target)))
    try:
        atomic_write_text(target, text)
    except OSError as exc:
        return Diagnostic("TP015", f"cannot write the output: {exc.strerror or exc}", Loc(str(target)))
    manifest.record(rel, new_sha, source)
    return None
