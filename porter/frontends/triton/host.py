"""Host-side reading of a Triton file, from its `ast` only (user code is never imported or run).

`ModuleInfo` indexes the file: imports, `@triton.jit` functions, `@triton.autotune` configs,
`@triton.heuristics`, and `kernel[grid](args...)` launch sites anywhere in the module. A small
abstract evaluator (`HostEval`) answers what a host expression is: a constant (constexpr values,
block sizes, num_warps), a torch tensor of some dtype (buffer dtypes), an int or float (scalar
parameter types), or a grid expression in terms of the kernel's scalar parameters.

Names are resolved to their binding at the point of use (the last assignment before it in
the same function, then enclosing scopes); a host function's parameter is resolved through
every call of that function in the file (`Cls.apply(...)` for a torch.autograd.Function's
forward), through its default and annotation, and through the function's own
`assert x.dtype == ...`.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from porter.diagnostics import Loc
from porter.ir.fold import fold
from porter.ir.nodes import BinOp, Call, Cast, Const, Var
from porter.frontends.triton.static_branches import taken_branch, taken_if_branch, triton_modules
from porter.frontends.triton.values import TL_DTYPES, TORCH_DTYPES, same_node
from porter.util.numbers import next_power_of_2

# --------------------------------------------------------------------------- host values


@dataclass(frozen=True)
class Binding:
    scope: int  # id of the HostScope
    name: str
    index: int  # event index in that scope


@dataclass
class HConst:
    value: object


@dataclass
class HTensor:
    dtype: str | None = None
    like: Binding | None = None  # same dtype as the tensor bound there


@dataclass
class HScalar:
    kind: str  # "int" / "float"
    options: tuple = ()  # the constants it may be (`3 if causal else 1`), when all are known


@dataclass
class HDType:
    dtype: str | None
    like: Binding | None = None
    # with `like` and no dtype: the dtype is mapped from that tensor's (`tl.float32 if
    # x.dtype == torch.float32 else tl.bfloat16`): its entry in `mapping`, else `otherwise`,
    # else the tensor's own
    mapping: tuple = ()
    otherwise: str | None = None

    def of(self, tensor_dtype: str) -> str:
        """This dtype once the tensor it follows is known to be `tensor_dtype`."""
        return dict(self.mapping).get(tensor_dtype, self.otherwise or tensor_dtype)


@dataclass
class HTuple:
    items: tuple


@dataclass
class HDict:
    items: dict


@dataclass(frozen=True)
class DTypeKey:
    """A dtype as a dict key (`torch_to_triton_dtype = {torch.float16: tl.float16, ...}`)."""
    dtype: str


def _dtype_entry(table: HDict, key: HDType):
    """`table[x.dtype]`: the entry of a known dtype; for a dtype known only as "that of tensor
    x", x's dtype mapped through the table (torch's dtypes to Triton's: x's own)."""
    if key.dtype:
        return table.items.get(DTypeKey(key.dtype), UNKNOWN)
    if not key.mapping and table.items and all(isinstance(k, DTypeKey) and isinstance(v, HDType) and v.dtype
                                               for k, v in table.items.items()):
        return HDType(None, key.like, tuple((k.dtype, v.dtype) for k, v in table.items.items()))
    return UNKNOWN


@dataclass
class HFunc:
    node: object  # ast.Lambda / ast.FunctionDef
    scope: object  # HostScope of the function itself


@dataclass
class HConfig:
    kwargs: dict
    num_warps: object = None
    num_stages: object = None


@dataclass
class HModule:
    path: str


@dataclass
class HShape:
    pass


@dataclass
class HMulti:
    options: list


@dataclass
class HUnknown:
    pass


UNKNOWN = HUnknown()

_TORCH_NEW = {"empty", "zeros", "ones", "randn", "rand", "full", "empty_strided", "linspace",
              "logspace", "normal", "eye"}
_TORCH_LIKE = {"empty_like", "zeros_like", "ones_like", "randn_like", "rand_like", "full_like"}
_TORCH_INT64 = {"randint", "randperm"}
_TENSOR_DTYPE_METHODS = {"half": "float16", "float": "float32", "double": "float64",
                         "bfloat16": "bfloat16", "int": "int32", "long": "int64", "bool": "bool",
                         "short": "int16", "char": "int8", "byte": "uint8"}
_TENSOR_INT_METHODS = {"numel", "size", "stride", "dim", "element_size", "nelement", "ndimension",
                       "storage_offset", "__len__"}
_TENSOR_SAME_METHODS = {"contiguous", "view", "reshape", "flatten", "t", "transpose", "permute",
                        "clone", "detach", "cuda", "cpu", "expand", "expand_as", "squeeze",
                        "unsqueeze", "narrow", "view_as", "reshape_as", "abs", "neg", "ravel",
                        "requires_grad_", "add", "mul", "sub", "div", "sigmoid", "exp", "relu",
                        "clamp", "pin_memory", "as_strided", "movedim", "select", "uniform_",
                        "normal_", "fill_", "zero_", "copy_", "mul_", "add_", "__getitem__"}


# methods that only torch tensors have: an unknown receiver of one of them is a tensor
_TENSOR_ONLY_METHODS = (set(_TENSOR_DTYPE_METHODS) | _TENSOR_INT_METHODS | {
    "contiguous", "view", "reshape", "flatten", "transpose", "permute", "clone", "detach",
    "cuda", "cpu", "expand", "squeeze", "unsqueeze", "to", "numel", "stride", "view_as",
    "is_contiguous", "data_ptr", "new_empty", "new_zeros"}) - {"int", "float", "bool", "__len__"}

# --------------------------------------------------------------------------- scopes


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
        if name not in self.jit or name in self.launches:
            return
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


class HostEval:
    """Abstract evaluation of host expressions (see the module docstring)."""

    def __init__(self, info: ModuleInfo):
        self.info = info
        self._active: set = set()
        self._cache: dict = {}
        self._scope_ids = {id(s): s for s in info.scopes}
        self._parents: dict = {}  # scope id -> {id(ast node): its parent}
        self._active_functions: set = set()
        #: name -> the host value of a module-level name another module of the tree binds
        #: (`from .utils import torch_to_triton_dtype`), or None; set by the front end
        self.imported = None

    # ------------------------------------------------------------------ names

    def scope_for(self, node, default=None) -> HostScope:
        return self.info.scope_of.get(id(node), default or self.info.scopes[0])

    def lookup(self, name: str, scope: HostScope, pos: tuple):
        s, first = scope, True
        while s is not None:
            evs = s.events.get(name, [])
            if evs:
                if first:
                    cands = [i for i, ev in enumerate(evs) if ev.kind == "param" or ev.pos <= pos]
                else:
                    before = [i for i, ev in enumerate(evs) if ev.pos <= pos]
                    cands = before or list(range(len(evs)))
                if cands:
                    return Binding(id(s), name, cands[-1])
            if not isinstance(s.node, ast.ClassDef):
                first = False
            s = s.parent
        return None

    def _with_alternatives(self, b: Binding, value):
        """A name assigned under an `if` may still hold what earlier assignments gave it
        (`G = 64`, then `if N <= 1024: G = 256`): when every value it may hold is a constant,
        all of them, as an HScalar's options (each one is a specialization); else `value`."""
        scope = self._scope_ids[b.scope]
        events = scope.events[b.name]
        if events[b.index].kind != "assign" or not self._conditional(scope, events[b.index].node):
            return value
        values = [value]
        for j in range(b.index - 1, -1, -1):
            if events[j].kind != "assign":
                return value
            values.append(self.binding_value(Binding(b.scope, b.name, j)))
            if not self._conditional(scope, events[j].node):
                break
        if len(values) < 2 or not all(isinstance(v, HConst) and isinstance(v.value, (int, float))
                                      and not isinstance(v.value, bool) for v in values):
            return value
        return merge(values[::-1])

    def _conditional(self, scope: HostScope, stmt) -> bool:
        """Whether `stmt` runs only on some paths through its scope (under an if, loop or try)."""
        parents = self._parents_of(scope)
        node = parents.get(id(stmt))
        while node is not None and node is not scope.node:
            if isinstance(node, (ast.If, ast.For, ast.While, ast.Try, ast.Match)):
                return True
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                return False
            node = parents.get(id(node))
        return False

    def _parents_of(self, scope: HostScope) -> dict:
        """{id(ast node): its parent} within a scope's node, built once per scope."""
        parents = self._parents.get(id(scope))
        if parents is None:
            parents = self._parents[id(scope)] = {}
            for node in ast.walk(scope.node):
                for child in ast.iter_child_nodes(node):
                    parents[id(child)] = node
        return parents

    def binding_value(self, b: Binding):
        key = b
        if key in self._cache:
            return self._cache[key]
        if key in self._active:
            return UNKNOWN
        self._active.add(key)
        try:
            value = self._binding_value(b)
        finally:
            self._active.discard(key)
        self._cache[key] = value
        return value

    def _binding_value(self, b: Binding):
        scope = self._scope_ids[b.scope]
        ev = scope.events[b.name][b.index]
        if ev.kind == "assign":
            if isinstance(ev.value, ast.List) and not ev.value.elts and not ev.path:
                return self._appended(b.name, scope, ev)
            v = self.value(ev.value, self.scope_for(ev.value, scope))
            for i in ev.path:
                v = self.index(v, i)
            return v
        if ev.kind == "for":
            it = self.value(ev.value, self.scope_for(ev.value, scope))
            if isinstance(it, HTuple):
                opts = []
                for item in it.items:
                    for i in ev.path:
                        item = self.index(item, i)
                    opts.append(item)
                return merge(opts)
            if isinstance(ev.value, ast.Call) and self.info.qualname(ev.value.func) == "range":
                return HScalar("int")
            return UNKNOWN
        if ev.kind == "param":
            return self._param_value(scope, ev)
        if ev.kind == "def":
            return HFunc(ev.node, self.info.scope_of.get(id(ev.node)))
        if ev.kind == "import":
            if self.imported is not None:  # a constant of another module of the user's tree
                v = self.imported(b.name)
                if isinstance(v, (HConst, HDict, HTuple, HDType)):
                    return v
            return HModule(ev.value)
        return UNKNOWN

    def _param_value(self, scope: HostScope, ev: Event):
        fn = scope.node
        ann = self._annotation(ev.annotation)
        if isinstance(fn, ast.Lambda) or not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return ann or UNKNOWN
        opts = []
        missing = False
        for call, cscope, skipped in self._callers(fn, scope):
            if any(isinstance(a, ast.Starred) for a in call.args) or \
                    any(k.arg is None for k in call.keywords):
                opts.append(UNKNOWN)
                continue
            node = None
            if ev.index is not None and 0 <= ev.index - skipped < len(call.args):
                node = call.args[ev.index - skipped]
            for k in call.keywords:
                if k.arg == ev.node.arg:
                    node = k.value
            if node is None:
                missing = True
                continue
            opts.append(self.value(node, cscope))
        if (missing or not opts) and ev.value is not None:
            opts.append(self.value(ev.value, scope.parent or scope))
        v = merge(opts) if opts else UNKNOWN
        asserted = self._asserted_dtype(fn, ev.node.arg, scope)
        if asserted is not None and (v is UNKNOWN or isinstance(v, HTensor)):
            return HTensor(asserted)  # the function refuses any other dtype
        if ann is not None and not isinstance(v, type(ann)) and \
                not (isinstance(ann, HScalar) and isinstance(v, HConst)):
            return ann
        return v

    def _asserted_dtype(self, fn, name: str, scope: HostScope) -> str | None:
        """The dtype a host function asserts a parameter has (`assert x.dtype == torch.float16`,
        also within `and` and chained `==`), or None."""
        found = set()

        def visit(test):
            if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
                for value in test.values:
                    visit(value)
            elif isinstance(test, ast.Compare) and all(isinstance(op, (ast.Eq, ast.Is)) for op in test.ops):
                items = [test.left, *test.comparators]
                of_tensors = [i for i in items if isinstance(i, ast.Attribute) and i.attr == "dtype"]
                named = any(isinstance(i.value, ast.Name) and i.value.id == name for i in of_tensors)
                dtypes = {v.dtype for i in items if i not in of_tensors
                          and isinstance(v := self.value(i, scope), HDType) and v.dtype is not None}
                if named and len(dtypes) == 1:
                    found.update(dtypes)

        for node in _own_statements(fn):
            if isinstance(node, ast.Assert):
                visit(node.test)
        return found.pop() if len(found) == 1 else None

    def _callers(self, fn, scope: HostScope):
        """The calls of a host function, each with how many of its leading parameters the
        caller does not pass: `fn(...)` passes all; `Cls.apply(...)` (or a name bound to it)
        calls the `forward(ctx, ...)` of a `torch.autograd.Function` subclass without ctx."""
        cls = self._autograd_class(scope) if fn.name == "forward" else None
        autograd = cls is not None
        for call, cscope in self.info.calls:
            if isinstance(call.func, ast.Name) and call.func.id == fn.name:
                yield call, cscope, 0
            elif autograd and self._is_apply_of(call.func, cls.name, cscope):
                yield call, cscope, 1

    def _autograd_class(self, scope: HostScope):
        """The class a method's scope belongs to when it subclasses a `...Function`
        (`torch.autograd.Function`, or a name ending so); None otherwise."""
        cls = scope.parent.node if scope.parent is not None else None
        if isinstance(cls, ast.ClassDef) and any(self.info.qualname(b).endswith("Function") for b in cls.bases):
            return cls
        return None

    def _is_apply_of(self, func, cls_name: str, scope: HostScope) -> bool:
        """Whether `func` is `cls_name.apply`, directly or through a name assigned it."""
        if isinstance(func, ast.Attribute):
            return func.attr == "apply" and isinstance(func.value, ast.Name) and \
                func.value.id == cls_name
        if not isinstance(func, ast.Name):
            return False
        b = self.lookup(func.id, scope, _pos(func))
        if b is None:
            return False
        bound = self._scope_ids[b.scope].events[func.id][b.index]
        return bound.kind == "assign" and not bound.path and \
            isinstance(bound.value, ast.Attribute) and self._is_apply_of(bound.value, cls_name, scope)

    def _saved_tensors(self, ctx: ast.Name, scope: HostScope):
        """`ctx.saved_tensors` in a `torch.autograd.Function`'s backward(ctx, ...): the
        tensors its forward passed to `ctx.save_for_backward(...)`, as a tuple; None when
        `ctx` is not such a parameter or no single such call exists."""
        b = self.lookup(ctx.id, scope, _pos(ctx))
        if b is None:
            return None
        owner = self._scope_ids[b.scope]
        event = owner.events[ctx.id][b.index]
        cls = self._autograd_class(owner)
        if event.kind != "param" or event.index != 0 or cls is None:
            return None
        forward = next((st for st in cls.body if isinstance(st, ast.FunctionDef)
                        and st.name == "forward" and st.args.args), None)
        if forward is None:
            return None
        fscope = self.info.scope_of.get(id(forward))
        forward_ctx = forward.args.args[0].arg
        saves = [(call, cscope) for call, cscope in self.info.calls
                 if isinstance(call.func, ast.Attribute) and call.func.attr == "save_for_backward"
                 and isinstance(call.func.value, ast.Name) and call.func.value.id == forward_ctx
                 and self._within(cscope, fscope)]
        if len(saves) != 1 or any(isinstance(a, ast.Starred) for a in saves[0][0].args):
            return None
        call, cscope = saves[0]
        return HTuple(tuple(self.value(a, cscope) for a in call.args))

    @staticmethod
    def _within(scope: HostScope, outer: HostScope) -> bool:
        while scope is not None:
            if scope is outer:
                return True
            scope = scope.parent
        return False

    def _annotation(self, node):
        if node is None:
            return None
        q = self.info.qualname(node) if isinstance(node, (ast.Name, ast.Attribute)) else ""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            q = node.value
        if q.endswith("Tensor"):
            return HTensor(None)
        if q == "float":
            return HScalar("float")
        if q in ("int", "bool"):
            return HScalar("int")
        return None

    # ------------------------------------------------------------------ expressions

    def value(self, node, scope: HostScope, env: dict | None = None):
        try:
            return self._value(node, scope, env or {})
        except RecursionError:  # pragma: no cover - pathological input
            return UNKNOWN

    def _value(self, node, scope, env):
        if isinstance(node, ast.Constant):
            return HConst(node.value)
        if isinstance(node, ast.Name):
            if node.id in env:
                return env[node.id]
            b = self.lookup(node.id, scope, _pos(node))
            if b is None:
                if node.id in ("int", "float", "len", "min", "max", "abs", "range", "bool", "round",
                               "sum", "print", "tuple", "list", "filter", "sorted"):
                    return HModule(f"builtins.{node.id}")
                if node.id in self.info.imports:
                    return HModule(self.info.imports[node.id])
                if node.id == "tl":
                    return HModule("triton.language")
                if node.id in ("triton", "torch"):
                    return HModule(node.id)
                return UNKNOWN
            v = self._with_alternatives(b, self.binding_value(b))
            if isinstance(v, HTensor) and v.dtype is None and v.like is None:
                return HTensor(None, b)
            return v
        if isinstance(node, ast.Attribute):
            if node.attr == "saved_tensors" and isinstance(node.value, ast.Name):
                saved = self._saved_tensors(node.value, scope)
                if saved is not None:
                    return saved
            limit = self._type_limit(node, scope, env)
            if limit is not None:
                return limit
            base = self._value(node.value, scope, env)
            if isinstance(base, HModule):
                path = f"{base.path}.{node.attr}"
                if base.path == "torch" and node.attr in TORCH_DTYPES:
                    return HDType(TORCH_DTYPES[node.attr])
                if base.path in ("triton.language", "tl") and node.attr in TL_DTYPES:
                    return HDType(TL_DTYPES[node.attr])
                return HModule(path)
            if isinstance(base, HTensor):
                if node.attr == "dtype":
                    return HDType(base.dtype, base.like)
                if node.attr == "shape":
                    return HShape()
                if node.attr in ("T", "mT", "data", "real"):
                    return base
                return UNKNOWN
            if isinstance(base, HMulti):
                return merge([self._attr_of(o, node.attr) for o in base.options])
            if node.attr == "dtype" and isinstance(node.value, ast.Name) and isinstance(base, HUnknown):
                # `x.dtype` of a parameter nothing calls: whatever x's buffer turns out to be
                b = self.lookup(node.value.id, scope, _pos(node.value))
                return HDType(None, b) if b is not None else UNKNOWN
            return UNKNOWN
        if isinstance(node, (ast.Tuple, ast.List)):
            return HTuple(tuple(self._value(e, scope, env) for e in node.elts))
        if isinstance(node, ast.Dict):
            items = {}
            for k, v in zip(node.keys, node.values):
                kv = self._value(k, scope, env) if k is not None else UNKNOWN
                if isinstance(kv, HDType) and kv.dtype:  # `{torch.float16: tl.float16, ...}`
                    items[DTypeKey(kv.dtype)] = self._value(v, scope, env)
                    continue
                if not isinstance(kv, HConst):
                    return UNKNOWN
                items[kv.value] = self._value(v, scope, env)
            return HDict(items)
        if isinstance(node, ast.BinOp):
            return self._binop(node.op, self._value(node.left, scope, env),
                               self._value(node.right, scope, env))
        if isinstance(node, ast.UnaryOp):
            a = self._value(node.operand, scope, env)
            if isinstance(a, HConst) and isinstance(a.value, (int, float, bool)):
                op = {ast.USub: lambda v: -v, ast.UAdd: lambda v: +v, ast.Not: lambda v: not v,
                      ast.Invert: lambda v: ~v}[type(node.op)]
                return HConst(op(a.value))
            return a if isinstance(a, (HScalar, HTensor)) else UNKNOWN
        if isinstance(node, ast.Subscript):
            base = self._value(node.value, scope, env)
            idx = self._value(node.slice, scope, env)
            if isinstance(idx, HConst):
                return self.index(base, idx.value)
            if isinstance(idx, HDType) and isinstance(base, HDict):
                return _dtype_entry(base, idx)
            if isinstance(base, HTensor):
                return base
            if isinstance(base, HShape):
                return HScalar("int")
            return UNKNOWN
        if isinstance(node, ast.IfExp):
            chosen = self._dtype_choice(node, scope, env)
            if chosen is not None:
                return chosen
            test = self._value(node.test, scope, env)
            if not isinstance(test, HConst) and machine_test(node.test) is not None:
                test = HConst(machine_test(node.test))
            if isinstance(test, HConst):
                return self._value(node.body if test.value else node.orelse, scope, env)
            return merge([self._value(node.body, scope, env), self._value(node.orelse, scope, env)])
        if isinstance(node, ast.Lambda):
            return HFunc(node, self.info.scope_of.get(id(node), scope))
        if isinstance(node, ast.Call):
            return self._call(node, scope, env)
        if isinstance(node, (ast.ListComp, ast.GeneratorExp)):
            return self._comprehension(node, scope, env)
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            a, b = self._value(node.left, scope, env), self._value(node.comparators[0], scope, env)
            if isinstance(a, HConst) and isinstance(b, HConst):
                try:
                    return HConst(_COMPARE[type(node.ops[0])](a.value, b.value))
                except Exception:  # noqa: BLE001 - the user's host arithmetic failed: not a constant
                    return UNKNOWN
        return UNKNOWN

    def _type_limit(self, node: ast.Attribute, scope, env):
        """`torch.finfo(torch.float32).max`, `torch.iinfo(torch.int64).min`: the limit of a
        dtype, a constant (computed by torch, not by the user's code); None for anything else."""
        call = node.value
        if not (isinstance(call, ast.Call) and len(call.args) == 1 and not call.keywords and
                node.attr in ("max", "min", "eps", "tiny", "smallest_normal", "bits")):
            return None
        f = self._value(call.func, scope, env)
        dt = self._value(call.args[0], scope, env)
        if not (isinstance(f, HModule) and f.path in ("torch.finfo", "torch.iinfo") and
                isinstance(dt, HDType) and dt.dtype):
            return None
        import torch

        try:
            info = getattr(torch, f.path.split(".")[-1])(getattr(torch, dt.dtype))
            return HConst(getattr(info, node.attr))
        except (TypeError, AttributeError):
            return None

    def _dtype_choice(self, node: ast.IfExp, scope, env):
        """`tl.float32 if x.dtype == torch.float32 else tl.bfloat16` where x's dtype is known
        only later (the buffer's): an HDType mapped from x's; None for any other IfExp."""
        test = node.test
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and
                isinstance(test.ops[0], (ast.Eq, ast.NotEq, ast.Is, ast.IsNot))):
            return None
        a, b = self._value(test.left, scope, env), self._value(test.comparators[0], scope, env)
        if isinstance(b, HDType) and b.like is not None and not b.dtype:
            a, b = b, a
        if not (isinstance(a, HDType) and a.like is not None and not a.dtype and not a.mapping
                and isinstance(b, HDType) and b.dtype):
            return None
        then, other = self._value(node.body, scope, env), self._value(node.orelse, scope, env)
        if not (isinstance(then, HDType) and then.dtype and isinstance(other, HDType) and other.dtype):
            return None
        if isinstance(test.ops[0], (ast.NotEq, ast.IsNot)):
            then, other = other, then
        return HDType(None, a.like, ((b.dtype, then.dtype),), other.dtype)

    def _attr_of(self, base, attr):
        if isinstance(base, HTensor) and attr == "dtype":
            return HDType(base.dtype, base.like)
        return UNKNOWN

    def index(self, v, i):
        if isinstance(v, HTuple) and isinstance(i, int) and -len(v.items) <= i < len(v.items):
            return v.items[i]
        if isinstance(v, HDict) and i in v.items:
            return v.items[i]
        if isinstance(v, HShape):
            return HScalar("int")
        if isinstance(v, HTensor):
            return v
        if isinstance(v, HMulti):
            return merge([self.index(o, i) for o in v.options])
        return UNKNOWN

    def _binop(self, op, a, b):
        if isinstance(a, HConst) and isinstance(b, HConst):
            try:
                return HConst(_BINOPS[type(op)](a.value, b.value))
            except Exception:  # noqa: BLE001 - the user's host arithmetic failed: not a constant
                return UNKNOWN
        if isinstance(a, HTuple) and isinstance(b, HTuple) and isinstance(op, ast.Add):
            return HTuple(a.items + b.items)
        if isinstance(a, HTensor) or isinstance(b, HTensor):
            ta = a if isinstance(a, HTensor) else None
            tb = b if isinstance(b, HTensor) else None
            if ta and tb:
                return ta if ta.dtype == tb.dtype else HTensor(None)
            return ta or tb
        kinds = []
        for v in (a, b):
            if isinstance(v, HScalar):
                kinds.append(v.kind)
            elif isinstance(v, HConst) and isinstance(v.value, (int, float)):
                kinds.append("float" if isinstance(v.value, float) else "int")
            else:
                return UNKNOWN
        if isinstance(op, ast.Div) or "float" in kinds:
            return HScalar("float")
        return HScalar("int")

    def _appended(self, name: str, scope: HostScope, ev: Event):
        """`configs = []` then `configs.append(triton.Config(...))` in (nested) for loops: the
        items, as the comprehension the loops amount to. An append under an `if`, or in a
        loop over something unknown, makes the list unknown."""
        calls = [c for c, cs in self.info.calls if cs is scope and isinstance(c.func, ast.Attribute) and
                 c.func.attr == "append" and isinstance(c.func.value, ast.Name) and c.func.value.id == name
                 and len(c.args) == 1 and _pos(c) >= ev.pos]
        if not calls:
            return HTuple(())
        parents = self._parents_of(scope)
        items = []
        for call in calls:
            loops, node = [], parents.get(id(call))
            while node is not None and node is not scope.node:
                if isinstance(node, (ast.If, ast.While, ast.Try, ast.With)):
                    return UNKNOWN
                if isinstance(node, ast.For):
                    loops.insert(0, ast.comprehension(target=node.target, iter=node.iter, ifs=[], is_async=0))
                node = parents.get(id(node))
            found = self._comprehension(ast.ListComp(elt=call.args[0], generators=loops), scope, {}) \
                if loops else HTuple((self._value(call.args[0], scope, {}),))
            if not isinstance(found, HTuple):
                return UNKNOWN
            items.extend(found.items)
        return HTuple(tuple(items))

    def _comprehension(self, node, scope, env):
        results = []

        def run(gens, env):
            if len(results) > 4096:
                raise ValueError("too many")
            if not gens:
                results.append(self._value(node.elt, scope, env))
                return
            g = gens[0]
            it = self._value(g.iter, scope, env)
            if isinstance(it, HConst) and isinstance(it.value, (list, tuple)):
                it = HTuple(tuple(HConst(x) for x in it.value))
            if not isinstance(it, HTuple) or not isinstance(g.target, (ast.Name, ast.Tuple)):
                raise ValueError("unknown iterable")
            for item in it.items:
                inner = dict(env)
                if isinstance(g.target, ast.Name):
                    inner[g.target.id] = item
                else:
                    for i, elt in enumerate(g.target.elts):
                        if not isinstance(elt, ast.Name):
                            raise ValueError("target")
                        inner[elt.id] = self.index(item, i)
                conds = [self._value(c, scope, inner) for c in g.ifs]
                if all(isinstance(c, HConst) and c.value for c in conds):
                    run(gens[1:], inner)
                elif any(not isinstance(c, HConst) for c in conds):
                    raise ValueError("unknown condition")

        try:
            run(list(node.generators), env)
        except ValueError:
            return UNKNOWN
        return HTuple(tuple(results))

    def _call(self, node, scope, env):
        f = node.func
        if isinstance(f, ast.Attribute):
            base = self._value(f.value, scope, env)
            if isinstance(base, HUnknown) and isinstance(f.value, ast.Name) and \
                    f.value.id not in env and f.attr in _TENSOR_ONLY_METHODS:
                base = HTensor(None, self.lookup(f.value.id, scope, _pos(f.value)))
            if isinstance(base, (HTensor, HMulti)) and not isinstance(base, HModule):
                return self._method(base, f.attr, node, scope, env)
            if isinstance(base, HModule):
                return self._function(f"{base.path}.{f.attr}", node, scope, env)
            if isinstance(base, HShape) and f.attr in ("numel",):
                return HScalar("int")
            return UNKNOWN
        fv = self._value(f, scope, env)
        if isinstance(fv, HModule):
            return self._function(fv.path, node, scope, env)
        if isinstance(fv, HFunc) and isinstance(fv.node, ast.FunctionDef) and fv.scope is not None:
            return self._user_function(fv)
        return UNKNOWN

    def _user_function(self, fv: HFunc):
        """A host helper of the file (`get_autotune_config()`, `calculate_settings(n)`): the value
        of its first `return` that evaluates to something known. A branch on what only the
        machine knows (`if is_cuda():`) is not decided: the first known return wins, which in
        published code is the CUDA path."""
        key = id(fv.node)
        if key in self._active_functions or len(self._active_functions) > 8:
            return UNKNOWN
        self._active_functions.add(key)
        try:
            for node in _own_returns(fv.node):
                if node.value is None:
                    continue
                v = self.value(node.value, self.scope_for(node.value, fv.scope))
                if not isinstance(v, HUnknown):
                    return v
            return UNKNOWN
        finally:
            self._active_functions.discard(key)

    def _kw(self, node, name, scope, env):
        for k in node.keywords:
            if k.arg == name:
                return self._value(k.value, scope, env)
        return None

    def _method(self, base, name, node, scope, env):
        if isinstance(base, HMulti):
            return merge([self._method(o, name, node, scope, env) for o in base.options])
        if not isinstance(base, HTensor):
            return UNKNOWN
        if name in _TENSOR_DTYPE_METHODS:
            return HTensor(_TENSOR_DTYPE_METHODS[name])
        if name in ("to", "type", "new_empty", "new_zeros", "new_ones", "new_full", "new_tensor"):
            dt = self._kw(node, "dtype", scope, env)
            if dt is None:
                for a in node.args:
                    v = self._value(a, scope, env)
                    if isinstance(v, (HDType, HTensor, HMulti)):
                        dt = v
                        break
            if isinstance(dt, HDType):
                return HTensor(dt.dtype, dt.like if dt.dtype is None else None)
            if isinstance(dt, HTensor):
                return HTensor(dt.dtype, dt.like)
            if isinstance(dt, HMulti):
                return merge([HTensor(o.dtype) if isinstance(o, HDType) else
                              o if isinstance(o, HTensor) else HTensor(None) for o in dt.options])
            return base
        if name in _TENSOR_INT_METHODS:
            return HScalar("int")
        if name in _TENSOR_SAME_METHODS:
            return base
        if name == "item":
            return UNKNOWN
        return UNKNOWN

    def _function(self, path, node, scope, env):
        short = path.split(".")[-1]
        args = [self._value(a, scope, env) for a in node.args if not isinstance(a, ast.Starred)]
        if path in _ENVIRONMENT_READS:  # the library as shipped, not tileport's environment
            return args[1] if len(args) > 1 else HConst(None)
        if path.startswith("torch.") and path.count(".") == 1:
            dt = self._kw(node, "dtype", scope, env)
            if short in _TORCH_LIKE:
                src = args[0] if args else UNKNOWN
                if isinstance(dt, HDType):
                    return HTensor(dt.dtype, dt.like)
                if isinstance(src, HTensor):
                    return HTensor(src.dtype, src.like)
                return HTensor(None)
            if short in _TORCH_NEW or short in _TORCH_INT64 or short in ("arange", "tensor",
                                                                           "as_tensor", "from_numpy"):
                if isinstance(dt, HDType):
                    return HTensor(dt.dtype, dt.like)
                if isinstance(dt, HMulti):
                    return merge([HTensor(o.dtype) if isinstance(o, HDType) else UNKNOWN
                                  for o in dt.options])
                if short in _TORCH_INT64:
                    return HTensor("int64")
                if short == "arange":
                    floats = any(isinstance(a, HConst) and isinstance(a.value, float) or
                                 isinstance(a, HScalar) and a.kind == "float" for a in args)
                    return HTensor("float32" if floats else "int64")
                if short in ("tensor", "as_tensor", "from_numpy"):
                    return HTensor(None)
                if short == "full" and len(args) > 1 and isinstance(args[1], HConst):
                    v = args[1].value
                    return HTensor("bool" if isinstance(v, bool) else
                                   "int64" if isinstance(v, int) else "float32")
                return HTensor("float32")
            for a in args:  # torch.sigmoid(x), torch.cat(...), ...
                if isinstance(a, HTensor):
                    return HTensor(a.dtype, a.like)
            return UNKNOWN
        if path.startswith(("torch.nn.functional.", "torch.nn.")):
            for a in args:
                if isinstance(a, HTensor):
                    return HTensor(a.dtype, a.like)
            return UNKNOWN
        if path in ("builtins.int", "builtins.round", "builtins.float"):
            convert = {"builtins.int": int, "builtins.round": round, "builtins.float": float}[path]
            a = args[0] if args else HConst(0)
            if isinstance(a, HConst):
                try:
                    return HConst(convert(a.value))
                except Exception:  # noqa: BLE001 - the user's host arithmetic failed: not a constant
                    return UNKNOWN
            return HScalar("float" if convert is float else "int")
        if path in ("builtins.list", "builtins.tuple", "builtins.sorted") and len(args) == 1 and \
                isinstance(args[0], HTuple):
            return args[0]
        if path == "builtins.filter" and len(args) == 2 and isinstance(args[1], HTuple):
            # the predicate is not run: every item stays (each is a config the kernel accepts)
            return args[1]
        if path == "builtins.bool":
            return HConst(bool(args[0].value)) if args and isinstance(args[0], HConst) else UNKNOWN
        if path == "builtins.len":
            if args and isinstance(args[0], HTuple):
                return HConst(len(args[0].items))
            return HScalar("int")
        if path in ("builtins.min", "builtins.max", "builtins.abs"):
            if args and all(isinstance(a, HConst) for a in args):
                try:
                    return HConst({"min": min, "max": max, "abs": abs}[short](*(a.value for a in args)))
                except Exception:  # noqa: BLE001 - the user's host arithmetic failed: not a constant
                    return UNKNOWN
            if any(isinstance(a, HScalar) and a.kind == "float" or
                   isinstance(a, HConst) and isinstance(a.value, float) for a in args):
                return HScalar("float")
            return HScalar("int")
        if short == "cdiv" and path.startswith("triton"):
            if len(args) == 2 and all(isinstance(a, HConst) for a in args):
                return HConst(-(-args[0].value // args[1].value))
            return HScalar("int")
        if short == "next_power_of_2" and path.startswith("triton"):
            if args and isinstance(args[0], HConst) and isinstance(args[0].value, int):
                n = args[0].value
                return HConst(next_power_of_2(n))
            return HScalar("int")
        if short == "constexpr" and path.startswith("triton"):
            return args[0] if args else UNKNOWN
        if short == "Config" and path.startswith("triton"):
            kwargs = args[0] if args else self._kw(node, "kwargs", scope, env)
            if not isinstance(kwargs, HDict):
                return UNKNOWN
            return HConfig(kwargs.items, self._kw(node, "num_warps", scope, env),
                           self._kw(node, "num_stages", scope, env))
        return UNKNOWN


_BINOPS = {
    ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b, ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b,
    ast.Pow: lambda a, b: a ** b, ast.LShift: lambda a, b: a << b, ast.RShift: lambda a, b: a >> b,
    ast.BitAnd: lambda a, b: a & b, ast.BitOr: lambda a, b: a | b, ast.BitXor: lambda a, b: a ^ b,
}
_COMPARE = {
    ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b, ast.Gt: lambda a, b: a > b,
    ast.GtE: lambda a, b: a >= b, ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b,
}


_OTHER_MACHINES = ("hip", "amd", "rocm", "cdna", "xpu", "intel", "cpu", "mps", "tpu")


def machine_test(node):
    """`is_cuda()` True, `is_hip()` / `is_xpu()` False: what only the machine knows, read as the
    CUDA GPU the original targets (tileport ports from CUDA-targeting code); None otherwise."""
    negate = isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)
    call = node.operand if negate else node
    if not (isinstance(call, ast.Call) and not call.args):
        return None
    f = call.func
    name = (f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else "").lower()
    if not name.startswith(("is_", "has_", "supports_")):
        return None
    if any(m in name for m in _OTHER_MACHINES):
        value = False
    elif "cuda" in name or "nvidia" in name:
        value = True
    else:
        return None
    return value != negate


def _own_returns(fn) -> list:
    """`return` statements of a function, in source order, not those of nested definitions."""
    out = []

    def visit(node):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                continue
            if isinstance(child, ast.Return):
                out.append(child)
            visit(child)

    visit(fn)
    return out


def _own_statements(fn):
    """The statements of a function, its nested functions and classes left out."""
    stack = list(fn.body)
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            stack.extend(child for child in ast.iter_child_nodes(node) if isinstance(child, ast.stmt))


def merge(opts: list):
    """One value for several possibilities (callers, loop iterations): what they agree on."""
    flat = []
    for o in opts:
        flat.extend(o.options if isinstance(o, HMulti) else [o])
    if not flat:
        return UNKNOWN
    if all(o == flat[0] for o in flat):
        return flat[0]
    if all(isinstance(o, HTensor) for o in flat):
        dtypes = {o.dtype for o in flat}
        likes = {o.like for o in flat}
        return HTensor(dtypes.pop() if len(dtypes) == 1 else None,
                       likes.pop() if len(likes) == 1 else None)
    if all(isinstance(o, (HScalar, HConst)) for o in flat):
        kinds = set()
        for o in flat:
            if isinstance(o, HScalar):
                kinds.add(o.kind)
            elif isinstance(o.value, bool):
                kinds.add("bool")
            elif isinstance(o.value, int):
                kinds.add("int")
            elif isinstance(o.value, float):
                kinds.add("float")
            else:
                kinds.add("other")
        if kinds <= {"int", "float"}:
            known = all(isinstance(o, HConst) for o in flat)
            values = tuple(dict.fromkeys(o.value for o in flat)) if known else ()
            return HScalar("float" if "float" in kinds else "int", values)
        return HMulti(flat)
    return HMulti(flat)


# --------------------------------------------------------------------------- grids


class _Unmappable(Exception):
    pass


class GridBuilder:
    """A launch site's grid as IR expressions over the kernel's scalar parameters."""

    def __init__(self, ev: HostEval, site: LaunchSite, fn: ast.FunctionDef, scalar_dtypes: dict,
                 constexprs: dict, functions=None):
        self.ev = ev
        # name, scope -> (FunctionDef, its HostEval) for host helpers of this file or the tree
        self.functions = functions
        self.site = site
        self.constexprs = constexprs
        self.scalar_args = []  # (arg node, binding or None, Var)
        for pname, node in site.args_by_param(fn).items():
            if pname in scalar_dtypes:
                var = Var(pname, scalar_dtypes[pname])
                b = None
                if isinstance(node, ast.Name):
                    b = ev.lookup(node.id, site.scope, _pos(node))
                self.scalar_args.append((node, b, var))

    def host_expr(self, node):
        """One launch-site argument as an IR expression over the scalar parameters, or None."""
        try:
            return self.expr(node, self.site.scope, {}, 0)
        except _Unmappable:
            return None

    def build(self, partial: bool = False):
        """Tuple of int32 IR expressions, or None when the grid cannot be expressed; with
        partial, the dims that cannot be expressed are their host `ast` nodes instead."""
        try:
            dims = self._dims(self.site.grid, self.site.scope, {}, 0, partial)
        except _Unmappable:
            return None
        if not partial and any(isinstance(d, ast.AST) for d in dims):
            return None
        out = []
        for d in dims:
            if isinstance(d, ast.AST):
                out.append(d)
                continue
            if d.dtype != "int32":
                d = fold(Cast("int32", d))
            out.append(d)
        return tuple(out) if out else None

    def _dims(self, node, scope, env, depth, partial=False):
        if depth > 8:
            raise _Unmappable()
        if isinstance(node, (ast.Tuple, ast.List)):
            return [self._dim(e, scope, env, partial) for e in node.elts]
        if isinstance(node, ast.Lambda):
            inner = self.ev.info.scope_of.get(id(node), scope)
            env = dict(env)
            for a in node.args.args:
                env[a.arg] = "META"
            return self._dims(node.body, inner, env, depth + 1, partial)
        if isinstance(node, ast.Name):
            b = self.ev.lookup(node.id, scope, _pos(node))
            if b is None:
                raise _Unmappable()
            s = self.ev._scope_ids[b.scope]
            event = s.events[b.name][b.index]
            if event.kind == "assign" and not event.path:
                return self._dims(event.value, self.ev.scope_for(event.value, s), env, depth + 1, partial)
            if event.kind == "def":
                fn = event.node
                rets = [st for st in fn.body if isinstance(st, ast.Return)]
                if len(rets) == 1 and rets[0].value is not None and fn.args.args:
                    inner = self.ev.info.scope_of.get(id(fn), s)
                    env = dict(env)
                    env[fn.args.args[0].arg] = "META"
                    return self._dims(rets[0].value, inner, env, depth + 1, partial)
            raise _Unmappable()
        return [self._dim(node, scope, env, partial)]

    def _dim(self, node, scope, env, partial):
        try:
            return self.expr(node, scope, env, 0)
        except _Unmappable:
            if partial:
                return node
            raise

    def _match_arg(self, node, scope, b):
        for arg, ab, var in self.scalar_args:
            if b is not None and ab is not None and b == ab:
                return var
            if b is None and self._same_meaning(arg, self.site.scope, node, scope):
                return var
        return None

    def _same_meaning(self, a, scope_a, b, scope_b) -> bool:
        """Structurally equal host expressions whose names are bound to the same things."""
        if not same_node(a, b):
            return False
        names_a = [n for n in ast.walk(a) if isinstance(n, ast.Name)]
        names_b = [n for n in ast.walk(b) if isinstance(n, ast.Name)]
        for na, nb in zip(names_a, names_b):
            ba = self.ev.lookup(na.id, scope_a, _pos(na))
            bb = self.ev.lookup(nb.id, scope_b, _pos(nb))
            if ba != bb:
                return False
        return True

    def expr(self, node, scope, env, depth):
        if depth > 30:
            raise _Unmappable()
        m = self._match_arg(node, scope, None) if not isinstance(node, ast.Name) else None
        if m is not None:
            return m
        if isinstance(node, ast.Constant) and isinstance(node.value, int) and \
                not isinstance(node.value, bool):
            return Const(node.value, "int32")
        if isinstance(node, ast.Name):
            if node.id in env and env[node.id] != "META":
                return env[node.id]
            b = self.ev.lookup(node.id, scope, _pos(node))
            if b is not None:
                m = self._match_arg(node, scope, b)
                if m is not None:
                    return m
            v = self.ev.value(node, scope)
            if isinstance(v, HConst) and isinstance(v.value, int) and not isinstance(v.value, bool):
                return Const(v.value, "int32")
            if b is not None:
                s = self.ev._scope_ids[b.scope]
                event = s.events[b.name][b.index]
                if event.kind == "assign" and not event.path:
                    return self.expr(event.value, self.ev.scope_for(event.value, s), env, depth + 1)
                if event.kind == "assign" and isinstance(event.value, ast.Call):
                    return self._helper_result(event.value, s, env, depth, event.path)
            raise _Unmappable()
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and \
                env.get(node.value.id) == "META":
            key = node.slice
            if isinstance(key, ast.Constant) and key.value in self.constexprs:
                v = self.constexprs[key.value]
                if isinstance(v, int) and not isinstance(v, bool):
                    return Const(v, "int32", key.value)
            # `meta["M"]`: the launch's keyword dict holds every argument, the scalar M too
            scalar = next((var for _, _, var in self.scalar_args
                           if isinstance(key, ast.Constant) and var.name == key.value), None)
            if scalar is not None:
                return scalar
            raise _Unmappable()
        if isinstance(node, ast.BinOp):
            ops = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "/", ast.Mod: "%"}
            op = ops.get(type(node.op))
            if op is None:
                raise _Unmappable()
            a = self.expr(node.left, scope, env, depth + 1)
            b = self.expr(node.right, scope, env, depth + 1)
            return fold(BinOp(op, a, b, "int32"))
        if isinstance(node, ast.Call):
            q = self._callee(node.func, scope)
            args = [self.expr(a, scope, env, depth + 1) for a in node.args]
            short = q.split(".")[-1]
            if short == "cdiv" and len(args) == 2:
                return fold(Call("ceildiv", tuple(args), "int32"))
            if q in ("builtins.min", "builtins.max") and len(args) == 2:
                return fold(Call(short, tuple(args), "int32"))
            if q == "builtins.int" and len(args) == 1:
                return args[0]
            if short == "next_power_of_2" and len(args) == 1:
                return fold(Call("next_power_of_2", tuple(args), "int32"))
            raise _Unmappable()
        raise _Unmappable()

    def _helper_result(self, call, scope, env, depth, path):
        """`BLOCK, warps = calculate_settings(n)`: the helper's single `return`, element
        `path`, over the call's arguments (the helper may live in another module of the tree)."""
        if self.functions is None or not isinstance(call.func, ast.Name):
            raise _Unmappable()
        found = self.functions(call.func.id, scope)
        if found is None:
            raise _Unmappable()
        fn, ev = found
        returns = [r for r in _own_returns(fn) if r.value is not None]
        if len(returns) != 1 or len(call.args) > len(fn.args.args) or call.keywords:
            raise _Unmappable()
        value = returns[0].value
        for i in path:
            if not isinstance(value, (ast.Tuple, ast.List)) or i >= len(value.elts):
                raise _Unmappable()
            value = value.elts[i]
        inner = {a.arg: self.expr(node, scope, env, depth + 1) for a, node in zip(fn.args.args, call.args)}
        saved = self.ev
        self.ev = ev
        try:
            return self.expr(value, ev.info.scope_of.get(id(fn), ev.info.scopes[0]), inner, depth + 1)
        except (KeyError, AttributeError) as exc:
            raise _Unmappable() from exc
        finally:
            self.ev = saved

    def _callee(self, f, scope):
        v = self.ev.value(f, scope)
        return v.path if isinstance(v, HModule) else ""
