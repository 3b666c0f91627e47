"""The formulas a thread's statements summarize to (summary.py), and the questions the
executor and the idiom recognisers (reduction_idioms.py) ask of expressions: sums and partial
reductions as values, writes under guards, conjuncts of a guard, the plain form of an index.
Miss is how any of them says a kernel is not summarizable, with the reason."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from porter.builtins import LOG2E
from porter.ir.fold import fold
from porter.ir.nodes import BinOp, Builtin, Call, Cast, Const, Load, Select, Var, is_float
from porter.ir.walk import map_expr, walk_expr
from porter.ir.symbolic import NotAffine, from_poly, to_poly


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


def guard_and(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return BinOp("&&", a, b, "bool")


def combined(new, holder):
    """`op(holder, term)` -> (op, term) for op in +, max, min."""
    term = accumulated(new, holder)
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


def accumulated(new, holder):
    """`holder + term` (or `term + holder`) -> term."""
    if isinstance(new, BinOp) and new.op == "+":
        if new.a == holder and holder not in walk_expr(new.b):
            return new.b
        if new.b == holder and holder not in walk_expr(new.a):
            return new.a
    return None


def normalized(e, names):
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


def argmax_pair(holders: dict, body_env: dict, var):
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
                    plain(new_i.a) == plain(var):
                body_env[v] = Call("max", (vh, new_v.a), new_v.dtype)  # as a max accumulation
                return v, i
    return None


def online_pair(holders: dict, body_env: dict):
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
                expected = BinOp("+", BinOp("*", dh, exp_of(BinOp("-", mh, new_m, dt), fast), dt),
                                 exp_of(BinOp("-", t_, new_m, dt), fast), dt)
                if body_env.get(d) == expected:
                    return m, d
    return None


def exp_of(x, fast: bool):
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


def lane_zero(c) -> bool:
    c = plain(c)
    lane = BinOp("%", Builtin("thread_idx", 0, "int32"), Const(32, "int32"), "int32")
    return isinstance(c, BinOp) and c.op == "==" and c.a == lane and c.b == Const(0, "int32")


def is_warp(e) -> bool:
    return e == BinOp("/", Builtin("thread_idx", 0, "int32"), Const(32, "int32"), "int32")


def multiple_of(e, n: int) -> bool:
    """Whether e is visibly n times something (a product with the constant n)."""
    e = plain(e)
    if isinstance(e, Const):
        return int(e.value) % n == 0 and int(e.value) >= n
    return isinstance(e, BinOp) and e.op == "*" and any(
        isinstance(x, Const) and int(x.value) % n == 0 for x in (e.a, e.b))


def mark_lane0(e):
    def step(n):
        return dataclasses.replace(n, lane0=True) if isinstance(n, RowReduce) and n.group == 32 else None
    return map_expr(e, step)


def thread_dependent(e) -> bool:
    return any(isinstance(n, Builtin) and n.kind == "thread_idx" for n in walk_expr(e))


def plain(e):
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


def is_tid(e, op=None, other=None) -> bool:
    tid = Builtin("thread_idx", 0, "int32")
    if op is None:
        return e == tid
    return isinstance(e, BinOp) and e.op == op and e.a == tid and e.b == other


def shape_of(index, half) -> str:
    index = plain(index)
    if is_tid(index):
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


def kept_reduction(value):
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


def holds_reduction(value) -> bool:
    from porter.ir.walk import walk_expr

    try:
        return any(isinstance(n, RowReduce) for n in walk_expr(value))
    except TypeError:
        return False


def comes_after(loc, start) -> bool:
    return loc is not None and start is not None and loc.file == start.file and loc.line > start.line
