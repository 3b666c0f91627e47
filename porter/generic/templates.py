"""Which CUDA template instances one generic program serves: decided on the IR.

The CUDA front end converts a template instance twice more with stand-in values of its value
parameters (frontends/cuda/generic_templates.py says how they are chosen and what is refused
before converting). Once the stand-ins are raised as their instance was and made printable,
every integer the stand-ins explain is spelled after them (`BLOCK`, `BLOCK * 2`:
transforms/spelling.py, porter/ir/symbolic_ints.py): the two stand-in programs must be equal
read by name, and the first, read at an instance's values, must be that instance's program
(porter/generic/program_form.py compares them). Such instances share one program, printed
from the first stand-in; porter/pipeline.py calls this after the rules.
"""

from __future__ import annotations

import dataclasses

from porter.generic.program_form import at, by_name, program_form
from porter.ir.symbolic_ints import IntSpelling
from porter.transforms.printable import printable
from porter.transforms.spelling import spell_integers
from porter.util.names import PORT_MODULE_NAMES


def mark_generic(kernels: list, prepare) -> list:
    """The module's kernels, each instance whose text its template's stand-in conversions give
    marked generic (`generic`: the names, `constexprs`: its values, `emit_as`: the stand-in it
    is printed from); `prepare` raises a stand-in as its instance was."""
    out = list(kernels)
    for index, real in enumerate(kernels):
        if len(real.stand_ins) != 2:
            continue
        a, b = (printable(prepare(s)) for s in real.stand_ins)
        mine, first, second = (dict(_values(k)) for k in (real, a, b))
        names = [n for n in mine if first.get(n) != mine[n] and n.isidentifier() and not n.startswith("_")
                 and n not in _RESERVED]
        if not names:
            continue
        spell_a = {n: first[n] for n in names}
        a = _spelled(a, IntSpelling(spell_a))
        if program_form(a, by_name) != program_form(_spelled(b, IntSpelling({n: second[n] for n in names})), by_name):
            continue
        types = _types(real)
        for j, inst in enumerate(out):
            if inst.name != real.name or inst.template_params != real.template_params or _types(inst) != types \
                    or inst.generic:
                continue
            values = {n: dict(_values(inst))[n] for n in names}
            if program_form(a, at(values)) != program_form(printable(inst), at(values)):
                continue
            printed = dataclasses.replace(a, template_args=inst.template_args, constexprs=spell_a,
                                          generic=tuple(names), stand_ins=[])
            out[j] = dataclasses.replace(inst, generic=tuple(names), constexprs=values, emit_as=printed)
        out[index] = dataclasses.replace(out[index], stand_ins=[])
    return [dataclasses.replace(k, stand_ins=[]) if k.stand_ins else k for k in out]


#: Names a port's program keeps for itself (tilelang.language's `T`, the thread handles).
_RESERVED = PORT_MODULE_NAMES | {"torch", "kernel", "target", "aligned"}


def _spelled(kernel, values: IntSpelling):
    """A stand-in's printable form with every integer its values explain spelled after them."""
    return spell_integers(kernel, values, values)


def _values(kernel):
    return [(name, value) for (name, kind), value in zip(kernel.template_params, kernel.template_values)
            if kind == "value" and isinstance(value, int) and not isinstance(value, bool)]


def _types(kernel) -> tuple:
    return tuple(v for (_, kind), v in zip(kernel.template_params, kernel.template_values) if kind == "type")
