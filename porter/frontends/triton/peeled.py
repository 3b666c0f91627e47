"""Hand-peeled iterations of a Triton loop merged back into one masked loop.

Triton authors peel the ragged tile off a loop so the other iterations load without a mask
(FlagGems' `prev_multiple_of(N, T) = cdiv(N, T) * T - T`, the start of the last tile):

    for s in range(0, P, T): BODY(s)                  unmasked, whole tiles
    for s in range(P, N, T): BODY(s) with mask=offs < N       the last tile       (tail loop)

    for s in range(0, T, T): BODY(s) with mask=offs < N       the first tile, offs = P - s + arange
    for s in range(T, N, T): BODY(s)                                               (reversed head)

    for s in range(0, P, T): BODY(s)
    BODY(P) with mask=offs < N                                                     (peeled statements)

    for t in range(tiles - 1): BODY(t)               offs = t * T + arange, tiles = cdiv(N, T)
    BODY(tiles - 1) with mask=offs < N                                  (tile indices, peeled)

A TileLang author writes one loop over `T.ceildiv(N, T)` whose masked `T.copy` covers the tail,
so the port merges them: `for s in range(0, N, T): BODY(s) with the masks`. It is the same
computation because the masked body is the plain one with conjuncts added to its masks (their
`other` values only matter where a mask is false) and every added conjunct is true on the
iterations that had none: each is `offs < N` with `offs = c * s + arange(0, T)` (or `P - c * s
+ arange(0, T)`), c times the loop's step is T, and the plain loop's last tile ends at the start
of N's last tile, P = cdiv(N, T) * T - T <= N - 1 (recognised in the IR through helpers and
locals, as polynomials with each ceildiv a name). The iterations are those of the original's
loops for N >= 1 (at N <= 0 the original's tile starts at -T, before the buffer). Anything else
(other masks, other bounds, a peeled local read after the peel before it is assigned again)
stays as written.
"""

from __future__ import annotations

import ast
import copy

from porter.diagnostics import TileportError
from porter.frontends.triton.values import RuntimeValue, SlotRef, StaticValue
from porter.ir.fold import fold
from porter.ir.nodes import BinOp, Call, Cast, Const, Var
from porter.ir.walk import map_expr
from porter.ir.symbolic import NotAffine, to_poly

_MASK_KEYWORDS = ("mask", "other")


def merged_peel(conv, stmts: list, i: int, env: dict):
    """(one `for` replacing the peeled loop at stmts[i] and its peel, how many statements it
    replaces), or None."""
    first = stmts[i]
    if _range(first) is None:
        return None
    second = stmts[i + 1] if i + 1 < len(stmts) else None
    if _range(second) is not None:
        merged = _tail_loop(conv, first, second, env) or _reversed_head(conv, first, second, env)
        if merged is not None:
            return merged, 2
    for count in range(len(first.body), len(first.body) + 4):
        peel = stmts[i + 1:i + 1 + count]
        if len(peel) < count:
            break
        merged = _peeled_statements(conv, first, peel, stmts[i + 1 + count:], env)
        if merged is not None:
            return merged, 1 + count
    return None


def _tail_loop(conv, plain, masked, env):
    """`for s in range(0, E, st)` unmasked, then `for s in range(E, N, st)` masked."""
    start, stop, step = _range(plain)
    m_start, m_stop, m_step = _range(masked)
    if not (_is_zero(start) and _same(stop, m_start) and _same(step, m_step)):
        return None
    body = _renamed(masked.body, masked.target.id, plain.target.id)
    if _covers(conv, body, plain.body, plain.target.id, stop, step, env) is None:
        return None
    return _loop(plain, start, m_stop, step, body)


def _reversed_head(conv, masked, plain, env):
    """`for s in range(0, st, st)` masked (offsets `P - s + arange(0, T)`), then
    `for s in range(st, N, st)` unmasked."""
    start, stop, step = _range(masked)
    p_start, p_stop, p_step = _range(plain)
    if not (_is_zero(start) and _same(stop, step) and _same(step, p_step) and _same(p_start, step)):
        return None
    body = _renamed(masked.body, masked.target.id, plain.target.id)
    if _covers(conv, body, plain.body, plain.target.id, None, step, env) is None:
        return None
    return _loop(plain, start, p_stop, step, body)


def _peeled_statements(conv, plain, peel, after, env):
    """`for s in range(0, E, st)` unmasked, then its body once more at s = E, masked."""
    start, stop, step = _range(plain)
    if not _is_zero(start):
        return None
    var = plain.target.id
    body = _replaced(peel, stop, var)
    proof = _covers(conv, body, plain.body, var, stop, step, env)
    if proof is None:
        return None
    # a name the peel assigns is the merged loop's local: the statements after it may read
    # it only where it was defined before the loop (a loop-carried accumulator) or once they
    # have assigned it again (_live)
    assigned = {n.id for s in peel for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    if any(name not in env and _live(name, after) for name in assigned):
        return None
    bound, scale = proof
    # the loop runs once more, at s = E: to E + st, spelled as the original would
    if isinstance(stop, ast.BinOp) and isinstance(stop.op, ast.Sub) and _same(stop.right, step):
        end = stop.left  # range(0, num_steps - 1) and the peel at num_steps - 1
    elif scale == 1:
        end = bound  # range(0, P, T) and the peel at P = cdiv(N, T) * T - T: as many as range(0, N, T)
    else:
        end = ast.BinOp(left=copy.deepcopy(stop), op=ast.Add(), right=copy.deepcopy(step))
    return _loop(plain, start, end, step, body)


def _covers(conv, masked: list, plain: list, var: str, last, step, env):
    """(N, c) when `masked` is `plain` with conjuncts added to its load/store masks and every
    added one is `offs < N`, true on each tile `plain` ran: offs = c * var + arange(0, T) with
    c * step = T and `last` * c (the stop of the plain loop) the start of N's last tile,
    cdiv(N, T) * T - T; or, with `last` None (a reversed walk from the last tile), offs =
    P - c * var + arange(0, T) with P that start. Else None."""
    masked_locals, plain_locals = _single_assignments(masked), _single_assignments(plain)
    selecting, computed = _selections_taken(masked, masked_locals)
    masked_calls, plain_calls = _memory_calls(masked), _memory_calls(plain)
    stripped, plain_stripped = _stripped(selecting), _stripped(plain)
    if len(masked_calls) != len(plain_calls) or ast.dump(ast.Module(stripped, [])) != \
            ast.dump(ast.Module(plain_stripped, [])):
        return None
    stride = _static_int(conv, step, env)
    if stride is None or stride <= 0:
        return None
    added = [c for mask in computed for c in _conjuncts(_inlined(mask, masked_locals))]
    for m_call, p_call in zip(masked_calls, plain_calls):
        m_mask, p_mask = _keyword(m_call, "mask"), _keyword(p_call, "mask")
        if p_mask is not None and ast.dump(_keyword(m_call, "other") or ast.Constant(None)) != \
                ast.dump(_keyword(p_call, "other") or ast.Constant(None)):
            return None
        have = [] if m_mask is None else _conjuncts(_inlined(m_mask, masked_locals))
        kept = {ast.dump(c) for c in ([] if p_mask is None else _conjuncts(_inlined(p_mask, plain_locals)))}
        if not kept <= {ast.dump(c) for c in have}:
            return None
        added += [c for c in have if ast.dump(c) not in kept]
    if not added:
        return None
    proof = None
    for conjunct in added:
        if not (isinstance(conjunct, ast.Compare) and len(conjunct.ops) == 1 and
                isinstance(conjunct.ops[0], ast.Lt)):
            return None
        limit = conjunct.comparators[0]
        found = _tile_start(conv, _bare(conjunct.left), env)
        if found is None or any(isinstance(n, ast.Name) and n.id in masked_locals for n in ast.walk(limit)):
            return None
        start, tile = found
        if last is None:
            if not (isinstance(start, ast.BinOp) and isinstance(start.op, ast.Sub)):
                return None
            first, scale = start.left, 1
            c = _multiple_of(conv, start.right, var, env)
        else:
            first = last
            c = scale = _multiple_of(conv, start, var, env)
        if c is None or c * stride != tile or not _last_tile_start(conv, first, scale, limit, tile, env):
            return None
        if proof is not None and ast.dump(proof[0]) != ast.dump(limit):
            return None
        proof = (limit, c)
    return proof


def _multiple_of(conv, node, var: str, env):
    """c when `node` is `var`, `var * c` or `c * var` with c a compile-time int; else None."""
    if _is_name(node, var):
        return 1
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        for name, factor in ((node.left, node.right), (node.right, node.left)):
            if _is_name(name, var):
                return _static_int(conv, factor, env)
    return None


def _live(name: str, stmts: list) -> bool:
    """Whether `stmts` may read `name` before assigning it (a loop or branch that reads it
    anywhere counts; one that assigns it does not kill it, it may not run)."""
    for s in stmts:
        if isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            value = s.value if s.value is not None else ast.Constant(None)
            if _reads(name, value) or isinstance(s, ast.AugAssign) and _is_name(s.target, name):
                return True  # `v += 1` reads v first
            targets = s.targets if isinstance(s, ast.Assign) else [s.target]
            if any(_is_name(t, name) for t in targets):
                return False
            if any(_reads(name, t) for t in targets):
                return True
        elif isinstance(s, ast.For):
            if _reads(name, s.iter) or (not _is_name(s.target, name) and _live(name, s.body)):
                return True
        elif _reads(name, s):
            return True
    return False


def _reads(name: str, node) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) for n in ast.walk(node))


def _selections_taken(body: list, locals_: dict) -> tuple:
    """(a copy of `body` with each selection by a mask local taken as if the mask held:
    `tl.where(mask, a, b)` as a, `mask.to(tl.int32)` as 1; the masks so read), for a peel that
    also computes with its mask (a Welford update that skips the tail: layernorm's
    `tl.where(mask, m + (x - m) / n, m)`, `cnt += mask.to(tl.int32)`). The masks read so must
    then be true on every merged iteration the plain loop ran, as the load masks must."""
    masks = {name for name, value in locals_.items() if _comparisons(value, locals_)}
    used = set()

    class Take(ast.NodeTransformer):
        def visit_Call(self, node):
            node = self.generic_visit(node)
            f = node.func
            if isinstance(f, ast.Attribute) and f.attr == "where" and len(node.args) == 3 and \
                    not node.keywords and isinstance(node.args[0], ast.Name) and node.args[0].id in masks:
                used.add(node.args[0].id)
                return node.args[1]
            if isinstance(f, ast.Attribute) and f.attr == "to" and isinstance(f.value, ast.Name) and \
                    f.value.id in masks and len(node.args) == 1 and isinstance(node.args[0], ast.Attribute) and \
                    node.args[0].attr in ("int32", "int64"):
                used.add(f.value.id)
                return ast.copy_location(ast.Constant(1), node)
            return node
    taken = [Take().visit(copy.deepcopy(s)) for s in body]
    return taken, [ast.Name(id=name, ctx=ast.Load()) for name in sorted(used)]


def _memory_calls(stmts: list) -> list:
    return [n for s in stmts for n in ast.walk(s) if isinstance(n, ast.Call) and
            isinstance(n.func, ast.Attribute) and n.func.attr in ("load", "store")]


def _keyword(call, name: str):
    return next((k.value for k in call.keywords if k.arg == name), None)


def _stripped(stmts: list) -> list:
    """A copy of `stmts` without the `mask=`/`other=` of their tl.load / tl.store calls and
    without the top-level `name = ...` statements only those masks read (`keep = offs < n`)."""
    body = copy.deepcopy(stmts)
    masks = []
    for call in _memory_calls(body):
        masks += [k.value for k in call.keywords if k.arg == "mask"]
        call.keywords = [k for k in call.keywords if k.arg not in _MASK_KEYWORDS]
    read = {n.id for s in body for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    in_masks = {n.id for m in masks for n in ast.walk(m) if isinstance(n, ast.Name)}
    return [s for s in body if not (isinstance(s, ast.Assign) and len(s.targets) == 1 and
                                    isinstance(s.targets[0], ast.Name) and s.targets[0].id in in_masks and
                                    s.targets[0].id not in read)]


def _single_assignments(body: list) -> dict:
    """name -> value of the top-level names `body` assigns exactly once."""
    seen = {}
    for s in body:
        for node in ast.walk(s):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                seen[node.id] = seen.get(node.id, 0) + 1
    return {s.targets[0].id: s.value for s in body
            if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)
            and seen.get(s.targets[0].id) == 1}


def _comparisons(expr, locals_: dict, depth: int = 8) -> bool:
    """Whether `expr` is a mask, comparisons joined by `&`, through the locals it is made of
    (what _conjuncts of the inlined expression would find, without inlining the comparisons'
    own operands)."""
    expr = _bare(expr)
    if isinstance(expr, ast.Name) and expr.id in locals_ and depth > 0:
        return _comparisons(locals_[expr.id], locals_, depth - 1)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.BitAnd):
        return _comparisons(expr.left, locals_, depth) and _comparisons(expr.right, locals_, depth)
    return isinstance(expr, ast.Compare)


def _inlined(expr, locals_: dict, depth: int = 8):
    """`expr` with the locals it reads replaced by their values, theirs in turn, `depth` levels
    deep; each local's expansion at a level is built once (a chain of locals reading each
    other twice would otherwise be expanded again at every read)."""
    built: dict = {}

    def expanded(name: str, level: int):
        if (name, level) not in built:
            built[name, level] = substituted(locals_[name], level - 1)
        return copy.deepcopy(built[name, level])

    def substituted(node, level: int):
        node = copy.deepcopy(node)
        if level <= 0:
            return node

        class Inline(ast.NodeTransformer):
            def visit_Name(self, name):
                return expanded(name.id, level) if name.id in locals_ else name
        return Inline().visit(node)

    return substituted(expr, depth)


def _conjuncts(expr) -> list:
    expr = _bare(expr)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.BitAnd):
        return _conjuncts(expr.left) + _conjuncts(expr.right)
    if isinstance(expr, ast.Compare):
        return [ast.Compare(_bare(expr.left), expr.ops, [_bare(c) for c in expr.comparators])]
    return [expr]


def _bare(expr):
    """`expr` without broadcasts (`x[:, None]`) and widenings of offsets (`x.to(tl.int64)`),
    which change no value a mask compares (a narrower type might)."""
    while True:
        if isinstance(expr, ast.Subscript) and _is_broadcast(expr.slice):
            expr = expr.value
        elif isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "to" \
                and len(expr.args) == 1 and isinstance(expr.args[0], ast.Attribute) and \
                expr.args[0].attr in ("int32", "int64"):
            expr = expr.func.value
        else:
            return expr


def _is_broadcast(index) -> bool:
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    return all(isinstance(p, ast.Slice) and p.lower is p.upper is p.step is None or
               isinstance(p, ast.Constant) and p.value is None for p in parts)


def _tile_start(conv, offsets, env):
    """(S, T) of `S + tl.arange(0, T)` (either order), else None."""
    if not (isinstance(offsets, ast.BinOp) and isinstance(offsets.op, ast.Add)):
        return None
    for start, lanes in ((offsets.left, offsets.right), (offsets.right, offsets.left)):
        lanes = _bare(lanes)
        if isinstance(lanes, ast.Call) and isinstance(lanes.func, ast.Attribute) and lanes.func.attr == "arange" \
                and len(lanes.args) == 2 and _static_int(conv, lanes.args[0], env) == 0:
            tile = _static_int(conv, lanes.args[1], env)
            if tile is not None and tile > 0:
                return _bare(start), tile
    return None


def _last_tile_start(conv, first, scale: int, limit, tile: int, env) -> bool:
    """Whether `first * scale` is cdiv(limit, tile) * tile - tile, the start of limit's last
    tile (compared as polynomials, each ceildiv a name of its own)."""
    try:
        value, bound = conv.value_of(first, env), conv.value_of(limit, env)
    except TileportError:
        return False
    if not (isinstance(value, RuntimeValue) and isinstance(bound, RuntimeValue)):
        return False
    n = _resolved(conv, bound.expr)
    expected = BinOp("-", BinOp("*", Call("ceildiv", (n, Const(tile, n.dtype)), n.dtype), Const(tile, n.dtype),
                                n.dtype), Const(tile, n.dtype), n.dtype)
    have = BinOp("*", _resolved(conv, value.expr), Const(scale, value.dtype), value.dtype)
    calls = []
    try:
        return _poly(have, calls) == _poly(expected, calls)
    except NotAffine:
        return False


def _poly(e, calls: list):
    """Poly of `e` with each ceildiv call a symbol, the same one for equal operands."""
    def opaque(n):
        if isinstance(n, Call) and n.func == "ceildiv":
            args = tuple(_uncast(a) for a in n.args)
            if args not in calls:
                calls.append(args)
            return Var(f"_ceildiv{calls.index(args)}", "int64")
        return None
    return to_poly(map_expr(e, opaque))


def _resolved(conv, expr):
    """`expr` with the definitions of the locals it names put in (not loop-carried ones)."""
    def put(e):
        if isinstance(e, SlotRef) and not conv.slots[e.slot].phi and conv.slots[e.slot].tile is None:
            return _resolved(conv, conv.slots[e.slot].expr)
        return e
    return fold(map_expr(expr, put))


def _uncast(e):
    while isinstance(e, Cast):
        e = e.a
    return e


def _static_int(conv, node, env):
    try:
        v = conv.value_of(node, env)
    except TileportError:
        return None
    return v.value if isinstance(v, StaticValue) and type(v.value) is int else None


def _range(node):
    """(start, stop, step) of `for name in range(...)` / `tl.range(...)`, defaults filled in."""
    if not (isinstance(node, ast.For) and isinstance(node.target, ast.Name) and not node.orelse):
        return None
    it = node.iter
    if not (isinstance(it, ast.Call) and 1 <= len(it.args) <= 3 and not it.keywords):
        return None
    f = it.func
    if not (isinstance(f, ast.Name) and f.id == "range" or isinstance(f, ast.Attribute) and f.attr == "range"):
        return None
    args = list(it.args)
    if len(args) == 1:
        args = [ast.Constant(0)] + args
    if len(args) == 2:
        args.append(ast.Constant(1))
    return tuple(args)


def _loop(like, start, stop, step, body) -> ast.For:
    """`for <like's name> in <like's range>(start, stop, step): body`, at like's place."""
    it = ast.Call(func=copy.deepcopy(like.iter.func), args=[copy.deepcopy(start), copy.deepcopy(stop),
                                                             copy.deepcopy(step)], keywords=[])
    loop = ast.For(target=copy.deepcopy(like.target), iter=it, body=body, orelse=[], type_comment=None)
    return ast.fix_missing_locations(ast.copy_location(loop, like))


def _renamed(stmts: list, old: str, new: str) -> list:
    class Rename(ast.NodeTransformer):
        def visit_Name(self, node):
            return ast.copy_location(ast.Name(id=new, ctx=node.ctx), node) if node.id == old else node
    return [Rename().visit(copy.deepcopy(s)) for s in stmts]


def _replaced(stmts: list, expr, name: str) -> list:
    """`stmts` with every occurrence of `expr` (the peel's `P`, `num_steps - 1`) as Name(name)."""
    target = ast.dump(expr)

    class Replace(ast.NodeTransformer):
        def visit(self, node):
            if isinstance(node, ast.expr) and ast.dump(node) == target:
                return ast.copy_location(ast.Name(id=name, ctx=ast.Load()), node)
            return self.generic_visit(node)
    return [Replace().visit(copy.deepcopy(s)) for s in stmts]


def _same(a, b) -> bool:
    return ast.dump(a) == ast.dump(b)


def _is_zero(node) -> bool:
    return isinstance(node, ast.Constant) and node.value == 0


def _is_name(node, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name
