"""The file's index (`ModuleInfo`): imports, `@triton.jit` functions, autotune configs,
heuristics, launch sites, and each scope's bindings in order (events)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from porter.diagnostics import Loc
from porter.frontends.triton.static_branches import taken_branch, taken_if_branch, triton_modules


@dataclass
class Event:
    kind: str  # assign, for, param, def, import, opaque
    node: object  # the statement (or ast.arg for params)
    value: object = None  # value node (assign / for iter / import path / param default)
    path: tuple = ()  # tuple-unpacking indices
    pos: tuple = (0, 0)
    annotation: object = None
    index: int | None = None  # positional index of a parameter


@dataclass
class HostScope:
    node: object
    parent: HostScope | None
    events: dict = field(default_factory=dict)

    def add(self, name, ev):
        self.events.setdefault(name, []).append(ev)


def _end(node) -> tuple:
    return (getattr(node, "end_lineno", node.lineno) or node.lineno,
            getattr(node, "end_col_offset", 0) or 0)


def _pos(node) -> tuple:
    return (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))


# Reads of the environment a library configures itself with (`os.environ.get("FAST", "0")`):
# their default, since the environment tileport runs in is not the one the kernels will run in.
_ENVIRONMENT_READS = ("os.environ.get", "os.getenv")


def _tunes_like_autotune(decorator: ast.Call) -> bool:
    """A library's autotuner wrapping the jit function (`@libtuner(configs=..., key=[...])`):
    it takes `triton.autotune`'s configs and key, so its configs feed the constexprs the same
    way."""
    keywords = {k.arg for k in decorator.keywords}
    return "key" in keywords and ("configs" in keywords or bool(decorator.args))


def _module_statements(body: list, modules: dict) -> list:
    """The module's top-level statements, a `try:` standing for the branch tileport takes, and
    an `if` of Triton feature tests for the branch the installed Triton takes (`modules`: the
    module's static_branches.triton_modules)."""
    out = []
    for st in body:
        branch = taken_if_branch(st, modules) if isinstance(st, ast.If) else None
        if isinstance(st, ast.Try):
            out.extend(_module_statements(taken_branch(st) + st.finalbody, modules))
        elif branch is not None:
            out.extend(_module_statements(branch, modules))
        else:
            out.append(st)
    return out


class ModuleInfo:
    """Everything the front end needs to know about the file outside kernel bodies."""

    def __init__(self, path: str, tree: ast.Module):
        self.path = path
        self.tree = tree
        self.imports: dict = {}  # module-level alias -> canonical dotted path
        self.import_from: dict = {}  # alias -> (module, level, name) of `from M import name`
        self.import_module: dict = {}  # alias -> module of `import M as alias`
        self.scopes: list = []
        self.scope_of: dict = {}  # id(node) -> HostScope
        self.functions: dict = {}  # name -> [FunctionDef]
        self.calls: list = []  # (ast.Call, HostScope)
        self._build_scopes()
        self.jit: dict = {}  # name -> FunctionDef (file order)
        self.autotune: dict = {}  # name -> ast.Call of the decorator
        self.heuristics: dict = {}  # name -> ast.Call
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                self._read_decorators(node)
        self.launches: dict = {}  # kernel name -> LaunchSite
        for call, scope in self.calls:
            self._maybe_launch(call, scope)

    # ------------------------------------------------------------------ indexing

    def _build_scopes(self):
        module = HostScope(self.tree, None)
        self.scopes.append(module)
        self._triton_modules = triton_modules(self.tree.body)
        self._scan(self.tree.body, module)
        for node in _module_statements(self.tree.body, self._triton_modules):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.asname:
                        self.imports[a.asname] = a.name
                        self.import_module[a.asname] = a.name
                    else:
                        self.imports[a.name.split(".")[0]] = a.name.split(".")[0]
            elif isinstance(node, ast.ImportFrom) and (node.module or node.level):
                for a in node.names:
                    self.imports[a.asname or a.name] = f"{node.module or ''}.{a.name}".lstrip(".")
                    self.import_from[a.asname or a.name] = (node.module, node.level, a.name)

    def _new_scope(self, node, parent) -> HostScope:
        s = HostScope(node, parent)
        self.scopes.append(s)
        self.scope_of[id(node)] = s
        args = node.args
        positional = list(args.posonlyargs) + list(args.args)
        defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
        for i, (a, d) in enumerate(zip(positional, defaults)):
            s.add(a.arg, Event("param", a, d, (), (0, 0), a.annotation, i))
        for a, d in zip(args.kwonlyargs, args.kw_defaults):
            s.add(a.arg, Event("param", a, d, (), (0, 0), a.annotation, None))
        for extra in (args.vararg, args.kwarg):
            if extra is not None:
                s.add(extra.arg, Event("opaque", extra))
        return s

    def _scan(self, stmts, scope):
        for st in stmts:
            self._scan_stmt(st, scope)

    def _scan_stmt(self, st, scope):
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
            scope.add(st.name, Event("def", st, st, (), _pos(st)))
            for d in st.decorator_list:
                self._scan_expr(d, scope)
            for d in list(st.args.defaults) + [k for k in st.args.kw_defaults if k is not None]:
                self._scan_expr(d, scope)
            self.functions.setdefault(st.name, []).append(st)
            inner = self._new_scope(st, scope)
            self._scan(st.body, inner)
            return
        if isinstance(st, ast.Try) and scope.parent is None:
            self._scan(taken_branch(st) + st.finalbody, scope)  # the branch verify's copy keeps
            return
        branch = taken_if_branch(st, self._triton_modules) if isinstance(st, ast.If) and scope.parent is None else None
        if branch is not None:
            self._scan(branch, scope)  # the branch this Triton takes, as verify's copy does
            return
        if isinstance(st, ast.ClassDef):
            inner = HostScope(st, scope)
            self.scopes.append(inner)
            self._scan(st.body, inner)
            return
        if isinstance(st, ast.Assign):
            for t in st.targets:
                self._targets(t, st, st.value, (), scope, "assign")
        elif isinstance(st, ast.AnnAssign) and st.value is not None:
            self._targets(st.target, st, st.value, (), scope, "assign")
        elif isinstance(st, ast.AugAssign):
            self._targets(st.target, st, None, (), scope, "opaque")
        elif isinstance(st, (ast.For, ast.AsyncFor)):
            self._targets(st.target, st.target, st.iter, (), scope, "for")
        elif isinstance(st, (ast.With, ast.AsyncWith)):
            for item in st.items:
                if item.optional_vars is not None:
                    self._targets(item.optional_vars, st, None, (), scope, "opaque")
        elif isinstance(st, ast.Import):
            for a in st.names:
                name = a.asname or a.name.split(".")[0]
                scope.add(name, Event("import", st, a.name if a.asname else name, (), _end(st)))
        elif isinstance(st, ast.ImportFrom) and st.module:
            for a in st.names:
                scope.add(a.asname or a.name, Event("import", st, f"{st.module}.{a.name}", (), _end(st)))
        for child in ast.iter_child_nodes(st):
            if isinstance(child, ast.stmt):
                self._scan_stmt(child, scope)
            elif isinstance(child, ast.expr):
                self._scan_expr(child, scope)
            elif isinstance(child, ast.excepthandler):
                self._scan(child.body, scope)
            elif isinstance(child, (ast.withitem,)):
                self._scan_expr(child.context_expr, scope)

    def _scan_expr(self, e, scope):
        for node in ast.walk(e):
            self.scope_of.setdefault(id(node), scope)
            if isinstance(node, ast.Lambda):
                inner = self._new_scope(node, self.scope_of[id(node)])
                for sub in ast.walk(node.body):
                    self.scope_of[id(sub)] = inner
            if isinstance(node, ast.Call):
                self.calls.append((node, self.scope_of[id(node)]))

    def _targets(self, t, st, value, path, scope, kind):
        if isinstance(t, ast.Name):
            scope.add(t.id, Event(kind, st, value, path, _end(st) if kind != "for" else _pos(t)))
        elif isinstance(t, (ast.Tuple, ast.List)):
            for i, elt in enumerate(t.elts):
                if isinstance(elt, ast.Starred):
                    self._targets(elt.value, st, None, (), scope, "opaque")
                else:
                    self._targets(elt, st, value, path + (i,), scope, kind)

    # ------------------------------------------------------------------ decorators

    def qualname(self, node) -> str:
        """Static dotted name of a Name/Attribute chain, through module-level imports."""
        if isinstance(node, ast.Name):
            return self.imports.get(node.id, {"tl": "triton.language"}.get(node.id, node.id))
        if isinstance(node, ast.Attribute):
            return f"{self.qualname(node.value)}.{node.attr}"
        return ""

    def is_jit(self, decorator) -> bool:
        """Whether a decorator is Triton's `@triton.jit` (or `jit` imported from it)."""
        q = self.qualname(decorator.func if isinstance(decorator, ast.Call) else decorator)
        return q.split(".")[-1] == "jit" and (q.startswith("triton") or q == "jit")

    def _read_decorators(self, fn):
        is_jit = False
        for d in fn.decorator_list:
            target = d.func if isinstance(d, ast.Call) else d
            q = self.qualname(target)
            short = q.split(".")[-1]
            if self.is_jit(d):
                is_jit = True
            elif isinstance(d, ast.Call) and (short == "autotune" or _tunes_like_autotune(d)):
                self.autotune[fn.name] = d
            elif short == "heuristics" and isinstance(d, ast.Call):
                self.heuristics[fn.name] = d
        if is_jit:
            self.jit[fn.name] = fn

    # ------------------------------------------------------------------ launch sites

    def _maybe_launch(self, call, scope):
        """`kernel[grid](...)`; also through a name: `k = kernel.warmup(...)` then
        `k[grid](...)`, and `k = kernel[grid]` then `k(...)`."""
        f = call.func
        grid = None
        if isinstance(f, ast.Subscript):
            name, grid = self._jit_name(f.value, scope, call), f.slice
        elif isinstance(f, ast.Name):
            bound = self._bound_value(f.id, scope, call)
            if isinstance(bound, ast.Subscript):
                name, grid = self._jit_name(bound.value, scope, call), bound.slice
            else:
                name = None
        else:
            name = None
        if name not in self.jit or (name in self.launches and
                                    _unit_keywords(call) >= _unit_keywords(self.launches[name].call)):
            return  # the first launch, unless it is a degenerate case a later one is not
        warmup = self._warmup_call(f.value if isinstance(f, ast.Subscript) else None, scope, call)
        self.launches[name] = LaunchSite(name, call, grid, scope,
                                         Loc(self.path, call.lineno, call.col_offset + 1), warmup)

    def _warmup_call(self, target, scope, at):
        """The `kernel.warmup(...)` call a launched handle came from (its keywords, such as
        num_warps, hold for the launch too), or None."""
        if not isinstance(target, ast.Name):
            return None
        bound = self._bound_value(target.id, scope, at)
        if isinstance(bound, ast.Call) and isinstance(bound.func, ast.Attribute) and bound.func.attr == "warmup":
            return bound
        return None

    def _jit_name(self, target, scope, at):
        if isinstance(target, ast.Attribute) and target.attr in self.jit:
            return target.attr
        if isinstance(target, ast.Name) and target.id in self.jit:
            return target.id
        warmup = self._warmup_call(target, scope, at)
        if warmup is not None and isinstance(warmup.func.value, ast.Name) and warmup.func.value.id in self.jit:
            return warmup.func.value.id
        return None

    def _bound_value(self, name, scope, at):
        """The value last assigned to `name` in `scope` before `at`, if a plain assignment."""
        best = None
        for ev in scope.events.get(name, ()):
            if ev.kind == "assign" and not ev.path and ev.pos <= (at.lineno, at.col_offset):
                best = ev.value
        return best


@dataclass
class LaunchSite:
    kernel: str
    call: ast.Call
    grid: object
    scope: HostScope
    loc: Loc
    warmup: ast.Call | None = None  # `handle = kernel.warmup(...)` the launch went through

    def args_by_param(self, fn: ast.FunctionDef) -> dict:
        """param name -> host argument node (positional or keyword)."""
        names = [a.arg for a in list(fn.args.posonlyargs) + list(fn.args.args)]
        out = {}
        for i, a in enumerate(self.call.args):
            if isinstance(a, ast.Starred):
                break
            if i < len(names):
                out[names[i]] = a
        for kw in self.call.keywords:
            if kw.arg is not None:
                out[kw.arg] = kw.value
        return out

    def keyword(self, name: str):
        for call in (self.call, self.warmup):
            for kw in call.keywords if call is not None else ():
                if kw.arg == name:
                    return kw.value
        return None


# --------------------------------------------------------------------------- evaluation


def _unit_keywords(call: ast.Call) -> int:
    """How many keywords of a launch are the literal 1 (`BLOCK_SIZE=1`: a scalar's copy beside
    the vector's `BLOCK_SIZE=1024`): the port's defaults come from the launch with fewest, so a
    block of one element is not what it is built and printed for."""
    return sum(isinstance(k.value, ast.Constant) and type(k.value.value) is int and k.value.value == 1
               for k in call.keywords)
