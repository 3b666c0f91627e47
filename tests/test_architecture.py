"""porter/'s import graph keeps ../shared/ARCHITECTURE.md's one-way street: no circles, and no
import against its rules, counting imports inside functions (and the parent packages an import
runs) too."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "porter"

#: What the lowest rooms may import of ours: ir/ only the leaves.
_LEAVES = ("porter", "porter.diagnostics", "porter.builtins", "porter.util")

#: (importer's room, imported room, why not): a room is porter's sub-package or top module.
_FORBIDDEN = (
    ("match", "frontends", "match/ works on IR, whichever front end made it"),
    ("emit", "frontends", "emit/ prints IR, whichever front end made it"),
    ("frontends", "emit", "a front end decides on IR, never on printed text"),
    ("frontends", "match", "a front end never depends on a tile rule"),
    ("verify", "match", "verify may read the IR for sizes and signatures, never trust a rule"),
    ("emit", "transforms", "emit/ prints what transforms/printable.py made; it changes no IR"),
    ("emit", "match", "emit/ prints; the rules ran before it"),
    ("emit", "generic", "the printer never judges which values a program takes"),
)


def _modules() -> dict:
    """Dotted module name -> path, for every module of the package."""
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _imported(module: str, is_package: bool, node, modules: dict) -> list:
    """The modules of ours an import statement runs: each named one and its parent packages."""
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        base = node.module or ""
        if node.level:
            parts = module.split(".")[: len(module.split(".")) - node.level + (1 if is_package else 0)]
            base = ".".join(parts + ([node.module] if node.module else []))
        names = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
    out = []
    for name in names:
        if not name.startswith("porter"):
            continue
        while name not in modules and "." in name:
            name = name.rsplit(".", 1)[0]
        parts = name.split(".")
        out += [".".join(parts[:n]) for n in range(2, len(parts) + 1)]  # `porter` itself is a leaf
    return out


def import_graph() -> dict:
    """Module -> the modules of ours it imports, at module level or inside a function."""
    modules = _modules()
    graph = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        targets = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                targets.update(_imported(name, path.name == "__init__.py", node, modules))
        # a module's own parent packages are already running when it is imported
        graph[name] = {t for t in targets if t != name and not name.startswith(t + ".")}
    return graph


def cycles(graph: dict) -> list:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def _room(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def violations(graph: dict) -> list:
    """(importer, imported, the rule) for every import against ARCHITECTURE.md's rules."""
    out = []
    for importer, targets in graph.items():
        for target in sorted(targets):
            mine, theirs = _room(importer), _room(target)
            if mine == "ir" and theirs != "ir" and not target.startswith(_LEAVES[1:]):
                out.append((importer, target, "ir/ imports nothing of ours above it"))
            if theirs == "cli" and mine != "cli":
                out.append((importer, target, "nothing but cli.py imports cli"))
            out += [(importer, target, why) for a, b, why in _FORBIDDEN if (mine, theirs) == (a, b)]
    return out


def test_porter_has_no_import_cycles():
    assert cycles(import_graph()) == []


def test_no_import_breaks_the_architecture_rules():
    assert violations(import_graph()) == []


def test_the_graph_sees_imports_inside_functions_and_parent_packages():
    graph = import_graph()
    # porter/cli.py imports the pipeline inside its commands only
    assert "porter.pipeline" in graph["porter.cli"]
    # `from porter.frontends.triton.values import ...` also runs porter/frontends/triton/__init__.py
    assert "porter.frontends.triton" in graph["porter.verify.triton_extract"]


def test_a_circle_and_a_broken_rule_are_found():
    graph = {"porter.ir.walk": {"porter.ir.tiles"}, "porter.ir.tiles": {"porter.ir.walk", "porter.emit.layout"},
             "porter.frontends.triton.module": {"porter.emit.tilelang"}, "porter.migrate.ownership": {"porter.cli"},
             "porter.emit.tilelang": {"porter.ir.nodes", "porter.util.files"}}
    assert cycles(graph) == [["porter.ir.tiles", "porter.ir.walk"]]
    assert {(a, b) for a, b, _ in violations(graph)} == {
        ("porter.ir.tiles", "porter.emit.layout"), ("porter.frontends.triton.module", "porter.emit.tilelang"),
        ("porter.migrate.ownership", "porter.cli")}
