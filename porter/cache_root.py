"""Where tileport keeps what it can rebuild: one root for every cache (builds, parse headers)."""

from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    """$TILEPORT_CACHE_DIR, else ~/.cache/tileport."""
    root = os.environ.get("TILEPORT_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "tileport")
    return Path(root)
