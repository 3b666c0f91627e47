"""A source file as the IR every later stage and verify read: the front end (frontends/load.py)
with the one decision it leaves to the printer, which Triton constexprs a port's program takes
as parameters (generic/constexprs.py). The front ends never import emit; this wires them."""

from __future__ import annotations

from porter.generic.constexprs import find_generic
from porter.frontends.load import FIND_INCLUDER, load_module


def read_source(path: str, include_dirs=(), defines=(), config: int | None = None, dtypes=None, block=None, grid=None,
                constexprs=None, max_kernels: int | None = None, context: str | None = FIND_INCLUDER, foreign=()):
    """load_module's Module, each Triton kernel's generic constexprs judged (its arguments are
    load_module's)."""
    return load_module(path, include_dirs, defines, config, dtypes, block, grid, constexprs, max_kernels, context,
                       foreign, find_generic=find_generic)
