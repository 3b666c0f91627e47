"""The one pipeline, listed once: front end -> transforms -> match -> emit.

    read_source      frontends/ (reader.py): the file as an IR Module, read in a child process
                     with limits (porter/isolated.py); a Triton kernel carries the forms its
                     port also prints (generic print, flag variants, other launch values) and
                     which constexprs its program takes (generic/constexprs.py judges)
    raise_to_tiles   transforms/ (TRITON, on every form alike), then match/ (the rules, and a
                     Triton kernel's block loads as copies), then the CUDA template instances
                     one program serves (generic/templates.py: their stand-ins raised as
                     the instances were)
    print_port       transforms/printable.py (every form of each kernel as its port prints it:
                     the last IR steps, and the level), then emit/: the port module's text
                     (in a migrated tree, with its launch helpers in the folder's shared
                     `_tileport_launch.py`)

`tileport convert`, migrate's workers and the benchmarks run these; verify reads the original
with read_source alone (porter/reader.py: it may read the IR, never trust a rule).
"""

from __future__ import annotations

import dataclasses

from porter import transforms
from porter.generic.templates import mark_generic
from porter.emit.tilelang import emit_module, port_level
from porter.transforms.printable import printable, printable_module
from porter.match import raise_module, raised_like
from porter.reader import read_source

__all__ = ["read_source", "raise_to_tiles", "print_port", "level_printed"]


def raise_to_tiles(module, level: str = "auto", options: dict | None = None):
    """The module's kernels on tile primitives where a rule matches (level auto / tile; with
    tile, a kernel no rule matches is TP017), or kept at thread level (level thread)."""
    if module.language == "triton":
        module = dataclasses.replace(module, kernels=[transforms.on_every_form(k) for k in module.kernels])
    module = raise_module(module, level, options)
    if module.language == "cuda":
        module = dataclasses.replace(module, kernels=mark_generic(module.kernels, raised_like(level, options)))
    return module


def print_port(module, source_name: str | None = None, shared_launcher: bool = False) -> str:
    """The port module: TileLang programs and their torch wrappers, as Python source; with
    `shared_launcher` (a migrated tree) the wrappers' helpers come from the folder's
    `_tileport_launch.py` (emit/tilelang.py: launcher_text)."""
    return emit_module(printable_module(module), source_name, shared_launcher)


def level_printed(kernel) -> tuple:
    """(level, rule) a raised kernel's port is printed at, for convert's report."""
    return port_level(printable(kernel))
