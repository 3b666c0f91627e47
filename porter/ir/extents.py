"""Which buffers a kernel reads and writes, and how many elements each must hold.

Extents come from bounding every index expression under the guards that protect it
(`if (i < n) y[i] = ...` bounds y by n; `row < M && col < N` bounds `row * N + col` by M*N),
with the launch geometry bounding unguarded thread indices. Bounds are kept as small integer
polynomials over the scalar parameters so they print as the user would write them.
"""

from __future__ import annotations

from collections import defaultdict

from porter.ir.tiles import ParallelFor
from porter.ir.nodes import (
    is_float,
    Assign, Atomic, BinOp, Builtin, BufferParam, Call, Cast, Const, Decl, For, If, Kernel, Load, Select,
    Store, UnaryOp, Var, While,
)
from porter.ir.walk import children, stmt_exprs, walk_expr, walk_stmts

# ------------------------------------------------------------------ polynomials
# A polynomial is {tuple of sorted atom keys: int coefficient}; atoms are parameter names or
# opaque sub-expressions (kept in Poly.atoms so they can be printed back).


class Poly:
    def __init__(self, terms=None, atoms=None):
        self.terms = {k: v for k, v in (terms or {}).items() if v}
        self.atoms = dict(atoms or {})

    @staticmethod
    def const(v: int) -> Poly:
        return Poly({(): v})

    @staticmethod
    def atom(key: str, expr) -> Poly:
        return Poly({(key,): 1}, {key: expr})

    def __add__(self, other: Poly) -> Poly:
        terms = defaultdict(int, self.terms)
        for k, v in other.terms.items():
            terms[k] += v
        return Poly(terms, {**self.atoms, **other.atoms})

    def __mul__(self, other: Poly) -> Poly:
        terms = defaultdict(int)
        for ka, va in self.terms.items():
            for kb, vb in other.terms.items():
                terms[tuple(sorted(ka + kb))] += va * vb
        return Poly(terms, {**self.atoms, **other.atoms})

    def scale(self, c: int) -> Poly:
        return Poly({k: v * c for k, v in self.terms.items()}, self.atoms)

    def constant_part(self) -> int:
        return self.terms.get((), 0)

    def to_expr(self, dtype: str = "int32"):
        expr = None
        for key in sorted(self.terms, key=lambda k: (-len(k), k)):
            coef = self.terms[key]
            term = None
            for atom in key:
                a = self.atoms[atom]
                a = a if a.dtype == dtype else Cast(dtype, a)
                term = a if term is None else BinOp("*", term, a, dtype)
            if term is None:
                term = Const(abs(coef), dtype)
            elif abs(coef) != 1:
                term = BinOp("*", Const(abs(coef), dtype), term, dtype)
            if expr is None:
                expr = term if coef > 0 else BinOp("-", Const(0, dtype), term, dtype)
            else:
                expr = BinOp("+" if coef > 0 else "-", expr, term, dtype)
        return expr if expr is not None else Const(0, dtype)


def _strip(e):
    while isinstance(e, Cast):
        e = e.a
    return e


def _key(e) -> str:
    from porter.ir.printer import format_expr
    return format_expr(e)


# The pseudo-size that bounds indices read from memory (see porter/verify/inputs.py).
INDEX_LIMIT = "index_limit"


def index_buffers(kernel) -> set:
    """Integer buffers whose elements address other buffers (embedding ids, class targets)."""
    from porter.ir.walk import all_exprs

    defs = {s.var.name: s.init for s in walk_stmts(kernel.body) if isinstance(s, Decl) and s.init is not None}

    def loaded(e, depth=0) -> set:
        out = set()
        for x in walk_expr(e):
            if isinstance(x, Load):
                out.add(x.buffer)
            elif isinstance(x, Var) and x.name in defs and depth < 20:
                out |= loaded(defs[x.name], depth + 1)
        return out

    found = set()
    for e in all_exprs(kernel.body):
        if isinstance(e, Load):
            found |= loaded(e.index)
    for s in walk_stmts(kernel.body):
        if isinstance(s, (Store, Atomic)):
            found |= loaded(s.index)
    return {b for b in found if not is_float(kernel.param(b).dtype)}


def _factors(e) -> list:
    """The factors of a product (`NH * T` -> [NH, T])."""
    e = _strip(e)
    if isinstance(e, BinOp) and e.op == "*":
        return _factors(e.a) + _factors(e.b)
    return [e]


class _Bounds:
    """Inclusive upper bounds of index expressions in one kernel."""

    def __init__(self, kernel: Kernel):
        self.kernel = kernel
        self.defs: dict = {}
        assigned = {s.var.name for s in walk_stmts(kernel.body) if isinstance(s, Assign)}
        for s in walk_stmts(kernel.body):
            if isinstance(s, Decl) and s.init is not None and s.var.name not in assigned:
                self.defs[s.var.name] = s.init

    def upper(self, e, guards: dict, depth: int = 0):
        if depth > 40:
            return None
        e = _strip(e)
        if e in guards:
            return guards[e]
        if isinstance(e, Const):
            return Poly.const(int(e.value)) if not isinstance(e.value, float) else None
        if isinstance(e, Var):
            if e.name in self.defs:
                return self.upper(self.defs[e.name], guards, depth + 1)
            if any(p.name == e.name for p in self.kernel.scalars):
                return Poly.atom(e.name, e)
            return None
        if isinstance(e, Builtin):
            launch = self.kernel.launch
            dims = launch.block if launch is not None and e.kind in ("thread_idx", "block_dim") else \
                (launch.grid if launch is not None else ())
            if launch is None or e.axis >= len(dims):
                return Poly.const(0)
            if e.kind == "thread_idx":
                return Poly.const(launch.block[e.axis] - 1)
            if e.kind == "block_dim":
                return Poly.const(launch.block[e.axis])
            grid = launch.grid[e.axis] if e.axis < len(launch.grid) else Const(1, "int32")
            g = self.upper(grid, {}, depth + 1) or Poly.atom(_key(grid), grid)
            return g + Poly.const(-1) if e.kind == "block_idx" else g
        if isinstance(e, BinOp):
            if e.op in ("+", "*"):
                a, b = self.upper(e.a, guards, depth + 1), self.upper(e.b, guards, depth + 1)
                if a is None or b is None:
                    return None
                return a + b if e.op == "+" else a * b
            if e.op == "-":
                a = self.upper(e.a, guards, depth + 1)
                low = _strip(e.b)
                return a + Poly.const(-int(low.value)) if a is not None and isinstance(low, Const) \
                    and not isinstance(low.value, float) else a
            if e.op == "%":
                b = self.upper(e.b, guards, depth + 1)
                return b + Poly.const(-1) if b is not None else None
            if e.op == "/" and not isinstance(_strip(e.b), Const):
                return self.divided(self.upper(e.a, guards, depth + 1), _strip(e.b))
            if e.op in ("/", ">>"):
                a = self.upper(e.a, guards, depth + 1)
                d = _strip(e.b)
                if a is None or not isinstance(d, Const):
                    return None
                if e.op == ">>" and not 0 <= int(d.value) < 64:
                    return None
                div = int(d.value) if e.op == "/" else 1 << int(d.value)
                if div <= 0:
                    return None  # a division by zero (or by a negative) bounds nothing
                if all(v % div == 0 for v in a.terms.values()):
                    return Poly({k: v // div for k, v in a.terms.items()}, a.atoms)
                expr = BinOp("/", a.to_expr(), Const(div, "int32"), "int32")
                return Poly.atom(_key(expr), expr)
            if e.op == "<<":
                a = self.upper(e.a, guards, depth + 1)
                d = _strip(e.b)
                if a is None or not isinstance(d, Const) or not 0 <= int(d.value) < 64:
                    return None
                return a.scale(1 << int(d.value))
            return None
        if isinstance(e, Load) and not is_float(e.dtype) and e.dtype != "bool":
            # an index read from memory (a gather): verify draws such values below INDEX_LIMIT
            return Poly.atom(INDEX_LIMIT, Var(INDEX_LIMIT, "int32")) + Poly.const(-1)
        if isinstance(e, Call) and e.func == "ceildiv":
            a, d = self.upper(e.args[0], guards, depth + 1), _strip(e.args[1])
            if a is None or not isinstance(d, Const):
                return None
            c = int(d.value)
            expr = BinOp("/", (a + Poly.const(c - 1)).to_expr(), Const(c, "int32"), "int32")
            return Poly.atom(_key(expr), expr)
        if isinstance(e, Call) and e.func == "min":
            for arg in e.args:
                bound = self.upper(arg, guards, depth + 1)
                if bound is not None:
                    return bound
        if isinstance(e, Select):
            return self.join(self.upper(e.a, guards, depth + 1), self.upper(e.b, guards, depth + 1))
        return None

    def divided(self, a, d):
        """An upper bound of a / d for d a product of size parameters (`idx / (NH * T)` with
        idx <= B * NH * T - 1 is at most B - 1): every term of a divisible by d, a constant
        part c left (sizes are at least 1, so c < 0 takes one off and c >= 0 adds at most c)."""
        if a is None:
            return None
        names, coef = [], 1
        for factor in _factors(d):
            if isinstance(factor, Const) and isinstance(factor.value, int) and factor.value > 0:
                coef *= factor.value
            elif isinstance(factor, Var) and any(p.name == factor.name for p in self.kernel.scalars):
                names.append(factor.name)
            else:
                return None
        def quotient():  # not divisible term by term: the quotient itself, bounded numerically
            expr = BinOp("/", a.to_expr(), d, "int32")
            return Poly.atom(_key(expr), expr)

        terms = {}
        for key, v in a.terms.items():
            if key == ():
                continue
            rest = list(key)
            for n in names:
                if n not in rest:
                    return quotient()
                rest.remove(n)
            if v % coef:
                return quotient()
            terms[tuple(rest)] = terms.get(tuple(rest), 0) + v // coef
        c = a.constant_part()
        terms[()] = terms.get((), 0) + (-1 if c < 0 else c)
        return Poly(terms, a.atoms)

    @staticmethod
    def join(a, b):
        if a is None or b is None:
            return None
        diff = a + b.scale(-1)
        if set(diff.terms) <= {()}:
            return a if diff.constant_part() >= 0 else b
        expr = Call("max", (a.to_expr(), b.to_expr()), "int32")
        return Poly.atom(_key(expr), expr)

    def with_guard(self, cond, guards: dict, negate: bool = False) -> dict:
        """Bounds implied by cond (or by its negation) being true."""
        out = dict(guards)
        cond = _strip(cond)
        if isinstance(cond, UnaryOp) and cond.op == "!":
            return self.with_guard(cond.a, guards, not negate)
        if isinstance(cond, BinOp) and cond.op == ("||" if negate else "&&"):
            return self.with_guard(cond.b, self.with_guard(cond.a, guards, negate), negate)
        if not isinstance(cond, BinOp):
            return out
        op = cond.op
        if negate:
            op = {"<": ">=", "<=": ">", ">": "<=", ">=": "<"}.get(op)
        a, b = _strip(cond.a), _strip(cond.b)
        if op in (">", ">="):
            a, b, op = b, a, "<" if op == ">" else "<="
        if op in ("<", "<="):
            bound = self.upper(b, guards)
            if bound is not None:
                bound = bound + Poly.const(-1) if op == "<" else bound
                out[a] = bound
        return out


def annotate_buffers(kernel: Kernel) -> None:
    """Fill BufferParam.read / .written / .extent from the kernel body."""
    bounds = _Bounds(kernel)
    uppers: dict = defaultdict(list)
    unknown: set = set()

    def note(name, index, guards):
        bound = bounds.upper(index, guards)
        if bound is None:
            unknown.add(name)
        else:
            uppers[name].append(bound)

    def visit_expr(e, guards):
        """Loads under `c ? a : b` are guarded by c (a) or by its negation (b)."""
        if isinstance(e, Select):
            visit_expr(e.cond, guards)
            visit_expr(e.a, bounds.with_guard(e.cond, guards))
            visit_expr(e.b, bounds.with_guard(e.cond, guards, negate=True))
            return
        if isinstance(e, Load):
            note(e.buffer, e.index, guards)
        for child in children(e):
            visit_expr(child, guards)

    def visit(stmts, guards):
        for s in stmts:
            for e in stmt_exprs(s):
                visit_expr(e, guards)
            if isinstance(s, (Store, Atomic)):
                note(s.buffer, s.index, guards)
            if isinstance(s, If):
                visit(s.then, bounds.with_guard(s.cond, guards))
                visit(s.orelse, bounds.with_guard(s.cond, guards, negate=True))
            elif isinstance(s, (For, While)):
                visit(s.body, bounds.with_guard(s.cond, guards))
            elif isinstance(s, ParallelFor):
                inner = dict(guards)
                for var, extent in zip(s.vars, s.extents):
                    inner[var] = Poly.const(extent - 1)
                visit(s.body, inner)

    visit(kernel.body, {})
    loads = {e.buffer for s in walk_stmts(kernel.body) for x in stmt_exprs(s) for e in walk_expr(x)
             if isinstance(e, Load)}
    stores = {s.buffer for s in walk_stmts(kernel.body) if isinstance(s, (Store, Atomic))}
    loads |= {s.buffer for s in walk_stmts(kernel.body) if isinstance(s, Atomic)}
    for p in kernel.params:
        if not isinstance(p, BufferParam):
            continue
        p.read, p.written = p.name in loads, p.name in stores
        if p.name in unknown or not uppers.get(p.name):
            p.extent = None
            continue
        top = uppers[p.name][0]
        for other in uppers[p.name][1:]:
            top = _Bounds.join(top, other)
            if top is None:
                break
        p.extent = (top + Poly.const(1)).to_expr() if top is not None else None
