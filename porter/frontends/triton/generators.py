"""Kernel generators: a library's decorator that makes the kernels of a scalar `@triton.jit`
function when the program runs (FlagGems' `@pointwise_dynamic`), expanded here as that library
does, into a real `@triton.jit` kernel the front end converts like any other.

Each generator is a row of GENERATORS: the decorator, matched by the last part of the name it
is imported as (`from mylib.utils import pointwise_dynamic`, `@pwd.pointwise_dynamic(...)`),
and the function that expands it. The expansion keeps the scalar function unchanged, as a helper
the kernel calls (renamed `<name>_scalar`, since the kernel takes the decorated name: corpora
count kernels by their source definition), and says what calling convention the port's host
function keeps (`Expansion.host`, printed by porter/emit/generated_hosts.py). verify builds the
same kernel around the original scalar function (porter/verify/triton_extract.py), so a port is
compared with what the library would have run.

A decorator that is not in the table stays TP203 (module.py); arguments a row cannot read are
TP203 for that function only.
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass, field
from collections.abc import Callable

from porter.diagnostics import Loc, TileportError
from porter.frontends.triton.tables import _unique

#: The names the synthesized code gives triton and triton.language where the module's own
#: cannot serve (a kernel appended to a module must not rebind its names). triton.language is
#: `tl` wherever the module leaves that name free: the interpreter compiles a kernel's source
#: again with annotations as text, and takes only `tl.constexpr` (or `constexpr`) for one.
TRITON, TL = "_tileport_triton", "_tileport_tl"

#: The tile each program of a synthesized elementwise kernel covers.
BLOCK = 1024


@dataclass
class Expansion:
    name: str                   # the decorated function's name: the kernel's
    scalar: str                 # the name its scalar function takes beside the kernel
    kernel: ast.FunctionDef     # the synthesized @triton.jit kernel
    imports: str = ""           # what it needs imported beside the module's own imports
    host: dict = field(default_factory=dict)  # the port's calling convention (generated_hosts.py)


@dataclass(frozen=True)
class Generator:
    decorator: str              # the last part of the decorator's qualified name
    expand: Callable            # (fn, decorator ast.Call, scalar name, annotate, path, (triton, tl)) -> Expansion
    what: str


def import_names(tree: ast.Module) -> dict:
    """Module-level alias -> dotted path it names (`pointwise_dynamic` ->
    `flag_gems.utils.pointwise_dynamic`)."""
    names = {}
    for node in tree.body:
        if isinstance(node, ast.Import):
            for a in node.names:
                names[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom):
            for a in node.names:
                names[a.asname or a.name] = f"{node.module or ''}.{a.name}".lstrip(".")
    return names


def _qualname(node, imports: dict) -> str:
    if isinstance(node, ast.Name):
        return imports.get(node.id, node.id)
    if isinstance(node, ast.Attribute):
        base = _qualname(node.value, imports)
        return f"{base}.{node.attr}" if base else ""
    return ""


def generator_of(decorator, imports: dict) -> Generator | None:
    """The table's row for a decorator, or None (triton's own, or a decorator not listed)."""
    q = _qualname(decorator.func if isinstance(decorator, ast.Call) else decorator, imports)
    if not q or q.startswith("triton"):
        return None
    return next((g for g in GENERATORS if q.split(".")[-1] == g.decorator), None)


def generated_functions(tree: ast.Module) -> list:
    """(function, decorator, Generator) for each module-level function under a listed generator."""
    imports = import_names(tree)
    out = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            for d in node.decorator_list:
                g = generator_of(d, imports)
                if g is not None:
                    out.append((node, d, g))
                    break
    return out


def expand(tree: ast.Module, path: str, annotate: bool = True) -> tuple:
    """([Expansion], [(function, TileportError)]) for the generated functions of `tree`.

    annotate: type the kernel's parameters (`x: tl.pointer_type(tl.float32)`) for the front
    end; verify's copy runs the kernel unannotated, typed by the arguments it is given."""
    taken = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))} | \
        set(import_names(tree)) | {t.id for n in tree.body if isinstance(n, ast.Assign)
                                   for t in n.targets if isinstance(t, ast.Name)}
    names = import_names(tree)
    triton = next((a for a, q in names.items() if q == "triton"), TRITON)
    tl = "tl" if names.get("tl") == "triton.language" or "tl" not in taken else \
        next((a for a, q in names.items() if q == "triton.language"), TL)
    imports = "\n".join(([f"import triton as {TRITON}"] if triton == TRITON else []) +
                        ([f"import triton.language as {tl}"] if names.get(tl) != "triton.language" else []))
    expansions, failures = [], []
    for fn, decorator, g in generated_functions(tree):
        scalar = _unique(f"{fn.name}_scalar", taken)
        taken.add(scalar)
        try:
            e = g.expand(fn, decorator, scalar, annotate, path, (triton, tl))
        except TileportError as exc:
            failures.append((fn, exc))
            continue
        e.imports = imports
        expansions.append(e)
    return expansions, failures


def expanded_tree(tree: ast.Module, expansions: list) -> ast.Module:
    """`tree` with each generated function replaced by its scalar function (renamed, a plain
    `@triton.jit` helper at its own lines) and the kernel made around it; the kernel's
    imports come first."""
    by_name = {e.name: e for e in expansions}
    body = ast.parse(expansions[0].imports).body if expansions else []
    for node in tree.body:
        e = by_name.get(node.name) if isinstance(node, ast.FunctionDef) else None
        if e is None:
            body.append(node)
            continue
        helper = copy.deepcopy(node)
        helper.name = e.scalar
        helper.decorator_list = [ast.copy_location(e.kernel.decorator_list[0], node.decorator_list[-1])]
        body += [helper, e.kernel]
    new = ast.Module(body=body, type_ignores=[])
    ast.fix_missing_locations(new)
    return new


def kernel_source(expansion: Expansion) -> str:
    """The kernel as source, with the helper's alias: appended to verify's copy of the module,
    where the scalar function keeps its name until the kernel takes it."""
    return "\n".join([expansion.imports, f"{expansion.scalar} = {expansion.name}",
                      ast.unparse(expansion.kernel), ""]).lstrip("\n")


# --------------------------------------------------------------------------- pointwise_dynamic

#: The promotion kinds of torch's elementwise type promotion (torch._prims_common), and the
#: dtype each gives when the tensor inputs are float32 (the dtype a port is converted for), or
#: int32 (for a body Triton refuses on floats: bitwise operators, integer `//`).
PROMOTIONS = {"DEFAULT": "float32", "NO_OPMATH": "float32", "INT_TO_FLOAT": "float32",
              "ALWAYS_BOOL": "bool", "COMPLEX_TO_FLOAT": "float32", "BOOL_TO_LONG": "float32"}
INT_PROMOTIONS = {"DEFAULT": "int32", "NO_OPMATH": "int32", "INT_TO_FLOAT": "float32",
                  "ALWAYS_BOOL": "bool", "COMPLEX_TO_FLOAT": "int32", "BOOL_TO_LONG": "int32"}
#: The input dtypes a generated elementwise kernel is converted for, in order: the next is
#: tried when Triton refuses the body on the previous (TP225).
INPUT_DTYPES = {"float32": PROMOTIONS, "int32": INT_PROMOTIONS}
#: A scalar input's declared Python type (`dtypes=[None, float]`) as a Triton type.
_SCALAR_TYPES = {"float": "float32", "int": "int32", "bool": "int1"}
_TL_NAMES = {"float32": "float32", "int32": "int32", "bool": "int1"}


def retype(kernel: ast.FunctionDef, host: dict, dtype: str) -> None:
    """Annotate the tensor parameters of a synthesized elementwise kernel for inputs of `dtype`
    (one of INPUT_DTYPES), its outputs as promotion gives them."""
    tl = host["tl"]
    pointer = "{tl}.pointer_type({tl}.{t})"
    types = {p: dtype for p, is_tensor in host["inputs"] if is_tensor}
    types.update({o: INPUT_DTYPES[dtype][kind] for o, (_, kind) in zip(host["outputs"], host["promotions"])})
    for a in kernel.args.args:
        if a.arg in types:
            a.annotation = ast.copy_location(
                ast.parse(pointer.format(tl=tl, t=_TL_NAMES[types[a.arg]]), mode="eval").body, a)
    ast.fix_missing_locations(kernel)
    host["dtype"] = dtype


def _keywords(call, fn, path) -> dict:
    def refuse(why, node):
        raise TileportError("TP203", f"'{fn.name}': cannot read @{ast.unparse(call.func)}(...): {why}; "
                            "tileport expands it when its arguments are literals",
                            Loc(path, getattr(node, "lineno", fn.lineno), getattr(node, "col_offset", 0) + 1))

    if not isinstance(call, ast.Call) or call.args:
        refuse("its arguments are not keywords", call)
    out = {}
    for k in call.keywords:
        if k.arg == "dtypes" and isinstance(k.value, (ast.List, ast.Tuple)):
            out["dtypes"] = [None if isinstance(e, ast.Constant) and e.value is None else
                             e.id if isinstance(e, ast.Name) else ast.unparse(e) for e in k.value.elts]
            continue
        if k.arg == "config":
            continue  # tile sizes and grid limits of the library's launch: the port has its own
        try:
            out[k.arg] = ast.literal_eval(k.value)
        except ValueError:
            refuse(f"`{k.arg}={ast.unparse(k.value)}` is not a literal", k.value)
    methods = out.get("promotion_methods")
    if not methods or not all(isinstance(m, (tuple, list)) and m and m[-1] in PROMOTIONS for m in methods):
        refuse("promotion_methods must list (argument indices..., KIND) per output, KIND one of "
               + ", ".join(PROMOTIONS), call)
    return out


def expand_pointwise(fn: ast.FunctionDef, call, scalar: str, annotate: bool, path: str,
                     spelling: tuple) -> Expansion:
    """The kernel FlagGems' pointwise_dynamic generates, over the flat elements of its (already
    broadcast, contiguous) tensors: each tensor input loaded at `offsets` under the mask,
    scalar inputs passed through, the scalar function called, each output stored."""
    kw = _keywords(call, fn, path)
    params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
    dtypes = kw.get("dtypes")
    n = kw.get("num_inputs") or len(kw.get("is_tensor") or dtypes or params)
    is_tensor = kw.get("is_tensor") or ([d is None for d in dtypes] if dtypes else [True] * n)
    dtypes = dtypes or [None] * n
    methods = [tuple(m) for m in kw["promotion_methods"]]
    outputs = kw.get("num_outputs") or len(methods)
    if not (n == len(params) == len(is_tensor) == len(dtypes)) or outputs != len(methods):
        raise TileportError("TP203", f"'{fn.name}' takes {len(params)} arguments but "
                            f"@{ast.unparse(call.func)} describes {n} inputs and {len(methods)} "
                            f"promotion methods for {outputs} outputs", Loc(path, fn.lineno, fn.col_offset + 1))
    triton, tl = spelling
    taken = set(params) | {triton, tl, scalar}

    def name(hint):
        chosen = _unique(hint, taken)
        taken.add(chosen)
        return chosen

    outs = [name(f"out{i}") for i in range(outputs)]
    count, block, pid, offsets, mask = (name(h) for h in ("n_elements", "BLOCK_SIZE", "pid", "offsets", "mask"))
    values = {p: name(f"{p}_value") for p, t in zip(params, is_tensor) if t}
    results = [name(f"{o}_value") for o in outs]

    def typed(p, tl_type):
        return f"{p}: {tl}.{tl_type}" if annotate and tl_type else p

    signature = []
    for p, t, d in zip(params, is_tensor, dtypes):
        signature.append(p if t else typed(p, _SCALAR_TYPES.get(d)))
    signature += outs
    signature += [typed(count, "int32"), f"{block}: {tl}.constexpr = {BLOCK}"]
    args = ", ".join(values.get(p, p) for p in params)
    lines = [f"@{triton}.jit", f"def {fn.name}({', '.join(signature)}):",
             f"    {pid} = {tl}.program_id(0)",
             f"    {offsets} = {pid} * {block} + {tl}.arange(0, {block})",
             f"    {mask} = {offsets} < {count}"]
    lines += [f"    {v} = {tl}.load({p} + {offsets}, mask={mask})" for p, v in values.items()]
    lines.append(f"    {', '.join(results)} = {scalar}({args})")
    lines += [f"    {tl}.store({o} + {offsets}, {r}, mask={mask})" for o, r in zip(outs, results)]
    kernel = ast.parse("\n".join(lines)).body[0]
    for node in ast.walk(kernel):  # the synthesized lines point at the decorated function's
        if hasattr(node, "lineno"):
            node.lineno, node.end_lineno = fn.lineno, fn.lineno
            node.col_offset, node.end_col_offset = fn.col_offset, fn.col_offset
    host = {"generator": "pointwise_dynamic", "inputs": list(zip(params, is_tensor)), "outputs": outs,
            "promotions": [(list(m[:-1]), m[-1]) for m in methods], "count": count, "block": block,
            "tl": tl}
    if annotate:
        retype(kernel, host, next(iter(INPUT_DTYPES)))
    return Expansion(fn.name, scalar, kernel, host=host)


GENERATORS = (
    Generator("pointwise_dynamic", expand_pointwise,
              "FlagGems' elementwise template: the scalar function is the body of a kernel over "
              "the broadcast elements of its tensor inputs, outputs typed by torch's promotion"),
)
