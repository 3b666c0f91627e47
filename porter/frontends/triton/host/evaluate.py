"""`HostEval`, the abstract evaluator of host expressions (see the package's docstring)."""

from __future__ import annotations

import ast

from porter.frontends.triton.values import TL_DTYPES, TORCH_DTYPES
from porter.util.numbers import next_power_of_2
from porter.frontends.triton.host.index import _ENVIRONMENT_READS, Event, HostScope, ModuleInfo, _pos
from porter.frontends.triton.host.values import (
    _TENSOR_DTYPE_METHODS, _TENSOR_INT_METHODS, _TENSOR_ONLY_METHODS, _TENSOR_SAME_METHODS, _TORCH_INT64,
    _TORCH_LIKE, _TORCH_NEW, UNKNOWN, Binding, DTypeKey, HConfig, HConst, HDict, HDType, HFunc, HModule,
    HOneOf, HScalar, HShape, HTensor, HTuple, HUnknown, _dtype_entry,
)


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
            if isinstance(base, HOneOf):
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
        if isinstance(v, HOneOf):
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
            if isinstance(base, (HTensor, HOneOf)) and not isinstance(base, HModule):
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
        published code is the CUDA path. A return under a test of the helper's arguments (`if v
        <= 1: return 1`, an edge case) is not its value (_general_first)."""
        key = id(fv.node)
        if key in self._active_functions or len(self._active_functions) > 8:
            return UNKNOWN
        self._active_functions.add(key)
        try:
            for node in _general_first(fv.node, _own_returns(fv.node)):
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
        if isinstance(base, HOneOf):
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
                    if isinstance(v, (HDType, HTensor, HOneOf)):
                        dt = v
                        break
            if isinstance(dt, HDType):
                return HTensor(dt.dtype, dt.like if dt.dtype is None else None)
            if isinstance(dt, HTensor):
                return HTensor(dt.dtype, dt.like)
            if isinstance(dt, HOneOf):
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
                if isinstance(dt, HOneOf):
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


def _general_first(fn, returns: list) -> list:
    """The returns not under an `if` that bounds the function's own arguments (an edge case
    guarded before the general one: `if v <= 1: return 1`, which is no value for the general
    case), or all of them when each is under one (`return 8 if n > 1024 else 4`). A test of
    equality picks a case (`if dtype == torch.float16: return tl.float16`): its returns stay."""
    params = {a.arg for a in fn.args.args + fn.args.kwonlyargs}
    guarded = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.If) and machine_test(node.test) is None and _bounds_arguments(node.test, params):
            guarded |= {id(r) for branch in (node.body, node.orelse) for stmt in branch
                        for r in ast.walk(stmt) if isinstance(r, ast.Return)}
    return [r for r in returns if id(r) not in guarded] or returns


def _bounds_arguments(test, params: set) -> bool:
    """Whether a test orders one of the arguments against something (`v <= 1`, `n > 1024`)."""
    return any(isinstance(c, ast.Compare) and
               any(isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)) for op in c.ops) and
               {n.id for n in ast.walk(c) if isinstance(n, ast.Name)} & params
               for c in ast.walk(test))


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
        flat.extend(o.options if isinstance(o, HOneOf) else [o])
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
        return HOneOf(flat)
    return HOneOf(flat)


# --------------------------------------------------------------------------- grids
