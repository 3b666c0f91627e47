"""Which value parameters of a template kernel its port can take as program parameters.

clang instantiates a template with values, so a port is first made per instance. A value
parameter is generic when the instance's program text does not depend on it beyond spelling
it: the instance is converted twice more with stand-in values (_stand_in_values) and printed with every integer the stand-ins explain
spelled after them (`BLOCK`, `BLOCK * 2`, `BLOCK // 2`: porter/ir/symbolic_ints.py); the two
texts must be equal, and the first, evaluated at the real values, must be the real instance's
text. Other instances of the same types whose text it also gives share that program. This
file makes the stand-ins; the comparison runs once they are raised as their instances were
(porter/generic/templates.py, called by porter/pipeline.py).

What text comparison cannot see is refused before converting: a parameter that decides
something at compile time (in an `if`, `while`, `switch`, `?:` or `static_assert`, `#if`, or
passed on as another template's argument) would make a program right at the values tried
and wrong at others.
"""

from __future__ import annotations

import dataclasses

from porter.ir.nodes import Const
from porter.ir.symbolic_ints import IntSpelling
from porter.ir.walk import map_expr
from porter.frontends.cuda.templates import NAMESPACE, Instantiation



def integer_values(inst: Instantiation) -> dict:
    """The instance's integer value parameters (not bools) by name."""
    out = {}
    for name, kind, arg in zip(inst.params, inst.kinds, inst.args):
        text = arg.rstrip("uUlL")
        if kind != "type" and kind != "bool" and text.isdigit():
            out[name] = int(text)
    return out


def candidates(template_tokens: list, inst: Instantiation) -> list:
    """Integer value parameters that decide nothing at compile time in the template's text."""
    values = integer_values(inst)
    deciding = _deciding_names(template_tokens, set(inst.params))
    return [n for n in values if n not in deciding]


_SPLIT = {"&&", "||", "?", ":", "=", ",", "!", "return", "if", "else", "while", "for", "switch", "case", "do"}
_NONLINEAR = {"<", ">", "<=", ">=", "==", "!=", "&", "|", "^", "%", "<<", ">>", "~"}
_CONSTANTS = {"sizeof", "true", "false", "warpSize"}


def _deciding_names(tokens: list, params: set) -> set:
    """Parameters compared in a part of a condition the compiler folds (`if (BLOCK > 64 &&
    tid < 32)`: the part has no run-time name), tested alone (`if (FLAG)`), in a
    static_assert, or passed on as another template's argument (`warpReduce<BLOCK>`)."""
    names: set = set()
    body = tokens.index("{") if "{" in tokens else 0  # the template's own `<...>` and signature are not uses
    regions = []  # token lists a condition or statement part spans
    for i in range(body, len(tokens)):
        tok = tokens[i]
        if tok == "static_assert" or (tok == "if" and i + 1 < len(tokens) and tokens[i + 1] == "constexpr"):
            end = _closing(tokens, tokens.index("(", i))
            names.update(t for t in tokens[i:end] if t in params)
        elif tok in ("if", "while", "switch") and i + 1 < len(tokens) and tokens[i + 1] == "(":
            regions.append(tokens[i + 2:_closing(tokens, i + 1) - 1])
        elif tok == "<" and tokens[i - 1].isidentifier():
            end = _closing(tokens, i, "<", ">")
            if end is not None and end - i < 40:
                names.update(t for t in tokens[i:end] if t in params)
    conditions = len(regions)
    statement: list = []
    for tok in tokens[body:]:
        if tok in (";", "{", "}"):
            regions.append(statement)
            statement = []
        else:
            statement.append(tok)
    for number, region in enumerate(regions):
        part: list = []
        for tok in region + [";"]:
            if tok in _SPLIT or tok == ";":
                # a condition's part folds to a branch; a statement's folds to a value, which
                # the text comparison sees unless a comparison or bit operation made it
                folds = number < conditions or any(t in _NONLINEAR for t in part)
                if folds and any(t in params for t in part) and all(
                        t in params or not t.isidentifier() or t.isupper() or t in _CONSTANTS for t in part):
                    names.update(t for t in part if t in params)
                part = []
            elif tok not in ("(", ")"):
                part.append(tok)
    return names


def _closing(tokens: list, at: int, open_: str = "(", close: str = ")"):
    depth = 0
    for j in range(at, len(tokens)):
        if tokens[j] == open_:
            depth += 1
        elif tokens[j] == close or (close == ">" and tokens[j] == ">>"):
            depth -= 2 if tokens[j] == ">>" else 1
            if depth <= 0:
                return j + 1
        elif close == ">" and tokens[j] in (";", "{", "}"):
            return None
    return len(tokens) if close == ")" else None


def stand_in_instances(real: list, template_tokens: dict, first_index: int) -> list:
    """Two stand-in instances for the first instance of each template and its type arguments
    that has candidate parameters (`template_tokens`: template name -> its tokens)."""
    out, seen = [], set()
    for inst in real:
        types = tuple(a for a, k in zip(inst.args, inst.kinds) if k == "type")
        names = candidates(template_tokens.get(inst.name, []), inst)
        if (inst.name, types) in seen or not names:
            continue
        seen.add((inst.name, types))
        values = integer_values(inst)
        taken = set(values.values())
        chosen = {name: _stand_in_values(values[name], taken) for name in names}
        if any(len(c) < 2 for c in chosen.values()):
            continue
        for round_ in range(2):
            args = list(inst.args)
            for name in names:
                args[inst.params.index(name)] = str(chosen[name][round_])
            out.append(dataclasses.replace(inst, args=args, namespace=f"{NAMESPACE}{first_index + len(out)}",
                                           origin="stand-in", block=None, stand_in_of=inst.namespace))
    return out


def _stand_in_values(value: int, taken: set) -> list:
    """Two stand-ins for one value, distinct from every value taken so far (which they join):
    3/2 and 5/4 of it first, whose halves and quarters are no warp size or common tile that a
    constant of the kernel could equal (a power-of-two stand-in spelled reduce4's 32 as
    `blockSize // 32` in one text and `blockSize // 8` in the other), at most 1024 (a block
    of that many threads can exist; the rowwise rule chunks past it)."""
    out = []
    for candidate in (value * 3 // 2 if value % 2 == 0 else 0, value * 5 // 4 if value % 4 == 0 else 0,
                      value * 3, value * 5, value * 2, value * 4, value // 2, value // 4):
        if len(out) < 2 and 4 <= candidate <= max(1024, value) and candidate not in taken:
            out.append(candidate)
            taken.add(candidate)
    return out


def stand_in_launch(real_launch, real: Instantiation, stand_in: Instantiation, block: tuple):
    """A stand-in's copy of a launch site's geometry: the real launch with every integer the
    real values explain (`(n + 255) / 256` of BLOCK = 256) taken to the stand-in's values, and
    its block; None when the real launch is not a launch site's."""
    if real_launch is None or real_launch.origin != "launch-site":
        return None
    mine, theirs = integer_values(real), integer_values(stand_in)
    spelling = IntSpelling({n: v for n, v in mine.items() if theirs.get(n) != v},
                           evaluate_at={n: v for n, v in theirs.items() if mine.get(n) != v})

    def retarget(e):
        if isinstance(e, Const) and isinstance(e.value, int) and not isinstance(e.value, bool):
            form = spelling.spell(e.value)
            return dataclasses.replace(e, value=int(form[0])) if form is not None else None
        return None
    grid = tuple(map_expr(g, retarget) for g in real_launch.grid)
    return dataclasses.replace(real_launch, grid=grid, block=block, fixed=dict(real_launch.fixed))


def stand_in_block(real_block: tuple, real: Instantiation, stand_in: Instantiation) -> tuple:
    """A stand-in's block: the real one, with an axis that equals a candidate's value scaled
    as that value was (a block of BLOCK threads stays BLOCK threads)."""
    mine, theirs = integer_values(real), integer_values(stand_in)
    changed = {v: theirs[n] for n, v in mine.items() if theirs.get(n) != v}
    return tuple(changed.get(b, b) if len([n for n, v in mine.items() if v == b and n in theirs
                                           and theirs[n] != v]) == 1 else b for b in real_block)
