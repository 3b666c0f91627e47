"""Rule `rowwise`: a block that reduces a row together -> chunked T.reduce over fragments.

Covers block reductions written with a shared-memory tree (sum / max / min) and warp reductions
written with a shuffle butterfly (one warp per row), fed directly or by strided or grid-stride
per-thread loops, and the row-wise fused kernels built from them (softmax, norms, GEMV): every
value the threads combine becomes a RowReduce (formulas.py), every strided store a row write, a
per-block atomicAdd one atomic per block.

Before (softmax of one row per block, 256 threads):

    for (c = tid; c < cols; c += blockDim.x) m = fmaxf(m, in[row * cols + c]);
    red[tid] = m; __syncthreads();
    for (s = 128; s > 0; s >>= 1) { if (tid < s) red[tid] = fmaxf(red[tid], red[tid + s]); __syncthreads(); }
    ... the same for the sum of exp(x - max) ...
    for (c = tid; c < cols; c += blockDim.x) out[row * cols + c] = expf(in[...] - max) / sum;

After (the row in 256-wide chunks folded lane by lane into one fragment, one tile reduction):

    row_max = -inf
    for j in T.Parallel(256): x[j] = -inf
    for ck in T.serial(T.ceildiv(cols, 256)):
        for j in T.Parallel(256): x[j] = T.max(x[j], in[row * cols + ck * 256 + j] if in the row else -inf)
    T.reduce_max(x, x_red, dim=0)
    row_max = T.max(row_max, x_red[0])
    ... sum likewise ...
    for ck in T.serial(T.ceildiv(cols, 256)):
        for j in T.Parallel(256): if in the row: out[...] = T.exp(in[...] - row_max) / row_sum

The launch keeps the original grid and block size: one block still produces what one block
produced (e.g. one partial sum per 256 elements). Sums are added in another order than the
tree did; verify's tolerances cover that.
"""

from __future__ import annotations

import dataclasses
import re

from porter.ir.fold import fold
from porter.ir.nodes import (
    Assign, Atomic, BinOp, Builtin, Call, Cast, Const, Decl, For, If, Kernel, Launch, Load, Select, Store,
    Var, is_float,
)
from porter.ir.tiles import ParallelFor, Reduce, TileBuffer, TileLoad, TileStore
from porter.ir.walk import all_exprs, map_expr, walk_expr, walk_stmts
from porter.match.formulas import (
    IDENTITY, Miss, RowReduce, is_warp, lane_zero, plain, all_of, combine, conjuncts, substitute,
    substitute_builtins,
)
from porter.match.summary import summarize

_TID = Builtin("thread_idx", 0, "int32")
_ZERO = Const(0, "int32")

NAME = "rowwise"
SUMMARY = ("a block, or a warp, combines values with sum / max / min / argmax (shared-memory tree, "
           "__shfl_xor_sync or __shfl_down_sync butterfly) fed directly or by strided or grid-stride "
           "loops, then writes the row back, stores or atomically adds the result: row sums, "
           "softmax (also online: running max and rescaled sum), layernorm, RMSNorm, cross-entropy, "
           "GEMV, dot products")
PRODUCES = "T.Parallel gathers folded into fragments, one T.reduce_* per row pass, T.Parallel row writes"

CHUNK = 256


def _reduces(e) -> list:
    """RowReduce nodes, innermost first, each once."""
    found = []

    def visit(n):
        for x in walk_expr(n):
            if isinstance(x, RowReduce) and x not in found:
                visit(x.body)
                if x not in found:
                    found.append(x)
    visit(e)
    return found


def _thread_free(e) -> bool:
    return not any(isinstance(n, Builtin) and n.kind == "thread_idx" for n in walk_expr(e))


def _is_first_thread(c) -> bool:
    """`threadIdx.x == 0`: the store happens once per block."""
    return plain(c) == BinOp("==", _TID, _ZERO, "bool")


def _warp_index(e, w):
    """With threadIdx.x = w * 32: `threadIdx.x / 32` is w and `threadIdx.x % 32` is 0."""
    warp_start = BinOp("*", w, Const(32, "int32"), "int32")

    def step(n):
        if isinstance(n, BinOp) and n.op in ("/", "%") and plain(n.b) == Const(32, "int32") and \
                plain(n.a) == warp_start:
            return Cast(n.dtype, w) if n.op == "/" else Const(0, n.dtype)
        if isinstance(n, RowReduce):
            return dataclasses.replace(n, stop=_warp_index(n.stop, w), body=_warp_index(n.body, w))
        return None
    return fold(map_expr(e, step))


def _single_thread(conds) -> bool:
    """The conditions hold for exactly one thread of the block: `threadIdx.x == 0`, or lane 0
    of warp 0 (`threadIdx.x % 32 == 0 && threadIdx.x / 32 == 0`)."""
    if any(_is_first_thread(c) for c in conds):
        return True

    def warp_zero(c):
        c = plain(c)
        return isinstance(c, BinOp) and c.op == "==" and is_warp(c.a) and c.b == _ZERO
    return any(lane_zero(c) for c in conds) and any(warp_zero(c) for c in conds)


def _is_lane_zero(c) -> bool:
    """`threadIdx.x % 32 == 0` (or `threadIdx.x == 0`)."""
    return _is_first_thread(c) or lane_zero(c)


def match(kernel: Kernel) -> Kernel:
    block = tuple(kernel.launch.block)
    if len([b for b in block if b > 1]) > 1:
        raise Miss("a 2-D thread block")
    result_names: dict = {}
    value_names: dict = {}
    writes = summarize(kernel, result_names, value_names)
    for w in writes:  # a __shfl_down_sync result is the warp's only in lane 0
        if any(r.lane0 for r in _reduces(w.value) + _reduces(w.index)) and \
                not any(_is_lane_zero(c) for c in conjuncts(w.guard)):
            raise Miss("a warp's __shfl_down_sync result used by lanes other than 0")
    warp_rows = any(w.domain is not None and w.domain[3] == 32 for w in writes) or any(
        r.group == 32 for w in writes for r in _reduces(w.value) + _reduces(w.index))
    rows_per_block = 1
    if warp_rows:
        # one warp per row: the block's warps take their rows one after another
        rows_per_block = max(block) // 32 if block else 1
        # the warp's index within the block: a loop variable when the block holds several
        w_var = Var("w", "int32") if rows_per_block > 1 else Const(0, "int32")
        at_warp = {("thread_idx", 0): BinOp("*", w_var, Const(32, "int32"), "int32")}
        def at(e):
            return _warp_index(substitute_builtins(e, at_warp), w_var)

        writes = [dataclasses.replace(w, index=at(w.index), value=at(w.value),
                                      guard=at(w.guard) if w.guard is not None else None,
                                      domain=None if w.domain is None else
                                      (w.domain[0], w.domain[1], at(w.domain[2]), w.domain[3]))
                  for w in writes]
    reduces = []
    for w in writes:
        for r in _reduces(w.value) + _reduces(w.index) + [x for g in conjuncts(w.guard) for x in _reduces(g)]:
            if r not in reduces:
                reduces.append(r)
    if not reduces:
        raise Miss("no value is combined across the block's threads")
    row_writes = {w.buffer for w in writes if w.domain is not None}
    for r in reduces:
        if not _thread_free(r.body):
            raise Miss("a reduced value that depends on the thread index otherwise than through "
                       "the reduced index")
        # the port computes every reduction before any row write: a reduction over a buffer the
        # kernel writes row-wide may read it before or after that write (`residual` stored,
        # then its variance taken), which this order cannot keep
        read = {n.buffer for n in walk_expr(r.body) if isinstance(n, Load)}
        if read & row_writes:
            raise Miss(f"a reduction reads '{min(read & row_writes)}', which the kernel also "
                       "writes across the row")

    # the conditions every write shares and no thread decides guard the whole block
    common = None
    guards = [[c for c in conjuncts(w.guard)] for w in writes]
    if guards:
        common = [c for c in guards[0] if _thread_free(c) and all(c in g for g in guards[1:])]
    loc = kernel.loc

    def rows(bind) -> list:
        names = {}
        body = []
        for n, r in enumerate(reduces):
            body += _reduction(r, n, names, loc, result_names.get(r, ""), bind)
        named = {_use_results(v, names): name for v, name in value_names.items()}
        hoisted: set = set()
        for w in writes:
            body += _write(w, [c for c in conjuncts(w.guard) if c not in common], names, loc,
                           named, hoisted, bind)
        return body

    params = {p.name for p in kernel.params}
    body = rows(bind=params | {x.name for e in all_exprs(kernel.body) for x in walk_expr(e) if isinstance(x, Var)})
    if _bindings_clash(body, params):
        body = rows(bind=None)
    if common:
        body = [If(all_of(common), body, [], loc)]
    if warp_rows and rows_per_block > 1:
        body = [For(w_var, Const(0, "int32"), BinOp("<", w_var, Const(rows_per_block, "int32"), "bool"),
                    Const(1, "int32"), body, loc)]
    threads = max(block) if block else 1
    launch = Launch(kernel.launch.grid, (1,), 0, kernel.launch.origin, kernel.launch.loc, threads)
    return dataclasses.replace(kernel, body=body, launch=launch)


def _chunk(stop) -> int:
    if isinstance(stop, Const) and int(stop.value) <= 1024:
        n = 1
        while n < int(stop.value):
            n *= 2
        return n
    return CHUNK


def _use_results(e, names):
    """Reductions already computed -> the variables holding them."""
    def step(n):
        return names.get(n)
    return map_expr(e, step)


def _at(e, var, position):
    """e with the reduced index replaced by a chunk position (cast to the index's type)."""
    return substitute(e, {var.name: position})


def _position(var, position, bind, loc) -> tuple:
    """How a parallel step reads the original's loop variable at a chunk position: under its
    own name, bound once at the top of the step (`c = ck * 256 + j`: the index computed once,
    as the original computes it), or, when `bind` is None, the variable is not int32 or the
    position is the lane itself, the position substituted. `bind`: the original kernel's
    names, which tell the front end's renaming of a repeated loop variable (`c_2` beside
    `c`) from the user's spelling. (what the step reads for it, the step's leading statements)"""
    if bind is None or var.dtype != "int32" or isinstance(position, Var):
        return position, []
    name = var.name
    base = re.fullmatch(r"(.+)_\d+", name)  # summary's and the front end's renaming suffixes
    while base and base.group(1) in bind:  # each step's variable is its own local: the user's name
        name = base.group(1)
        base = re.fullmatch(r"(.+)_\d+", name)
    local = Var(name, var.dtype)
    return local, [Decl(local, position, loc)]


def _bindings_clash(body: list, params: set) -> bool:
    """Whether a loop variable bound in a parallel step shares its name with a parameter, the
    chunk and lane variables, or a local declared or assigned elsewhere (it would not be the
    step's own local then)."""
    bound, other = set(), set(params) | {"ck", "j", "w"}
    for s in walk_stmts(body):
        if isinstance(s, ParallelFor):
            bound |= {d.var.name for d in s.body if isinstance(d, Decl)}
    tops = {id(d) for s in walk_stmts(body) if isinstance(s, ParallelFor) for d in s.body}
    for s in walk_stmts(body):
        if isinstance(s, Assign) or (isinstance(s, Decl) and id(s) not in tops):
            other.add(s.var.name)
    return bool(bound & other)


def _reduction(r: RowReduce, n: int, names: dict, loc, user_name: str = "", bind=None) -> list:
    """acc = op over [0, stop) of body, a chunk of CHUNK elements at a time; acc is named as
    the original names the result (`float row_max = red[0];`) where it does."""
    width = _chunk(r.stop) if r.stride is None else r.group
    hint = r.hint or user_name
    base_name = hint or f"row_{'sum' if r.op == '+' else r.op}"
    acc = Var(f"{base_name}_{n}" if n and not hint else base_name, r.dtype)
    frag, part = f"{acc.name}_chunk", f"{acc.name}_part"
    ck, j = Var("ck", "int32"), Var("j", "int32")
    int_identity = {"+": 0, "max": -2 ** 31, "min": 2 ** 31 - 1}
    if not is_float(r.dtype) and r.dtype != "int32":
        raise Miss(f"a {r.dtype} reduction")
    identity = Const(IDENTITY[r.op] if is_float(r.dtype) else int_identity[r.op], r.dtype)
    single = r.stride is None and isinstance(r.stop, Const) and int(r.stop.value) <= width
    position = j if single else BinOp("+", BinOp("*", ck, Const(width, "int32"), "int32"), j, "int32")
    if r.stride is not None:  # a grid-stride loop: this block's chunks start at base + k * stride
        position = BinOp("+", BinOp("+", r.base, BinOp("*", ck, r.stride, "int32"), "int32"), j, "int32")
    at, lead = _position(r.var, position, bind, loc)
    value = _at(_use_results(r.body, names), r.var, at)
    inside = BinOp("<", at, r.stop, "bool")
    gather = Select(inside, value, identity, r.dtype) if not (single and int(r.stop.value) == width) else value
    step = [TileBuffer(frag, r.dtype, (width,), "fragment", loc),
            ParallelFor((j,), (width,), lead + [TileStore(frag, (j,), gather, loc)], loc),
            TileBuffer(part, r.dtype, (1,), "fragment", loc),
            Reduce("sum" if r.op == "+" else r.op, frag, part, 0, loc)]
    out = [Decl(acc, identity, loc)]
    combined = Assign(acc, combine(r.op, acc, TileLoad(part, (Const(0, "int32"),), r.dtype), r.dtype), loc)
    if single:
        out += step + [combined]
    else:
        # the chunks fold into one fragment lane by lane; one tile reduction per row pass
        steps = Call("ceildiv", (r.stop, Const(width, "int32")), "int32") if r.stride is None else \
            Call("ceildiv", (BinOp("-", r.stop, r.base, "int32"), r.stride), "int32")
        folded = combine(r.op, TileLoad(frag, (j,), r.dtype), gather, r.dtype)
        out += [TileBuffer(frag, r.dtype, (width,), "fragment", loc),
                ParallelFor((j,), (width,), [TileStore(frag, (j,), identity, loc)], loc),
                For(ck, Const(0, "int32"), BinOp("<", ck, steps, "bool"), Const(1, "int32"),
                    [ParallelFor((j,), (width,), lead + [TileStore(frag, (j,), folded, loc)], loc)], loc),
                TileBuffer(part, r.dtype, (1,), "fragment", loc),
                Reduce("sum" if r.op == "+" else r.op, frag, part, 0, loc), combined]
    names[r] = acc
    return out


def _hoist_named(value, named: dict, hoisted: set, loc) -> tuple:
    """Values of the row the original keeps in a local (`inv_sum = 1.0f / sum`), computed
    once before the row write under that name: (the value reading them, their Decls)."""
    decls = []

    def step(node):
        name = named.get(node)
        if name is None or isinstance(node, (Var, Const)):
            return None
        var = Var(name, node.dtype)
        if name not in hoisted:
            hoisted.add(name)
            decls.append(Decl(var, node, loc))
        return var

    try:
        return map_expr(value, step), decls
    except TypeError:
        return value, []


def _write(w, guard, names, loc, named: dict, hoisted: set, bind=None) -> list:
    """A write once per block, or a row write over the strided loop's range."""
    if w.domain is not None and w.atomic:
        raise Miss("atomics inside a strided loop")
    if w.domain is None:
        once = [c for c in guard if not _thread_free(c)]
        if once and not _single_thread(once):
            raise Miss("a store under a condition on the thread index other than threadIdx.x == 0")
        guard = [c for c in guard if _thread_free(c)]
        index, value = _use_results(w.index, names), _use_results(w.value, names)
        if not (_thread_free(index) and _thread_free(value)):
            raise Miss("a store of a per-thread value outside a strided loop")
        store = Store(w.buffer, index, value, w.loc)
        cond = all_of(guard)  # None: nothing left to test (`threadIdx.x == 0` of the one warp)
        if w.atomic:  # once per block: a one-element parallel step (not every thread's)
            j = Var("j", "int32")
            atomic = Atomic(w.atomic, w.buffer, index, value, w.loc)
            body = [If(cond, [atomic], [], w.loc)] if cond is not None else [atomic]
            return [ParallelFor((j,), (1,), body, w.loc)]
        return [If(cond, [store], [], w.loc)] if cond is not None else [store]
    var, _start, stop, _step = w.domain
    if not all(_thread_free(c) for c in guard):
        raise Miss("a strided store under a condition on the thread index")
    ck, j = Var("ck", "int32"), Var("j", "int32")
    width = _chunk(stop)
    position = BinOp("+", BinOp("*", ck, Const(width, "int32"), "int32"), j, "int32")
    value, decls = _hoist_named(_use_results(w.value, names), named, hoisted, w.loc)
    at, lead = _position(var, position, bind, w.loc)
    index = _at(_use_results(w.index, names), var, at)
    value = _at(value, var, at)
    cond = all_of([BinOp("<", at, stop, "bool")] + [_at(_use_results(c, names), var, at) for c in guard])
    if not (_thread_free(index) and _thread_free(value) and _thread_free(cond)):
        raise Miss("a strided store that depends on the thread index otherwise than through the loop")
    steps = Call("ceildiv", (stop, Const(width, "int32")), "int32")
    inner = ParallelFor((j,), (width,), lead + [If(cond, [Store(w.buffer, index, value, w.loc)], [], w.loc)],
                        w.loc)
    return decls + [For(ck, Const(0, "int32"), BinOp("<", ck, steps, "bool"), Const(1, "int32"), [inner],
                        w.loc)]
