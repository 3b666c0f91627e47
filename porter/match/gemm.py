"""Rule `gemm`: one thread per C element summing A * B over k -> T.gemm on tiles.

Before (naive, or shared-memory tiled: both summarize the same, see summary.py):

    int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
    if (row < M && col < N) {
        float acc = 0;
        for (int k = 0; k < K; k++) acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = alpha * acc + beta * C[row * N + col];
    }

After (BM x BN output tiles, BK-deep K steps; masked gathers stage A and B in shared tiles):

    with T.Kernel(T.ceildiv(N, BN), T.ceildiv(M, BM), threads=128) as (bx, by):
        for ko in T.Pipelined(T.ceildiv(K, BK), num_stages=2):
            for i, j in T.Parallel(BM, BK): a[i, j] = A[...] if in bounds else 0
            for i, j in T.Parallel(BK, BN): b[i, j] = B[...] if in bounds else 0
            T.gemm(a, b, acc)
        for i, j in T.Parallel(BM, BN): if in bounds: C[...] = alpha * acc[i, j] + beta * C[...]

Any operand layout (strides, transposes) whose indices are affine in (row, k) and (k, col)
matches; the epilogue is any expression of the sum and of loads at (row, col). The rows and
columns the original's grid never reaches are never written.
"""

from __future__ import annotations

import dataclasses
import math

from porter.ir.fold import fold
from porter.ir.nodes import (
    BinOp, Builtin, Call, Cast, Const, Load, Select, Store, If, Var, For, Kernel, Launch, ScalarParam, UnaryOp,
    dtype_bits, is_float,
)
from porter.ir.tiles import Copy, Fill, Gemm, ParallelFor, TileBuffer, TileLoad, TileStore
from porter.ir.walk import map_expr, read_counts, walk_expr
from porter.match.formulas import Miss, Sum, all_of, conjuncts, sums_in
from porter.match.summary import summarize
from porter.match.copies import batch_term
from porter.ir.symbolic import NotAffine, Poly, affine_in, builtin_symbol, from_poly, symbol_names, to_poly

NAME = "gemm"
OPTIONS = ("tile", "allow_tf32")  # (BM, BN, BK): `convert --tile 128,128,32`; `--allow-tf32`
SUMMARY = "one thread per C element summing A[row, k] * B[k, col] (naive or shared-memory tiled)"
PRODUCES = ("T.alloc_shared + T.gemm into a fragment accumulator inside T.Pipelined over K (fp32 operands: "
            "fp32 products summed in k order, the original's precision, unless --allow-tf32)")

# (BM, BN, BK, threads, stages) per input dtype: 64-row tiles keep wgmma on sm_90a for halves.
TILES = {"float16": (64, 64, 32, 128, 2), "bfloat16": (64, 64, 32, 128, 2),
         "float32": (64, 64, 16, 128, 2)}


def _flatten(total: Sum):
    """Sum(t, 0, T, Sum(k, 0, W, f(t * W + k))) -> Sum(kk, 0, T * W, f(kk))."""
    inner = total.body
    if not isinstance(inner, Sum):
        return total
    inner = _flatten(inner)
    if not (_is_zero(total.start) and _is_zero(inner.start) and isinstance(inner.stop, Const)):
        raise Miss("a nested K loop that does not start at 0")
    width = int(inner.stop.value)
    t, k = to_poly(total.var), to_poly(inner.var)
    kk = Var(f"{inner.var.name}_kk", "int32")
    names = {kk.name: kk}
    s_kk = to_poly(kk)

    def step(n):
        if isinstance(n, Load):
            return dataclasses.replace(n, index=rewrite(n.index))
        if isinstance(n, BinOp) and n.op in ("<", "<=", ">", ">=", "==", "!=") and not is_float(n.a.dtype):
            return BinOp(n.op, rewrite(n.a), rewrite(n.b), "bool")
        return None

    def rewrite(e):
        try:
            s = to_poly(e).subs({k: s_kk - width * t})
        except NotAffine:
            raise Miss("K-loop indices that are not affine") from None
        if s.has(t) or s.has(k):
            raise Miss("the two K loops are not one index t * W + k")
        return from_poly(s, {**names, **symbol_names(e)})

    body = map_expr(inner.body, step)
    for n in walk_expr(body):
        if isinstance(n, Var) and n.name in (total.var.name, inner.var.name):
            raise Miss("the K-loop index is used outside affine indices")
    stop = fold(BinOp("*", total.stop, Const(width, "int32"), "int32"))
    return Sum(kk, Const(0, "int32"), stop, body, total.dtype)


def _is_zero(e) -> bool:
    return isinstance(e, Const) and e.value == 0


def _factor(e):
    """Load, or `cond ? Load : 0`, possibly converted: (buffer, index, cond, dtype)."""
    cond = None
    if isinstance(e, Cast) and is_float(e.dtype):
        e = e.a
    if isinstance(e, Select) and isinstance(e.b, Const) and e.b.value == 0:
        cond, e = e.cond, e.a
    if isinstance(e, Cast) and is_float(e.dtype):
        e = e.a
    if isinstance(e, Load):
        return e.buffer, e.index, cond, e.dtype
    raise Miss("the summed term is not a product of two loads")


class _Frame:
    """Thread coordinates of the original -> row / column / k symbols."""

    def __init__(self, kernel):
        block = tuple(kernel.launch.block) + (1, 1, 1)
        self.block = block
        self.gx, self.gy = Poly.symbol("gx"), Poly.symbol("gy")
        tx, ty = builtin_symbol("thread_idx", 0), builtin_symbol("thread_idx", 1)
        bx, by = builtin_symbol("block_idx", 0), builtin_symbol("block_idx", 1)
        self.subs = {tx: self.gx - bx * block[0], ty: self.gy - by * block[1]}
        self.blocks = (bx, by)

    def coords(self, e, extra=()):
        """An integer expression over (gx, gy, extra symbols, parameters)."""
        try:
            s = to_poly(e).subs(self.subs)
        except NotAffine:
            raise Miss("an index that is not affine in the thread's row and column") from None
        # blockIdx.z (a batch index) stays: the raised kernel keeps the grid's z axis
        if any(s.has(b) for b in self.blocks) or any(sym.name.startswith(("tid_", "bid_")) and
                                                    sym.name != "bid_z" for sym in s.free_symbols):
            raise Miss("an index that depends on the block or thread otherwise than through the "
                       "element's row and column")
        return s


def match(kernel: Kernel, tile: tuple | None = None, allow_tf32: bool = False) -> Kernel:
    """The kernel as a tiled T.gemm (module docstring), or Miss with why not: recognise the
    one output sum of products, give its operands their roles, pick the tiles, then build the
    K loop, the epilogue, the launch and the aligned specialization."""
    found = _recognise(kernel)
    dtype = found.a.factor[3]
    if dtype not in TILES:
        raise Miss(f"{dtype} operands")
    bm, bn, bk, threads, stages = TILES[dtype]
    if tile:
        bm, bn, bk = tile
    build = _Build(kernel, found, (bm, bn, bk))
    body = build.main_loop(allow_tf32, stages) + [build.epilogue()]
    return dataclasses.replace(kernel, body=body, launch=build.launch(threads), params=build.params(),
                               aligned=dataclasses.replace(kernel.aligned, sizes=build.aligned_sizes(dtype)))


@dataclasses.dataclass
class _Operand:
    """One factor of the product: (buffer, index, guard, dtype), the output coordinate symbol it
    follows (row or column), and its index over (row, column, k)."""

    factor: tuple
    follows: object
    index: object


@dataclasses.dataclass
class _Found:
    """What the rule recognised: the one write, its one sum over k (flattened), the operands A
    (following the row) and B (the column), the thread frame and the k symbol."""

    write: object
    sum: Sum
    total: Sum
    a: _Operand
    b: _Operand
    frame: _Frame
    k: object


def _recognise(kernel: Kernel) -> _Found:
    """The one write of a sum over k of a product of two loads, each indexed by k and by exactly
    one of the row and column; Miss otherwise."""
    writes = summarize(kernel)
    if len(writes) != 1:
        raise Miss(f"the kernel writes {len(writes)} places; the gemm rule needs one (C)")
    w = writes[0]
    sums = sums_in(w.value)
    if len(sums) != 1:
        raise Miss("no sum over k" if not sums else "more than one sum")
    total = _flatten(sums[0])
    if sums_in(total.body):
        raise Miss("sums nested otherwise than two K loops")
    prod = total.body
    while isinstance(prod, Cast):
        prod = prod.a
    if not (isinstance(prod, BinOp) and prod.op == "*"):
        raise Miss("the summed term is not a product")
    frame = _Frame(kernel)
    kk = to_poly(total.var)

    def operand(f) -> _Operand:
        idx = frame.coords(f[1], (kk,))
        aff = affine_in(idx, [frame.gx, frame.gy, kk])
        if aff is None:
            raise Miss("an operand index that is not affine in (row, column, k)")
        coeffs, _rest = aff
        uses = {s for s in (frame.gx, frame.gy) if coeffs[s] != 0}
        if coeffs[kk] == 0 or len(uses) != 1:
            raise Miss("an operand that is not indexed by k and exactly one of row / column")
        return _Operand(f, uses.pop(), idx)

    a, b = operand(_factor(prod.a)), operand(_factor(prod.b))
    if a.follows == b.follows:
        raise Miss("both operands follow the same output coordinate")
    if a.factor[3] != b.factor[3]:
        raise Miss(f"operands of different types ({a.factor[3]}, {b.factor[3]})")
    return _Found(w, sums[0], total, a, b, frame, kk)


class _Build:
    """The tile program of a recognised gemm: M and N are the symbols A and B follow."""

    def __init__(self, kernel: Kernel, found: _Found, tiles: tuple):
        self.kernel, self.found, self.frame, self.kk = kernel, found, found.frame, found.k
        self.bm, self.bn, self.bk = tiles
        self.m_sym, self.n_sym = found.a.follows, found.b.follows
        self.loc = kernel.loc
        # names of the tile program
        self.names = {p.name: Var(p.name, p.dtype) for p in kernel.scalars}
        self.names["bid_z"] = Builtin("block_idx", 2, "int32")
        self.i, self.j, self.ko = Var("i", "int32"), Var("j", "int32"), Var("ko", "int32")
        bx, by = Builtin("block_idx", 0, "int32"), Builtin("block_idx", 1, "int32")
        self.grid = kernel.launch.grid
        frame = self.frame
        self.extent = {frame.gx: _grid_extent(self.grid, 0, frame.block[0]),
                       frame.gy: _grid_extent(self.grid, 1, frame.block[1])}
        self.own_guards = self._own_guards()
        for sym, kdim_first in ((self.m_sym, False), (self.n_sym, True)):
            bound = _guarded_bound(kernel, frame, sym, self.own_guards[kdim_first])
            if bound is not None:
                self.extent[sym] = bound
        self.k_stop = self._k_stop()
        self.m_base = BinOp("*", by, Const(self.bm, "int32"), "int32")
        self.n_base = BinOp("*", bx, Const(self.bn, "int32"), "int32")
        self.k_base = BinOp("*", self.ko, Const(self.bk, "int32"), "int32")
        self.params_by_name = {p.name: p for p in kernel.params}
        # an operand read once (in the product, or staged once into shared memory) has no other
        # use its 2-D view could change
        self.reads = read_counts(kernel.body, Load)
        self.shapes, self.transposed = {}, set()

    # ------------------------------------------------------------------ indices and guards

    def ir(self, s, row, col, k=None):
        """A symbolic index in (row, col, k) as IR."""
        sub = {self.m_sym.name: row, self.n_sym.name: col, **self.names}
        if k is not None:
            sub[self.kk.name] = k
        try:
            return fold(from_poly(s, sub))
        except KeyError as exc:
            raise Miss(f"an index uses '{exc.args[0]}', which is not a parameter") from None

    def cond_ir(self, c, row, col, k=None):
        """A guard rewritten in (row, col, k); None when there is none."""
        if c is None:
            return None

        def step(n):
            if isinstance(n, BinOp) and n.op in ("<", "<=", ">", ">=", "==", "!=") and not is_float(n.a.dtype):
                return BinOp(n.op, self.ir(self.frame.coords(n.a, (self.kk,)), row, col, k),
                             self.ir(self.frame.coords(n.b, (self.kk,)), row, col, k), "bool")
            if isinstance(n, Load):
                raise Miss("a guard that reads memory")
            return None
        return map_expr(c, step)

    def _own_guards(self) -> dict:
        """The store's conditions that bound only the row (False) or only the column (True):
        they also bound the loads of A (of B), since the original never reads rows it does not
        write."""
        own = {False: [], True: []}
        for g in _conjuncts(self.found.write.guard):
            used = set()
            for n in walk_expr(g):
                if isinstance(n, BinOp) and n.op in ("<", "<=", ">", ">=", "==", "!=") and not is_float(n.a.dtype):
                    try:
                        used |= self.frame.coords(n.a).free_symbols | self.frame.coords(n.b).free_symbols
                    except Miss:
                        used.add(None)
            if None in used or any(isinstance(n, Load) for n in walk_expr(g)):
                continue
            if self.m_sym in used and self.n_sym not in used:
                own[False].append(g)
            elif self.n_sym in used and self.m_sym not in used:
                own[True].append(g)
        return own

    def _k_stop(self):
        """Where the sum ends: its stop, or X when a factor is zero from k = X on."""
        k_stop = self.found.total.stop
        frame, kk = self.frame, self.kk
        for f in (self.found.a.factor, self.found.b.factor):
            for c in _conjuncts(f[2]):
                if isinstance(c, BinOp) and c.op == "<":
                    try:
                        lhs, rhs = frame.coords(c.a, (kk,)), frame.coords(c.b, (kk,))
                    except Miss:
                        continue
                    if lhs - kk == 0 and not rhs.has(kk) and not rhs.has(frame.gx) and not rhs.has(frame.gy):
                        k_stop = self.ir(rhs, Const(0, "int32"), Const(0, "int32"))
        return k_stop

    # ------------------------------------------------------------------ operand views

    def batch_view(self, rest):
        """(batch extent, batch stride) names when an operand's offset is `blockIdx.z * S`, a
        matrix per batch S elements apart (S a scalar parameter) and the grid's z axis a size
        parameter: the operand is then a (batch, rows, cols) tensor. None otherwise."""
        params, grid = self.params_by_name, self.grid
        z = grid[2] if len(grid) > 2 else None
        if not isinstance(z, Var) or not isinstance(params.get(z.name), ScalarParam) or params[z.name].dtype != "int32":
            return None
        found = batch_term(rest, params, ("int32", "int64"))
        if found is None or found[0] != builtin_symbol("block_idx", 2):
            return None
        return z.name, found[1]

    def shape_for_copy(self, f, idx, kdim_first):
        """(((rows, cols), strides or None), transposed) in size names when the operand is a
        matrix the tile can be copied from: A[row * lda + k] is (M, K) with rows lda apart
        (strides None when lda is K) and A[k * ldt + row] is (K, M), transposed; B[k * ldb + col]
        is (K, N) and B[col * ldt + k] is (N, K), transposed; M bounds the rows, N the columns, K
        the sum. An operand offset by `blockIdx.z * S` is (batch, rows, cols), S apart (batch_view).
        T.copy bounds the region by that shape, as the guards did."""
        params, kk = self.params_by_name, self.kk
        if self.found.a.factor[0] == self.found.b.factor[0] or self.reads.get(f[0]) != 1:
            return None
        aff = affine_in(idx, [self.frame.gx, self.frame.gy, kk])
        if aff is None:
            return None
        coeffs, rest = aff
        batch = self.batch_view(rest) if rest != 0 else ()
        if batch is None:
            return None
        outer = self.n_sym if kdim_first else self.m_sym
        bound = self.extent[outer]
        names = [x.name if isinstance(x, Var) else None for x in (self.k_stop, bound)]
        if None in names or any(not isinstance(params.get(n), ScalarParam) or params[n].dtype != "int32"
                                for n in names):
            return None
        k_name, outer_name = names
        k_major = kdim_first  # B (K, N) and a transposed A (K, M) have k as their row index
        for rows_are_k in (k_major, not k_major):
            step, unit = (kk, outer) if rows_are_k else (outer, kk)
            stride = coeffs[step]
            if coeffs[unit] != 1 or not stride.is_symbol:
                continue
            if not isinstance(params.get(stride.name), ScalarParam) or params[stride.name].dtype != "int32":
                continue
            shape = (k_name, outer_name) if rows_are_k else (outer_name, k_name)
            strides = None if stride.name == shape[1] else (stride.name, 1)
            if batch:
                shape, strides = (batch[0],) + shape, (batch[1], stride.name, 1)
            return (shape, strides), rows_are_k != k_major
        return None

    # ------------------------------------------------------------------ the program

    def stage(self, f, idx, rows, cols, kdim_first, name):
        """The shared tile of one operand for K step ko: a T.copy of an operand that is a matrix
        (shape_for_copy), else a guarded gather; A's tile (BM, BK) follows the row, B's (BK, BN)
        the column (a transposed operand's tile is stored the other way round)."""
        i, j, loc = self.i, self.j, self.loc
        zero = Const(0, "int32")
        if kdim_first:  # B
            kexpr, r, c = BinOp("+", self.k_base, i, "int32"), zero, BinOp("+", self.n_base, j, "int32")
            within = BinOp("<", c, self.extent[self.n_sym], "bool")
        else:  # A
            kexpr, r, c = BinOp("+", self.k_base, j, "int32"), BinOp("+", self.m_base, i, "int32"), zero
            within = BinOp("<", r, self.extent[self.m_sym], "bool")
        index = self.ir(idx, r, c, kexpr)
        parts = [within] + [self.cond_ir(g, r, c) for g in self.own_guards[kdim_first]] + \
            [BinOp("<", kexpr, self.k_stop, "bool")] + _conjuncts(self.cond_ir(f[2], r, c, kexpr))
        guard = all_of(parts)
        view = self.shape_for_copy(f, idx, kdim_first)
        if view is not None and set(_conjuncts(guard)) == {within, BinOp("<", kexpr, self.k_stop, "bool")}:
            self.shapes[f[0]], flipped = view  # the guards are the shape's bounds: T.copy reads the same
            origin = (self.k_base, self.n_base) if kdim_first else (self.m_base, self.k_base)
            tile_shape = (rows, cols)
            if flipped:  # the tile as the matrix holds it; T.gemm reads it transposed
                origin, tile_shape = origin[::-1], tile_shape[::-1]
                self.transposed.add(name)
            if len(view[0][0]) == 3:  # this block's matrix of the batch
                origin = (Builtin("block_idx", 2, "int32"),) + origin
            return [TileBuffer(name, f[3], tile_shape, "shared", loc), Copy(f[0], origin, name, loc)]
        load = Load(f[0], index, f[3])
        value = Select(guard, load, Const(0.0, f[3]), f[3])
        return [TileBuffer(name, f[3], (rows, cols), "shared", loc),
                ParallelFor((i, j), (rows, cols), [TileStore(name, (i, j), value, loc)], loc)]

    def main_loop(self, allow_tf32: bool, stages: int) -> list:
        """The accumulator, cleared, and the K loop: both operands staged, then T.gemm."""
        acc_dtype, loc = _accumulated(self.found.total.dtype), self.loc
        a, b = self.found.a, self.found.b
        body = [TileBuffer("acc", acc_dtype, (self.bm, self.bn), "fragment", loc),
                Fill("acc", Const(0.0, acc_dtype), loc)]
        k_body = self.stage(a.factor, a.index, self.bm, self.bk, False, "a_tile") + \
            self.stage(b.factor, b.index, self.bk, self.bn, True, "b_tile")
        # an fp32 FMA loop keeps fp32 products unless the user accepts TF32 tensor cores
        widened = self.found.total.dtype if acc_dtype != self.found.total.dtype else ""
        k_body.append(Gemm("a_tile", "b_tile", "acc", False, loc, "tf32" if allow_tf32 else "ieee",
                           "a_tile" in self.transposed, "b_tile" in self.transposed, widened))
        steps = Call("ceildiv", (self.k_stop, Const(self.bk, "int32")), "int32")
        ko = self.ko
        body.append(For(ko, Const(0, "int32"), BinOp("<", ko, steps, "bool"), Const(1, "int32"), k_body, loc,
                        stages))
        return body

    def epilogue(self):
        """The written value with the sum replaced by the accumulator, stored where the
        original's guard and the grid's extent allow."""
        w, i, j = self.found.write, self.i, self.j
        row, col = BinOp("+", self.m_base, i, "int32"), BinOp("+", self.n_base, j, "int32")
        total = self.found.total.dtype
        acc = TileLoad("acc", (i, j), _accumulated(total))
        value = _replace_sum(w.value, self.found.sum, acc if acc.dtype == total else Cast(total, acc))
        value = _epilogue(value, self.frame, self.ir, row, col)
        index = self.ir(self.frame.coords(w.index), row, col)
        guard = all_of([BinOp("<", row, self.extent[self.m_sym], "bool"),
                        BinOp("<", col, self.extent[self.n_sym], "bool")] + _conjuncts(self.cond_ir(w.guard, row, col)))
        return ParallelFor((i, j), (self.bm, self.bn), [If(guard, [Store(w.buffer, index, value, w.loc)], [], w.loc)],
                           w.loc)

    def launch(self, threads: int) -> Launch:
        """One block per BM x BN tile of C; a batch on the grid's z axis keeps its blocks."""
        n_tiles = Call("ceildiv", (self.extent[self.n_sym], Const(self.bn, "int32")), "int32")
        m_tiles = Call("ceildiv", (self.extent[self.m_sym], Const(self.bm, "int32")), "int32")
        origin = self.kernel.launch
        return Launch((n_tiles, m_tiles) + tuple(self.grid[2:3]), (1,), 0, origin.origin, origin.loc, threads)

    def params(self) -> list:
        """The parameters, an operand T.copy reads as a matrix with its shape and strides."""
        return [dataclasses.replace(p, shape=self.shapes[p.name][0], strides=self.shapes[p.name][1])
                if p.name in self.shapes else p for p in self.kernel.params]

    def aligned_sizes(self, dtype: str) -> dict:
        """The async-copy specialization's sizes (both operands copied): whole tiles along each
        operand's rows (a 2-byte element under a per-element predicate is no cp.async; a tile's
        rows past a size are T.copy's own predicate, one per row), and rows (and batch matrices)
        16 bytes apart for 128-bit copies."""
        if len(self.shapes) != 2:
            return {}
        multiple = {self.extent[self.m_sym].name: self.bm, self.extent[self.n_sym].name: self.bn,
                    self.k_stop.name: self.bk}  # M, N, K
        columns = {shape[-1] for shape, _ in self.shapes.values()}
        aligned = {d: m for d, m in multiple.items() if d in columns}
        for _, strides in self.shapes.values():
            for stride in (strides or ())[:-1]:
                aligned[stride] = math.lcm(aligned.get(stride, 1), max(1, 16 // (dtype_bits(dtype) // 8)))
        return aligned


def _accumulated(dtype: str) -> str:
    """The accumulator's dtype: a 16-bit float sum (`half psum`) accumulates in float32, as
    tensor cores do and a TileLang author writes, and is rounded once at the store (the
    original's rounding after every step is its error, not its result: verify compares)."""
    return "float32" if dtype in ("float16", "bfloat16") else dtype


def _grid_extent(grid, axis, block):
    """How many threads the original launch has along an axis (grid * block)."""
    g = grid[axis] if axis < len(grid) else Const(1, "int32")
    return fold(BinOp("*", g, Const(block, "int32"), "int32")) if block != 1 else g


def _replace_sum(e, target, replacement):
    """The sum -> the accumulator tile (`0 + sum` too: the accumulator starts at zero)."""
    def step(n):
        if n == target:
            return replacement
        if isinstance(n, BinOp) and n.op == "+" and isinstance(n.a, Const) and n.a.value == 0 and \
                n.b == replacement:
            return replacement
        return None
    return map_expr(e, step)


def _epilogue(e, frame, ir, row, col):
    """Loads and index arithmetic of the epilogue, moved to the tile's (row, col)."""
    def step(n):
        if isinstance(n, Load):
            return Load(n.buffer, ir(frame.coords(n.index), row, col), n.dtype)
        return None
    out = map_expr(e, step)
    tile_blocks = (Builtin("block_idx", 0, "int32"), Builtin("block_idx", 1, "int32"))
    if any(isinstance(n, Builtin) and n.kind in ("thread_idx", "block_idx") and n not in tile_blocks
           for n in walk_expr(out)):
        raise Miss("an epilogue that depends on the thread index otherwise than through loads")
    return out


def _guarded_bound(kernel, frame, sym, guards):
    """`coord < X` among the store's guards where the launch's grid is exactly ceildiv(X,
    block): X bounds the coordinate as tightly as the grid does, and reads as the user wrote."""
    from porter.transforms.simplify import simplify_grid

    axis = 0 if sym == frame.gx else 1
    grid = kernel.launch.grid
    if axis >= len(grid):
        return None
    g = simplify_grid(grid[axis])
    if not (isinstance(g, Call) and g.func == "ceildiv" and isinstance(g.args[1], Const)
            and int(g.args[1].value) == frame.block[axis]):
        return None
    for c in guards:
        if isinstance(c, BinOp) and c.op == "<":
            try:
                lhs = frame.coords(c.a)
            except Miss:
                continue
            if lhs - sym == 0 and c.b == g.args[0]:
                return c.b
    return None


_NEGATED = {"<": ">=", ">=": "<", ">": "<=", "<=": ">", "==": "!=", "!=": "=="}


def _conjuncts(c) -> list:
    """The terms of a conjunction (`!(a || b)` is `!a && !b`; integer comparisons negate)."""
    out = []
    for t in conjuncts(c):
        if isinstance(t, UnaryOp) and t.op == "!":
            inner = t.a
            if isinstance(inner, BinOp) and inner.op == "||":
                out += _conjuncts(UnaryOp("!", inner.a, "bool")) + _conjuncts(UnaryOp("!", inner.b, "bool"))
                continue
            if isinstance(inner, BinOp) and inner.op in _NEGATED and not is_float(inner.a.dtype):
                out.append(BinOp(_NEGATED[inner.op], inner.a, inner.b, "bool"))
                continue
        out.append(t)
    return out
