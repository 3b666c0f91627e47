"""Template kernels instantiated from their launch sites.

libclang does not expose instantiated bodies, so each `kernel<256><<<...>>>` launch gets a
copy of the template's text in its own namespace, preceded by the template parameters as
constants (`constexpr int BLOCK = 256;`, `using T = float;`) and a `#line` directive that keeps
every location on the user's original lines. The file is parsed again with those copies
appended; the copies are ordinary kernels to the rest of the front end.
"""

from __future__ import annotations

from dataclasses import dataclass

from porter.frontends.cuda import parse as ct
from porter.frontends.cuda.units import user_top_level

NAMESPACE = "tp_inst_"


@dataclass
class Instantiation:
    name: str          # the template's name
    args: list         # template argument texts, in order
    namespace: str

    @property
    def template_args(self) -> str:
        return "<" + ", ".join(self.args) + ">"


def _template_args(call, K) -> list | None:
    """`reduce<256, float>` -> ["256", "float"] from the callee's tokens."""
    callee = next(iter(call.get_children()), None)
    if callee is None:
        return None
    tokens = [t.spelling for t in callee.get_tokens()]
    if "<" not in tokens:
        return None
    depth, args, current = 0, [], []
    for tok in tokens[tokens.index("<"):]:
        if tok == "<":
            depth += 1
            if depth == 1:
                continue
        elif tok in (">", ">>"):
            depth -= len(tok)
            if depth <= 0:
                args.append(" ".join(current))
                break
        elif tok == "," and depth == 1:
            args.append(" ".join(current))
            current = []
            continue
        current.append(tok)
    return [a for a in args if a] or None


def _user_cursors(cursors, K):
    """Every cursor under the user's top-level declarations (namespaces entered, system ones
    skipped): where the user's launch sites are."""
    for c in cursors:
        if c.location.is_in_system_header:
            continue
        if c.kind in (K.NAMESPACE, K.LINKAGE_SPEC, K.UNEXPOSED_DECL):
            yield from _user_cursors(c.get_children(), K)
        else:
            yield from c.walk_preorder()


def find_instantiations(tu, K, templates) -> list:
    names = {t.spelling for t in templates}
    found, seen = [], set()
    if not names:
        return found
    for c in _user_cursors(user_top_level(tu), K):
        if c.kind != K.CALL_EXPR or c.spelling not in names:
            continue
        if not any(k.kind == K.CALL_EXPR and k.spelling == "__cudaPushCallConfiguration"
                   for k in c.get_children()):
            continue
        args = _template_args(c, K)
        if args and (c.spelling, tuple(args)) not in seen:
            seen.add((c.spelling, tuple(args)))
            found.append(Instantiation(c.spelling, args, f"{NAMESPACE}{len(found)}"))
    return found


def instantiation_source(path: str, text: str, template, inst: Instantiation, K) -> str:
    """The template's text as a plain kernel in its own namespace, on its original lines."""
    params = [c for c in template.get_children()
              if c.kind in (K.TEMPLATE_TYPE_PARAMETER, K.TEMPLATE_NON_TYPE_PARAMETER)]
    lines = [f"namespace {inst.namespace} {{"]
    for param, arg in zip(params, inst.args):
        if param.kind == K.TEMPLATE_TYPE_PARAMETER:
            lines.append(f"using {param.spelling} = {arg};")
        else:
            lines.append(f"constexpr {param.type.spelling} {param.spelling} = {arg};")
    start, end = template.extent.start.offset, template.extent.end.offset
    data = text.encode("utf-8")
    source = data[start:end].decode("utf-8")
    # drop `template <...>`: everything up to the `>` that closes it
    depth, cut = 0, None
    for i, ch in enumerate(source):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
            if depth == 0:
                cut = i + 1
                break
    body = source[cut:] if cut is not None else source
    header_line = template.extent.start.line
    lines.append(f'#line {header_line} "{path}"')
    lines.append(body)
    lines.append("}")
    return "\n" + "\n".join(lines) + "\n"


def kernel_templates(tu, K, path_ok) -> list:
    """`template <...> __global__ void k(...)` definitions of the user's files. Kernels live at
    namespace scope: only namespaces are entered (a walk of every cursor visited the bodies of
    the standard headers' functions too, 0.7 s of a 1.6 s convert)."""
    out = []

    def visit(cursors):
        for c in cursors:
            if c.kind in (K.NAMESPACE, K.LINKAGE_SPEC, K.UNEXPOSED_DECL):
                if not c.location.is_in_system_header:
                    visit(c.get_children())
            elif c.kind == K.FUNCTION_TEMPLATE and path_ok(c) and c.is_definition() and \
                    any(ch.kind == K.CUDAGLOBAL_ATTR for ch in c.get_children()):
                out.append(c)

    visit(user_top_level(tu))
    return out


__all__ = ["Instantiation", "find_instantiations", "instantiation_source", "kernel_templates", "ct"]
