"""Pattern rules that raise SIMT kernels onto TileLang tile primitives.

Each rule is a module with NAME, SUMMARY, PRODUCES and `match(kernel) -> Kernel` (the kernel
rewritten with tile statements, porter/ir/tiles.py) that raises summary.Miss with the reason
it does not apply. RULES is the table the converter, the reports and SUPPORTED.md read.
"""

from __future__ import annotations

from dataclasses import dataclass

import dataclasses

from porter.diagnostics import TileportError
from porter.match import elementwise, gemm, rowwise, transpose
from porter.ir.forms import forms, rebuilt
from porter.ir.loops import unit_step_loops
from porter.match.copies import gathers_in_pipelines, raise_copies
from porter.ir.nodes import BufferParam
from porter.ir.tiles import Gemm
from porter.ir.walk import walk_stmts
from porter.match.formulas import Miss
from porter.match.lanes import staged_lanes
from porter.match.unit_lanes import squeezed_unit_lanes
from porter.match.views import found_views, shaped_views

# Tried in order: the first rule that matches rewrites the kernel.
RULES = (gemm, rowwise, transpose, elementwise)
LEVELS = ("auto", "tile", "thread")


@dataclass
class Raised:
    kernel: object          # the kernel to emit (raised, or as it was)
    rule: str | None        # the rule that matched, None when none did
    reason: str | None      # why raising failed (first rule's reason), None when raised
    loc: object = None


def raise_kernel(kernel, options: dict | None = None) -> Raised:
    """Try every rule on a CUDA kernel; the first that matches rewrites it. `options` go to
    the rules that take them (a rule's OPTIONS), e.g. {"tile": (128, 128, 32)} for gemm."""
    reasons = []
    loc = None
    options = options or {}
    for rule in RULES:
        try:
            given = {k: v for k, v in options.items() if k in getattr(rule, "OPTIONS", ()) and v}
            return Raised(shaped_views(rule.match(kernel, **given)), rule.NAME, None)
        except Miss as miss:
            where = f" (line {miss.loc.line})" if miss.loc is not None and miss.loc.line else ""
            reasons.append(f"{rule.NAME}: {miss.reason}{where}")
            loc = loc or miss.loc
    return Raised(kernel, None, "; ".join(reasons) or "no rule applies", loc or kernel.loc)


def _with_copies(kernel):
    """A Triton kernel and every form the port prints or verify runs (the generic print, flag
    variants and their own generic prints, other launch values) with strided loops stepping
    by one (T.Pipelined's and T.serial's form), blocks of a dimension of one as blocks of the
    others (unit_lanes.py), their block loads into shared tiles as T.copy
    (copies.py), and the buffers they read and write by rows as shaped views (views.py); no
    copies unless every form takes the same buffer views (a variant whose signature differs
    from the port's is left out of its dispatch)."""
    stepped = {}
    for f in forms(kernel):
        stepped[id(f)] = dataclasses.replace(f, body=squeezed_unit_lanes(unit_step_loops(f.body)))
    copied = {key: raise_copies(staged_lanes(f)) for key, f in stepped.items()}
    # a buffer is a view where every form that touches it views it alike (a variant that reads
    # it otherwise keeps it flat in all of them: they share one signature); a form that never
    # touches it declares the same view
    found = {key: found_views(f) for key, f in copied.items()}
    # a form whose accesses bound no column takes the view the others found, where its
    # indices split alike (an unmasked loop beside the masked one-tile branch)
    for key, f in copied.items():
        views, _, touched = found[key]
        hints = {}
        for name in touched - set(views):
            seen = {_generic_view(other[0][name]): other[0][name] for other in found.values() if name in other[0]}
            # only a view whose rows are as many as the tensor holds: a column past the
            # bound is then still inside it (the next row), as the original read it
            if len(seen) == 1 and next(iter(seen.values())).shape[0] == "*":
                hints[name] = next(iter(seen.values()))
        if hints:
            found[key] = found_views(f, hints)
    agreed, given = set(), {}
    buffers = [{p.name for p in f.params if isinstance(p, BufferParam)} for f in copied.values()]
    for name in set().union(*(views for views, _, _ in found.values())):
        seen = [views.get(name) for views, _, touched in found.values() if name in touched]
        # a form that types the argument a scalar (it never touches it) could not take the view
        if all(name in b for b in buffers) and len({_generic_view(v) for v in seen}) == 1 and seen[0] is not None:
            agreed.add(name)
            given[name] = seen[0]
    raised = {key: shaped_views(f, only=agreed, unused={n: given[n] for n in agreed - found[key][2]}, found=found[key])
              for key, f in copied.items()}
    signatures = {tuple((p.name, _generic_dims(getattr(p, "shape", None)), _generic_dims(getattr(p, "strides", None)))
                        for p in f.params) for f in raised.values()}
    chosen = raised if len(signatures) == 1 else stepped  # else the loops still step by one, no copies
    # one program factory serves every form: it unrolls where any of them needs it
    unrolled = "always" if any(gathers_in_pipelines(f) for f in chosen.values()) else \
        max((f.aligned.unrolled for f in chosen.values()), key=_UNROLLING.index, default="")
    chosen = {key: dataclasses.replace(f, aligned=dataclasses.replace(f.aligned, unrolled=unrolled))
              for key, f in chosen.items()}
    return rebuilt(kernel, chosen)


def _generic_dims(dims):
    """A view's dims with a tile-wide extent (a constexpr's value, which differs between forms)
    as one placeholder."""
    return None if dims is None else tuple(d if isinstance(d, str) else "#" for d in dims)


def _generic_view(view):
    return None if view is None else (_generic_dims(view.shape), _generic_dims(view.strides))


#: AlignedProgram.unrolled's values, each unrolling more programs than the one before it.
_UNROLLING = ("", "aligned", "always")


def raise_module(module, level: str = "auto", options: dict | None = None):
    """CUDA kernels raised onto tile primitives where a rule matches (level auto / tile);
    with level tile, a kernel no rule matches is an error (TP017). Triton kernels are already
    written in blocks: their block loads into shared tiles become copies (every form alike)."""
    if module.language != "cuda":
        module = dataclasses.replace(module, kernels=[_with_copies(k) for k in module.kernels])
        if (options or {}).get("allow_tf32"):
            for k in module.kernels:  # the user accepts TF32 where the original asked for fp32
                for s in (s for f in forms(k) for s in walk_stmts(f.body)):  # every body emit prints
                    if isinstance(s, Gemm):
                        s.precision = "tf32"
        return module
    if level == "thread":
        return module
    kernels = []
    for k in module.kernels:
        r = raise_kernel(k, options)
        if r.rule is None and level == "tile":
            raise TileportError("TP017", f"no tile-level rule matches kernel '{k.name}': {r.reason}",
                                r.loc or k.loc)
        kernels.append(_annotated(r))
    return dataclasses.replace(module, kernels=kernels)


def _annotated(r: Raised):
    """The raised (or kept) kernel with the rule that raised it, or why none did."""
    return dataclasses.replace(r.kernel, rule=r.rule or "", not_raised=r.reason or "")


def raised_like(level: str, options: dict | None = None):
    """How raise_module treats one more CUDA kernel at this level (a template instance's
    stand-in conversion, raised as its instance was): the same rule, or none."""
    def raised(kernel):
        if level == "thread":
            return kernel
        return _annotated(raise_kernel(kernel, options))
    return raised
