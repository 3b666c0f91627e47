"""`GridBuilder`: a launch's grid as IR over the kernel's scalar parameters."""

from __future__ import annotations

import ast

from porter.ir.fold import fold
from porter.ir.nodes import BinOp, Call, Cast, Const, Var
from porter.frontends.triton.values import same_node
from porter.frontends.triton.host.evaluate import HostEval, _own_returns
from porter.frontends.triton.host.index import LaunchSite, _pos
from porter.frontends.triton.host.values import HConst, HModule


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
