"""Triton front end: a Triton file, read with `ast` and never run, -> tileport IR.

module.py drives a file (which functions are kernels, constexpr values, generic constexprs and
variants, launch geometry); kernels.py converts one `@triton.jit` body (statements and
expressions), with calls.py and tl_functions.py (its calls) and memory.py (its loads and
stores); tables.py and retry.py hold what they share. host/ reads the host code statically
(launch sites, grids, constexpr values); modules.py finds other modules of the tree; choose.py
picks constexpr values (generic/constexprs.py proves which stay generic); grids.py infers grids from masks; values.py holds the value kinds
and Triton's type rules; tiles.py the block operations of tile-level ports; random.py
Triton's Philox stream.
"""

from porter.frontends.triton.module import convert_triton

__all__ = ["convert_triton"]
