"""Questions asked of a whole kernel about its statements (tiles.py's nodes, found with walk.py):
which level its port takes (tile statements, thread-level constructs, or neither: one
T.Parallel over the block), how it got there, and which products print as fp32 sums. The rules
and the printer read the same answers here."""

from __future__ import annotations

from porter.ir.nodes import Alloc, Atomic, Break, Call, Continue, Sync
from porter.ir.tiles import TILE_STMTS, Gemm, TileBuffer
from porter.ir.walk import all_exprs, walk_stmts


def is_tile_level(body) -> bool:
    """Whether a kernel body is written with tile statements."""
    return any(isinstance(s, TILE_STMTS) for s in walk_stmts(body))


def fp32_products(s, body) -> bool:
    """A Gemm emitted as fp32 products summed in k order instead of T.gemm (TF32 for float32):
    its precision is "ieee" and its operands are float32 tiles declared in body."""
    if not isinstance(s, Gemm) or s.precision != "ieee":
        return False
    return any(isinstance(t, TileBuffer) and t.name == s.a and t.dtype == "float32" for t in walk_stmts(body))


def level_of(kernel) -> str:
    """The level of a kernel's port: "thread" when it needs real threads and has no tile
    statements, else "tile" (tile statements, or one T.Parallel over the block)."""
    return "thread" if not is_tile_level(kernel.body) and needs_threads(kernel) else "tile"


def rule_name(kernel):
    """The short name of how a kernel reached tile level (a porter.match rule, "elementwise",
    or "triton-blocks"), None at thread level."""
    if kernel.rule:
        return kernel.rule
    if is_tile_level(kernel.body):
        return "triton-blocks"
    return None if needs_threads(kernel) else "elementwise"


_THREAD_CALLS = {"shfl", "shfl_down", "shfl_up", "shfl_xor", "ballot", "any", "all"}


def needs_threads(kernel) -> bool:
    """Whether the kernel needs thread-level TileLang (T.Parallel cannot express it)."""
    if any(isinstance(s, (Alloc, Sync, Atomic, Break, Continue)) for s in walk_stmts(kernel.body)):
        return True
    return any(isinstance(e, Call) and e.func in _THREAD_CALLS for e in all_exprs(kernel.body))
