"""Every form of one kernel: a Triton kernel carries the conversions its port also prints or
verify runs (the generic print `emit_as`, flag `variants`, other `launch_values`, each with
forms of its own). Passes that must treat them alike walk them here."""

from __future__ import annotations

import dataclasses


def forms(k) -> list:
    """k and every form it carries, depth first."""
    out = [k]
    for f in [k.emit_as, *k.variants, *k.launch_values]:
        if f is not None:
            out += forms(f)
    return out


def rebuilt(k, new: dict):
    """k with every form replaced by new[id(form)]."""
    return dataclasses.replace(new[id(k)], emit_as=rebuilt(k.emit_as, new) if k.emit_as is not None else None,
                               variants=[rebuilt(v, new) for v in k.variants],
                               launch_values=[rebuilt(v, new) for v in k.launch_values])
