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

from porter.ir.fold import fold
from porter.ir.nodes import (
    Alloc, Assign, Atomic, BinOp, Break, Builtin, Call, Comment, Const, Continue, Decl, For, If,
    Load, Return, Select, Store, Sync, UnaryOp, Var, While, is_float,
)
from porter.ir.walk import map_expr, walk_expr, walk_stmts
from porter.match.formulas import (
    Miss, Sum, WarpRead, WarpShare, Write, accumulated, comes_after, conjuncts, guard_and, holds_reduction,
    is_warp, kept_reduction, lane_zero, multiple_of, normalized, plain, substitute, substitute_builtins,
    thread_dependent,
)
from porter.match.reduction_idioms import ReductionIdioms
from porter.ir.symbolic import NotAffine, Poly, builtin_symbol, from_poly, to_poly


class Summarizer(ReductionIdioms):
    """The symbolic executor: runs a kernel's statements for one thread (the idioms of a
    reduction are reduction_idioms.py's)."""

    def __init__(self, kernel):
        self.kernel = kernel
        self.block = tuple(kernel.launch.block) + (1,) * (3 - len(kernel.launch.block))
        self.shared = {s.name: s for s in walk_stmts(kernel.body) if isinstance(s, Alloc)}
        self.stored: dict = {}  # shared array -> (index, value) as the writing thread sees them
        self.entries: dict = {}  # shared array -> [(index, value)] stored since the last barrier
        self.phase = 0           # barriers passed
        self.phases: dict = {}   # shared array -> the phase its entries belong to
        self.materialize = False  # reads of shared tiles stay reads of a tile (see `tiles`)
        self.tiles: dict = {}    # shared array -> (rows, cols, Var r, Var c, value over r and c)
        self.writes: list = []
        self.result_names: dict = {}  # RowReduce -> the first local the kernel keeps it in
        self.value_names: dict = {}   # a value computed from them -> the local holding it
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
            if isinstance(n, Builtin) and n.kind == "thread_idx" and self.block[n.axis] == 1:
                return Const(0, n.dtype)
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
        if index == "reduced":  # after a tree: only element 0 holds the block's result
            if plain(load.index) == Const(0, "int32"):
                return value
            raise Miss(f"a read of shared '{load.buffer}' after its tree other than element 0")
        if index == "warps":
            which = plain(load.index)
            if which != BinOp("%", Builtin("thread_idx", 0, "int32"), Const(32, "int32"), "int32"):
                raise Miss(f"the per-warp table '{load.buffer}' is read other than at [lane]")
            return WarpRead(value, which, value.dtype)
        if self.materialize or len(self.entries.get(load.buffer, ())) > 1:
            return self.read_tile(load)
        try:
            written, read = to_poly(index), to_poly(load.index)
        except NotAffine:
            raise Miss(f"shared '{load.buffer}' is indexed with non-affine arithmetic") from None
        tx, ty = builtin_symbol("thread_idx", 0), builtin_symbol("thread_idx", 1)
        dx, dy = self.block[0], self.block[1]
        if written - (ty * dx + tx) != 0 and not (dy == 1 and written - tx == 0):
            raise Miss(f"shared '{load.buffer}' is not written one element per thread "
                       "([threadIdx.y][threadIdx.x])")
        p, q = Poly.integer(0), Poly.integer(0)
        for term in read.terms():
            coeff, _ = term.split_coefficient()
            if dy > 1 and coeff % dx == 0:  # unlike _split, a 1-wide block puts all in p
                p += term / dx
            else:
                q += term
        if not (self._within(q, dx) and self._within(p, dy)):
            raise Miss(f"a read of shared '{load.buffer}' may reach an element another block "
                       "or no thread wrote")
        names = self._names()
        return substitute_builtins(value, {("thread_idx", 0): from_poly(q, names),
                                           ("thread_idx", 1): from_poly(p, names)})

    def read_tile(self, load: Load):
        """A shared array filled by the block (each thread one or more elements, row r and
        column c of the tile from threadIdx.y + a and threadIdx.x + b) is the tile
        S[r, c] = V(r, c); a read of S[p * pitch + q] is V(p, q), or a read of the tile."""
        buf = load.buffer
        alloc = self.shared[buf]
        pitch = alloc.shape[-1] if len(alloc.shape) > 1 else alloc.size
        tx, ty = builtin_symbol("thread_idx", 0), builtin_symbol("thread_idx", 1)
        r, c = Var(f"{buf}_r", "int32"), Var(f"{buf}_c", "int32")
        names = self._names()
        names.update({r.name: r, c.name: c})
        if buf not in self.tiles:
            values, rows = [], set()
            for index, value in self.entries.get(buf, []):
                try:
                    row, col = self._split(to_poly(index), pitch)
                except NotAffine:
                    raise Miss(f"shared '{buf}' is indexed with non-affine arithmetic") from None
                a, b = row - ty, col - tx
                if a.free_symbols or b.free_symbols or b != 0:
                    raise Miss(f"shared '{buf}' is not filled as [threadIdx.y + a][threadIdx.x]")
                rows |= set(range(int(a), int(a) + self.block[1]))
                moved = substitute_builtins(value, {("thread_idx", 1): fold(BinOp("-", r, Const(int(a), "int32"), "int32")),
                                                    ("thread_idx", 0): c})
                values.append(normalized(moved, names))
            if not values or any(v != values[0] for v in values[1:]):
                raise Miss(f"the elements of shared '{buf}' are not one formula of their position")
            if rows != set(range(len(rows))):
                raise Miss(f"shared '{buf}' is filled with gaps")
            self.tiles[buf] = (len(rows), self.block[0], r, c, values[0])
        n_rows, n_cols, r, c, value = self.tiles[buf]
        try:
            p, q = self._split(to_poly(load.index), pitch)
        except NotAffine:
            raise Miss(f"shared '{buf}' is read with non-affine arithmetic") from None
        if not (self._range_within(p, n_rows) and self._range_within(q, n_cols)):
            raise Miss(f"a read of shared '{buf}' may reach an element no thread wrote")
        pi, qi = from_poly(p, names), from_poly(q, names)
        if self.materialize:
            from porter.ir.tiles import TileLoad
            return TileLoad(buf, (pi, qi), value.dtype)
        return substitute(value, {r.name: pi, c.name: qi})

    @staticmethod
    def _split(index, pitch):
        """index = row * pitch + col, by the terms' coefficients."""
        row, col = Poly.integer(0), Poly.integer(0)
        for term in index.terms():
            coeff, _ = term.split_coefficient()
            if pitch > 1 and coeff % pitch == 0:
                row += term / pitch
            else:
                col += term
        return row, col

    def _range_within(self, s, extent: int) -> bool:
        """Whether the linear expression s stays in [0, extent) over the thread and loop ranges."""
        lo = hi = 0
        for term in s.terms():
            coeff, rest = term.split_coefficient()
            if rest == 1:
                lo, hi = lo + int(coeff), hi + int(coeff)
                continue
            if not rest.is_symbol:
                return False
            if rest.name.startswith("tid_"):
                a, b = 0, self.block["xyz".index(rest.name[-1])] - 1
            elif rest.name in self.ranges:
                a, b = self.ranges[rest.name][0], self.ranges[rest.name][1] - 1
            else:
                return False
            lo, hi = lo + min(coeff * a, coeff * b), hi + max(coeff * a, coeff * b)
        return 0 <= lo and hi < extent

    def _within(self, s, extent: int) -> bool:
        """Whether s (a single index symbol or constant) lies in [0, extent)."""
        s = Poly.of(s)
        if s.is_integer:
            return 0 <= int(s) < extent
        if s.is_symbol:
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

    def _own(self, loc) -> bool:
        """A statement of the kernel's own body (not of a helper inlined into it, whose
        locals name a helper's value: `total`, or a return slot)."""
        return comes_after(loc, self.kernel.loc)

    def run(self, stmts, env, guard):
        for s in stmts:
            if isinstance(s, Sync):
                self.phase += 1
                continue
            if isinstance(s, Comment):
                continue
            if isinstance(s, Alloc):
                if s.scope != "shared":
                    raise Miss("per-thread local arrays", s.loc)
                continue
            if isinstance(s, Decl):
                env[s.var.name] = self.expr(s.init, env) if s.init is not None else None
                kept = kept_reduction(env[s.var.name])
                if kept is not None and self._own(s.loc):
                    self.result_names.setdefault(kept, s.var.name)  # `row_max = red[0]`
                elif self._own(s.loc) and holds_reduction(env[s.var.name]):
                    self.value_names.setdefault(env[s.var.name], s.var.name)  # `inv_sum = 1 / s`
            elif isinstance(s, Assign):
                env[s.var.name] = self.expr(s.value, env)
            elif isinstance(s, Store):
                index, value = self.expr(s.index, env), self.expr(s.value, env)
                if s.buffer in self.shared and isinstance(value, WarpShare):
                    # `if (lane == 0) S[warp] = warp_sum`: a table of the warps' results
                    if not (is_warp(plain(index)) and any(lane_zero(c) for c in conjuncts(guard))):
                        raise Miss(f"a warp's result stored in shared '{s.buffer}' otherwise than "
                                   "by lane 0 at [warp]", s.loc)
                    self.stored[s.buffer] = ("warps", value)
                    continue
                if s.buffer in self.shared:
                    if guard is not None and thread_dependent(guard):
                        if not self.materialize:
                            raise Miss(f"shared '{s.buffer}' is written under a condition", s.loc)
                        zero = Const(0.0 if is_float(value.dtype) else 0, value.dtype)
                        value = Select(guard, value, zero, value.dtype)  # unwritten: never read
                    self.stored[s.buffer] = (index, value)
                    if self.phases.get(s.buffer) != self.phase:
                        if s.buffer in self.tiles:
                            raise Miss(f"shared '{s.buffer}' is filled twice", s.loc)
                        self.entries[s.buffer] = []
                        self.phases[s.buffer] = self.phase
                    self.entries[s.buffer].append((index, value))
                else:
                    self.writes.append(Write(s.buffer, index, value, guard, s.loc))
            elif isinstance(s, If):
                self.branch(s, env, guard)
            elif isinstance(s, For):
                self.loop(s, env, guard)
            elif isinstance(s, While) and (self.tree(s, env, guard) or self.argmax_tree(s, env) or
                                           self.butterfly(s, env) or
                                           self.online_butterfly(s, env) or self.grid_stride(s, env, guard)):
                continue
            elif isinstance(s, (While, Break, Continue)):
                raise Miss("while loops, break and continue", s.loc)
            elif isinstance(s, Atomic):
                if s.buffer in self.shared:
                    raise Miss("atomics on shared memory", s.loc)
                self.writes.append(Write(s.buffer, self.expr(s.index, env), self.expr(s.value, env),
                                         guard, s.loc, atomic=s.op))
            elif isinstance(s, Return):
                raise Miss("an early return inside a loop", s.loc)
            else:
                raise Miss(f"'{type(s).__name__}' statements", getattr(s, "loc", None))

    def _loop_body(self, s: For, env, guard, sym):
        """Run a loop body once with the loop variable as `sym` and every variable the body
        reassigns as a placeholder; returns (the body's env, the placeholders, writes before)."""
        carried = [n for n in dict.fromkeys(x.var.name for x in walk_stmts(s.body) if isinstance(x, Assign))
                   if n in env]
        body_env = dict(env)
        body_env[s.var.name] = sym
        holders = {n: Var(f"{n}@{self.fresh}", env[n].dtype if env[n] is not None else "float32")
                   for n in carried}
        body_env.update(holders)
        before = len(self.writes)
        self.run(s.body, body_env, guard)
        return body_env, holders, before

    def unroll(self, s: For, env, guard, step: int) -> bool:
        """A short loop with constant bounds and stride (a thread handling several rows of a
        tile): each iteration summarized in turn."""
        start, stop = self.expr(s.start, env), self.expr(s.cond.b, env)
        if not (isinstance(start, Const) and isinstance(stop, Const)):
            return False
        last = int(stop.value) + (1 if s.cond.op == "<=" else 0)
        values = range(int(start.value), last, step)
        if len(values) > 64:
            return False
        for v in values:
            env[s.var.name] = Const(v, s.var.dtype)
            self.run(s.body, env, guard)
        return True

    def branch(self, s: If, env, guard):
        cond = self.expr(s.cond, env)
        then_env, else_env = dict(env), dict(env)
        self.run(s.then, then_env, guard_and(guard, cond))
        self.run(s.orelse, else_env, guard_and(guard, UnaryOp("!", cond, "bool")))
        for name in env:
            a, b = then_env[name], else_env[name]
            if a is not b and a != b:
                if a is None or b is None:
                    raise Miss(f"'{name}' is set in only one branch of an if", s.loc)
                env[name] = Select(cond, a, b, a.dtype)

    def loop(self, s: For, env, guard):
        c = s.cond
        step = self.expr(s.step, env) if not isinstance(s.step, Const) else s.step
        if isinstance(c, BinOp) and c.op == "<" and c.a == s.var and isinstance(step, Const) and \
                int(step.value) in (self.block[0], 32) and step.value > 1:
            return self.strided_loop(s, env, guard, int(step.value))
        if isinstance(c, BinOp) and c.op == "<" and c.a == s.var and not isinstance(step, Const) and \
                multiple_of(step, self.block[0]) and not thread_dependent(step):
            return self.strided_loop(s, env, guard, step)  # a grid-stride for loop
        if isinstance(c, BinOp) and c.op in ("<", "<=") and c.a == s.var and isinstance(step, Const) \
                and step.value > 1 and self.unroll(s, env, guard, int(step.value)):
            return None
        if not (isinstance(c, BinOp) and c.op in ("<", "<=") and c.a == s.var) or \
                not (isinstance(s.step, Const) and s.step.value == 1):
            raise Miss("a loop that is not `for (i = a; i < b; i++)`", s.loc)
        self.fresh += 1
        sym = Var(f"{s.var.name}_{self.fresh}", "int32")
        start = self.expr(s.start, env)
        stop = self.expr(c.b if c.op == "<" else BinOp("+", c.b, Const(1, c.b.dtype), c.b.dtype), env)
        if isinstance(start, Const) and isinstance(stop, Const):
            self.ranges[sym.name] = (int(start.value), int(stop.value))
        body_env, holders, before = self._loop_body(s, env, guard, sym)
        if len(self.writes) != before:
            raise Miss("global stores inside a loop", s.loc)
        for name, holder in holders.items():
            new = body_env[name]
            if new == holder:
                continue
            term = accumulated(new, holder)
            if term is None or any(isinstance(n, Var) and n.name.endswith(f"@{self.fresh}")
                                   for n in walk_expr(term)):
                raise Miss(f"'{name}' is not accumulated with + in this loop", s.loc)
            if env[name] is None:
                raise Miss(f"'{name}' is accumulated before it is set", s.loc)
            env[name] = BinOp("+", env[name], Sum(sym, start, stop, term, term.dtype), env[name].dtype)


def summarize(kernel, result_names: dict | None = None, value_names: dict | None = None) -> list:
    """The kernel's global writes as formulas (raises Miss); `result_names`, when given, is
    filled with the name of the local each combined value was first kept in, `value_names`
    with the locals holding values computed from them (`inv_sum = 1.0f / red[0]`)."""
    s = Summarizer(kernel)
    s.run(kernel.body, {}, None)
    if result_names is not None:
        result_names.update(s.result_names)
    if value_names is not None:
        value_names.update(s.value_names)
    if not s.writes:
        raise Miss("the kernel writes no global memory")
    return s.writes
