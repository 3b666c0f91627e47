"""Write ports into OUT without ever losing someone's file.

tileport records every file it writes in OUT/.tileport-manifest.json with the hash it wrote.
An existing output may be replaced only when it is tileport's and unchanged since (or holds
exactly the new text already); anything else, a file someone made or edited, is reported as
TP006 and left alone unless --force. A port someone only reformatted (black, ruff format: the
same code and comments, laid out otherwise) is still tileport's: when it already holds the new
port it is left as it is, and when the port changed it is replaced like an unchanged one. No write may land inside SRC, even through a symlink in
OUT. Writes are atomic (temp file + rename), and so is every manifest update.
"""

from __future__ import annotations

import ast
import io
import json
import os
import tokenize
from pathlib import Path

from porter.diagnostics import Diagnostic, Loc, TileportError
from porter.util.files import write_atomically
from porter.util.hashing import content_hash

MANIFEST_NAME = ".tileport-manifest.json"


def code_sha(text: str) -> str | None:
    """A digest of what a Python file says, not how it is laid out: its syntax tree (string
    constants with their whitespace collapsed, as a formatter re-indents docstrings) and its
    comments' words. None when the text is not Python."""
    try:
        tree = ast.parse(text)
        comments = [" ".join(t.string.lstrip("#").split())
                    for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type == tokenize.COMMENT]
    except (SyntaxError, ValueError, tokenize.TokenError, RecursionError, MemoryError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            node.value = " ".join(node.value.split())
    return content_hash(ast.dump(tree) + "\n#" + "\n#".join(comments))


def write_output(path: Path, text: str) -> None:
    """`text` written atomically with an ordinary file's mode (0666 less the umask), its folder
    made; whether the file may be replaced was decided before. TP015 when it cannot be written
    (disk full, permissions, a read-only file system)."""
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, text, ordinary_mode=True)
    except OSError as exc:
        raise TileportError("TP015", f"cannot write the output: {exc.strerror or exc}", Loc(str(path))) from None


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

    def owns(self, rel: str, current_sha: str | None, current_code: str | None = None) -> bool:
        """Whether the file now at rel is what tileport wrote there, reformatted or not."""
        entry = self.files.get(rel)
        if not isinstance(entry, dict):
            return False
        return ((current_sha is not None and entry.get("sha256") == current_sha)
                or (current_code is not None and entry.get("code") == current_code))

    def record(self, rel: str, sha: str, source: str, code: str | None = None) -> None:
        entry = {"sha256": sha, "source": source, **({"code": code} if code else {})}
        if self.files.get(rel) != entry:
            self.files[rel] = entry
            self.dirty = True

    def save(self) -> None:
        if self.dirty:
            write_output(self.path, json.dumps({"schema_version": 1, "tool": "tileport",
                                                     "files": dict(sorted(self.files.items()))}, indent=1))
            self.dirty = False


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def place(out: Path, rel: str, text: str, source: str, manifest: Manifest, force: bool,
          src_real: str) -> Diagnostic | None:
    """Write `text` to out/rel unless that would lose a file; returns the reason when not."""
    target = Path(out) / rel
    if inside(os.path.realpath(target), src_real):
        return Diagnostic("TP008", "refusing to write inside the source tree (a symlink in the output tree "
                          "points into it)", Loc(str(target)))
    new_sha, new_code = content_hash(text), code_sha(text)
    if os.path.lexists(target):
        regular = target.is_file() and not target.is_symlink()
        data = _read(target) if regular else None
        current = content_hash(data) if data is not None else None
        if current == new_sha:
            manifest.record(rel, new_sha, source, new_code)  # already exactly this port: nothing to write
            return None
        current_code = code_sha(data.decode("utf-8", errors="replace")) if data is not None else None
        if current_code is not None and current_code == new_code:
            # this very port, reformatted: nothing to write, and the user's layout stays
            manifest.record(rel, current, source, new_code)
            return None
        if not (force or (regular and manifest.owns(rel, current, current_code))):
            why = "was not written by tileport" if rel not in manifest.files else "was edited since tileport wrote it"
            return Diagnostic("TP006", f"the output exists and {why}; pass --force to overwrite it",
                              Loc(str(target)))
    try:
        write_output(target, text)
    except TileportError as exc:  # TP015: disk full, permissions, read-only file system
        return exc.diagnostic
    manifest.record(rel, new_sha, source, new_code)
    return None
