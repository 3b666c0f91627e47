"""Compare the original's buffers with the port's: max abs / max rel error against per-dtype
tolerances. NaN must match NaN at the same place; integers must match exactly."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from porter.verify import bf16

# (rtol, atol) per dtype: a few ulps of the type, loose enough for libm differences between
# the original's and the port's math functions, tight enough that a flipped operator fails.
TOLERANCES = {
    "float64": (1e-12, 1e-12),
    "float32": (1e-5, 1e-5),
    "float16": (2e-3, 2e-3),
    "bfloat16": (1.6e-2, 1.6e-2),
}


@dataclass
class BufferComparison:
    name: str
    dtype: str
    elements: int
    max_abs: float
    max_rel: float
    rtol: float
    atol: float
    mismatches: int
    first_mismatch: int | None
    written: float | None = None  # share of the elements the original changed (None: not known)
    outside: int = 0  # elements the port wrote in the guard zone around the buffer (out of bounds)
    where: dict = None  # locate.locate's answer for a mismatch: worst elements, tail or spread

    @property
    def ok(self) -> bool:
        return self.mismatches == 0 and not self.outside

    def as_dict(self) -> dict:
        return {"buffer": self.name, "dtype": self.dtype, "elements": self.elements,
                "max_abs": self.max_abs, "max_rel": self.max_rel, "rtol": self.rtol,
                "atol": self.atol, "mismatches": self.mismatches,
                "first_mismatch": self.first_mismatch, "ok": self.ok, "written": self.written,
                "outside": self.outside, "where": self.where or {}}


def written_share(before: np.ndarray, after: np.ndarray) -> float:
    """The share of a buffer's elements a run changed (bit for bit; NaN stays NaN: unchanged)."""
    if before.size == 0 or before.shape != after.shape:
        return 0.0
    b, a = before.reshape(-1), after.reshape(-1)
    if b.dtype.kind == "f":
        same = (b == a) | (np.isnan(b) & np.isnan(a))
    else:
        same = b == a
    return float(np.count_nonzero(~same)) / b.size


def as_float(a: np.ndarray, dtype: str) -> np.ndarray:
    if dtype == "bfloat16":
        return bf16.from_bits(a).astype(np.float64)
    return a.astype(np.float64)


def compare(name: str, dtype: str, expected: np.ndarray, actual: np.ndarray,
            rtol: float | None = None, atol: float | None = None, dims: list | None = None,
            before: np.ndarray | None = None, chunks: dict | None = None) -> BufferComparison:
    """dims: the buffer's (stride, size) dimensions (locate.buffer_dims), before: its contents
    before the run, chunks: size -> tile; with them a mismatch says where it is."""
    default_rtol, default_atol = TOLERANCES.get(dtype, (0.0, 0.0))
    rtol = default_rtol if rtol is None else rtol
    atol = default_atol if atol is None else atol
    e, a = as_float(expected, dtype), as_float(actual, dtype)
    if e.shape != a.shape:
        return BufferComparison(name, dtype, e.size, float("inf"), float("inf"), rtol, atol, e.size, 0)
    both_nan = np.isnan(e) & np.isnan(a)
    same_inf = np.isinf(e) & (e == a)
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.where(both_nan | same_inf, 0.0, np.abs(e - a))
        diff = np.where(np.isnan(diff), np.inf, diff)
        rel = diff / np.maximum(np.abs(e), np.finfo(np.float64).tiny)
        bad = diff > atol + rtol * np.abs(np.where(np.isfinite(e), e, 0.0))
    bad_idx = np.flatnonzero(bad)
    max_abs = float(diff.max()) if diff.size else 0.0
    max_rel = float(np.where(diff == 0, 0.0, rel).max()) if diff.size else 0.0
    result = BufferComparison(name, dtype, int(e.size), max_abs, max_rel, rtol, atol, int(bad_idx.size),
                              int(bad_idx[0]) if bad_idx.size else None)
    if bad_idx.size:
        from porter.verify.locate import locate

        dims = dims or [(1, None)]
        written = None
        if before is not None and before.shape == expected.shape:
            written = (before.reshape(-1) != expected.reshape(-1))
        result.where = locate(bad_idx, e.reshape(-1), a.reshape(-1), written, [d[0] for d in dims],
                              [(chunks or {}).get(d[1]) for d in dims])
    return result
