"""Rule `elementwise`: one thread per element, no cooperation -> T.Parallel over the block.

Before:

    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];

After (each thread of the block is one iteration of a parallel loop over the block tile):

    with T.Kernel(T.ceildiv(n, 256), threads=256) as bx:
        for tx in T.Parallel(256):
            i = bx * 256 + tx
            if i < n: y[i] = a * x[i] + y[i]

Grid-stride loops, 2-D grids and per-thread loops stay inside the parallel body. Kernels whose
threads cooperate (shared memory, barriers, shuffles, atomics) do not match.
"""

from __future__ import annotations

from porter.ir.tile_queries import needs_threads
from porter.match.formulas import Miss

NAME = "elementwise"
SUMMARY = "each thread computes its own elements; no shared memory, barriers, shuffles or atomics"
PRODUCES = "T.Parallel over the block tile (the thread index becomes the parallel loop variable)"


def match(kernel):
    if needs_threads(kernel):
        raise Miss("threads cooperate (shared memory, barriers, warp shuffles, atomics or "
                   "break/continue)")
    return kernel
