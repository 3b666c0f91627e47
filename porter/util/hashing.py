"""Content digests (sha256, hex): of text, of bytes, of a file read in chunks, of a JSON-able
value. Caches key on them, the manifest tells tileport's files from the user's by them."""

from __future__ import annotations

import hashlib
import json


def content_hash(*parts: str | bytes) -> str:
    """sha256 of the parts (text as UTF-8), each ended by a NUL so that ("ab", "c") and
    ("a", "bc") differ; one part hashes as itself, with no NUL."""
    h = hashlib.sha256()
    if len(parts) == 1:
        part = parts[0]
        h.update(part.encode("utf-8") if isinstance(part, str) else part)
        return h.hexdigest()
    for part in parts:
        h.update(part.encode("utf-8") if isinstance(part, str) else part)
        h.update(b"\0")
    return h.hexdigest()


def file_hash(path) -> str | None:
    """sha256 of a file's bytes, or None when it cannot be read."""
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
    except OSError:
        return None
    return h.hexdigest()


def value_hash(value) -> str:
    """sha256 of a JSON-able value (stable: sorted keys, anything else by its str)."""
    return content_hash(json.dumps(value, sort_keys=True, separators=(",", ":"), default=str))
