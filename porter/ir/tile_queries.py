"""Questions asked of a whole kernel body about its tile statements (tiles.py's nodes, found
with walk.py): whether the body is tile level, and which products print as fp32 sums."""

from __future__ import annotations

from porter.ir.tiles import TILE_STMTS, Gemm, TileBuffer
from porter.ir.walk import walk_stmts


def is_tile_level(body) -> bool:
    """Whether a kernel body is written with tile statements."""
    return any(isinstance(s, TILE_STMTS) for s in walk_stmts(body))


def fp32_products(s, body) -> bool:
    """A Gemm emitted as fp32 products summed in k order instead of T.gemm (TF32 for float32):
    its precision is "ieee" and its operands are float32 tiles declared in body."""
    if not isinstance(s, Gemm) or s.precision != "ieee":
        return False
    return any(isinstance(t, TileBuffer) and t.name == s.a and t.dtype == "float32" for t in walk_stmts(body))
