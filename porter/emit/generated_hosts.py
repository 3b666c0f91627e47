"""The host function of a kernel that a library's decorator generated (Kernel.generated, from
porter/frontends/triton/generators.py): the port keeps the library's calling convention, so
`out = gelu_none(x)` and `gelu_none(x, out0=x)` work on the port as on the original, while the
kernel itself is `<name>_kernel[grid](...)` (what `tileport verify` runs).

One printer per generator, in HOSTS; each prints a call of a launch helper that is plain torch
(no tileport, no library import). A pointwise_dynamic kernel whose body is one element's values
(transforms/elementwise_body.py) is printed as that function under `@_elementwise(...)`
(elementwise_decorator), the helpers' elementwise program and the same host.
"""

from __future__ import annotations


def _schema(host: dict) -> tuple:
    """A pointwise_dynamic kernel's calling convention as the helpers take it: which inputs are
    tensors, each output's type promotion (the input indices and torch's kind), and
    `, block=...` when the block size is not named BLOCK_SIZE."""
    tensors = tuple(is_tensor for _, is_tensor in host["inputs"])
    promotions = tuple((tuple(indices), kind) for indices, kind in host["promotions"])
    return tensors, promotions, "" if host["block"] == "BLOCK_SIZE" else f", block={host['block']!r}"


def _pointwise(name: str, host: dict, positional: list) -> str:
    """pointwise_dynamic's `f(*inputs, out0=None, ...)`, the launch helpers'
    `_pointwise_dynamic` (templates/triton_launch.py.j2) over the port's kernel."""
    tensors, promotions, block = _schema(host)
    return f"{name} = _pointwise_dynamic({name}_kernel, tensors={tensors!r}, promotions={promotions!r}{block})"


HOSTS = {"pointwise_dynamic": _pointwise}


def elementwise_decorator(host: dict) -> str:
    """The launch helpers' `@_elementwise(...)` over a pointwise_dynamic kernel's body of one
    element (transforms/elementwise_body.py): each output's promotion, which inputs are
    tensors when not all are, the block size's name when not BLOCK_SIZE."""
    tensors, promotions, block = _schema(host)
    return f"_elementwise(promotions={promotions!r}{'' if all(tensors) else f', tensors={tensors!r}'}{block})"


def host_text(name: str, host: dict, positional: list) -> str:
    """The host function's source for a generated kernel named `name`, whose Triton launcher
    takes `positional` (the port's names of the kernel's parameters, in order)."""
    return HOSTS[host["generator"]](name, host, positional)
