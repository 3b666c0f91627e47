"""Writing a file so that a reader never sees half of it: a temp file beside the target, then a
rename (atomic within one directory). One temp-name scheme for every writer: a failed write
leaves neither a partial target nor a temp file behind."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


@contextlib.contextmanager
def replaced_atomically(path, ordinary_mode: bool = False):
    """A temp path beside `path` to write however the caller likes (a compiler's -o, a library's
    save); on success it replaces `path`, on any failure it is removed and the error goes on.

    ordinary_mode: give the file 0666 less the umask (mkstemp makes it 0600), as a user's
    outputs are; caches and private files keep 0600."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=str(path.parent))
    os.close(fd)
    try:
        yield Path(tmp)
        if ordinary_mode:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_atomically(path, data: str | bytes, ordinary_mode: bool = False) -> None:
    """`data` (text as UTF-8, or bytes) written to `path` through replaced_atomically; its folder
    must exist. Raises OSError as open and rename do."""
    with replaced_atomically(path, ordinary_mode) as tmp:
        if isinstance(data, str):
            tmp.write_text(data, encoding="utf-8")
        else:
            tmp.write_bytes(data)
