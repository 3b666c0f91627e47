"""Where tileport keeps what it can rebuild: one root for every cache (builds, parse headers)."""

from __future__ import annotations

import os
from pathlib import Path

#: The environment variable that names the cache root.
VARIABLE = "TILEPORT_CACHE_DIR"


def chosen_cache_root() -> Path | None:
    """The root the user chose ($TILEPORT_CACHE_DIR), None when none was (migrate then keeps its
    cache inside the output tree)."""
    root = os.environ.get(VARIABLE)
    return Path(root) if root else None


def cache_root() -> Path:
    """$TILEPORT_CACHE_DIR, else ~/.cache/tileport."""
    return chosen_cache_root() or Path(os.path.expanduser("~")) / ".cache" / "tileport"
