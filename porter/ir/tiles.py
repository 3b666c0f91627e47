"""Tile-level IR: block-wide buffers and the operations TileLang performs on whole tiles.

The SIMT statements of nodes.py say what one thread (or lane) does. These say what a whole
block does at once, the way TileLang's own examples read: a fragment or shared tile
(`TileBuffer`), an element-wise loop over a tile (`ParallelFor`, each iteration one element,
the compiler spreads them over threads), and the primitives that act on tiles (`Fill`,
`Gemm`, `Reduce`, `Cumsum`). A kernel whose body holds any of them is emitted at tile level.

Tiles are multi-dimensional and indexed per dimension (`TileLoad`, `TileStore`), unlike the
flat global buffers. Before/after, for a Triton row sum:

    x = tl.load(X + row * n + cols, mask=cols < n, other=0.)   # (BLOCK,)
    s = tl.sum(x, axis=0)

    TileBuffer x_t (BLOCK,) fragment
    ParallelFor i < BLOCK: x_t[i] = (i < n) ? X[row * n + i] : 0
    TileBuffer s_t (1,) fragment
    Reduce sum x_t -> s_t, dim 0
    ... s_t[0] ...
"""

from __future__ import annotations

from dataclasses import dataclass

from porter.diagnostics import Loc


@dataclass
class TileBuffer:
    """A block-wide tile: scope "fragment" (registers, spread over threads) or "shared"."""

    name: str
    dtype: str
    shape: tuple
    scope: str = "fragment"
    loc: Loc | None = None


@dataclass(frozen=True)
class TileLoad:
    """`buffer[i, j, ...]` of a tile: one index expression per dimension."""

    buffer: str
    indices: tuple
    dtype: str


@dataclass
class TileStore:
    buffer: str
    indices: tuple
    value: object
    loc: Loc | None = None


@dataclass
class ParallelFor:
    """`for i, j in T.Parallel(E0, E1)`: the body runs once per element, in any order."""

    vars: tuple      # Var per dimension
    extents: tuple   # int per dimension
    body: list
    loc: Loc | None = None


@dataclass
class Fill:
    buffer: str
    value: object
    loc: Loc | None = None


@dataclass
class Gemm:
    """c += a @ b over tiles (a: MxK, b: KxN, c: MxN fragment); clear zeroes c first.

    precision of float32 operands: "tf32" on tensor cores (T.gemm; Triton's default for fp32
    dots, or `--allow-tf32`), "ieee" fp32 products summed in k order like the original's FMA
    loop. 16-bit and integer operands are exact on tensor cores either way."""

    a: str
    b: str
    c: str
    clear: bool = False
    loc: Loc | None = None
    precision: str = "tf32"
    transpose_a: bool = False  # a is stored (K, M), b (N, K): T.gemm's transpose_A / transpose_B
    transpose_b: bool = False
    widened: str = ""  # the original's 16-bit accumulator dtype, when c accumulates in float32 instead


@dataclass
class Copy:
    """T.copy of the tile-shaped region of a 2-D global buffer starting at `origin` (row, col;
    (batch, row, col) for a batch of matrices) into a tile; TileLang bounds it by the buffer's
    shape (elements outside read as zero)."""

    buffer: str
    origin: tuple
    tile: str
    loc: Loc | None = None
    # a region some of whose dimensions the tile does not span (a column of interleaved
    # pairs, `x[r:r + B, 1]`): per dimension the tile's extent along it, or None where the
    # region is the one index origin names; () when the tile spans the trailing dimensions
    spans: tuple = ()


@dataclass
class CopyOut:
    """T.copy of a tile into the tile-shaped region of a global view starting at `origin`;
    TileLang bounds it by the view's shape (nothing is written outside)."""

    tile: str
    buffer: str
    origin: tuple
    loc: Loc | None = None
    spans: tuple = ()  # as Copy's


@dataclass
class Reduce:
    """dst = op-reduction of src along `dim` (op: sum, max, min); dst drops that dim."""

    op: str
    src: str
    dst: str
    dim: int
    loc: Loc | None = None


@dataclass
class Cumsum:
    """Inclusive prefix sum of `src` along `dim` into `dst` (same shape)."""

    src: str
    dst: str
    dim: int
    reverse: bool = False
    loc: Loc | None = None


TILE_STMTS = (TileBuffer, TileStore, ParallelFor, Fill, Gemm, Reduce, Cumsum, Copy, CopyOut)
