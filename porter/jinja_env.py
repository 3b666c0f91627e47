"""The one way tileport builds a jinja2 environment: strict, and with compiled templates cached.

Compiling module.py.j2 took 60 ms of every convert; the bytecode cache (keyed by jinja2 on the
template's name and source checksum) makes that a file read. A cache that cannot be written
only costs the compile.
"""

from __future__ import annotations

from pathlib import Path

import jinja2

from porter.util.cache_root import cache_root


def environment(folder: Path, autoescape: bool = False, cache_dir: Path | None = None) -> jinja2.Environment:
    bytecode = None
    try:
        where = (cache_dir if cache_dir is not None else cache_root()) / "jinja"
        where.mkdir(parents=True, exist_ok=True)
        bytecode = jinja2.FileSystemBytecodeCache(str(where))
    except OSError:
        bytecode = None
    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(folder)), autoescape=autoescape,
                              trim_blocks=True, lstrip_blocks=True, undefined=jinja2.StrictUndefined,
                              keep_trailing_newline=True, bytecode_cache=bytecode)
