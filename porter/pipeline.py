"""The one pipeline, listed once: front end -> transforms -> match -> emit.

    read_source      frontends/ (reader.py): the file as an IR Module, read in a child process
                     with limits (porter/isolated.py); a Triton kernel carries the forms its
                     port also prints (generic print, flag variants, other launch values) and
                     which constexprs its program takes (emit/generic_constexprs.py judges)
    raise_to_tiles   transforms/ (TRITON, on every form alike), then match/ (the rules, and a
                     Triton kernel's block loads as copies), then the CUDA template instances
                     one program serves (emit/generic_templates.py: their stand-ins raised as
                     the instances were)
    print_port       emit/: the port module's text

`tileport convert`, migrate's workers and the benchmarks run these; verify reads the original
with read_source alone (porter/reader.py: it may read the IR, never trust a rule).
"""

from __future__ import annotations

import dataclasses

from porter import transforms
from porter.emit.generic_templates import mark_generic
from porter.emit.tilelang import emit_module
from porter.match import raise_module, raised_like
from porter.reader import read_source

__all__ = ["read_source", "raise_to_tiles", "print_port"]


def raise_to_tiles(module, level: str = "auto", options: dict | None = None):
    """The module's kernels on tile primitives where a rule matches (level auto / tile; with
    tile, a kernel no rule matches is TP017), or kept at thread level (level thread)."""
    if module.language == "triton":
        module = dataclasses.replace(module, kernels=[transforms.on_every_form(k) for k in module.kernels])
    module = raise_module(module, level, options)
    if module.language == "cuda":
        module = dataclasses.replace(module, kernels=mark_generic(module.kernels, raised_like(level, options)))
    return module


def print_port(module, source_name: str | None = None) -> str:
    """The port module: TileLang programs and their torch wrappers, as Python source."""
    return emit_module(module, source_name)
