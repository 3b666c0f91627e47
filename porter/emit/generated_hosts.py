"""The host function of a kernel that a library's decorator generated (Kernel.generated, from
porter/frontends/triton/generators.py): the port keeps the library's calling convention, so
`out = gelu_none(x)` and `gelu_none(x, out0=x)` work on the port as on the original, while the
kernel itself is `<name>_kernel[grid](...)` (what `tileport verify` runs).

One printer per generator, in HOSTS; each prints plain torch (no tileport, no library import).
"""

from __future__ import annotations


def _pointwise(name: str, host: dict, positional: list) -> str:
    """pointwise_dynamic's `f(*inputs, out0=None, ...)`: tensor inputs broadcast with torch and
    made contiguous, each output allocated with the dtype torch's elementwise type promotion
    gives its arguments (or the given `outN`, of the broadcast shape), the kernel run over the
    flat elements; returns the output, or the tuple of outputs."""
    inputs, outputs = host["inputs"], host["outputs"]
    ins = positional[:len(inputs)]
    outs = positional[len(inputs):len(inputs) + len(outputs)]
    block = host["block"]
    tensors = [p for p, (_, is_tensor) in zip(ins, inputs) if is_tensor]
    signature = ", ".join(ins + ["/", "*"] + [f"{o}=None" for o in outs] +
                          [f"{block}=1024", "num_warps=4", "target=None"])
    doc = (f'    """`{name}` called as the library calls it: tensor inputs broadcast, each output '
           "`outN` allocated\n    with torch's elementwise type promotion of its arguments unless "
           'given, the\n    kernel run over the flat elements."""')
    lines = [f"def {name}({signature}):", doc,
             "    from torch._prims_common import ELEMENTWISE_TYPE_PROMOTION_KIND, elementwise_dtypes",
             "",
             f"    _args = ({', '.join(ins)},)",
             f"    _tensors = torch.broadcast_tensors({', '.join(tensors)})",
             "    _shape, _device = _tensors[0].shape, _tensors[0].device"]
    lines.append(f"    {', '.join(tensors)}, = (_t.contiguous() for _t in _tensors)")
    for o, (indices, kind) in zip(outs, host["promotions"]):
        promoted = ", ".join(f"_args[{i}]" for i in indices)
        lines += [f"    if {o} is None:",
                  f"        _dtype = elementwise_dtypes({promoted}, type_promotion_kind="
                  f"ELEMENTWISE_TYPE_PROMOTION_KIND.{kind})[1]",
                  f"        {o} = torch.empty(_shape, dtype=_dtype, device=_device)",
                  f"    elif tuple({o}.shape) != tuple(_shape):",
                  f"        raise RuntimeError(f\"{name}: {o} has shape {{tuple({o}.shape)}}, the inputs "
                  f"broadcast to {{tuple(_shape)}}\")"]
    flat = [f"_{o}" for o in outs]
    lines += [f"    {f} = {o} if {o}.is_contiguous() else torch.empty(_shape, dtype={o}.dtype, device=_device)"
              for f, o in zip(flat, outs)]
    lines += [f"    _n = {flat[0]}.numel()",
              "    if _n:",
              f"        {name}_kernel[(-(-_n // {block}),)](",
              f"            {', '.join(ins + flat)}, _n, {block}={block}, num_warps=num_warps, target=target",
              "        )"]
    lines += [f"    if {f} is not {o}:\n        {o}.copy_({f})" for f, o in zip(flat, outs)]
    lines.append(f"    return {outs[0]}" if len(outs) == 1 else f"    return {', '.join(outs)}")
    return "\n".join(lines)


HOSTS = {"pointwise_dynamic": _pointwise}


def host_text(name: str, host: dict, positional: list) -> str:
    """The host function's source for a generated kernel named `name`, whose Triton launcher
    takes `positional` (the port's names of the kernel's parameters, in order)."""
    return HOSTS[host["generator"]](name, host, positional)
