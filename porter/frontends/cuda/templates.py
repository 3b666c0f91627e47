"""Template kernels instantiated as the project names them.

Which instances: every `k<...>` the user's files spell, with the parameters of a host template
around it (`k<T, 512>` in `launch<T>`) taken from that template's own instantiations, and
`scalar_t` from PyTorch's dispatch macros (find_instantiations); a template nothing names gets
chosen values. How: libclang does not expose instantiated bodies, so each instance gets a copy
of the template's text in its own namespace, preceded by the template parameters as constants
(`constexpr int BLOCK = 256;`, `using T = float;`) and a `#line` directive that keeps every
location on the user's original lines. The file is parsed again with those copies appended; the
copies are ordinary kernels to the rest of the front end.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path

from porter.frontends.cuda import parse as ct
from porter.frontends.cuda.units import user_top_level

NAMESPACE = "tp_inst_"


@dataclass
class Instantiation:
    name: str          # the template's name
    args: list         # template argument texts, in order
    namespace: str
    origin: str = "launch"  # "launch": named in the project; "chosen": no instantiation found
    block: tuple | None = None  # the block of a `k<...><<<grid, 128>>>` that names it, when constant
    params: tuple = ()  # the template's parameter names, in order
    file: str = ""  # the file that defines the template (its instances are that file's kernels)
    kinds: tuple = ()  # per parameter: "type", or the C type of a value parameter
    stand_in_of: str = ""  # a stand-in instance (generic_templates.py): the real one's namespace

    @property
    def template_args(self) -> str:
        return "<" + ", ".join(self.args) + ">"

    def block_parameter(self):
        """The block a value parameter named for it gives (`blockSize`, `BLOCK_THREADS`,
        `NUM_THREADS`: the kernel's shared arrays and strides assume it), else None."""
        for name, arg in zip(self.params, self.args):
            lowered = name.lower()
            if ("block" in lowered or "thread" in lowered) and arg.rstrip("uUlL").isdigit() and \
                    1 <= int(arg.rstrip("uUlL")) <= 1024 and "dim" not in lowered:
                return (int(arg.rstrip("uUlL")),)
        return None


#: Instances of one template kernel that are ported and verified (a dispatch `switch` over ten
#: block sizes and three types names thirty): the ones that cover the most distinct values.
MAX_INSTANCES = 4


def _template_args(call, K) -> list | None:
    """`reduce<256, float>` -> ["256", "float"] from the callee's tokens."""
    callee = next(iter(call.get_children()), None)
    if callee is None:
        return None
    tokens = [t.spelling for t in callee.get_tokens()]
    if "<" not in tokens:
        return None
    parsed = _angle_args(tokens, tokens.index("<"))
    return [" ".join(a) for a in parsed[0]] if parsed else None


def _angle_args(tokens: list, at: int):
    """The argument token lists of the `<...>` that opens at tokens[at], and the index past its
    `>`; None when it does not close (a less-than, not a template argument list)."""
    depth, args, current, parens = 0, [], [], 0
    for i in range(at, min(len(tokens), at + 200)):
        tok = tokens[i]
        if tok in "([{":
            parens += 1
        elif tok in ")]}":
            parens -= 1
            if parens < 0:
                return None
        elif tok in (";", "{", "}"):
            return None
        if parens == 0 and tok == "<":
            depth += 1
            if depth == 1:
                continue
        elif parens == 0 and tok in (">", ">>"):
            depth -= len(tok)
            if depth <= 0:
                args.append(current)
                return [a for a in args if a], i + 1
        elif parens == 0 and tok == "," and depth == 1:
            args.append(current)
            current = []
            continue
        current.append(tok)
    return None


@dataclass
class _Template:
    """A template of the user's files: a kernel's, or host code's (a function or a class) whose
    instantiations name the kernel's."""

    name: str
    params: list       # parameter names
    kinds: list        # "type" or the C type of a value parameter
    defaults: list     # default argument tokens, or None
    file: str
    start: int         # offsets of its extent in its file
    end: int


def _template_of(c, K) -> _Template:
    params, kinds, defaults = [], [], []
    for p in c.get_children():
        if p.kind not in (K.TEMPLATE_TYPE_PARAMETER, K.TEMPLATE_NON_TYPE_PARAMETER):
            continue
        tokens = [t.spelling for t in p.get_tokens()]
        params.append(p.spelling)
        kinds.append("type" if p.kind == K.TEMPLATE_TYPE_PARAMETER else p.type.spelling)
        defaults.append(tokens[tokens.index("=") + 1:] if "=" in tokens else None)
    return _Template(c.spelling, params, kinds, defaults, c.location.file.name, c.extent.start.offset,
                     c.extent.end.offset)


def _namespace_members(cursors, K):
    """The user's declarations at namespace scope (namespaces and `extern "C"` entered, system
    ones skipped; a walk of every cursor visited the bodies of the standard headers' functions
    too, 0.7 s of a 1.6 s convert)."""
    for c in cursors:
        if c.kind in (K.NAMESPACE, K.LINKAGE_SPEC, K.UNEXPOSED_DECL):
            if not c.location.is_in_system_header:
                yield from _namespace_members(c.get_children(), K)
        else:
            yield c


def _is_kernel(c, K) -> bool:
    return any(ch.kind == K.CUDAGLOBAL_ATTR for ch in c.get_children())


def _host_templates(tu, K) -> list:
    """Host function and class templates of the user's files, and out-of-line members of class
    templates (as their class: `template <class R> void Engine<R>::run()` sees R)."""
    out = []
    for c in _namespace_members(user_top_level(tu), K):
        if c.kind in (K.FUNCTION_TEMPLATE, K.CLASS_TEMPLATE) and c.location.file and not _is_kernel(c, K):
            out.append(_template_of(c, K))
        elif c.kind == K.CXX_METHOD and c.semantic_parent is not None and \
                c.semantic_parent.kind == K.CLASS_TEMPLATE and c.location.file:
            owner = _template_of(c.semantic_parent, K)
            owner.file, owner.start, owner.end = c.location.file.name, c.extent.start.offset, c.extent.end.offset
            out.append(owner)
    return out


_IDENTIFIER_OK = {"true", "false", "sizeof", "int", "unsigned", "long", "short", "char", "float",
                  "double", "size_t"}


def _is_value(tokens: list) -> bool:
    """A value argument that is a constant here: literals and operators, no host variables."""
    return all(t in _IDENTIFIER_OK or not (t[0].isalpha() or t[0] == "_") for t in tokens)


def find_instantiations(tu, K, templates) -> list:
    """Each template kernel's instantiations as the project names them: `k<float, 256><<<...>>>`,
    `k<T, 512>` inside a host template whose own instantiations (`template void
    reduce<int>(...)`, `runTest<float>(...)`, `Engine<double>`) give T, at most MAX_INSTANCES
    each; a template the project never instantiates gets values chosen from its defaults
    (types: float, values: 256, a block size the default launch agrees with)."""
    kernels = {t.spelling: _template_of(t, K) for t in templates}
    hosts = _host_templates(tu, K)
    named = {t.name for t in hosts} | set(kernels)
    mentions = []  # (name, [arg tokens], file, offset, block, {dispatch alias: [types]})
    for path in sorted({t.file for t in hosts} | {t.file for t in kernels.values()} | _user_files(tu)):
        tokens = _file_tokens(tu, path)
        spellings = [t.spelling for t in tokens]
        dispatches = _dispatch_spans(spellings)
        for i, tok in enumerate(spellings[:-1]):
            if tok in named and spellings[i + 1] == "<" and (i == 0 or spellings[i - 1] not in ("class", "struct")):
                parsed = _angle_args(spellings, i + 1)
                if parsed:
                    aliases = next((types for a, b, types in dispatches if a < i < b), {})
                    mentions.append((tok, parsed[0], path, tokens[i].extent.start.offset,
                                     _launch_block(spellings, parsed[1]), aliases))
    by_name = {t.name: t for t in hosts}
    constants = _namespace_constants(tu, K)
    bindings: dict = {name: [] for name in named}
    blocks: dict = {}  # a kernel's argument tuple -> the constant block of a launch naming it
    for _ in range(6):  # host templates calling host templates: a few levels settle it
        grew = False
        for name, args, path, offset, block, aliases in mentions:
            context = _context(hosts, name, path, offset)
            envs = [constants] if context is None else \
                [{**constants, **dict(zip(context.params, b))} for b in bindings[context.name]]
            envs = [{**env, **{a: t.split() for a, t in zip(aliases, types)}} for env in envs
                    for types in itertools.product(*aliases.values())]
            target = kernels.get(name) or by_name.get(name)
            for env in envs:
                concrete = _complete(target, [_substitute(a, env) for a in args])
                if concrete is None or (context is not None and
                                        any(t in context.params for a in concrete for t in a)):
                    continue
                if concrete not in bindings[name] and len(bindings[name]) < 64:
                    bindings[name].append(concrete)
                    grew = True
                if block is not None and concrete not in blocks:
                    blocks[concrete] = _block_value(_substitute(block, env))
        if not grew:
            break
    found = []
    for name, template in kernels.items():
        chosen = _spread(bindings[name])
        origin = "launch"
        if not chosen:
            fallback = _complete(template, [], choose=True)
            chosen, origin = ([fallback] if fallback else []), "chosen"
        for args in chosen:
            found.append(Instantiation(name, [" ".join(a) for a in args], f"{NAMESPACE}{len(found)}", origin,
                                       blocks.get(args), tuple(template.params), kinds=tuple(template.kinds)))
    return found


#: PyTorch's dispatch macros (`AT_DISPATCH_FLOATING_TYPES_AND_HALF(t, "name", [&] {
#: k<scalar_t><<<...>>>(...); })`): the C types `scalar_t` takes, by the macro name's parts and
#: the extra ScalarTypes an `_AND2(at::kHalf, at::kBFloat16, ...)` form lists.
_DISPATCH_TYPES = {
    "FLOATING_TYPES": ("float", "double"),
    "REDUCED_FLOATING_TYPES": ("__half", "__nv_bfloat16"),
    "INTEGRAL_TYPES": ("unsigned char", "signed char", "short", "int", "long long"),
    "ALL_TYPES": ("unsigned char", "signed char", "short", "int", "long long", "float", "double"),
    "HALF": ("__half",), "BFLOAT16": ("__nv_bfloat16",),
}
_SCALAR_TYPES = {"Half": "__half", "kHalf": "__half", "BFloat16": "__nv_bfloat16", "kBFloat16": "__nv_bfloat16",
                 "Float": "float", "kFloat": "float", "Double": "double", "kDouble": "double",
                 "Int": "int", "kInt": "int", "Long": "long long", "kLong": "long long", "Bool": "bool", "kBool": "bool"}


def _dispatch_spans(tokens: list) -> list:
    """(first, last token index, {"scalar_t": types}) of each AT_DISPATCH_* call."""
    spans = []
    for i, tok in enumerate(tokens[:-1]):
        if not tok.startswith("AT_DISPATCH_") or tokens[i + 1] != "(":
            continue
        depth, end, first_arg = 0, None, []
        for j in range(i + 1, len(tokens)):
            depth += tokens[j] == "("
            depth -= tokens[j] == ")"
            if depth == 1 and tokens[j] == "," and not first_arg:
                first_arg = tokens[i + 2:j]
            if depth == 0:
                end = j
                break
        if end is None:
            continue
        types = []
        for part, names in _DISPATCH_TYPES.items():
            if part in tok:
                types += [t for t in names if t not in types]
        if "_AND" in tok:  # the extra ScalarTypes before the tensor's dtype argument
            types += [_SCALAR_TYPES[t] for t in tokens[i + 2:end] if t in _SCALAR_TYPES
                      and _SCALAR_TYPES[t] not in types]
        if types:
            spans.append((i, end, {"scalar_t": types}))
    return spans


def _launch_block(tokens: list, at: int):
    """The block tokens of the `<<<grid, block, ...>>>` at tokens[at], else None."""
    if at >= len(tokens) or tokens[at] != "<<<":
        return None
    parts, current, depth = [], [], 0
    for tok in tokens[at + 1:at + 200]:
        if tok == ">>>" and depth == 0:
            parts.append(current)
            break
        depth += tok in "([{"
        depth -= tok in ")]}"
        if tok == "," and depth == 0:
            parts.append(current)
            current = []
        else:
            current.append(tok)
    return parts[1] if len(parts) > 1 else None


def _block_value(tokens: list):
    """`128`, `dim3(16, 16)`: the block as a tuple of ints, else None (a host variable)."""
    numbers = [t.rstrip("uUlL") for t in tokens if t not in ("dim3", "(", ")", ",")]
    if numbers and len(numbers) <= 3 and all(n.isdigit() for n in numbers):
        return tuple(int(n) for n in numbers)
    return None


def _user_files(tu) -> set:
    return {c.location.file.name for c in user_top_level(tu) if c.location.file}


def _file_tokens(tu, path: str) -> list:
    ci = ct.cindex()
    f = tu.get_file(path)
    size = Path(path).stat().st_size
    extent = ci.SourceRange.from_locations(ci.SourceLocation.from_offset(tu, f, 0),
                                           ci.SourceLocation.from_offset(tu, f, size))
    return list(tu.get_tokens(extent=extent))


def _context(hosts, name, path, offset):
    """The innermost host template around a mention (whose parameters it may name)."""
    best = None
    for t in hosts:
        if t.file == path and t.start <= offset < t.end and t.name != name:
            if best is None or t.end - t.start < best.end - best.start:
                best = t
    return best


def _namespace_constants(tu, K) -> dict:
    """Integer constants at namespace scope (`constexpr int blockSize = 16;`, `const int N = 4;`)
    by name -> their value's tokens: a launch's `k<blockSize>` names one."""
    out = {}
    for c in _namespace_members(user_top_level(tu), K):
        if c.kind == K.VAR_DECL and c.type.is_const_qualified():
            value = ct.evaluate(c)
            if isinstance(value, int) and not isinstance(value, bool):
                out[c.spelling] = [str(value)]
    return out


def _substitute(tokens: list, env: dict) -> list:
    out = []
    for t in tokens:
        out += list(env[t]) if t in env else [t]
    return out


def _complete(template, args: list, choose: bool = False):
    """The full argument list (defaults filled in, each a token tuple), or None when an argument
    is missing or a value argument is not a constant here; choose: values for those missing."""
    if template is None or len(args) > len(template.params):
        return None
    full = list(args)
    for kind, default in list(zip(template.kinds, template.defaults))[len(args):]:
        if default is not None:
            full.append(default)
        elif not choose:
            return None
        else:
            full.append(["float"] if kind == "type" else ["true"] if kind == "bool" else ["256"])
    for kind, arg in zip(template.kinds, full):
        if kind != "type" and not _is_value(arg):
            return None
    return tuple(tuple(a) for a in full)


def _spread(candidates: list) -> list:
    """At most MAX_INSTANCES of the candidates, each next one the one that adds the most
    (parameter, value) pairs not yet covered (types and sizes both get exercised)."""
    chosen, seen = [], set()
    rest = list(candidates)
    while rest and len(chosen) < MAX_INSTANCES:
        best = max(rest, key=lambda c: sum((i, a) not in seen for i, a in enumerate(c)))
        rest.remove(best)
        chosen.append(best)
        seen.update(enumerate(best))
    return chosen


def instantiation_source(template, inst: Instantiation, K) -> str:
    """The template's text as a plain kernel in its own namespace, on its original lines (of
    its own file: a header's template too)."""
    path = template.location.file.name
    data = Path(path).read_bytes()
    params = [c for c in template.get_children()
              if c.kind in (K.TEMPLATE_TYPE_PARAMETER, K.TEMPLATE_NON_TYPE_PARAMETER)]
    lines = [f"namespace {inst.namespace} {{"]
    for param, arg in zip(params, inst.args):
        if param.kind == K.TEMPLATE_TYPE_PARAMETER:
            lines.append(f"using {param.spelling} = {arg};")
        else:
            lines.append(f"constexpr {param.type.spelling} {param.spelling} = {arg};")
    start, end = template.extent.start.offset, template.extent.end.offset
    source = data[start:end].decode("utf-8", errors="replace")
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


def template_values(kernel, inst: Instantiation, K) -> tuple:
    """((name, "type" | "value"), ...) and this instance's values, read from the constants and
    aliases its copy declares (instantiation_source): a type as its dtype (`float` -> "float32",
    a typedef to it too), or its C spelling when it is no scalar; a value as clang evaluates it."""
    from porter.diagnostics import TileportError
    from porter.frontends.cuda.types import dtype_of

    declared = {c.spelling: c for c in (kernel.semantic_parent.get_children() if kernel.semantic_parent else ())
                if c.kind in (K.TYPE_ALIAS_DECL, K.VAR_DECL)}
    params, values = [], []
    for name, arg in zip(inst.params, inst.args):
        decl = declared.get(name)
        if decl is not None and decl.kind == K.TYPE_ALIAS_DECL:
            params.append((name, "type"))
            try:
                values.append(dtype_of(decl.underlying_typedef_type))
            except TileportError:
                values.append(arg)
            continue
        params.append((name, "value"))
        value = ct.evaluate(decl) if decl is not None else None
        values.append(value if isinstance(value, (int, bool)) else arg)
    return tuple(params), tuple(values)


def kernel_templates(tu, K, path_ok) -> list:
    """`template <...> __global__ void k(...)` definitions of the user's files (kernels live at
    namespace scope)."""
    return [c for c in _namespace_members(user_top_level(tu), K)
            if c.kind == K.FUNCTION_TEMPLATE and path_ok(c) and c.is_definition() and _is_kernel(c, K)]


__all__ = ["Instantiation", "find_instantiations", "instantiation_source", "kernel_templates",
           "template_values", "ct"]
