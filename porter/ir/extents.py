"""Which buffers a kernel reads and writes, and how many elements each must hold.

Extents come from bounding every index expression under the guards that protect it
(`if (i < n) y[i] = ...` bounds y by n; `row < M && col < N` bounds `row * N + col` by M*N),
with the launch geometry bounding unguarded thread indices. Bounds are kept as small integer
polynomials over the scalar parameters so they print as the user would write them.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict

from porter.ir.tiles import ParallelFor, TileLoad, TileStore
from porter.ir.nodes import (
    is_float,
    Atomic, BinOp, Builtin, BufferParam, Call, Cast, Const, Decl, For, If, Kernel, Load, Select,
    Store, UnaryOp, Var, While,
)
from porter.ir.fold import NotConstant, evaluate
from porter.ir.walk import children, fixed_locals, map_expr, stmt_exprs, walk_expr, walk_stmts

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

    from porter.ir.tiles import TileLoad, TileStore

    defs = {s.var.name: s.init for s in walk_stmts(kernel.body) if isinstance(s, Decl) and s.init is not None}
    tiles: dict = defaultdict(list)  # a tile's element values: a tile-level kernel's `tgt = tl.load(...)`
    for s in walk_stmts(kernel.body):
        if isinstance(s, TileStore):
            tiles[s.buffer].append(s.value)

    def loaded(e, depth=0) -> set:
        out = set()
        for x in walk_expr(e):
            if isinstance(x, Load):
                out.add(x.buffer)
            elif isinstance(x, Var) and x.name in defs and depth < 20:
                out |= loaded(defs[x.name], depth + 1)
            elif isinstance(x, TileLoad) and x.buffer in tiles and depth < 20:
                for value in tiles[x.buffer]:
                    out |= loaded(value, depth + 1)
        return out

    found = set()
    for e in all_exprs(kernel.body):
        if isinstance(e, Load):
            found |= loaded(e.index)
    for s in walk_stmts(kernel.body):
        if isinstance(s, (Store, Atomic)):
            found |= loaded(s.index)
    params = {p.name: p for p in kernel.params}  # an index read from a shared array is no buffer's
    return {b for b in found if b in params and not is_float(params[b].dtype)}


def _low24(e):
    """x when e is an operand of `__mul24`/`__umul24` cut to its low 24 bits (`x & 0xFFFFFF`,
    sign-extended `((x & 0xFFFFFF) ^ 0x800000) - 0x800000`; frontends/cuda/intrinsics.py), else
    None: for the sizes an index is built from (below 2**23) that is x itself (dct8x8's
    `FMUL(row, ImgStride)`)."""
    if isinstance(e, BinOp) and e.op == "-" and _const_of(e.b) == 0x800000:
        inner = _strip(e.a)
        if isinstance(inner, BinOp) and inner.op == "^" and _const_of(inner.b) == 0x800000:
            e = _strip(inner.a)
    if isinstance(e, BinOp) and e.op == "&" and _const_of(e.b) == 0xFFFFFF:
        return e.a
    return None


def _const_of(e):
    """The integer value of a constant (through casts), else None."""
    e = _strip(e)
    return int(e.value) if isinstance(e, Const) and not isinstance(e.value, float) else None


def _factors(e) -> list:
    """The factors of a product (`NH * T` -> [NH, T])."""
    e = _strip(e)
    if isinstance(e, BinOp) and e.op == "*":
        return _factors(e.a) + _factors(e.b)
    return [e]


#: The most programs verify enumerates to take a program-id local's maximum (see below);
#: past it, the local's symbolic bound serves.
PROGRAM_CAP = 1 << 14


def _program_locals(bounds: _Bounds) -> dict:
    """Fixed locals computed from the program id alone whose symbolic bound would be loose:
    Triton's grouped order (`pid_n = (pid % num_pid_in_group) // group_size_m`, with
    `group_size_m = min(num_pid_m - first_pid_m, GROUP_M)`) bounds pid_n by GROUP_M times
    the column tiles. Such a local is bounded by its maximum over the grid's programs instead,
    taken numerically for each problem (program_maxima). name -> its value, locals inlined."""
    kernel, defs = bounds.kernel, bounds.defs
    scalars = {p.name for p in kernel.scalars if not is_float(p.dtype)}
    inlined: dict = {}

    def inline(e, depth=0):
        def step(x):
            if isinstance(x, Var) and x.name in defs and depth < 20:
                if x.name not in inlined:
                    inlined[x.name] = inline(defs[x.name], depth + 1)
                return inlined[x.name]
            return None
        return map_expr(e, step)

    out = {}
    for name, init in defs.items():
        loose, program, ok = False, False, True
        for x in walk_expr(init):
            if isinstance(x, Call) and x.func in ("min", "max"):
                loose = True
            elif isinstance(x, BinOp) and x.op in ("/", "%") and not isinstance(_strip(x.b), Const):
                loose = loose or bounds.exact(x.b) is None
        if not loose:
            continue
        value = inline(init)
        for x in walk_expr(value):
            if isinstance(x, Builtin):
                program = program or x.kind == "block_idx"
                ok = ok and x.kind in ("block_idx", "grid_dim", "block_dim")
            elif isinstance(x, Var):
                ok = ok and x.name in scalars
            elif isinstance(x, BinOp):
                ok = ok and x.op in ("+", "-", "*", "/", "%")
            elif isinstance(x, Call):
                ok = ok and x.func in ("min", "max", "ceildiv")
            else:
                ok = ok and isinstance(x, (Const, Cast))
        if ok and program:
            out[name] = value
    return out


def program_maxima(kernel: Kernel, scalars: dict) -> dict:
    """`max(local)` -> its largest value over every program of the kernel's grid for these
    scalars (or the local's symbolic bound, past PROGRAM_CAP programs): the values the
    extents' program atoms take."""
    if not kernel.sizing.program_maxima:
        return {}
    env = dict(scalars)
    launch = kernel.launch
    for i, b in enumerate(launch.block if launch is not None else ()):
        env[f"block_dim.{i}"] = b
    grid = []
    for i, g in enumerate(launch.grid if launch is not None else ()):
        try:
            grid.append(max(int(evaluate(g, env)), 1))
        except (NotConstant, ValueError, ZeroDivisionError, TypeError):
            grid.append(None)
        env[f"grid_dim.{i}"] = grid[-1]
    out = {}
    for key, (value, loose) in kernel.sizing.program_maxima.items():
        axes = sorted({x.axis for x in walk_expr(value) if isinstance(x, Builtin) and x.kind == "block_idx"})
        counts = [grid[a] if a < len(grid) else 1 for a in axes]
        if None not in counts and math.prod(counts) <= PROGRAM_CAP:
            top = None
            for ids in itertools.product(*(range(c) for c in counts)):
                point = {**env, **{f"block_idx.{a}": i for a, i in zip(axes, ids)}}
                try:
                    v = int(evaluate(value, point))
                except (NotConstant, ValueError, ZeroDivisionError, TypeError):
                    top = None
                    break
                top = v if top is None else max(top, v)
            if top is not None:
                out[key] = top
                continue
        if loose is not None:
            try:
                out[key] = int(evaluate(loose, {**env, **out}))
            except (NotConstant, ValueError, ZeroDivisionError, TypeError):
                pass
    return out


class _Bounds:
    """Inclusive upper bounds of index expressions in one kernel."""

    def __init__(self, kernel: Kernel):
        self.kernel = kernel
        self.defs = fixed_locals(kernel.body)
        self.programs = _program_locals(self)  # reads exact(), which needs only kernel and defs
        # a tile's element values (`tgt = tl.load(tgt_ptrs)`: a tile-level kernel's gathered ids)
        self.tile_values: dict = defaultdict(list)
        for s in walk_stmts(kernel.body):
            if isinstance(s, TileStore):
                self.tile_values[s.buffer].append(s.value)
        self._tiles_open: set = set()  # tiles whose bound is being taken (`acc[i] += ...`)
        # loop variables that start below zero (`for (j = -RADIUS; ...)`): their least value
        self.negative_starts: dict = {}
        for s in walk_stmts(kernel.body):
            start = _const_of(s.start) if isinstance(s, For) else None
            if start is not None and start < 0:
                name = s.var.name
                self.negative_starts[name] = min(start, self.negative_starts.get(name, 0))

    def program_max(self, name: str, dtype: str):
        """The atom `max(name)` of a program-id local (see _program_locals), recorded in
        kernel.sizing.program_maxima with the symbolic bound it replaces."""
        key = f"max({name})"
        if key not in self.kernel.sizing.program_maxima:
            loose = self.upper(self.defs[name], {}, 0, programs=False)
            self.kernel.sizing.program_maxima[key] = (self.programs[name], loose.to_expr() if loose is not None else None)
        return Poly.atom(key, Var(key, dtype))

    def upper(self, e, guards: dict, depth: int = 0, programs: bool = True):
        if depth > 40:
            return None
        e = _strip(e)
        if e in guards:
            return guards[e]
        if isinstance(e, Const):
            return Poly.const(int(e.value)) if not isinstance(e.value, float) else None
        if isinstance(e, Var):
            if programs and e.name in self.programs:
                return self.program_max(e.name, e.dtype)
            if e.name in self.defs:
                return self.upper(self.defs[e.name], guards, depth + 1, programs)
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
        if isinstance(e, BinOp) and _low24(e) is not None:
            return self.upper(_low24(e), guards, depth + 1, programs)
        if isinstance(e, BinOp):
            if e.op in ("+", "*"):
                a, b = self.upper(e.a, guards, depth + 1, programs), self.upper(e.b, guards, depth + 1, programs)
                if a is None or b is None:
                    return None
                return a + b if e.op == "+" else a * b
            if e.op == "-":
                a = self.upper(e.a, guards, depth + 1, programs)
                low = _strip(e.b)
                if isinstance(low, Var) and low.name in self.negative_starts:
                    low = Const(self.negative_starts[low.name], "int32")  # `RADIUS - j`, j from -RADIUS
                return a + Poly.const(-int(low.value)) if a is not None and isinstance(low, Const) \
                    and not isinstance(low.value, float) else a
            if e.op == "%":
                b = self.upper(e.b, guards, depth + 1, programs)
                return b + Poly.const(-1) if b is not None else None
            if e.op == "/" and not isinstance(_strip(e.b), Const):
                # a divisor that is not a product of sizes (`min(rows_left, 8)`) is at least 1
                # where the kernel runs at all: the dividend bounds the quotient (loosely)
                a = self.upper(e.a, guards, depth + 1, programs)
                return self.divided(a, _strip(e.b)) or a
            if e.op in ("/", ">>"):
                a = self.upper(e.a, guards, depth + 1, programs)
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
                a = self.upper(e.a, guards, depth + 1, programs)
                d = _strip(e.b)
                if a is None or not isinstance(d, Const) or not 0 <= int(d.value) < 64:
                    return None
                return a.scale(1 << int(d.value))
            return None
        if isinstance(e, Load) and not is_float(e.dtype) and e.dtype != "bool":
            # an index read from memory (a gather): verify draws such values below INDEX_LIMIT
            return Poly.atom(INDEX_LIMIT, Var(INDEX_LIMIT, "int32")) + Poly.const(-1)
        if isinstance(e, TileLoad) and e.buffer in self.tile_values and e.buffer not in self._tiles_open:
            # an element of a tile: the largest of the values stored into it (ids it gathered)
            self._tiles_open.add(e.buffer)
            try:
                bound = None
                for value in self.tile_values[e.buffer]:
                    v = self.upper(value, {}, depth + 1, programs)
                    if v is None:
                        return None
                    bound = v if bound is None else self.join(bound, v)
                return bound
            finally:
                self._tiles_open.discard(e.buffer)
        if isinstance(e, Call) and e.func == "ceildiv":
            a, d = self.upper(e.args[0], guards, depth + 1, programs), _strip(e.args[1])
            if a is None or not isinstance(d, Const):
                return None
            c = int(d.value)
            expr = BinOp("/", (a + Poly.const(c - 1)).to_expr(), Const(c, "int32"), "int32")
            return Poly.atom(_key(expr), expr)
        if isinstance(e, Call) and e.func == "min":
            for arg in e.args:
                bound = self.upper(arg, guards, depth + 1, programs)
                if bound is not None:
                    return bound
        if isinstance(e, Select):
            return self.join(self.upper(e.a, guards, depth + 1, programs), self.upper(e.b, guards, depth + 1, programs))
        return None

    def divided(self, a, d):
        """An upper bound of a / d for d a product of sizes (`idx / (NH * T)` with
        idx <= B * NH * T - 1 is at most B - 1): every term of a divisible by d, a constant
        part c left (sizes are at least 1, so c < 0 takes one off and c >= 0 adds at most c).
        A local of d stands for its value (`pid / (8 * num_pid_n)`, `num_pid_n = ceildiv(N, 64)`)."""
        if a is None:
            return None
        exact = self.exact(d)
        if exact is None or len(exact.terms) != 1:
            return None
        (key, coef), = exact.terms.items()
        if coef <= 0:
            return None
        atoms = {**a.atoms, **exact.atoms}

        def quotient():  # not divisible term by term: the quotient itself, bounded numerically
            expr = BinOp("/", a.to_expr(), exact.to_expr(), "int32")
            return Poly.atom(_key(expr), expr)

        terms = {}
        for term, v in a.terms.items():
            if term == ():
                continue
            rest = list(term)
            for n in key:
                if n not in rest:
                    return quotient()
                rest.remove(n)
            if v % coef:
                return quotient()
            terms[tuple(rest)] = terms.get(tuple(rest), 0) + v // coef
        c = a.constant_part()
        terms[()] = terms.get((), 0) + (-1 if c < 0 else c)
        return Poly(terms, atoms)

    def exact(self, e, depth: int = 0):
        """e's value as a polynomial, when it is a product of positive constants, size
        parameters, `ceildiv(size, C)` and fixed locals of those; else None."""
        e = _strip(e)
        if depth > 40:
            return None
        if isinstance(e, Const):
            return Poly.const(e.value) if isinstance(e.value, int) and e.value > 0 else None
        if isinstance(e, Var):
            if e.name in self.defs:
                return self.exact(self.defs[e.name], depth + 1)
            return Poly.atom(e.name, e) if any(p.name == e.name for p in self.kernel.scalars) else None
        if isinstance(e, BinOp) and e.op == "*":
            a, b = self.exact(e.a, depth + 1), self.exact(e.b, depth + 1)
            return a * b if a is not None and b is not None else None
        if isinstance(e, Call) and e.func == "ceildiv" and len(e.args) == 2:
            a, d = self.exact(e.args[0], depth + 1), _strip(e.args[1])
            if a is None or not isinstance(d, Const) or not isinstance(d.value, int) or d.value <= 0:
                return None
            c = int(d.value)
            expr = BinOp("/", (a + Poly.const(c - 1)).to_expr(), Const(c, "int32"), "int32")
            return Poly.atom(_key(expr), expr)
        return None

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
