"""TileLang ops whose lowering differs between targets (measured on tilelang 0.1.15 by lowering
one kernel per op for cuda and hip; the C target is verify's CPU run).

Verify's CPU run follows CUDA, the target ports are verified for (cpu_target.py lowers T.round
to nearbyint, as CUDA does); the report names each of these ops a port uses, so a user who
moves the port to another backend knows what to re-verify there.
"""

from __future__ import annotations

import re

#: op -> how each target computes it
TARGET_DEPENDENT = {
    "T.round": "nearbyintf (halfway cases to even) on CUDA; roundf (away from zero) on HIP and "
               "TileLang's C target (verify's CPU run follows CUDA)",
    "T.exp": "expf on CUDA and C; __expf (fast approximation) on HIP",
    "T.rsqrt": "rsqrtf (approximate) on CUDA; 1 / sqrtf on HIP and C",
}


def target_notes(program: str) -> list:
    """'op: how targets differ' for each target-dependent op the port's program calls."""
    return [f"{op}: {how}" for op, how in TARGET_DEPENDENT.items()
            if re.search(re.escape(op) + r"\(", program)]
