"""Pure IR -> IR steps between the front ends and the tile rules, each small and kept to one
idiom, each with its before/after in its docstring (see ../shared/ARCHITECTURE.md).

TRITON runs on every form of a Triton kernel before the rules (porter/pipeline.py lists the
stages); printable.py runs last, on every form of every kernel, and makes what emit/ prints.
The other modules here are steps the rules and printable.py call on one body.
"""

from __future__ import annotations

from porter.ir.forms import forms, rebuilt
from porter.transforms.tile_grid import tile_grid_launch

TRITON = (tile_grid_launch,)


def on_every_form(kernel, steps=TRITON):
    """A Triton kernel with each step applied to every form, all or none: one program and one
    wrapper serve them all. A generic port's stand-in conversion is not `launched` with its own
    constexprs (its host grid kept the real values)."""
    stand_ins = {id(f.emit_as) for f in forms(kernel) if f.emit_as is not None}
    for step in steps:
        new = {id(f): step(f, launched=id(f) not in stand_ins) for f in forms(kernel)}
        if all(new[id(f)] is not f for f in forms(kernel)):
            kernel = rebuilt(kernel, new)
    return kernel
