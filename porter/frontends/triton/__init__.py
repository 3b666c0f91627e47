"""Triton front end: a Triton file, read with `ast` and never run, -> tileport IR.

kernels.py converts `@triton.jit` functions; host.py reads the host code statically (launch
sites, grids, constexpr values); values.py holds the value kinds and Triton's type rules;
tiles.py the block operations of tile-level ports; random.py Triton's Philox stream.
"""

from porter.frontends.triton.kernels import convert_triton

__all__ = ["convert_triton"]
