"""Hand-peeled iterations of a Triton loop merged back into one masked loop.

Triton authors peel the ragged tile off a loop so the other iterations load without a mask
(FlagGems' `prev_multiple_of(N, T) = cdiv(N, T) * T - T`, the start of the last tile):

    for s in range(0, P, T): BODY(s)                  unmasked, whole tiles
    for s in range(P, N, T): BODY(s) with mask=offs < N       the last tile       (tail loop)

    for s in range(0, T, T): BODY(s) with mask=offs < N       the first tile, offs = P - s + arange
    for s in range(T, N, T): BODY(s)                                               (reversed head)

    for s in range(0, P, T): BODY(s)
    BODY(P) with mask=offs < N                                                     (peeled statements)

A TileLang author writes one loop over `T.ceildiv(N, T)` whose masked `T.copy` covers the tail,
so the port merges them: `for s in range(0, N, T): BODY(s) with the masks`. It is the same
computation because the masked body is the plain one with masks added (their `other` values
only matter where a mask is false) and every mask is true on the iterations that had none:
each is `offs < N` with `offs = s + arange(0, T)` (or `P - s + arange(0, T)`), the largest
offset of an unmasked tile is P - 1, and P <= N. P is recognised as the start of the last tile
of N (`cdiv(N, T) * T - T`, through helpers and locals); the iterations are those of the
original's loops for N >= 1 (at N <= 0 the original's tile starts at -T, before the buffer).
Anything else (other masks, other bounds, a peeled local read after the peel) stays as written.
"""

from __future__ import annotations

import ast
import copy

from porter.diagnostics import TileportError
from porter.frontends.triton.values import RuntimeValue, SlotRef, StaticValue
from porter.ir.fold import fold
from porter.ir.nodes import BinOp, Call, Cast, Const
from porter.ir.walk import map_expr

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
    """`for s in range(0, P, T)` unmasked, then `for s in range(P, N, T)` masked."""
    start, stop, step = _range(plain)
    m_start, m_stop, m_step = _range(masked)
    if not (_is_zero(start) and _same(stop, m_start) and _same(step, m_step) and isinstance(stop, ast.Name)):
        return None
    body = _renamed(masked.body, masked.target.id, plain.target.id)
    if not _covers(conv, body, plain.body, plain.target.id, stop.id, step, env, reverse=False):
        return None
    return _loop(plain, start, m_stop, step, body)


def _reversed_head(conv, masked, plain, env):
    """`for s in range(0, T, T)` masked (offsets `P - s + arange(0, T)`), then
    `for s in range(T, N, T)` unmasked."""
    start, stop, step = _range(masked)
    p_start, p_stop, p_step = _range(plain)
    if not (_is_zero(start) and _same(stop, step) and _same(step, p_step) and _same(p_start, step)):
        return None
    body = _renamed(masked.body, masked.target.id, plain.target.id)
    if not _covers(conv, body, plain.body, plain.target.id, None, step, env, reverse=True):
        return None
    return _loop(plain, start, p_stop, step, body)


def _peeled_statements(conv, plain, peel, after, env):
    """`for s in range(0, P, T)` unmasked, then its body once more at s = P, masked."""
    start, stop, step = _range(plain)
    if not (_is_zero(start) and isinstance(stop, ast.Name)):
        return None
    var = plain.target.id
    body = _renamed(peel, stop.id, var)
    bound = _covers(conv, body, plain.body, var, stop.id, step, env, reverse=False)
    if bound is None:
        return None
    # a name the peel assigns is the merged loop's local: later statements may read it only
    # when it was defined before (a loop-carried accumulator)
    assigned = {n.id for s in peel for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    read_after = {n.id for s in after for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    if any(name not in env for name in assigned & read_after):
        return None
    return _loop(plain, start, bound, step, body)


def _covers(conv, masked: list, plain: list, var: str, last: str | None, step, env, reverse: bool):
    """The bound N of the masks when `masked` is `plain` with conjuncts added to its load/store
    masks and every added one is `offs < N`, true on each tile `plain` ran (offs = var +
    arange(0, T), or P - var + arange(0, T) when reverse, P the start of N's last tile: `last`,
    or read from the offsets when None); else None."""
    masked_calls, plain_calls = _memory_calls(masked), _memory_calls(plain)
    stripped, plain_stripped = _stripped(masked), _stripped(plain)
    if len(masked_calls) != len(plain_calls) or ast.dump(ast.Module(stripped, [])) != \
            ast.dump(ast.Module(plain_stripped, [])):
        return None
    tile = _static_int(conv, step, env)
    if tile is None:
        return None
    masked_locals, plain_locals = _single_assignments(masked), _single_assignments(plain)
    added = []
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
    bound = None
    for conjunct in added:
        if not (isinstance(conjunct, ast.Compare) and len(conjunct.ops) == 1 and
                isinstance(conjunct.ops[0], ast.Lt)):
            return None
        start = _tile_start(conv, _bare(conjunct.left), tile, env)
        limit = conjunct.comparators[0]
        if start is None or any(isinstance(n, ast.Name) and n.id in masked_locals for n in ast.walk(limit)):
            return None
        if reverse:
            if not (isinstance(start, ast.BinOp) and isinstance(start.op, ast.Sub) and
                    _is_name(start.right, var) and isinstance(start.left, ast.Name)):
                return None
            first = start.left.id
        else:
            if not _is_name(start, var):
                return None
            first = last
        if first is None or not _last_tile_start(conv, first, limit, tile, env):
            return None
        if bound is not None and ast.dump(bound) != ast.dump(limit):
            return None
        bound = limit
    return bound


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


def _inlined(expr, locals_: dict, depth: int = 8):
    class Inline(ast.NodeTransformer):
        def visit_Name(self, node):
            return copy.deepcopy(locals_[node.id]) if node.id in locals_ else node
    for _ in range(depth):
        expr = Inline().visit(copy.deepcopy(expr))
    return expr


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


def _tile_start(conv, offsets, tile: int, env):
    """S of `S + tl.arange(0, tile)` (either order), else None."""
    if not (isinstance(offsets, ast.BinOp) and isinstance(offsets.op, ast.Add)):
        return None
    for start, lanes in ((offsets.left, offsets.right), (offsets.right, offsets.left)):
        lanes = _bare(lanes)
        if isinstance(lanes, ast.Call) and isinstance(lanes.func, ast.Attribute) and lanes.func.attr == "arange" \
                and len(lanes.args) == 2 and _static_int(conv, lanes.args[0], env) == 0 and \
                _static_int(conv, lanes.args[1], env) == tile:
            return _bare(start)
    return None


def _last_tile_start(conv, name: str, limit, tile: int, env) -> bool:
    """Whether local `name` is cdiv(limit, tile) * tile - tile, the start of limit's last tile."""
    value = env.get(name)
    try:
        bound = conv.value_of(limit, env)
    except TileportError:
        return False
    if not (isinstance(value, RuntimeValue) and isinstance(bound, RuntimeValue)):
        return False
    have, n = _resolved(conv, value.expr), _resolved(conv, bound.expr)
    if not (isinstance(have, BinOp) and have.op == "-" and _const(have.b) == tile and
            isinstance(have.a, BinOp) and have.a.op == "*"):
        return False
    product = have.a
    for div, times in ((product.a, product.b), (product.b, product.a)):
        if _const(times) == tile and isinstance(div, Call) and div.func == "ceildiv" and \
                _const(div.args[1]) == tile and _uncast(div.args[0]) == _uncast(n):
            return True
    return False


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


def _const(e):
    e = _uncast(e)
    return e.value if isinstance(e, Const) else None


def _static_int(conv, node, env):
    try:
        v = conv.value_of(node, env)
    except TileportError:
        return None
    return v.value if isinstance(v, StaticValue) and type(v.value) is int else None


def _range(node):
    """(start, stop, step) of `for name in range(start, stop, step)` / `tl.range(...)`."""
    if not (isinstance(node, ast.For) and isinstance(node.target, ast.Name) and not node.orelse):
        return None
    it = node.iter
    if not (isinstance(it, ast.Call) and len(it.args) == 3 and not it.keywords):
        return None
    f = it.func
    if not (isinstance(f, ast.Name) and f.id == "range" or isinstance(f, ast.Attribute) and f.attr == "range"):
        return None
    return tuple(it.args)


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


def _same(a, b) -> bool:
    return ast.dump(a) == ast.dump(b)


def _is_zero(node) -> bool:
    return isinstance(node, ast.Constant) and node.value == 0


def _is_name(node, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name
