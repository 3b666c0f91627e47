"""Triton's calling convention for a port: generic over its constexprs, launched as Triton is.

A Triton port keeps the original's interface so that a user swaps one import and keeps the
launcher code: `kernel[grid](x, y, n, BLOCK_SIZE=1024, num_warps=4)` (grid a tuple or a
`lambda meta: ...`), or the plain call `kernel(x, y, n, grid=..., BLOCK_SIZE=1024)`. The
program factory takes the constexprs found generic (porter/generic/constexprs.py) as
parameters, plus `threads` (num_warps * 32) and `stages` (num_stages of the
T.Pipelined loops); the wrapper compiles one program per combination it is called with.
Constexprs the port is specialised for stay module constants, and the wrapper refuses other
values rather than compute something else.
"""

from __future__ import annotations

import math
import re

from porter.emit.expressions import tuple_text
from porter.emit.variant_bodies import merged_body
from porter.ir.nodes import BinOp, Call, Const, Var
from porter.ir.loops import pipeline_stages
from porter.ir.printer import format_expr


def triton_view(emitter, threads, lanes_are_threads: bool = False, aligned: bool = False,
                unrolled: str = "") -> dict:
    """The wrapper's and factory's parts the template lays out (see module.py.j2). A thread-level
    port has one thread per lane of the block, whatever num_warps says; `aligned`: the program
    factory also takes the aligned specialization (the wrapper's `aligned` test). Programs of 3
    stages or more compile with loops unrolled, and so do the aligned one (`unrolled`
    "aligned") or all of them ("always"): AlignedProgram.unrolled."""
    values = emitter.values
    k = emitter.k
    derived = list(values.derived_constexprs)
    generic = [n for n in values.generic if n not in derived]
    fixed = [n for n in values.constexprs if n not in derived and n not in generic]
    stages = pipeline_stages(k.body)
    warps = max(1, int(threads) // 32) if str(threads).isdigit() else 4

    factory = list(derived) + [f"{n}={values.constexprs[n]!r}" for n in generic]
    program_args = list(derived) + [f"{n}={n}" for n in generic]
    key = list(derived) + list(generic)
    if not lanes_are_threads:
        factory.append(f"threads={int(threads) if str(threads).isdigit() else 128}")
        program_args.append("threads=num_warps * 32")
        key.append("num_warps")
    if stages:
        factory.append(f"stages={stages}")
        program_args.append("stages=num_stages")
        key.append("num_stages")
    if aligned:
        factory.append("aligned=False")
        program_args.append("aligned=aligned")
        key.append("aligned")
    # _compiled's unrolled: 3 stages or more (Triton's num_stages), or the aligned program
    unrolled = ", unrolled=True" if unrolled == "always" else \
        ", unrolled=aligned or num_stages >= 3" if aligned and unrolled == "aligned" else \
        ", unrolled=num_stages >= 3"
    keywords = [f"{n}=None" for n in derived] + [f"{n}={values.constexprs[n]!r}" for n in generic + fixed]
    positional = [p.name for p in values.params if getattr(p, "grid_axis", None) is None]
    names = emitter.param_names
    # a grid callable's `meta`: the wrapper's locals, under the original's names where the
    # port renamed a parameter
    renamed = [f'"{p}": {names[p]}' for p in positional if names.get(p, p) != p]
    meta = "{**locals(), " + ", ".join(renamed) + "}" if renamed else "locals()"
    kept = {p: names.get(p, p) for p in positional}
    default_grid = _default_grid(k, values, kept, generic)
    # Triton's launch options (grid, num_warps, num_stages, target) come in `**launch`; a
    # constexpr named like one takes the keyword and serves both, as in Triton
    defaults = [f"{n}={n if n in values.constexprs else v}" for n, v in
                (("num_warps", warps), ("num_stages", stages or 2)) if n in values.constexprs or v != LAUNCH_DEFAULTS[n]]
    if default_grid:
        defaults.append(f"grid=lambda: {default_grid}")  # as the original's launch site computes it
    used_warps = not lanes_are_threads or "num_warps" in values.constexprs
    unpacked = ["grid", "num_warps" if used_warps else "_", "num_stages" if stages else "_", "target"]
    return {
        "factory": factory,
        "fixed": [(n, repr(values.constexprs[n])) for n in fixed],
        "fixed_when": [],  # (condition, name, value): refused only where a variant is specialised
        "generic": generic,
        "keywords": keywords,
        "key": key,
        "program_args": program_args,
        "unrolled_arg": unrolled if stages else "",
        "meta": meta,
        "axes": len(k.launch.grid),
        "tiles": _tile_count(k, kept),
        "default_grid": default_grid,
        "positional": [names.get(p, p) for p in positional],
        "unpacked": ", ".join(unpacked),
        "launch_defaults": "".join(", " + d for d in defaults),
        "wrapper": f"{k.ident}_kernel" if values.generated else k.ident,
    }


#: The launch options the helper `_launch` defaults to (templates/triton_launch.py.j2 prints
#: them from here): a wrapper names only others.
LAUNCH_DEFAULTS = {"num_warps": 4, "num_stages": 2}


def _tile_count(printed, names: dict) -> str | None:
    """A port on its own tile grid (porter/transforms/grouped_launch.py) runs one program per
    tile: the 1-D grid the caller must pass, as Python over the wrapper's arguments."""
    tiles = printed.launch.tile_grid
    if not tiles:
        return None
    return " * ".join(host_python(t, names, set(printed.constexprs)) for t in tiles)


def _default_grid(printed, values, names: dict, generic) -> str | None:
    """The launch site's (or the masks') grid as Python over the wrapper's arguments, when it
    holds for every value of the generic constexprs: printed from the stand-in conversion, and
    equal to the real one once the names are replaced by the real values. None: the caller
    passes the grid."""
    constexprs = set(values.constexprs)
    try:
        mine = tuple_text(host_python(g, names, constexprs) for g in printed.launch.grid)
        real = tuple_text(host_python(g, names, constexprs) for g in values.launch.grid)
    except ValueError:
        return None
    if printed is values or not generic:
        return real
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, generic)) + r")\b")
    as_real = pattern.sub(lambda m: repr(values.constexprs[m.group(1)]), mine)
    real_named = pattern.sub(lambda m: repr(values.constexprs[m.group(1)]), real)
    return mine if as_real == real_named else None


def host_python(e, names: dict, constexprs=frozenset()) -> str:
    """An integer expression over scalar parameters (`names`: IR name -> wrapper name) and
    constexprs as plain Python: the wrapper computes a launch-derived constexpr, or the default
    grid, with it. ValueError for what the host cannot compute (a name the wrapper lacks)."""
    def again(x):
        return host_python(x, names, constexprs)

    if isinstance(e, Const):
        return e.name if e.name in constexprs else str(int(e.value))
    if isinstance(e, Var):
        if e.name in constexprs:
            return e.name
        if e.name not in names:
            raise ValueError(f"cannot compute {format_expr(e)} on the host")
        return f"int({names[e.name]})"
    if isinstance(e, Call) and e.func == "next_power_of_2":
        return f"_next_power_of_2({again(e.args[0])})"
    if isinstance(e, Call) and e.func == "ceildiv":
        a, b = (_operand(again(x)) for x in e.args)
        return f"-(-{a} // {b})"
    if isinstance(e, Call) and e.func in ("min", "max"):
        return f"{e.func}({', '.join(again(x) for x in e.args)})"
    if isinstance(e, BinOp) and e.op in ("+", "-", "*", "/", "%"):
        op = "//" if e.op == "/" else e.op
        return f"({again(e.a)} {op} {again(e.b)})"
    raise ValueError(f"cannot compute {format_expr(e)} on the host")


def _operand(text: str) -> str:
    """`text` as an operand of a unary minus or `//`: as it is when it is a name, a number, a
    call or parenthesised already, else in parentheses."""
    if re.fullmatch(r"[\w.]+(\([^()]*\))?", text) or (text.startswith("(") and _closes_at_end(text)):
        return text
    return f"({text})"


def _closes_at_end(text: str) -> bool:
    """Whether the parenthesis that opens `text` is the one that ends it."""
    depth = 0
    for i, c in enumerate(text):
        depth += (c == "(") - (c == ")")
        if depth == 0:
            return i == len(text) - 1
    return False


def add_variants(view, kernel, make_view) -> None:
    """Let the port dispatch on the flag/enum constexprs its variants were converted for: each
    variant's prim_func under `if HAS_BIAS and MODE == "mean":` in one program factory. A
    variant whose signature differs (another pointer set, another level) is left out.

    The factory takes every constexpr some form is generic over (a stride only a flag's
    branch uses is generic where that branch is absent); a form specialised for one of them
    refuses other values only when its own condition holds."""
    kept = []
    for variant in kernel.variants:
        other = make_view(variant)
        if other.triton and other.signature == view.signature and other.buffers == view.buffers and \
                other.level == view.level:
            kept.append((variant, other))
    if not kept:
        return
    t = view.triton
    generic = list(dict.fromkeys(t["generic"] + [n for _, o in kept for n in o.triton["generic"]]))
    discrete = [n for n in kernel.constexprs if n not in generic and
                any(v.constexprs.get(n) != kernel.constexprs[n] for v, _ in kept)]
    forms = [(kernel, view)] + kept
    t["fixed_when"] = [(_condition(form, discrete), n, repr(form.constexprs[n]))
                       for form, form_view in forms for n in generic if n not in form_view.triton["generic"]]
    widened = [n for n in generic if n not in t["generic"]]
    t["fixed"] = [(n, value) for n, value in t["fixed"] if n not in discrete and n not in widened]
    at = next((i for i, p in enumerate(t["factory"]) if p.startswith(("threads=", "stages="))), len(t["factory"]))
    t["factory"][at:at] = [f"{n}={kernel.constexprs[n]!r}" for n in widened + discrete]
    t["program_args"] += [f"{n}={n}" for n in widened + discrete]
    t["key"] += widened + discrete
    t["variants"] = [{"condition": _condition(kernel, discrete), "kernel_line": view.kernel_line,
                      "body": view.body, "rule": view.rule}]
    t["variants"] += [{"condition": _condition(v, discrete), "kernel_line": o.kernel_line, "body": o.body,
                       "rule": o.rule} for v, o in kept]
    t["discrete"] = discrete
    t["refusal"] = ", ".join(f"{n}={{{n}!r}}" for n in discrete)
    if len({variant["kernel_line"] for variant in t["variants"]}) == 1:
        # one program that branches where the variants differ (variant_bodies.py)
        conditions = [variant["condition"] for variant in t["variants"]]
        values = [{n: form.constexprs[n] for n in discrete} for form, _ in forms]
        t["merged"] = merged_body([variant["body"] for variant in t["variants"]], conditions, values)
        t["uncovered"] = _refused(forms, discrete, conditions)


def _refused(forms: list, names: list, conditions: list):
    """The test a merged program's factory refuses values by: those of no variant (None when
    every value is some variant's: both values of a flag). When the variants are every
    combination of their values, one test a name (`ACT in ("leaky", "clip")`)."""
    seen = {n: list(dict.fromkeys(form.constexprs[n] for form, _ in forms)) for n in names}
    if len(forms) != math.prod(len(values) for values in seen.values()):
        return " or ".join(f"({c})" for c in conditions)
    tests = [f"{n} in {tuple_text(repr(v) for v in values)}" for n, values in seen.items()
             if not (len(values) == 2 and all(isinstance(v, bool) for v in values))]
    return " and ".join(tests) or None


def _condition(kernel, names) -> str:
    parts = []
    for n in names:
        value = kernel.constexprs[n]
        if isinstance(value, bool):
            parts.append(n if value else f"not {n}")
        else:
            parts.append(f"{n} == {value!r}")
    return " and ".join(parts)
