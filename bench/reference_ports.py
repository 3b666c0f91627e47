"""Reference TileLang programs, written the way tilelang's own examples write each operation
(gemm: examples/gemm; attention: examples/flash_attention), with the tiles of the sample they
stand beside. bench/port_quality.py lowers them next to the ports: what tileport's port of a
sample could look like at best, measured the same way.

Written for this project (no example code copied): T.copy of whole tiles between global and
shared memory, T.gemm on the tiles, a pipelined K (or KV) loop, the accumulator copied out.
Sizes are dynamic where the sample's are, so the references meet the same TileLang limits;
`whole_tiles=True` builds the same program at static sizes of WHOLE_TILES (a multiple of every
tile), the case of a port's aligned program, where TileLang needs no per-element predicate (a
2-byte element's predicated copy cannot be cp.async).

No `from __future__ import annotations` here: TVMScript reads a prim_func's annotations as
values, and the shapes they name are the factories' locals.
"""


#: the static size of every dimension of a whole-tile reference
WHOLE_TILES = 1024


def gemm(dtype: str, accum: str, bm: int, bn: int, bk: int, threads: int = 128, stages: int = 2,
         transpose_b: bool = False, batched: bool = False, swizzle: int = 0, whole_tiles: bool = False):
    """C = A @ B (B stored (N, K) when transpose_b), one (bm, bn) tile of C per block; a batch
    of such products on the grid's z axis when batched; blocks rasterized in panels of
    `swizzle` rows when given (T.use_swizzle, Triton's GROUP_M)."""
    import tilelang.language as T

    M, N, K = (WHOLE_TILES,) * 3 if whole_tiles else (T.dynamic("M"), T.dynamic("N"), T.dynamic("K"))
    batch = 4 if whole_tiles else T.dynamic("batch")
    a_shape = (batch, M, K) if batched else (M, K)
    b_core = (N, K) if transpose_b else (K, N)
    b_shape = (batch,) + b_core if batched else b_core
    c_shape = (batch, M, N) if batched else (M, N)

    @T.prim_func
    def main(A: T.Tensor(a_shape, dtype), B: T.Tensor(b_shape, dtype), C: T.Tensor(c_shape, dtype)):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), batch if batched else 1, threads=threads) as (bx, by, bz):
            a_s = T.alloc_shared((bm, bk), dtype)
            b_s = T.alloc_shared((bn, bk) if transpose_b else (bk, bn), dtype)
            acc = T.alloc_fragment((bm, bn), accum)
            if swizzle:
                T.use_swizzle(swizzle)
            T.clear(acc)
            for ko in T.Pipelined(T.ceildiv(K, bk), num_stages=stages):
                if batched:
                    T.copy(A[bz, by * bm, ko * bk], a_s)
                    T.copy(B[bz, ko * bk, bx * bn], b_s)
                else:
                    T.copy(A[by * bm, ko * bk], a_s)
                    if transpose_b:
                        T.copy(B[bx * bn, ko * bk], b_s)
                    else:
                        T.copy(B[ko * bk, bx * bn], b_s)
                T.gemm(a_s, b_s, acc, transpose_B=transpose_b)
            if batched:
                T.copy(acc, C[bz, by * bm, bx * bn])
            else:
                T.copy(acc, C[by * bm, bx * bn])

    return main


def attention(dtype: str, block_m: int, block_n: int, dim: int, threads: int = 128, stages: int = 2,
              whole_tiles: bool = False):
    """softmax(Q K^T * scale) V for one (block_m, dim) tile of Q per block, online over blocks of
    block_n keys; (heads, seq, dim) tensors, the sequence length known at run time."""
    import tilelang.language as T

    heads, seq = (4, WHOLE_TILES) if whole_tiles else (T.dynamic("heads"), T.dynamic("seq"))
    shape = (heads, seq, dim)

    @T.prim_func
    def main(Q: T.Tensor(shape, dtype), K: T.Tensor(shape, dtype), V: T.Tensor(shape, dtype),
             O: T.Tensor(shape, dtype), scale: T.float32):
        with T.Kernel(T.ceildiv(seq, block_m), heads, threads=threads) as (bx, by):
            q_s = T.alloc_shared((block_m, dim), dtype)
            k_s = T.alloc_shared((block_n, dim), dtype)
            v_s = T.alloc_shared((block_n, dim), dtype)
            scores = T.alloc_fragment((block_m, block_n), "float32")
            probs = T.alloc_shared((block_m, block_n), dtype)  # the second gemm reads P from shared memory
            out = T.alloc_fragment((block_m, dim), "float32")
            row_max = T.alloc_fragment((block_m,), "float32")
            row_max_prev = T.alloc_fragment((block_m,), "float32")
            rescale = T.alloc_fragment((block_m,), "float32")
            block_sum = T.alloc_fragment((block_m,), "float32")
            row_sum = T.alloc_fragment((block_m,), "float32")
            T.copy(Q[by, bx * block_m, 0], q_s)
            T.fill(out, 0)
            T.fill(row_sum, 0)
            T.fill(row_max, -T.infinity("float32"))
            for kb in T.Pipelined(T.ceildiv(seq, block_n), num_stages=stages):
                T.copy(K[by, kb * block_n, 0], k_s)
                T.clear(scores)
                T.gemm(q_s, k_s, scores, transpose_B=True)
                for i, j in T.Parallel(block_m, block_n):
                    scores[i, j] = T.if_then_else(kb * block_n + j < seq, scores[i, j] * scale,
                                                  -T.infinity("float32"))
                T.copy(row_max, row_max_prev)
                T.reduce_max(scores, row_max, dim=1, clear=False)
                for i in T.Parallel(block_m):
                    rescale[i] = T.exp(row_max_prev[i] - row_max[i])
                for i, j in T.Parallel(block_m, block_n):
                    scores[i, j] = T.exp(scores[i, j] - row_max[i])
                T.reduce_sum(scores, block_sum, dim=1)
                for i in T.Parallel(block_m):
                    row_sum[i] = row_sum[i] * rescale[i] + block_sum[i]
                for i, j in T.Parallel(block_m, dim):
                    out[i, j] = out[i, j] * rescale[i]
                T.copy(scores, probs)
                T.copy(V[by, kb * block_n, 0], v_s)
                T.gemm(probs, v_s, out)
            for i, j in T.Parallel(block_m, dim):
                out[i, j] = out[i, j] / row_sum[i]
            T.copy(out, O[by, bx * block_m, 0])

    return main


# TileLang 0.1.15 prints a pipeline's cp.async wait counts as constants only with loops unrolled
# before code generation when the loop holds two products at a run-time trip count (sm_80)
UNROLLED = {"tl.UnrollLoop": {"explicit_unroll": True}}

# sample file name -> (what the reference is, a factory of its program taking whole_tiles[, pass
# configs]): the sample's tiles
REFERENCES = {
    "matmul_tiled.cu": ("gemm fp32, 64x64x16", lambda **kw: gemm("float32", "float32", 64, 64, 16, **kw)),
    "gemm_tn_half_bias_relu.cu": ("gemm fp16 (B as N x K), 64x64x32",
                                  lambda **kw: gemm("float16", "float32", 64, 64, 32, transpose_b=True,
                                                               **kw)),
    "bmm_strided_batched.cu": ("batched gemm fp32, 64x64x16", lambda **kw: gemm("float32", "float32", 64, 64, 16,
                                                                              batched=True, **kw)),
    "matmul_fp16.py": ("gemm fp16, 64x64x32", lambda **kw: gemm("float16", "float32", 64, 64, 32, **kw)),
    "matmul_grouped.py": ("gemm fp32, 32x32x16, swizzle 2",
                          lambda **kw: gemm("float32", "float32", 32, 32, 16, swizzle=2, **kw)),
    "attention_fwd_small.py": ("attention fp32, 32x16, head dim 32", lambda **kw: attention("float32", 32, 16, 32, **kw),
                               UNROLLED),
}
