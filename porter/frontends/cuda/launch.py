"""Read `kernel<<<grid, block, smem>>>(args)` launch sites in host code.

clang lowers a launch to a CallExpr whose extra child calls `__cudaPushCallConfiguration(grid,
block, smem, stream)`. Host variables are traced back to kernel parameters through the
launch's own arguments (`<<<(n + 255) / 256, 256>>>(n, ...)` makes the grid `(n + 255) / 256`
over the kernel's `n`) and through local initialisers (`int blocks = ...; dim3 grid(blocks);`).
"""

from __future__ import annotations

import contextlib
import functools

from porter.frontends.cuda import parse as ct
from porter.frontends.cuda.templates import _template_args
from porter.frontends.cuda.types import dtype_of, is_pointer
from porter.frontends.cuda.units import user_top_level
from porter.ir.fold import fold, try_int
from porter.ir.nodes import BinOp, Call, Cast, Const, Launch, Select, UnaryOp, Var, is_float


class _Unknown(Exception):
    """A host expression that cannot be written in terms of kernel parameters."""


class LaunchReader:
    def __init__(self, frontend, host_functions):
        self.fe = frontend
        self.K = frontend.K
        self.host_functions = host_functions
        # A launch whose block size is a runtime value: the size the port takes for it, the host
        # values that carry it (decl hash -> name) and the kernel parameters they feed (name ->
        # size); reading_block while the block expression itself is read.
        self.runtime_block = 0
        self.runtime: dict = {}
        self.fixed: dict = {}
        self.reading_block = False

    def read(self) -> dict:
        launches: dict = {}
        for fn in self.host_functions:
            assigned = self._assigned(fn)
            for c in fn.walk_preorder():
                if c.kind != self.K.CALL_EXPR:
                    continue
                config = [k for k in c.get_children()
                          if k.kind == self.K.CALL_EXPR and k.spelling == "__cudaPushCallConfiguration"]
                if not config or c.referenced is None:
                    continue
                args = _template_args(c, self.K)
                for target in self._targets(fn, c.referenced):
                    name = target.spelling
                    key = (name, "<" + ", ".join(args) + ">") if args else name
                    if key in launches:
                        continue
                    kernel = self._instance(target, args)
                    launch = self._launch(c, config[0], assigned, kernel)
                    if launch is not None:
                        launches[key] = launch
        return launches

    def _targets(self, fn, referenced) -> list:
        """The kernels a launch calls: the one it names, or every function a function-pointer
        variable is given in this host function (`kernel = &transposeCoalesced; ...
        kernel<<<grid, threads>>>(...)`, cuda-samples transpose)."""
        if referenced.kind not in (self.K.VAR_DECL, self.K.PARM_DECL):
            return [referenced]
        values = [k for k in referenced.get_children() if k.kind != self.K.TYPE_REF]  # its initialiser
        for c in fn.walk_preorder():
            if c.kind == self.K.BINARY_OPERATOR and ct.binary_operator(c) == "=":
                lhs, *rhs = c.get_children()
                if lhs.kind == self.K.DECL_REF_EXPR and lhs.referenced is not None \
                        and lhs.referenced.hash == referenced.hash:
                    values.extend(rhs)
        out: list = []
        for v in values:
            for r in v.walk_preorder():
                target = r.referenced if r.kind == self.K.DECL_REF_EXPR else None
                if target is not None and target.kind in (self.K.FUNCTION_DECL, self.K.FUNCTION_TEMPLATE) \
                        and all(t.hash != target.hash for t in out):
                    out.append(target)
        return out

    def _assigned(self, fn) -> set:
        """Host variables written after their declaration: their initialiser is not their value.
        A dim3 given each of its fields once (`dim3 t; t.x = 256;`) is not one of them: its
        fields' values are kept in self.fields (decl hash -> {axis: value cursor})."""
        out = set()
        self.fields: dict = {}
        for c in fn.walk_preorder():
            if c.kind == self.K.BINARY_OPERATOR and ct.binary_operator(c) == "=":
                lhs, *rhs = c.get_children()
                base = next(iter(lhs.get_children()), None) if lhs.kind == self.K.MEMBER_REF_EXPR else None
                if base is not None and base.kind == self.K.DECL_REF_EXPR and base.referenced is not None \
                        and lhs.spelling in ("x", "y", "z") and rhs:
                    fields = self.fields.setdefault(base.referenced.hash, {})
                    if lhs.spelling in fields:
                        out.add(base.referenced.hash)  # given twice: no one value
                    fields[lhs.spelling] = rhs[0]
            if c.kind in (self.K.BINARY_OPERATOR, self.K.COMPOUND_ASSIGNMENT_OPERATOR) and \
                    (c.kind == self.K.COMPOUND_ASSIGNMENT_OPERATOR or ct.binary_operator(c) == "="):
                lhs = next(iter(c.get_children()), None)
                if lhs is not None and lhs.kind == self.K.DECL_REF_EXPR and lhs.referenced is not None:
                    out.add(lhs.referenced.hash)
            if c.kind == self.K.UNARY_OPERATOR and ct.unary_operator(c) in ("post++", "pre++", "post--", "pre--", "&"):
                # `&blocks` handed to cudaOccupancyMaxActiveBlocksPerMultiprocessor writes it too
                lhs = next(iter(c.get_children()), None)
                if lhs is not None and lhs.kind == self.K.DECL_REF_EXPR and lhs.referenced is not None:
                    out.add(lhs.referenced.hash)
        return out

    def _instance(self, referenced, args):
        """The instantiated copy of a template kernel (its parameters name the launch's args)."""
        if not args or referenced.kind != self.K.FUNCTION_TEMPLATE:
            return referenced
        wanted = "<" + ", ".join(args) + ">"
        for namespace, inst in self.fe.instances.items():
            if inst.name == referenced.spelling and inst.template_args == wanted:
                for c in user_top_level(referenced.translation_unit):
                    if c.kind == self.K.NAMESPACE and c.spelling == namespace:
                        for k in c.get_children():
                            if k.spelling == inst.name:
                                return k
        return referenced

    def _launch(self, call, config, assigned, kernel=None):
        kernel = kernel or call.referenced
        params = list(kernel.get_arguments())
        args = list(call.get_arguments())
        argmap, self.arg_exprs = {}, {}
        for p, a in zip(params, args):
            ref = self._strip(a)
            if ref.kind == self.K.BINARY_OPERATOR and not is_pointer(p.type):
                # `k<<<B * NH * T, ...>>>(..., B * NH * T, T)`: a grid written as an argument is
                # that parameter, even over host locals the kernel never sees
                with contextlib.suppress(Exception):  # unsupported parameter type: not usable in a grid
                    self.arg_exprs[_spelled(ref)] = Var(p.spelling, dtype_of(p.type))
            if ref.kind == self.K.DECL_REF_EXPR and ref.referenced is not None:
                if not is_pointer(p.type):
                    with contextlib.suppress(Exception):  # unsupported parameter type: not usable in a grid
                        argmap[ref.referenced.hash] = Var(p.spelling, dtype_of(p.type))
        self.argmap, self.assigned = argmap, assigned
        self.runtime, self.fixed = {}, {}
        cfg = list(config.get_arguments())
        loc = ct.loc_of(call)
        note = ""
        try:
            block = self.dim3(cfg[1])
        except _Unknown:
            block = None
        block_ints = [try_int(b) for b in block] if block is not None else [None]
        if any(b is None for b in block_ints):
            # a benchmark driver's block size: a runtime value (often a loop over sizes)
            args = _template_args(call, self.K)
            instance = next((i for i in self.fe.instances.values()
                             if args and i.name == call.referenced.spelling and i.args == args), None)
            named = instance.block_parameter() if instance is not None else None
            if self.fe.given_block:
                chosen, how = self.fe.given_block[0], "given with --block"
            elif named is not None:
                chosen, how = named[0], "the template's block-size parameter"
            elif self.listed_block_size is not None:
                chosen, how = self.listed_block_size, "the first block size the host code lists"
            else:
                chosen, how = 256, "a default; pass --block to choose"
            self.runtime_block, self.reading_block = chosen, True
            try:
                block_ints = [try_int(fold(b)) for b in self.dim3(cfg[1])]
            except _Unknown:
                return None
            finally:
                self.reading_block = False
            if any(b is None for b in block_ints) or not self.runtime:
                return None
            note = (f"the block size '{', '.join(self.runtime.values())}' is a runtime value at the "
                    f"launch site (line {loc.line}); the port uses {chosen} ({how})")
        try:
            grid = self.dim3(cfg[0])
        except _Unknown:
            ndim = max(self._used_dims([Const(1, "int32")] * 3, block_ints), 1)
            return Launch(None, tuple(block_ints[:ndim]), 0, "launch-site-block", loc)
        smem = 0
        if len(cfg) > 2 and cfg[2].location.line:
            try:
                smem_expr = fold(self.host_expr(cfg[2]))
            except _Unknown:
                return None
            value = try_int(smem_expr)
            smem = value if value is not None else smem_expr  # an expression of the sizes
        grid = [g if g.dtype == "int32" else fold(Cast("int32", g)) for g in grid]
        ndim = max(self._used_dims(grid, block_ints), 1)
        launch = Launch(tuple(grid[:ndim]), tuple(block_ints[:ndim]), smem, "launch-site", loc)
        launch.note, launch.fixed = note, dict(self.fixed)
        return launch

    def _default(self, ref):
        """While reading the block: this runtime value takes the chosen block size."""
        self.runtime[ref.hash] = ref.spelling
        return Const(self.runtime_block, "int32")

    @functools.cached_property
    def listed_block_size(self) -> int | None:
        """The first entry of a host array of block sizes (`int block_sizes[] = {32, 64, ...}`),
        the value a benchmark driver tries first; None when the host code lists none."""
        for fn in self.host_functions:
            for c in fn.walk_preorder():
                if c.kind == self.K.VAR_DECL and "block" in c.spelling.lower() and \
                        c.type.get_canonical().spelling.replace(" ", "").startswith(("int[", "constint[")):
                    init = next((k for k in c.get_children() if k.kind == self.K.INIT_LIST_EXPR), None)
                    first = next(iter(init.get_children()), None) if init is not None else None
                    value = ct.evaluate(first) if first is not None else None
                    if isinstance(value, int) and 0 < value <= 1024:
                        return value
        return None

    @staticmethod
    def _used_dims(grid, block) -> int:
        n = 1
        for axis in range(3):
            if try_int(grid[axis]) != 1 or block[axis] != 1:
                n = axis + 1
        return n

    # ------------------------------------------------------------------ host expressions

    def _strip(self, c):
        while c is not None and c.kind in (self.K.UNEXPOSED_EXPR, self.K.PAREN_EXPR) and \
                len(list(c.get_children())) == 1:
            c = next(iter(c.get_children()))
        return c

    def dim3(self, c) -> list:
        """A dim3-valued host expression as three IR expressions."""
        c = self._strip(c)
        K = self.K
        one = Const(1, "int32")
        if c.kind == K.CALL_EXPR and c.spelling == "dim3":
            args = list(c.get_arguments())
            if len(args) == 1 and args[0].type.get_canonical().spelling.endswith("dim3"):
                return self.dim3(args[0])  # copy construction
            parts = [self.host_expr(a) if a.location.line else one for a in args]
            return (parts + [one, one, one])[:3]
        if c.kind == K.DECL_REF_EXPR and c.referenced is not None and \
                c.type.get_canonical().spelling.endswith("dim3"):
            ref = c.referenced
            if ref.hash in self.assigned:
                raise _Unknown()
            init = self.fe.initializer(ref)
            fields = getattr(self, "fields", {}).get(ref.hash)
            if fields:  # `dim3 threads; threads.x = 256;`: the fields given, the others as initialised
                base = self.dim3(init) if init is not None else [one, one, one]
                return [self.host_expr(fields[a]) if a in fields else base[i] for i, a in enumerate("xyz")]
            if init is None:
                raise _Unknown()
            return self.dim3(init)
        if c.kind in (K.UNEXPOSED_EXPR, K.CALL_EXPR) and c.type.get_canonical().spelling.endswith("dim3"):
            kids = [k for k in c.get_children() if k.kind.is_expression()]
            if len(kids) == 1:
                return self.dim3(kids[0])
            if c.kind == K.CALL_EXPR and len(kids) >= 1:
                parts = [self.host_expr(k) if k.location.line else one for k in kids]
                return (parts + [one, one, one])[:3]
        return [self.host_expr(c), one, one]

    def host_expr(self, c, env=None):
        K = self.K
        env = env or {}
        c = self._strip(c)
        if c.kind in (K.INTEGER_LITERAL, K.CXX_BOOL_LITERAL_EXPR, K.CXX_SIZEOF_OR_ALIGNOF_EXPR if hasattr(K, "CXX_SIZEOF_OR_ALIGNOF_EXPR") else K.INTEGER_LITERAL):
            value = ct.evaluate(c)
            if value is not None and not isinstance(value, float):
                return Const(int(value), "int32")
        if c.kind == K.CXX_UNARY_EXPR:  # sizeof(T)
            value = ct.evaluate(c)
            if value is not None:
                return Const(int(value), "int32")
        if c.kind == K.DECL_REF_EXPR and c.referenced is not None:
            ref = c.referenced
            if ref.hash in env:
                return env[ref.hash]
            if ref.hash in self.runtime:  # a runtime block size: the value its launch was given
                return Const(self.runtime_block, "int32")
            if ref.hash in self.argmap and self.reading_block:
                # the block size is also passed to the kernel: verify must pass the same value
                self.fixed[self.argmap[ref.hash].name] = self.runtime_block
                return self._default(ref)
            if ref.hash in self.argmap:
                var = self.argmap[ref.hash]
                return var if var.dtype == "int32" else Cast("int32", var)  # grids are int32
            if ref.hash in self.assigned:  # `int blocks = 0; ...; blocks *= sms;`: not its initialiser
                raise _Unknown()
            value = ct.evaluate(c)
            if value is not None and not isinstance(value, float):
                return Const(int(value), "int32")
            if ref.kind == K.VAR_DECL:
                init = self.fe.initializer(ref)
                if init is not None:
                    return self.host_expr(init, env)
            if self.reading_block and ref.kind == K.PARM_DECL:
                return self._default(ref)  # a launcher's block-size parameter
            raise _Unknown()
        if c.kind == K.MEMBER_REF_EXPR and c.spelling in ("x", "y", "z"):
            base = next(iter(c.get_children()), None)
            return self.dim3(base)["xyz".index(c.spelling)]
        if c.kind == K.BINARY_OPERATOR:
            same = getattr(self, "arg_exprs", {}).get(_spelled(c))
            if same is not None and not env:
                return same if same.dtype == "int32" else Cast("int32", same)
            op = ct.binary_operator(c)
            a, b = [self.host_expr(k, env) for k in c.get_children()]
            dtype = "bool" if op in ("<", ">", "<=", ">=", "==", "!=", "&&", "||") else "int32"
            if is_float(a.dtype) or is_float(b.dtype):
                raise _Unknown()
            return fold(BinOp(op, a, b, dtype))
        if c.kind in (K.CSTYLE_CAST_EXPR, K.CXX_STATIC_CAST_EXPR, K.CXX_FUNCTIONAL_CAST_EXPR, K.UNEXPOSED_EXPR):
            kids = [k for k in c.get_children() if k.kind.is_expression()]
            if kids:
                return self.host_expr(kids[-1], env)
        if c.kind == K.CONDITIONAL_OPERATOR:
            cond, a, b = [self.host_expr(k, env) for k in c.get_children()]
            return Select(cond, a, b, "int32")
        if c.kind == K.UNARY_OPERATOR and ct.unary_operator(c) == "-":
            return UnaryOp("-", self.host_expr(next(iter(c.get_children())), env), "int32")
        if c.kind == K.CALL_EXPR:
            name = c.spelling
            args = [self.host_expr(a, env) for a in c.get_arguments()]
            if name in ("min", "max") and len(args) == 2:
                return Call(name, tuple(args), "int32")
            fn = c.referenced.get_definition() if c.referenced is not None else None
            if fn is not None:
                return self._inline_host(fn, args)
        raise _Unknown()

    def _inline_host(self, fn, args):
        """Host helpers like `int cdiv(int a, int b) { return (a + b - 1) / b; }`."""
        body = [k for k in fn.get_children() if k.kind == self.K.COMPOUND_STMT]
        stmts = list(body[0].get_children()) if body else []
        if len(stmts) != 1 or stmts[0].kind != self.K.RETURN_STMT:
            raise _Unknown()
        env = {p.hash: a for p, a in zip(fn.get_arguments(), args)}
        saved = self.assigned
        ret = next(iter(stmts[0].get_children()), None)
        if ret is None:
            raise _Unknown()
        try:
            return self.host_expr(ret, env)
        finally:
            self.assigned = saved


def _spelled(c) -> str:
    """An expression's tokens without spaces: `B * NH * T` and `B*NH*T` are the same."""
    return "".join(t.spelling for t in c.get_tokens())
