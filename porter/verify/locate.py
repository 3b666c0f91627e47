"""Where a mismatch is: coordinates of the worst elements, and whether the wrong elements sit in
the tail of a dimension (a masking bug: the last partial tile) or spread over it (a formula bug).

The original's pointers are flat, so a buffer's dimensions are read from the kernel: strides
that its extent uses (`stride_am`, `ldc`, a batch stride), or an extent `rows * cols` whose
`cols` multiplies a row index in the buffer's accesses. A buffer with neither stays 1-D.
"""

from __future__ import annotations

import numpy as np

from porter.ir.nodes import Atomic, BinOp, Cast, Load, Store, Var
from porter.ir.walk import all_exprs, walk_expr, walk_stmts

#: How many of the worst elements a report lists.
WORST = 5
#: The most cells a mismatch map has along its rows and its columns.
MAP_ROWS, MAP_COLS = 16, 48


def _bare(e):
    while isinstance(e, Cast):
        e = e.a
    return e


def _index_exprs(kernel, name: str) -> list:
    out = [s.index for s in walk_stmts(kernel.body) if isinstance(s, (Store, Atomic)) and s.buffer == name]
    out += [e.index for e in all_exprs(kernel.body) if isinstance(e, Load) and e.buffer == name]
    return out


def buffer_dims(kernel, param, scalars: dict, is_stride) -> list:
    """The buffer's dimensions as (element stride, size parameter or None), outermost first,
    the last with stride 1; one dimension when it is seen as 1-D."""
    if param.extent is None:
        return [(1, None)]
    extent = _bare(param.extent)
    names = {e.name for e in walk_expr(extent) if isinstance(e, Var)}
    strides = sorted({int(scalars[n]) for n in names if is_stride(n) and isinstance(scalars.get(n), int)
                      and scalars[n] > 1}, reverse=True)
    if strides:
        return [(s, None) for s in strides] + [(1, None)]
    if isinstance(extent, Var):
        return [(1, extent.name)]
    if isinstance(extent, BinOp) and extent.op == "*":
        a, b = _bare(extent.a), _bare(extent.b)
        if isinstance(a, Var) and isinstance(b, Var):
            for index in _index_exprs(kernel, param.name):
                for e in walk_expr(index):
                    if isinstance(e, BinOp) and e.op == "*":
                        for side in (_bare(e.a), _bare(e.b)):
                            if isinstance(side, Var) and side.name in (a.name, b.name) and \
                                    isinstance(scalars.get(side.name), int) and scalars[side.name] > 1:
                                other = b.name if side.name == a.name else a.name
                                return [(int(scalars[side.name]), other), (1, side.name)]
    return [(1, None)]


def coordinates(flat: np.ndarray, strides: list) -> np.ndarray:
    """(len(flat), dims) coordinates of flat offsets under strides (outermost first)."""
    coords, rest = [], flat.astype(np.int64)
    for s in strides:
        coords.append(rest // s)
        rest = rest % s
    return np.stack(coords, axis=1) if coords else flat[:, None]


def locate(bad: np.ndarray, expected: np.ndarray, actual: np.ndarray, written: np.ndarray | None,
           strides: list, chunks: list | None = None) -> dict:
    """Where the mismatching elements `bad` (flat indices) are.

    written: the elements the original changed (they give each dimension's extent when the
    buffer is padded by strides); chunks: per dimension the tile a loop steps by (None: not
    known). Returns {"worst": [{"at", "expected", "actual"}], "where": "tail"|"spread", "detail"}."""
    if bad.size == 0:
        return {}
    diff = np.abs(expected[bad] - actual[bad])
    diff = np.where(np.isnan(diff), np.inf, diff)
    order = bad[np.argsort(-diff, kind="stable")[:WORST]]
    coords = coordinates(bad, strides)
    worst = [{"at": [int(c) for c in coordinates(np.array([i]), strides)[0]],
              "expected": float(expected[i]), "actual": float(actual[i])} for i in order]
    reach = np.flatnonzero(written) if written is not None and written.any() else np.arange(expected.size)
    extents = coordinates(reach, strides).max(axis=0) + 1
    worst_map = mismatch_map(coords, extents)
    chunks = list(chunks or []) + [None] * (len(strides) - len(chunks or []))
    for d, extent in enumerate(extents):
        if extent <= 1:
            continue
        q = chunks[d]
        # the last partial tile when the chunk is known and fits, else the last eighth
        starts = [(extent - 1) // q * q] if q and (extent - 1) // q * q > 0 else []
        for start in starts + [extent - max(1, extent // 8)]:
            if start > 0 and coords[:, d].min() >= start:
                return {"worst": worst, "where": "tail", "map": worst_map,
                        "detail": f"confined to the tail of dimension {d} (coordinates {start}..{extent - 1} "
                                  f"of {extent}): a bound or mask of the last tile?"}
    lines = len(np.unique(coords[:, 0])) if coords.shape[1] > 1 else None
    detail = f"spread over {lines} of {extents[0]} rows" if lines is not None else \
        f"spread from element {int(bad.min())} to {int(bad.max())} of {int(extents[-1])}"
    return {"worst": worst, "where": "spread", "map": worst_map,
            "detail": detail + ": the formula, not only the bounds?"}


def mismatch_map(coords: np.ndarray, extents: np.ndarray) -> dict:
    """Mismatches binned over the buffer's first and last dimension (one row for a 1-D buffer):
    {"rows", "cols": the extents binned, "cells": counts per cell, "total": per cell capacity}."""
    first, last = (0, coords.shape[1] - 1) if coords.shape[1] > 1 else (None, 0)
    n_rows = int(extents[first]) if first is not None else 1
    n_cols = int(extents[last])
    rows, cols = min(MAP_ROWS, max(n_rows, 1)), min(MAP_COLS, max(n_cols, 1))
    r = (coords[:, first] * rows // max(n_rows, 1)) if first is not None else np.zeros(len(coords), np.int64)
    c = coords[:, last] * cols // max(n_cols, 1)
    cells = np.zeros((rows, cols), np.int64)
    np.add.at(cells, (np.clip(r, 0, rows - 1), np.clip(c, 0, cols - 1)), 1)
    return {"rows": n_rows, "cols": n_cols, "cells": cells.tolist()}
