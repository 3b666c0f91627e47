"""The reduction idioms a thread's statements may spell, each summarized as one formula: the
methods of the symbolic executor (summary.py's Summarizer) that recognise a loop shape.

    grid_stride       `while (i < n) { ...; i += blockDim.x * gridDim.x; }`
    strided_loop      `for (c = threadIdx.x; c < n; c += blockDim.x)`: the block covers [0, n)
    tree              a shared-memory tree `for (s = blockDim.x / 2; s > 0; s >>= 1)`
    argmax_tree       the same tree carrying (value, index) pairs
    butterfly         warp shuffles `v += __shfl_xor_sync(mask, v, offset)` over offsets
    online_butterfly  a butterfly carrying an online softmax's (max, sum) pair

Each returns False (or raises Miss with the reason) when the statement is not its idiom;
summary.py tries them in turn.
"""

from __future__ import annotations

from porter.ir.fold import fold
from porter.ir.nodes import (
    Assign, BinOp, Builtin, Call, Comment, Const, Decl, For, If, Load, Select, Store, Sync, Var, While,
)
from porter.ir.walk import map_expr, walk_expr
from porter.match.formulas import (
    ArgPartial, Miss, OnlineSum, Partial, RowReduce, WarpRead, WarpShare, argmax_pair, combine, combined,
    exp_of, is_tid, mark_lane0, multiple_of, online_pair, plain, shape_of, substitute_builtins,
    thread_dependent,
)
from porter.ir.symbolic import NotAffine, builtin_symbol, from_poly, to_poly


class ReductionIdioms:
    """Mixed into Summarizer: these read its state (env, shared tables, block) and call its
    run/expr."""

    def grid_stride(self, s: While, env, guard) -> bool:
        """`i = blockIdx.x * blockDim.x + threadIdx.x; while (i < n) { ...; i += blockDim.x *
        gridDim.x; }`: a strided loop whose block covers base + k * stride + [0, blockDim.x)."""
        body = [x for x in s.body if not isinstance(x, Comment)]
        c = s.cond
        if not (isinstance(c, BinOp) and c.op == "<" and isinstance(c.a, Var) and body and
                isinstance(body[-1], Assign) and body[-1].var.name == c.a.name and env.get(c.a.name) is not None):
            return False
        name = c.a.name
        step = plain(self.expr(body[-1].value, {**env, name: Var("gs@i", "int32")}))
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
        start = plain(self.expr(s.start, env) if start is None else start)
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
            not thread_dependent(start.b if start.a == tid else start.a) and multiple_of(step, self.block[0])
        if not ((step == self.block[0] and is_tid(start)) or (step == 32 and start == lane) or grid):
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
        online = online_pair(holders, body_env)
        arg = argmax_pair(holders, body_env, sym)
        for name, holder in holders.items():
            new = body_env[name]
            if new == holder:
                continue
            if online and name == online[1]:
                continue  # the denominator follows its max (below)
            if arg and name == arg[1]:
                continue  # the index follows its max (below)
            found = combined(new, holder)
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

    def _halving_loop(self, s: While, env):
        """(the half's name, the `if`, the halving assignment) of `while (half > 0) { if (...)
        {...} __syncthreads(); half = ...; }` with half starting at half the block, else None:
        the shape both shared-memory trees share."""
        body = [x for x in s.body if not isinstance(x, Comment)]
        c = s.cond
        if not (isinstance(c, BinOp) and c.op in (">", "!=") and isinstance(c.a, Var) and
                isinstance(c.b, Const) and c.b.value == 0 and len(body) == 3):
            return None
        half = c.a.name
        first, sync, shrink = body
        start = env.get(half)
        if not (isinstance(first, If) and not first.orelse and isinstance(sync, Sync) and
                isinstance(shrink, Assign) and shrink.var.name == half and isinstance(start, Const) and
                int(start.value) * 2 == self.block[0]):
            return None
        return half, first, shrink

    def tree(self, s: While, env, guard) -> bool:
        """The shared-memory tree: `for (s = B / 2; s > 0; s >>= 1) { if (tid < s) S[tid] =
        op(S[tid], S[tid + s]); __syncthreads(); }` leaves op over the block's S in S[0]."""
        loop = self._halving_loop(s, env)
        if loop is None:
            return False
        half, first, shrink = loop
        size = self.block[0]
        if not (len(first.then) == 1 and isinstance(first.then[0], Store) and size & (size - 1) == 0):
            return False
        probe = Var("tree@half", "int32")
        probe_env = {**env, half: probe}
        cond = plain(self.expr_raw(first.cond, probe_env))
        store = first.then[0]
        buf = store.buffer
        halved = plain(self.expr_raw(shrink.value, probe_env))
        if not (is_tid(cond, "<", probe) and buf in self.shared and isinstance(halved, BinOp) and
                halved.a == probe and isinstance(halved.b, Const) and
                (halved.op, int(halved.b.value)) in ((">>", 1), ("/", 2))):
            return False
        if not is_tid(plain(self.expr_raw(store.index, probe_env))):
            return False
        value = plain(self.expr_raw(store.value, probe_env))
        op = None
        for candidate in ("+", "max", "min"):
            if isinstance(value, (BinOp, Call)) and (value.op if isinstance(value, BinOp) else value.func) == candidate:
                a, b = (value.a, value.b) if isinstance(value, BinOp) else value.args
                loads = [x for x in (a, b) if isinstance(x, Load) and x.buffer == buf]
                if len(loads) == 2 and {shape_of(x.index, probe) for x in loads} == {"tid", "tid+half"}:
                    op = candidate
        if op is None or buf not in self.stored:
            return False
        index, v = self.stored[buf]
        if not is_tid(plain(index)):
            raise Miss(f"the tree over shared '{buf}' reduces values not stored one per thread", s.loc)
        self.stored[buf] = ("reduced", self.block_reduce(op, v, s.loc))
        env[half] = Const(0, "int32")
        return True

    def argmax_tree(self, s: While, env) -> bool:
        """The shared-memory tree over (value, index) pairs: `if (tid < s) { ov = V[tid + s];
        oi = I[tid + s]; if (ov > V[tid] || (ov == V[tid] && oi < I[tid])) { V[tid] = ov;
        I[tid] = oi; } }`: V[0] is the block's max, I[0] the first index reaching it."""
        loop = self._halving_loop(s, env)
        if loop is None or len(loop[1].then) != 3:
            return False
        half, first, _shrink = loop
        probe = Var("tree@half", "int32")
        probe_env = {**env, half: probe}
        if not is_tid(plain(self.expr_raw(first.cond, probe_env)), "<", probe):
            return False
        ov, oi, pick = first.then
        if not (isinstance(ov, Decl) and isinstance(oi, Decl) and isinstance(pick, If) and not pick.orelse
                and isinstance(ov.init, Load) and isinstance(oi.init, Load) and len(pick.then) == 2):
            return False
        V, I = ov.init.buffer, oi.init.buffer
        if shape_of(self.expr_raw(ov.init.index, probe_env), probe) != "tid+half" or \
                shape_of(self.expr_raw(oi.init.index, probe_env), probe) != "tid+half":
            return False
        stores = {st.buffer: st for st in pick.then if isinstance(st, Store)}
        if set(stores) != {V, I} or stores[V].value != ov.var or stores[I].value != oi.var or \
                not all(shape_of(self.expr_raw(st.index, probe_env), probe) == "tid" for st in stores.values()):
            return False
        cond = plain(self.expr_raw(pick.cond, probe_env))
        tid = Builtin("thread_idx", 0, "int32")
        mine_v, mine_i = Load(V, tid, ov.var.dtype), Load(I, tid, oi.var.dtype)
        a, b = plain(ov.var), plain(oi.var)
        expected = BinOp("||", BinOp(">", a, plain(mine_v), "bool"),
                         BinOp("&&", BinOp("==", a, plain(mine_v), "bool"),
                               BinOp("<", b, plain(mine_i), "bool"), "bool"), "bool")
        if cond != expected or V not in self.stored or I not in self.stored:
            return False
        (vi, value), (ii, index) = self.stored[V], self.stored[I]
        if not (is_tid(plain(vi)) and is_tid(plain(ii)) and isinstance(index, ArgPartial)):
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
        halved = plain(map_expr(shrink.value, step)) if isinstance(shrink, Assign) and shrink.var.name == off else None
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
            return BinOp("*", x, exp_of(BinOp("-", y, peak, t), fast), t)
        fast = next((f for f in (False, True) if local[d] in (
            BinOp("+", rescaled(dh, mh, f), rescaled(do, mo, f), t),
            BinOp("+", rescaled(do, mo, f), rescaled(dh, mh, f), t))), None)
        if fast is None:
            return False
        p = env[d].peak
        whole_max = self.block_reduce("max", env[m], s.loc, step=32)
        env[m] = whole_max
        term = exp_of(BinOp("-", p.body, whole_max, t), fast)  # as the original spells it
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
        halved = plain(shrink.value)
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
        if len(shuffles) != 1 or v not in (a, b) or plain(shuffles[0].args[0]) != plain(v):
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
            reduced = mark_lane0(reduced)
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
                value.b.value == 0 and plain(value.cond) == BinOp("<", lane, Const(warps, "int32"), "bool")
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
                not is_tid(p.start) and p.start.op == "+" and tid in (p.start.a, p.start.b):
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
