"""bfloat16 without numpy support: bf16 travels as uint16 bit patterns."""

from __future__ import annotations

import numpy as np


def to_bits(values) -> np.ndarray:
    """float32 -> bfloat16 bits, rounded to nearest even as a GPU does; NaN stays a quiet NaN."""
    f = np.asarray(values, dtype=np.float32)
    u = f.view(np.uint32).astype(np.uint64)
    rounded = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(np.isnan(f), ((u >> 16) | 0x40).astype(np.uint16), rounded)


def from_bits(bits) -> np.ndarray:
    """bfloat16 bits -> float32 (exact: bf16 is the top half of an f32)."""
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)
