"""Pure IR -> IR steps between the front ends and the tile rules, each small and kept to
one idiom (see ../shared/ARCHITECTURE.md). TRITON runs on every form of a Triton kernel."""

from __future__ import annotations

from porter.transforms.tile_grid import tile_grid_launch

TRITON = (tile_grid_launch,)
