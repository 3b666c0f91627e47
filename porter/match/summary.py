"""What one SIMT thread computes, as formulas: the matcher's view of a kernel.

A thread's statements are executed symbolically: variables become expressions over the
thread and block indices and the scalar parameters; a `for` loop that accumulates
(`acc += term`) becomes `acc + Sum(k, start, stop, term)`; a read of shared memory is
replaced by what the thread that wrote that element stored there (forwarding, valid after the
barrier that separates them); each global store becomes a `Write` under the conditions that
guard it. Rules then look at the writes, not at how the source spelled them, so a naive
triple loop and a shared-memory tiled kernel summarize to the same formula:

    C[row * N + col] = 0 + Sum(kk, 0, K, A[row * K + kk] * B[kk * N + col])   if row < M && col < N

Anything a formula cannot say (global stores in loops, atomics, warp shuffles, loops that do
not just accumulate, shared memory written under a condition) raises Miss with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy

from porter.ir.fold import fold
from porter.ir.nodes import (
    Alloc, Assign, Atomic, BinOp, Break, Builtin, Call, Comment, Const, Continue, Decl, For, If,
    Load, Return, Select, Store, Sync, UnaryOp, Var, While,
)
from porter.ir.walk import map_expr, walk_expr, walk_stmts
from porter.match.symbolic import NotAffine, builtin_symbol, from_sympy, to_sympy


class Miss(Exception):
    """No formula: `reason` says why, at `loc`."""

    def __init__(self, reason: str, loc=None):
        super().__init__(reason)
        self.reason = reason
        self.loc = loc


@dataclass(frozen=True)
class Sum:
    """sum(body for var in [start, stop)): an expression node the matcher builds."""

    var: Var
    start: object
    stop: object
    body: object
    dtype: str


@dataclass
class Write:
    buffer: str
    index: object
    value: object
    guard: object  # bool expression or None
    loc: object = None


def substitute(e, mapping: dict):
    """Replace Vars by name (also inside Sum bodies)."""
    def step(n):
        if isinstance(n, Var) and n.name in mapping:
            return mapping[n.name]
        if isinstance(n, Sum):
            return Sum(n.var, substitute(n.start, mapping), substitute(n.stop, mapping),
                       substitute(n.body, mapping), n.dtype)
        return None
    return map_expr(e, step)


def sums_in(e) -> list:
    """The distinct sums in an expression (a value used twice holds its sum twice)."""
    return list(dict.fromkeys(n for n in walk_expr(e) if isinstance(n, Sum)))


def _and(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return BinOp("&&", a, b, "bool")


class Summarizer:
    def __init__(self, kernel):
        self.kernel = kernel
        self.block = tuple(kernel.launch.block) + (1,) * (3 - len(kernel.launch.block))
        self.shared = {s.name: s for s in walk_stmts(kernel.body) if isinstance(s, Alloc)}
        self.stored: dict = {}  # shared array -> (index, value) as the writing thread sees them
        self.writes: list = []
        self.fresh = 0
        self.ranges: dict = {}  # loop symbol -> (start, stop) when constant

    # ---------------------------------------------------------------- expressions

    def expr(self, e, env):
        def step(n):
            if isinstance(n, Var) and n.name in env:
                value = env[n.name]
                if value is None:
                    raise Miss(f"'{n.name}' is read before it is set")
                return value
            if isinstance(n, Builtin) and n.kind == "block_dim":
                return Const(self.block[n.axis], n.dtype)
            if isinstance(n, Builtin) and n.kind == "grid_dim":
                grid = self.kernel.launch.grid
                return grid[n.axis] if n.axis < len(grid) else Const(1, n.dtype)
            if isinstance(n, Load) and n.buffer in self.shared:
                return self.forward(n)
            if isinstance(n, Call) and n.func in ("shfl", "shfl_down", "shfl_up", "shfl_xor",
                                                  "ballot", "any", "all"):
                raise Miss("warp shuffles and votes")
            return None
        return fold(map_expr(e, step))

    def forward(self, load: Load):
        """A read of shared memory: the value the writing thread stored there."""
        if load.buffer not in self.stored:
            raise Miss(f"shared '{load.buffer}' is read before this thread's block writes it")
        index, value = self.stored[load.buffer]
        try:
            written, read = to_sympy(index), to_sympy(load.index)
        except NotAffine:
            raise Miss(f"shared '{load.buffer}' is indexed with non-affine arithmetic") from None
        tx, ty = builtin_symbol("thread_idx", 0), builtin_symbol("thread_idx", 1)
        dx, dy = self.block[0], self.block[1]
        if sympy.expand(written - (ty * dx + tx)) != 0 and not (dy == 1 and sympy.expand(written - tx) == 0):
            raise Miss(f"shared '{load.buffer}' is not written one element per thread "
                       "([threadIdx.y][threadIdx.x])")
        p, q = sympy.Integer(0), sympy.Integer(0)
        for term in sympy.Add.make_args(sympy.expand(read)):
            coeff, _ = term.as_coeff_Mul()
            if dy > 1 and coeff % dx == 0:
                p += term / dx
            else:
                q += term
        if not (self._within(q, dx) and self._within(p, dy)):
            raise Miss(f"a read of shared '{load.buffer}' may reach an element another block "
                       "or no thread wrote")
        names = self._names()
        return substitute_builtins(value, {("thread_idx", 0): from_sympy(q, names),
                                           ("thread_idx", 1): from_sympy(p, names)})

    def _within(self, s, extent: int) -> bool:
        """Whether s (a single index symbol or constant) lies in [0, extent)."""
        s = sympy.expand(s)
        if s.is_Integer:
            return 0 <= int(s) < extent
        if s.is_Symbol:
            if s.name.startswith("tid_"):
                return self.block["xyz".index(s.name[-1])] <= extent
            if s.name in self.ranges:
                lo, hi = self.ranges[s.name]
                return lo >= 0 and hi <= extent
        return False

    def _names(self) -> dict:
        names = {f"tid_{a}": Builtin("thread_idx", i, "int32") for i, a in enumerate("xyz")}
        names.update({f"bid_{a}": Builtin("block_idx", i, "int32") for i, a in enumerate("xyz")})
        for p in self.kernel.scalars:
            names[p.name] = Var(p.name, p.dtype)
        for name in self.ranges:
            names[name] = Var(name, "int32")
        return names

    # ---------------------------------------------------------------- statements

    def run(self, stmts, env, guard):
        for s in stmts:
            if isinstance(s, (Comment, Sync)):
                continue
            if isinstance(s, Alloc):
                if s.scope != "shared":
                    raise Miss("per-thread local arrays", s.loc)
                continue
            if isinstance(s, Decl):
                env[s.var.name] = self.expr(s.init, env) if s.init is not None else None
            elif isinstance(s, Assign):
                env[s.var.name] = self.expr(s.value, env)
            elif isinstance(s, Store):
                index, value = self.expr(s.index, env), self.expr(s.value, env)
                if s.buffer in self.shared:
                    if guard is not None:
                        raise Miss(f"shared '{s.buffer}' is written under a condition", s.loc)
                    self.stored[s.buffer] = (index, value)
                else:
                    self.writes.append(Write(s.buffer, index, value, guard, s.loc))
            elif isinstance(s, If):
                self.branch(s, env, guard)
            elif isinstance(s, For):
                self.loop(s, env, guard)
            elif isinstance(s, (While, Break, Continue)):
                raise Miss("while loops, break and continue", s.loc)
            elif isinstance(s, Atomic):
                raise Miss("atomics", s.loc)
            elif isinstance(s, Return):
                raise Miss("an early return inside a loop", s.loc)
            else:
                raise Miss(f"'{type(s).__name__}' statements", getattr(s, "loc", None))

    def branch(self, s: If, env, guard):
        cond = self.expr(s.cond, env)
        then_env, else_env = dict(env), dict(env)
        self.run(s.then, then_env, _and(guard, cond))
        self.run(s.orelse, else_env, _and(guard, UnaryOp("!", cond, "bool")))
        for name in env:
            a, b = then_env[name], else_env[name]
            if a is not b and a != b:
                if a is None or b is None:
                    raise Miss(f"'{name}' is set in only one branch of an if", s.loc)
                env[name] = Select(cond, a, b, a.dtype)

    def loop(self, s: For, env, guard):
        c = s.cond
        if not (isinstance(c, BinOp) and c.op in ("<", "<=") and c.a == s.var) or \
                not (isinstance(s.step, Const) and s.step.value == 1):
            raise Miss("a loop that is not `for (i = a; i < b; i++)`", s.loc)
        self.fresh += 1
        sym = Var(f"{s.var.name}_{self.fresh}", "int32")
        start = self.expr(s.start, env)
        stop = self.expr(c.b if c.op == "<" else BinOp("+", c.b, Const(1, c.b.dtype), c.b.dtype), env)
        if isinstance(start, Const) and isinstance(stop, Const):
            self.ranges[sym.name] = (int(start.value), int(stop.value))
        carried = [n for n in dict.fromkeys(x.var.name for x in walk_stmts(s.body) if isinstance(x, Assign))
                   if n in env]
        body_env = dict(env)
        body_env[s.var.name] = sym
        holders = {n: Var(f"{n}@{self.fresh}", env[n].dtype if env[n] is not None else "float32")
                   for n in carried}
        body_env.update(holders)
        before = len(self.writes)
        self.run(s.body, body_env, guard)
        if len(self.writes) != before:
            raise Miss("global stores inside a loop", s.loc)
        for name, holder in holders.items():
            new = body_env[name]
            if new == holder:
                continue
            term = _accumulated(new, holder)
            if term is None or any(isinstance(n, Var) and n.name.endswith(f"@{self.fresh}")
                                   for n in walk_expr(term)):
                raise Miss(f"'{name}' is not accumulated with + in this loop", s.loc)
            if env[name] is None:
                raise Miss(f"'{name}' is accumulated before it is set", s.loc)
            env[name] = BinOp("+", env[name], Sum(sym, start, stop, term, term.dtype), env[name].dtype)


def _accumulated(new, holder):
    """`holder + term` (or `term + holder`) -> term."""
    if isinstance(new, BinOp) and new.op == "+":
        if new.a == holder and holder not in walk_expr(new.b):
            return new.b
        if new.b == holder and holder not in walk_expr(new.a):
            return new.a
    return None


def substitute_builtins(e, mapping: dict):
    def step(n):
        if isinstance(n, Builtin) and (n.kind, n.axis) in mapping:
            return mapping[(n.kind, n.axis)]
        if isinstance(n, Sum):
            return Sum(n.var, substitute_builtins(n.start, mapping), substitute_builtins(n.stop, mapping),
                       substitute_builtins(n.body, mapping), n.dtype)
        return None
    return map_expr(e, step)


def summarize(kernel) -> list:
    """The kernel's global writes as formulas (raises Miss)."""
    s = Summarizer(kernel)
    s.run(kernel.body, {}, None)
    if not s.writes:
        raise Miss("the kernel writes no global memory")
    return s.writes
