"""A value for a constexpr nothing in the file gives (a library kernel, a launch that computes
it at run time), read from how the kernel uses it.

The port takes such a constexpr as a program parameter; this value is only its default and
what `tileport verify` runs when nothing pins it (`--constexpr NAME=V`). It is chosen so the
kernel's paths run: a flag tested by `if` is True, an enum compared with `==` takes the first
value compared, a shape (`tl.arange`, `tl.zeros([...])`, `tl.static_range`) is a power of two
no other constexpr has (so the port prints it by name), a size that masks a block
(`tl.arange(0, PAD) < n`) a little below that block, another int a distinct power of two or,
when those run out, a distinct multiple of 16 (a numerator of `X // Y` a multiple of its
denominator), a pipelining hint is 2, and a float named like a tolerance is 1e-5.
"""

from __future__ import annotations

import ast

_SHAPE_CALLS = {"arange", "zeros", "full", "static_range", "reshape", "view", "broadcast_to",
                "expand_dims", "zeros_like", "make_block_ptr", "range"}
_PIPELINE_KEYWORDS = {"num_stages", "loop_unroll_factor", "warp_specialize", "flatten"}
_FLOAT_NAMES = ("eps", "epsilon", "scale", "alpha", "beta", "slope", "temperature", "momentum",
                "sm_scale", "theta", "p_drop", "dropout")
_POWERS = [16, 32, 64, 128, 256, 512, 1024, 2048, 4096]
#: For an int that is no shape (a size or stride, `stride_xn: tl.constexpr`) once the powers are
#: taken: multiples of 16 that no power is, so a kernel of a dozen such constexprs still has one
#: distinct value for each.
_SPARE = [16 * k for k in range(3, 64) if k & (k - 1)]


def choose_value(fn: ast.FunctionDef, name: str, taken: set, chosen: dict | None = None):
    """A value for constexpr `name` of kernel `fn`, or None when its use tells nothing.
    `chosen`: the values of the constexprs chosen before it (block shapes come first)."""
    uses = _uses(fn, name)
    if "string" in uses:
        return uses["string"]
    if "compared" in uses:
        return uses["compared"]
    if "flag" in uses:
        return True
    if "pipeline" in uses and "shape" not in uses:
        return 2
    lowered = name.lower()
    if "shape" not in uses and any(part in lowered for part in _FLOAT_NAMES):
        return 1e-5 if "eps" in lowered else 0.5
    bound = _bound_value(uses, chosen or {})
    if bound is not None:
        return next((v for v in range(bound - 3, 0, -1) if v not in taken), None)
    fits = _divisible(uses, chosen or {})
    for value in _candidates(uses) + ([8, 4, 2, 1] if "divides" in uses else []):
        if value not in taken and fits(value):
            return value
    return None


def _divisible(uses: dict, chosen: dict):
    """A test a value must pass where the kernel divides one constexpr by another (`i_h // (H //
    Hg)`, heads per group): the numerator a multiple of the denominator, so the quotient is a
    whole count and never 0 (H = 16 with Hg = 32 divided by zero)."""
    numerators = [chosen[n] for n in uses.get("divides", ()) if type(chosen.get(n)) is int]
    denominators = [chosen[n] for n in uses.get("divided_by", ()) if type(chosen.get(n)) is int and chosen[n] > 0]
    return lambda v: all(v > 0 and n % v == 0 for n in numerators) and all(v % d == 0 for d in denominators)


def _bound_value(uses: dict, chosen: dict):
    """The smallest block shape a mask bounds by this constexpr (`tl.arange(0, PAD) < n`, also
    `tl.arange(0, PAD // 2) < n // 2`), when it has a value: the size is then a little below it,
    as the launch's `PAD = next_power_of_2(n)` makes it, and the mask cuts the block (a size of
    its own power, above the block, made indices reach past verify's buffers)."""
    if "shape" in uses or not uses.get("bounds"):
        return None
    values = [chosen[n] for n in uses["bounds"] if isinstance(chosen.get(n), int) and not isinstance(chosen[n], bool)]
    return min(values) if values and min(values) > 4 else None


def _candidates(uses: dict) -> list:
    """Powers of two first; past them, a loop bound only `tl.static_range` takes gets a small
    count (it is unrolled), another int a spare multiple of 16; a block shape has no more."""
    calls = uses.get("shape_calls", set())
    if not calls:
        return _POWERS + _SPARE
    if calls == {"static_range"}:
        return _POWERS + [8, 4, 2, 3, 5, 6, 7]
    return _POWERS


def power_first(fn: ast.FunctionDef, names) -> list:
    """`names` in the order their values should be chosen: those only a power of two may be
    (block shapes) before the others, which have spare values when the powers run out."""
    return sorted(names, key=lambda n: set(_uses(fn, n).get("shape_calls", ())) in (set(), {"static_range"}))


# A kernel has at most this many flag/enum specializations in one port (2 flags and a 2-way enum).
MAX_VARIANTS = 8


def discrete_choices(fn: ast.FunctionDef, values: dict) -> dict:
    """name -> every value a flag/enum constexpr takes in the kernel's own tests: a bool both
    ways, a string or int compared with `==` / `!=` each compared value (the current one first)."""
    out = {}
    for name, value in values.items():
        uses = _uses(fn, name)
        if isinstance(value, bool) or (set(uses) & {"flag"} and not set(uses) & {"shape", "string", "compared"}):
            if isinstance(value, bool):
                out[name] = [value, not value]
        elif isinstance(value, (str, int)) and uses.get("all_compared"):
            choices = [value] + [v for v in uses["all_compared"] if v != value and type(v) is type(value)]
            if len(choices) > 1:
                out[name] = choices
    return out


def _uses(fn: ast.FunctionDef, name: str) -> dict:
    uses: dict = {}
    parents = {}
    for node in ast.walk(fn):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
    for node in ast.walk(fn):
        if not (isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)):
            continue
        parent = parents.get(id(node))
        compare, above = parent, node
        while isinstance(compare, ast.BinOp):  # `n // 2` in `tl.arange(0, PAD // 2) < n // 2`
            compare, above = parents.get(id(compare)), compare
        if isinstance(compare, ast.Compare) and len(compare.ops) == 1 and \
                isinstance(compare.ops[0], (ast.Lt, ast.LtE, ast.Gt, ast.GtE)):
            other = compare.comparators[0] if compare.left is above else compare.left
            for call in ast.walk(other):
                if isinstance(call, ast.Call) and _short(call.func) == "arange" and len(call.args) == 2:
                    uses.setdefault("bounds", set()).update(
                        n.id for n in ast.walk(call.args[1]) if isinstance(n, ast.Name))
        if isinstance(parent, ast.Compare):
            others = [parent.left] + parent.comparators
            for other in others:
                if isinstance(other, ast.Constant) and other is not node and \
                        isinstance(parent.ops[0], (ast.Eq, ast.NotEq)) and \
                        not isinstance(other.value, bool) and other.value is not None:
                    seen = uses.setdefault("all_compared", [])
                    if other.value not in seen:
                        seen.append(other.value)
                if isinstance(other, ast.Constant) and other is not node:
                    if isinstance(other.value, str):
                        uses.setdefault("string", other.value)
                    elif isinstance(other.value, bool):
                        uses.setdefault("flag", True)
                    elif isinstance(other.value, int) and \
                            isinstance(parent.ops[0], (ast.Eq, ast.NotEq)):
                        uses.setdefault("compared", other.value)
        elif isinstance(parent, (ast.If, ast.IfExp, ast.While)) and parent.test is node or \
                isinstance(parent, (ast.BoolOp,)) or \
                isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not):
            uses["flag"] = True
        elif isinstance(parent, ast.keyword) and parent.arg in _PIPELINE_KEYWORDS:
            uses["pipeline"] = True
        elif isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.FloorDiv) and \
                isinstance(parent.left, ast.Name) and isinstance(parent.right, ast.Name):
            if parent.right is node:
                uses.setdefault("divides", set()).add(parent.left.id)
            else:
                uses.setdefault("divided_by", set()).add(parent.right.id)
        else:
            call = parent
            while call is not None and not isinstance(call, ast.Call):
                if isinstance(call, (ast.stmt,)):
                    call = None
                    break
                call = parents.get(id(call))
            if isinstance(call, ast.Call):
                short = _short(call.func)
                if short in _SHAPE_CALLS:
                    uses["shape"] = True
                    uses.setdefault("shape_calls", set()).add(short)
    return uses


def _short(f) -> str:
    """`tl.arange` -> "arange"; `arange` -> "arange"."""
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
