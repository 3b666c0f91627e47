"""One port per CUDA template kernel: its instances' launchers and programs behind one name.

A template's instances are ported one by one (each its own program, as clang instantiates
them); the port's user sees the template: `reduce[grid, block](*args)` picks the instance
whose tensors' dtypes and block match, as C++ deduces `reduce<float, 256>` from a call, and
`reduce.instance(torch.float32, 256)` / `reduce_program(T="float32", blockSize=256)` name
one as `reduce<float, 256>` does. Values no instance holds are refused with the ones it
holds (the port was made for those).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from porter.util.names import fresh_name


@dataclass
class TemplatePort:
    """What the module template prints for one template kernel."""

    name: str          # the launcher, after the template (`reduce`)
    program: str       # its program factory (`reduce_program`)
    params: list       # [(parameter name, "type" | "value")]
    params_text: str = ""  # the same as Python text
    signature: str = ""  # the factory's parameters with the first instance's values as defaults
    # (key as Python text, the instance's launcher, the instance's program factory)
    instances: list = field(default_factory=list)
    # (template arguments with None where its program takes any value, the instance whose
    # program it is, {parameter: the block axis it sizes, or None} as Python text)
    generic: list = field(default_factory=list)
    source: str = ""
    line: int = 0


def template_ports(kernels, views, taken: set) -> list:
    """A TemplatePort per template with at least one converted instance; `taken` holds the
    module's other names (a template whose name or factory would shadow one is skipped: its
    instances keep their own names)."""
    groups: dict = {}
    for kernel, view in zip(kernels, views):
        if kernel.template_params and view.cuda is not None:
            groups.setdefault(kernel.name, []).append((kernel, view))
    out = []
    for name, members in groups.items():
        first = members[0][0]
        program = f"{name}_program"
        params = list(first.template_params)
        if name in taken or program in taken or any(k.template_params != first.template_params for k, _ in members):
            continue
        names = [_parameter_name(p, i, params) for i, (p, _) in enumerate(params)]
        signature = ", ".join(f"{n}={literal(v)}" for n, v in zip(names, first.template_values))
        named = [(n, kind) for n, (_, kind) in zip(names, params)]
        port = TemplatePort(name, program, named, "[" + ", ".join(f"({literal(n)}, {literal(k)})" for n, k in named) + "]",
                            signature, source=members[0][1].source, line=members[0][1].line)
        for kernel, view in members:
            port.instances.append((key_text(kernel.template_values), view.name, view.program))
            pattern = key_text([None if n in kernel.generic else v
                                for (n, _), v in zip(kernel.template_params, kernel.template_values)])
            if kernel.generic and pattern not in {g[0] for g in port.generic}:
                port.generic.append((pattern, key_text(kernel.template_values), _block_axes(kernel)))
        out.append(port)
    return out


def _block_axes(kernel) -> str:
    """Which block axis each generic value sizes: the axis the instance's block holds its value
    on and its stand-in conversion's block the stand-in value (a block of BLOCK threads)."""
    printed = kernel.emit_as
    axes = {}
    for name in kernel.generic:
        axes[name] = next((axis for axis, (mine, theirs) in enumerate(zip(kernel.launch.block, printed.launch.block))
                           if mine == kernel.constexprs[name] and theirs == printed.constexprs[name]), None)
    return "{" + ", ".join(f"{literal(n)}: {a!r}" for n, a in axes.items()) + "}"


def _parameter_name(name: str, index: int, params: list) -> str:
    """A template parameter as a Python keyword: `T` is tilelang.language's alias in a port."""
    if name != "T" and name.isidentifier() and not name.startswith("_"):
        return name
    taken = {p for p, _ in params}
    return fresh_name(f"{name.strip('_') or 'param'}_", taken, numbered=False, claim=False)


def key_text(values) -> str:
    """A tuple of Python values as Python text (`("float32", 256)`, `(None,)`)."""
    items = [literal(v) for v in values]
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"


def literal(value) -> str:
    """A str, int, bool or None as Python text, strings double-quoted as black prints them."""
    return json.dumps(value) if isinstance(value, str) else repr(value)
