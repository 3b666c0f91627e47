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

import dataclasses
from dataclasses import dataclass


from porter.builtins import LOG2E
from porter.ir.fold import fold
from porter.ir.nodes import (
    Alloc, Assign, Atomic, BinOp, Break, Builtin, Call, Cast, Comment, Const, Continue, Decl, For, If,
    Load, Return, Select, Store, Sync, UnaryOp, Var, While, is_float,
)
from porter.ir.walk import map_expr, walk_expr, walk_stmts
from porter.match.symbolic import NotAffine, Poly, builtin_symbol, from_poly, to_poly


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


@dataclass(frozen=True)
class Partial:
    """One thread's share of a strided loop: op over var in {start, start + step, ...} < stop
    (`for (c = threadIdx.x; c < n; c += blockDim.x) acc = op(acc, body)`)."""

    op: str
    var: Var
    start: object
    stop: object
    step: int
    body: object
    dtype: str


@dataclass(frozen=True)
class RowReduce:
    """op over var in [0, stop) of body: what the threads of a block computed together (their
    partials combined through a shared-memory tree); the same for every thread."""

    op: str
    var: Var
    stop: object
    body: object
    dtype: str
    group: int = 0  # how many threads combined it: the block, or 32 (a warp)
    lane0: bool = False  # only lane 0 of the warp holds it (a __shfl_down_sync tree)
    base: object = None    # grid-stride: var runs over base + k * stride + t, t < group
    stride: object = None
    hint: str = ""         # a name for the result in the port (e.g. "row_argmax")


@dataclass(frozen=True)
class OnlineSum:
    """The running denominator of an online softmax: sum of exp(term - max) over the thread's
    share, relative to the running max `peak` (a max Partial over the same share)."""

    peak: Partial
    dtype: str


@dataclass(frozen=True)
class ArgPartial:
    """The index a thread's strided loop keeps with its running max: the first position of
    the max over the thread's share (`if (v > best) { best = v; best_i = c; }`)."""

    peak: Partial      # the max Partial it follows
    initial_value: object
    initial_index: object
    dtype: str


@dataclass(frozen=True)
class WarpShare:
    """op over the 32 threads of this thread's warp of `value` (a formula of threadIdx.x), as
    a __shfl_down_sync tree leaves it in lane 0 (the first level of a block reduction)."""

    op: str
    value: object
    dtype: str


@dataclass(frozen=True)
class WarpRead:
    """A read of the per-warp table `S[warp] = share` at the entry of warp `which`."""

    share: WarpShare
    which: object
    dtype: str


@dataclass
class Write:
    buffer: str
    index: object
    value: object
    guard: object  # bool expression or None
    loc: object = None
    domain: tuple | None = None  # (var, start, stop, step): written for each var of a strided loop
    atomic: str | None = None    # atomicAdd & co.: the op that combines the value into memory


def substitute(e, mapping: dict):
    """Replace Vars by name (also inside Sum bodies)."""
    def step(n):
        if isinstance(n, Var) and n.name in mapping:
            return mapping[n.name]
        if isinstance(n, Sum):
            return Sum(n.var, substitute(n.start, mapping), substitute(n.stop, mapping),
                       substitute(n.body, mapping), n.dtype)
        if isinstance(n, RowReduce):
            return dataclasses.replace(n, stop=substitute(n.stop, mapping), body=substitute(n.body, mapping))
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
            if _plain(load.index) == Const(0, "int32"):
                return value
            raise Miss(f"a read of shared '{load.buffer}' after its tree other than element 0")
        if index == "warps":
            which = _plain(load.index)
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
                values.append(_normalized(moved, names))
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
        return _after(loc, self.kernel.loc)

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
                kept = _kept_reduction(env[s.var.name])
                if kept is not None and self._own(s.loc):
                    self.result_names.setdefault(kept, s.var.name)  # `row_max = red[0]`
                elif self._own(s.loc) and _holds_reduction(env[s.var.name]):
                    self.value_names.setdefault(env[s.var.name], s.var.name)  # `inv_sum = 1 / s`
            elif isinstance(s, Assign):
                env[s.var.name] = self.expr(s.value, env)
            elif isinstance(s, Store):
                index, value = self.expr(s.index, env), self.expr(s.value, env)
                if s.buffer in self.shared and isinstance(value, WarpShare):
                    # `if (lane == 0) S[warp] = warp_sum`: a table of the warps' results
                    if not (_is_warp(_plain(index)) and any(_lane_zero(c) for c in conjuncts(guard))):
                        raise Miss(f"a warp's result stored in shared '{s.buffer}' otherwise than "
                                   "by lane 0 at [warp]", s.loc)
                    self.stored[s.buffer] = ("warps", value)
                    continue
                if s.buffer in self.shared:
                    if guard is not None and _thread_dependent(guard):
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

    def grid_stride(self, s: While, env, guard) -> bool:
        """`i = blockIdx.x * blockDim.x + threadIdx.x; while (i < n) { ...; i += blockDim.x *
        gridDim.x; }`: a strided loop whose block covers base + k * stride + [0, blockDim.x)."""
        body = [x for x in s.body if not isinstance(x, Comment)]
        c = s.cond
        if not (isinstance(c, BinOp) and c.op == "<" and isinstance(c.a, Var) and body and
                isinstance(body[-1], Assign) and body[-1].var.name == c.a.name and env.get(c.a.name) is not None):
            return False
        name = c.a.name
        step = _plain(self.expr(body[-1].value, {**env, name: Var("gs@i", "int32")}))
        if not (isinstance(step, BinOp) and step.op == "+" and Var("gs@i", "int32") in (step.a, step.b)):
            return False
        stride = step.b if step.a == Var("gs@i", "int32") else step.a
        loop = For(Var(name, "int32"), env[name], c, stride, body[:-1], s.loc)
        self.strided_loop(loop, env, guard, stride, start=env[name])
        env[name] = None  # not read after the loop
        return True

    def strided_loop(self, s: For, env, guard, step, start=None):
        """`for (c = threadIdx.x; c < n; c += blockDim.x)`: the block covers [0, n) together;
        with a start `base + threadIdx.x` and a step that is a multiple of blockDim.x (a grid-
        stride loop), it covers base + k * step + [0, blockDim.x) for k = 0, 1, ..."""
        start = _plain(self.expr(s.start, env) if start is None else start)
        lane = BinOp("%", Builtin("thread_idx", 0, "int32"), Const(32, "int32"), "int32")
        tid = Builtin("thread_idx", 0, "int32")
        spelled = start in (tid, lane) or (isinstance(start, BinOp) and start.op == "+" and tid in (start.a, start.b))
        try:  # `base + threadIdx.x` however it is spelled (algebra only when not spelled so)
            if spelled:
                raise NotAffine("already threadIdx.x, the lane or base + threadIdx.x")
            base = to_poly(start) - builtin_symbol("thread_idx", 0)
            if base == 0:
                start = tid
            elif not any(sym.name.startswith("tid_") for sym in base.free_symbols):
                start = BinOp("+", from_poly(base, self._names()), tid, "int32")
        except (NotAffine, KeyError):
            pass
        grid = isinstance(start, BinOp) and start.op == "+" and tid in (start.a, start.b) and \
            not _thread_dependent(start.b if start.a == tid else start.a) and _multiple_of(step, self.block[0])
        if not ((step == self.block[0] and _is_tid(start)) or (step == 32 and start == lane) or grid):
            raise Miss("a strided loop that does not start at threadIdx.x (step blockDim.x) or at "
                       "the lane (step 32)", s.loc)
        self.fresh += 1
        sym = Var(f"{s.var.name}_{self.fresh}", "int32")
        stop = self.expr(s.cond.b, env)
        body_env, holders, before = self._loop_body(s, env, guard, sym)
        domain = (sym, start, stop, step)
        for w in self.writes[before:]:
            if w.domain is not None:
                raise Miss("nested strided loops", s.loc)
            w.domain = domain
        online = _online_pair(holders, body_env)
        arg = _argmax_pair(holders, body_env, sym)
        for name, holder in holders.items():
            new = body_env[name]
            if new == holder:
                continue
            if online and name == online[1]:
                continue  # the denominator follows its max (below)
            if arg and name == arg[1]:
                continue  # the index follows its max (below)
            found = _combined(new, holder)
            if found is None or any(isinstance(n, Var) and n.name.endswith(f"@{self.fresh}")
                                    for n in walk_expr(found[1])):
                raise Miss(f"'{name}' is not accumulated with +, max or min in this loop", s.loc)
            if env[name] is None:
                raise Miss(f"'{name}' is accumulated before it is set", s.loc)
            op, term = found
            partial = Partial(op, sym, start, stop, step, term, term.dtype)
            env[name] = combine(op, env[name], partial, env[name].dtype)
            if arg and name == arg[0]:
                env[arg[1]] = ArgPartial(partial, env[name].args[0] if isinstance(env[name], Call) else None,
                                         env[arg[1]], "int32") if env[arg[1]] is not None else None
                if env[arg[1]] is None:
                    raise Miss(f"the index '{arg[1]}' is not set before the loop", s.loc)
            if online and name == online[0]:
                d = online[1]
                if not (isinstance(env[d], Const) and env[d].value == 0):
                    raise Miss(f"an online softmax whose sum '{d}' does not start at 0", s.loc)
                env[d] = OnlineSum(partial, partial.dtype)

    def tree(self, s: While, env, guard) -> bool:
        """The shared-memory tree: `for (s = B / 2; s > 0; s >>= 1) { if (tid < s) S[tid] =
        op(S[tid], S[tid + s]); __syncthreads(); }` leaves op over the block's S in S[0]."""
        body = [x for x in s.body if not isinstance(x, Comment)]
        c = s.cond
        if not (isinstance(c, BinOp) and c.op in (">", "!=") and isinstance(c.a, Var) and
                isinstance(c.b, Const) and c.b.value == 0 and len(body) == 3):
            return False
        half = c.a.name
        first, sync, shrink = body
        if not (isinstance(first, If) and not first.orelse and len(first.then) == 1 and
                isinstance(first.then[0], Store) and isinstance(sync, Sync) and
                isinstance(shrink, Assign) and shrink.var.name == half):
            return False
        start = env.get(half)
        size = self.block[0]
        if not (isinstance(start, Const) and int(start.value) * 2 == size and size & (size - 1) == 0):
            return False
        probe = Var("tree@half", "int32")
        probe_env = {**env, half: probe}
        cond = _plain(self.expr_raw(first.cond, probe_env))
        store = first.then[0]
        buf = store.buffer
        halved = _plain(self.expr_raw(shrink.value, probe_env))
        if not (_is_tid(cond, "<", probe) and buf in self.shared and isinstance(halved, BinOp) and
                halved.a == probe and isinstance(halved.b, Const) and
                (halved.op, int(halved.b.value)) in ((">>", 1), ("/", 2))):
            return False
        if not _is_tid(_plain(self.expr_raw(store.index, probe_env))):
            return False
        value = _plain(self.expr_raw(store.value, probe_env))
        op = None
        for candidate in ("+", "max", "min"):
            if isinstance(value, (BinOp, Call)) and (value.op if isinstance(value, BinOp) else value.func) == candidate:
                a, b = (value.a, value.b) if isinstance(value, BinOp) else value.args
                loads = [x for x in (a, b) if isinstance(x, Load) and x.buffer == buf]
                if len(loads) == 2 and {_shape_of(x.index, probe) for x in loads} == {"tid", "tid+half"}:
                    op = candidate
        if op is None or buf not in self.stored:
            return False
        index, v = self.stored[buf]
        if not _is_tid(_plain(index)):
            raise Miss(f"the tree over shared '{buf}' reduces values not stored one per thread", s.loc)
        self.stored[buf] = ("reduced", self.block_reduce(op, v, s.loc))
        env[half] = Const(0, "int32")
        return True

    def argmax_tree(self, s: While, env) -> bool:
        """The shared-memory tree over (value, index) pairs: `if (tid < s) { ov = V[tid + s];
        oi = I[tid + s]; if (ov > V[tid] || (ov == V[tid] && oi < I[tid])) { V[tid] = ov;
        I[tid] = oi; } }`: V[0] is the block's max, I[0] the first index reaching it."""
        body = [x for x in s.body if not isinstance(x, Comment)]
        c = s.cond
        if not (isinstance(c, BinOp) and c.op in (">", "!=") and isinstance(c.a, Var) and
                isinstance(c.b, Const) and c.b.value == 0 and len(body) == 3):
            return False
        half = c.a.name
        first, sync, shrink = body
        start = env.get(half)
        size = self.block[0]
        if not (isinstance(first, If) and not first.orelse and isinstance(sync, Sync) and
                isinstance(shrink, Assign) and shrink.var.name == half and isinstance(start, Const) and
                int(start.value) * 2 == size and len(first.then) == 3):
            return False
        probe = Var("tree@half", "int32")
        probe_env = {**env, half: probe}
        if not _is_tid(_plain(self.expr_raw(first.cond, probe_env)), "<", probe):
            return False
        ov, oi, pick = first.then
        if not (isinstance(ov, Decl) and isinstance(oi, Decl) and isinstance(pick, If) and not pick.orelse
                and isinstance(ov.init, Load) and isinstance(oi.init, Load) and len(pick.then) == 2):
            return False
        V, I = ov.init.buffer, oi.init.buffer
        if _shape_of(self.expr_raw(ov.init.index, probe_env), probe) != "tid+half" or \
                _shape_of(self.expr_raw(oi.init.index, probe_env), probe) != "tid+half":
            return False
        stores = {st.buffer: st for st in pick.then if isinstance(st, Store)}
        if set(stores) != {V, I} or stores[V].value != ov.var or stores[I].value != oi.var or \
                not all(_shape_of(self.expr_raw(st.index, probe_env), probe) == "tid" for st in stores.values()):
            return False
        cond = _plain(self.expr_raw(pick.cond, probe_env))
        tid = Builtin("thread_idx", 0, "int32")
        mine_v, mine_i = Load(V, tid, ov.var.dtype), Load(I, tid, oi.var.dtype)
        a, b = _plain(ov.var), _plain(oi.var)
        expected = BinOp("||", BinOp(">", a, _plain(mine_v), "bool"),
                         BinOp("&&", BinOp("==", a, _plain(mine_v), "bool"),
                               BinOp("<", b, _plain(mine_i), "bool"), "bool"), "bool")
        if cond != expected or V not in self.stored or I not in self.stored:
            return False
        (vi, value), (ii, index) = self.stored[V], self.stored[I]
        if not (_is_tid(_plain(vi)) and _is_tid(_plain(ii)) and isinstance(index, ArgPartial)):
            return False
        best = self.block_reduce("max", value, s.loc)
        p = index.peak
        found = BinOp("&&", BinOp("==", p.body, best, "bool"),
                      BinOp(">", p.body, index.initial_value, "bool"), "bool") \
            if index.initial_value is not None else BinOp("==", p.body, best, "bool")
        first_index = RowReduce("min", p.var, p.stop, Select(found, p.var, index.initial_index, "int32"),
                                "int32", self.block[0], hint="row_argmax")
        self.stored[V] = ("reduced", best)
        self.stored[I] = ("reduced", first_index)
        env[half] = Const(0, "int32")
        return True

    def online_butterfly(self, s: While, env) -> bool:
        """The warp combine of an online softmax: `m_o = shfl_xor(m, o); d_o = shfl_xor(d, o);
        M = max(m, m_o); d = d * exp(m - M) + d_o * exp(m_o - M); m = M;` for o = 16, 8, ...
        1: every lane ends with the row's max and sum of exp(x - max)."""
        body = [x for x in s.body if not isinstance(x, Comment)]
        c = s.cond
        if not (isinstance(c, BinOp) and c.op in (">", "!=") and isinstance(c.a, Var) and
                isinstance(c.b, Const) and c.b.value == 0 and len(body) >= 3):
            return False
        off = c.a.name
        sums = [n for n, v in env.items() if isinstance(v, OnlineSum)]
        start = env.get(off)
        if len(sums) != 1 or not (isinstance(start, Const) and int(start.value) == 16):
            return False
        d = sums[0]
        peaks = [n for n, v in env.items() if v is not None and n != d and
                 any(isinstance(x, Partial) and x == env[d].peak for x in walk_expr(v))]
        if len(peaks) != 1:
            return False
        m = peaks[0]
        local = {k: v for k, v in env.items()}
        local.update({m: Var("m@h", env[m].dtype), d: Var("d@h", env[d].dtype), off: Var("o@h", "int32")})

        def step(n):
            if isinstance(n, Var) and n.name in local and local[n.name] is not None:
                return local[n.name]
            if isinstance(n, Call) and n.func == "shfl_xor" and len(n.args) == 2 and isinstance(n.args[0], Var) and \
                    n.args[0].name.endswith("@h"):
                return Var(n.args[0].name.replace("@h", "@o"), n.dtype)
            return None

        for st in body[:-1]:
            if isinstance(st, Decl) and st.init is not None:
                local[st.var.name] = map_expr(st.init, step)
            elif isinstance(st, Assign):
                local[st.var.name] = map_expr(st.value, step)
            else:
                return False
        shrink = body[-1]
        halved = _plain(map_expr(shrink.value, step)) if isinstance(shrink, Assign) and shrink.var.name == off else None
        if not (isinstance(halved, BinOp) and isinstance(halved.b, Const) and
                (halved.op, int(halved.b.value)) in ((">>", 1), ("/", 2))):
            return False
        mh, dh = Var("m@h", env[m].dtype), Var("d@h", env[d].dtype)
        mo, do = Var("m@o", env[m].dtype), Var("d@o", env[d].dtype)
        peak = local[m]
        if peak not in (Call("max", (mh, mo), mh.dtype), Call("max", (mo, mh), mh.dtype)):
            return False
        t = mh.dtype

        def rescaled(x, y, fast):
            return BinOp("*", x, _exp(BinOp("-", y, peak, t), fast), t)
        fast = next((f for f in (False, True) if local[d] in (
            BinOp("+", rescaled(dh, mh, f), rescaled(do, mo, f), t),
            BinOp("+", rescaled(do, mo, f), rescaled(dh, mh, f), t))), None)
        if fast is None:
            return False
        p = env[d].peak
        whole_max = self.block_reduce("max", env[m], s.loc, step=32)
        env[m] = whole_max
        term = _exp(BinOp("-", p.body, whole_max, t), fast)  # as the original spells it
        env[d] = RowReduce("+", p.var, p.stop, term, t, 32)
        env[off] = Const(0, "int32")
        return True

    def butterfly(self, s: While, env) -> bool:
        """`for (m = 16; m > 0; m >>= 1) v = op(v, __shfl_xor_sync(~0, v, m));`: every lane of
        the warp ends with op over the warp's 32 values."""
        body = [x for x in s.body if not isinstance(x, Comment)]
        c = s.cond
        if not (isinstance(c, BinOp) and c.op in (">", "!=") and isinstance(c.a, Var) and
                isinstance(c.b, Const) and c.b.value == 0 and len(body) == 2):
            return False
        mask = c.a.name
        update, shrink = body
        start = env.get(mask)
        if not (isinstance(start, Const) and int(start.value) == 16 and isinstance(update, Assign) and
                isinstance(shrink, Assign) and shrink.var.name == mask):
            return False
        halved = _plain(shrink.value)
        if not (isinstance(halved, BinOp) and isinstance(halved.b, Const) and
                (halved.op, int(halved.b.value)) in ((">>", 1), ("/", 2))):
            return False
        v = update.var
        value = update.value
        op = value.op if isinstance(value, BinOp) else value.func if isinstance(value, Call) else None
        if op not in ("+", "max", "min"):
            return False
        a, b = (value.a, value.b) if isinstance(value, BinOp) else value.args
        shuffles = [x for x in (a, b) if isinstance(x, Call) and x.func in ("shfl_xor", "shfl_down")
                    and len(x.args) == 2]  # more: segments of a warp or a partial mask, not the warp
        if len(shuffles) != 1 or v not in (a, b) or _plain(shuffles[0].args[0]) != _plain(v):
            return False
        if env.get(v.name) is None:
            raise Miss(f"'{v.name}' is reduced across the warp before it is set", s.loc)
        value = env[v.name]
        reads = [n for n in walk_expr(value) if isinstance(n, WarpRead)]
        lane_partial = any(isinstance(n, Partial) and n.step == 32 for n in walk_expr(value))
        if reads:
            reduced = self.second_level(op, value, reads, s.loc)
        elif shuffles[0].func == "shfl_down" and not lane_partial:
            reduced = WarpShare(op, value, value.dtype)  # first level: lane 0 of each warp
        else:
            reduced = self.block_reduce(op, value, s.loc, step=32)
        if shuffles[0].func == "shfl_down":  # lanes other than 0 hold partial results
            reduced = _mark_lane0(reduced)
        env[v.name] = reduced
        env[mask] = Const(0, "int32")
        return True

    def second_level(self, op, value, reads, loc):
        """Lane l of a warp reads the table entry of warp l (zero past the last warp) and the
        warp reduces again: lane 0 holds op over the whole block of the first level's value."""
        (read,) = set(reads) if len(set(reads)) == 1 else (None,)
        warps = self.block[0] // 32
        lane = BinOp("%", Builtin("thread_idx", 0, "int32"), Const(32, "int32"), "int32")
        if read is None or read.share.op != op:
            raise Miss("a second warp reduction of another kind", loc)
        if value != read:
            ok = isinstance(value, Select) and value.a == read and isinstance(value.b, Const) and \
                value.b.value == 0 and _plain(value.cond) == BinOp("<", lane, Const(warps, "int32"), "bool")
            if not ok:
                raise Miss("a second warp reduction that does not read exactly one entry per warp", loc)
        elif warps != 32:
            raise Miss("a second warp reduction reading past the last warp's entry", loc)
        return self.block_reduce(op, read.share.value, loc)

    def expr_raw(self, e, env):
        """Like expr, without forwarding shared loads (for matching the tree's own statement)."""
        def step(n):
            if isinstance(n, Var) and n.name in env and env[n.name] is not None:
                return env[n.name]
            return None
        return fold(map_expr(e, step))

    def block_reduce(self, op, v, loc, step=None):
        """op over the block's (step=32: the warp's) threads of v: a RowReduce over the row the
        group covers."""
        step = step or self.block[0]
        parts = [p for p in walk_expr(v) if isinstance(p, Partial)]
        if not parts and step != self.block[0]:
            raise Miss("a warp reduction of values not gathered by a strided loop", loc)
        if not parts:
            j = Var(f"j_{self.fresh}", "int32")
            self.fresh += 1
            body = substitute_builtins(v, {("thread_idx", 0): j})
            return RowReduce(op, j, Const(self.block[0], "int32"), body, v.dtype, step)
        (p,) = parts if len(parts) == 1 else (None,)
        tid = Builtin("thread_idx", 0, "int32")
        if p is not None and p.op == op and step == self.block[0] and isinstance(p.start, BinOp) and \
                not _is_tid(p.start) and p.start.op == "+" and tid in (p.start.a, p.start.b):
            base = p.start.b if p.start.a == tid else p.start.a  # a grid-stride partial
            whole = RowReduce(op, p.var, p.stop, p.body, p.dtype, step, base=base, stride=p.step)
            return self._with_initial(op, v, p, whole, loc)
        if p is None or p.op != op or p.step != step:
            raise Miss("a tree over partials of another kind or stride", loc)
        whole = RowReduce(op, p.var, p.stop, p.body, p.dtype, step)
        return self._with_initial(op, v, p, whole, loc)

    def _with_initial(self, op, v, p, whole, loc):
        """op over the threads of op(initial, partial) is op(initial, whole) when the initial
        value is the same in every thread (and 0 for sums)."""
        if v == p:
            return whole
        if isinstance(v, (BinOp, Call)):
            a, b = (v.a, v.b) if isinstance(v, BinOp) else v.args
            other = a if b == p else b if a == p else None
            if other is not None and combine(op, a, b, v.dtype) == v and not any(
                    isinstance(n, Builtin) and n.kind == "thread_idx" for n in walk_expr(other)):
                identity = op != "+" or (isinstance(other, Const) and other.value == 0)
                if identity and op == "+":
                    return whole  # 0 + sum
                if identity:
                    return combine(op, other, whole, v.dtype)
        raise Miss("a tree over a value that mixes a strided partial with thread-dependent terms", loc)

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
        step = self.expr(s.step, env) if not isinstance(s.step, Const) else s.step
        if isinstance(c, BinOp) and c.op == "<" and c.a == s.var and isinstance(step, Const) and \
                int(step.value) in (self.block[0], 32) and step.value > 1:
            return self.strided_loop(s, env, guard, int(step.value))
        if isinstance(c, BinOp) and c.op == "<" and c.a == s.var and not isinstance(step, Const) and \
                _multiple_of(step, self.block[0]) and not _thread_dependent(step):
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
            term = _accumulated(new, holder)
            if term is None or any(isinstance(n, Var) and n.name.endswith(f"@{self.fresh}")
                                   for n in walk_expr(term)):
                raise Miss(f"'{name}' is not accumulated with + in this loop", s.loc)
            if env[name] is None:
                raise Miss(f"'{name}' is accumulated before it is set", s.loc)
            env[name] = BinOp("+", env[name], Sum(sym, start, stop, term, term.dtype), env[name].dtype)


def _combined(new, holder):
    """`op(holder, term)` -> (op, term) for op in +, max, min."""
    term = _accumulated(new, holder)
    if term is not None:
        return "+", term
    if isinstance(new, Call) and new.func in ("max", "min") and len(new.args) == 2:
        a, b = new.args
        if a == holder and holder not in walk_expr(b):
            return new.func, b
        if b == holder and holder not in walk_expr(a):
            return new.func, a
    return None


IDENTITY = {"+": 0.0, "max": float("-inf"), "min": float("inf")}


def combine(op, a, b, dtype):
    return BinOp("+", a, b, dtype) if op == "+" else Call(op, (a, b), dtype)


def _accumulated(new, holder):
    """`holder + term` (or `term + holder`) -> term."""
    if isinstance(new, BinOp) and new.op == "+":
        if new.a == holder and holder not in walk_expr(new.b):
            return new.b
        if new.b == holder and holder not in walk_expr(new.a):
            return new.a
    return None


def _normalized(e, names):
    """Integer index arithmetic in one canonical form, so that equal formulas compare equal."""
    def step(n):
        if isinstance(n, Load):
            try:
                return Load(n.buffer, from_poly(to_poly(n.index), names, n.index.dtype), n.dtype)
            except (NotAffine, KeyError):
                return None
        if isinstance(n, BinOp) and n.op in ("<", "<=", ">", ">=", "==", "!=") and not is_float(n.a.dtype):
            try:
                return BinOp(n.op, from_poly(to_poly(n.a), names, n.a.dtype),
                             from_poly(to_poly(n.b), names, n.b.dtype), "bool")
            except (NotAffine, KeyError):
                return None
        return None
    return map_expr(e, step)


def _argmax_pair(holders: dict, body_env: dict, var):
    """(v, i) when a loop does `if (t > v) { v = t; i = var; }`: a running max and the first
    position reaching it."""
    for v, vh in holders.items():
        new_v = body_env.get(v)
        if not (isinstance(new_v, Select) and new_v.b == vh and isinstance(new_v.cond, BinOp) and
                new_v.cond.op == ">" and new_v.cond.b == vh and new_v.cond.a == new_v.a):
            continue
        for i, ih in holders.items():
            new_i = body_env.get(i)
            if i != v and isinstance(new_i, Select) and new_i.cond == new_v.cond and new_i.b == ih and \
                    _plain(new_i.a) == _plain(var):
                body_env[v] = Call("max", (vh, new_v.a), new_v.dtype)  # as a max accumulation
                return v, i
    return None


def _online_pair(holders: dict, body_env: dict):
    """(m, d) when a loop updates `m = max(m, t)` and `d = d * exp(m - M) + exp(t - M)` with M
    the new m (an online softmax's running max and sum), else None."""
    for m, mh in holders.items():
        new_m = body_env.get(m)
        if not (isinstance(new_m, Call) and new_m.func == "max" and mh in new_m.args):
            continue
        t_ = new_m.args[1] if new_m.args[0] == mh else new_m.args[0]
        dt = new_m.dtype
        for d, dh in holders.items():
            if d == m:
                continue
            for fast in (False, True):
                expected = BinOp("+", BinOp("*", dh, _exp(BinOp("-", mh, new_m, dt), fast), dt),
                                 _exp(BinOp("-", t_, new_m, dt), fast), dt)
                if body_env.get(d) == expected:
                    return m, d
    return None


def _exp(x, fast: bool):
    """exp(x); with `fast`, as a CUDA `__expf` reads in the IR: exp2(x * log2 e) (porter/builtins.py)."""
    if fast:
        return Call("exp2", (BinOp("*", x, Const(LOG2E, x.dtype), x.dtype),), x.dtype)
    return Call("exp", (x,), x.dtype)


def conjuncts(c) -> list:
    """The terms of `a && b && ...` (none for no condition)."""
    if c is None:
        return []
    if isinstance(c, BinOp) and c.op == "&&":
        return conjuncts(c.a) + conjuncts(c.b)
    return [c]


def all_of(parts):
    """`a && b && ...` of the parts that say something (None and `true` dropped, repeats once);
    None when none do."""
    unique = []
    for p in parts:
        if p is not None and not (isinstance(p, Const) and p.value is True) and p not in unique:
            unique.append(p)
    if not unique:
        return None
    out = unique[0]
    for p in unique[1:]:
        out = BinOp("&&", out, p, "bool")
    return out


def _lane_zero(c) -> bool:
    c = _plain(c)
    lane = BinOp("%", Builtin("thread_idx", 0, "int32"), Const(32, "int32"), "int32")
    return isinstance(c, BinOp) and c.op == "==" and c.a == lane and c.b == Const(0, "int32")


def _is_warp(e) -> bool:
    return e == BinOp("/", Builtin("thread_idx", 0, "int32"), Const(32, "int32"), "int32")


def _multiple_of(e, n: int) -> bool:
    """Whether e is visibly n times something (a product with the constant n)."""
    e = _plain(e)
    if isinstance(e, Const):
        return int(e.value) % n == 0 and int(e.value) >= n
    return isinstance(e, BinOp) and e.op == "*" and any(
        isinstance(x, Const) and int(x.value) % n == 0 for x in (e.a, e.b))


def _mark_lane0(e):
    def step(n):
        return dataclasses.replace(n, lane0=True) if isinstance(n, RowReduce) and n.group == 32 else None
    return map_expr(e, step)


def _thread_dependent(e) -> bool:
    return any(isinstance(n, Builtin) and n.kind == "thread_idx" for n in walk_expr(e))


def _plain(e):
    """Integer casts and int32/uint32 differences dropped: for matching index shapes."""
    def step(n):
        if isinstance(n, Cast) and not is_float(n.dtype) and not is_float(n.a.dtype):
            return n.a
        if isinstance(n, Builtin):
            return Builtin(n.kind, n.axis, "int32")
        if isinstance(n, Const) and not is_float(n.dtype) and n.dtype != "bool":
            return Const(int(n.value), "int32")
        if isinstance(n, Var) and not is_float(n.dtype):
            return Var(n.name, "int32")
        if isinstance(n, BinOp) and not is_float(n.dtype) and n.dtype != "bool":
            zero, one = Const(0, "int32"), Const(1, "int32")
            if isinstance(n.a, Const) and isinstance(n.b, Const):
                folded = fold(BinOp(n.op, n.a, n.b, "int32"))
                if isinstance(folded, Const):
                    return folded
            if n.op in ("+", "-") and n.b == zero or n.op == "*" and n.b == one:
                return n.a
            if n.op == "+" and n.a == zero or n.op == "*" and n.a == one:
                return n.b
            return BinOp(n.op, n.a, n.b, "int32")
        return None
    return map_expr(e, step)


def _is_tid(e, op=None, other=None) -> bool:
    tid = Builtin("thread_idx", 0, "int32")
    if op is None:
        return e == tid
    return isinstance(e, BinOp) and e.op == op and e.a == tid and e.b == other


def _shape_of(index, half) -> str:
    index = _plain(index)
    if _is_tid(index):
        return "tid"
    if isinstance(index, BinOp) and index.op == "+" and {index.a, index.b} == {Builtin("thread_idx", 0, "int32"), half}:
        return "tid+half"
    return "?"


def substitute_builtins(e, mapping: dict):
    def step(n):
        if isinstance(n, Builtin) and (n.kind, n.axis) in mapping:
            value = mapping[(n.kind, n.axis)]
            return value if value.dtype == n.dtype else Cast(n.dtype, value)
        if isinstance(n, RowReduce):
            return dataclasses.replace(n, stop=substitute_builtins(n.stop, mapping),
                                       body=substitute_builtins(n.body, mapping))
        if isinstance(n, Sum):
            return Sum(n.var, substitute_builtins(n.start, mapping), substitute_builtins(n.stop, mapping),
                       substitute_builtins(n.body, mapping), n.dtype)
        return None
    return map_expr(e, step)


def _kept_reduction(value):
    """The RowReduce a local holds: itself, or combined with the threads' starting value
    (`fmaxf(-FLT_MAX, red[0])`, `0.0f + red[0]`); a value computed from it is not it."""
    if isinstance(value, RowReduce):
        return value
    if isinstance(value, Call) and value.func in ("max", "min") and len(value.args) == 2:
        parts = value.args
    elif isinstance(value, BinOp) and value.op == "+":
        parts = (value.a, value.b)
        if not any(isinstance(p, Const) and float(p.value) == 0.0 for p in parts):
            return None
    else:
        return None
    reduces = [p for p in parts if isinstance(p, RowReduce)]
    if len(reduces) == 1 and any(isinstance(p, Const) for p in parts):
        return reduces[0]
    return None


def _holds_reduction(value) -> bool:
    from porter.ir.walk import walk_expr

    try:
        return any(isinstance(n, RowReduce) for n in walk_expr(value))
    except TypeError:
        return False


def _after(loc, start) -> bool:
    return loc is not None and start is not None and loc.file == start.file and loc.line > start.line


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
