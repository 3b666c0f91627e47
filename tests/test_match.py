"""The pattern matcher: which kernels each rule raises, the reasons it gives when it does not,
the --level switch, and the generated SUPPORTED.md."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap

import pytest

from porter.diagnostics import TileportError
from porter.reader import read_source
from porter.ir.nodes import Const, Var
from porter.ir.tiles import Fill, Gemm, ParallelFor, TileBuffer, TileStore
from porter.ir.walk import walk_stmts
from porter.transforms.whole_tile_fills import whole_tile_fills
from porter.match import raise_kernel
from porter.pipeline import level_printed, print_port, raise_to_tiles
from porter.match.formulas import Sum
from porter.match.summary import summarize
from porter.match.supported import render
from tests.conftest import ROOT, one_line


def _converted(source, out, *options) -> str:
    """`tileport convert source -o out` in a child, which must succeed; the port's text,
    each statement on one line."""
    run = subprocess.run([sys.executable, "-m", "porter.cli", "convert", str(source), "-o", str(out), *options],
                         cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return one_line(out.read_text())


def cuda(tmp_path, body: str, name: str = "k.cu") -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return str(path)


NAIVE = """
    __global__ void mm(const float* A, const float* B, float* C, int M, int N, int K) {
        int row = blockIdx.y * blockDim.y + threadIdx.y;
        int col = blockIdx.x * blockDim.x + threadIdx.x;
        if (row < M && col < N) {
            float s = 0.0f;
            for (int k = 0; k < K; k++) s += A[row * K + k] * B[k * N + col];
            C[row * N + col] = s;
        }
    }
    void run(const float* A, const float* B, float* C, int M, int N, int K) {
        dim3 block(16, 16);
        mm<<<dim3((N + 15) / 16, (M + 15) / 16), block>>>(A, B, C, M, N, K);
    }
"""


@pytest.mark.parametrize("rel", ["samples/cuda/matmul_tiled.cu", "samples/cuda/gemm_naive_alpha_beta.cu",
                                 "samples/cuda/gemm_tn_half_bias_relu.cu"])
def test_gemm_samples_are_raised_to_t_gemm(rel):
    (k,) = read_source(str(ROOT / rel)).kernels
    r = raise_kernel(k)
    assert r.rule == "gemm", r.reason
    body = list(walk_stmts(r.kernel.body))
    (gemm,) = [s for s in body if isinstance(s, Gemm)]
    tiles = {s.name: s for s in body if isinstance(s, TileBuffer)}
    assert tiles[gemm.a].scope == tiles[gemm.b].scope == "shared"
    assert tiles[gemm.c].scope == "fragment" and tiles[gemm.c].dtype == "float32"
    assert level_printed(r.kernel)[0] == "tile"


def test_shared_memory_tiling_summarizes_to_the_naive_formula(tmp_path):
    (tiled,) = read_source(str(ROOT / "samples/cuda/matmul_tiled.cu")).kernels
    (write,) = summarize(tiled)
    (total,) = [n for n in [write.value] if isinstance(n, Sum)] or \
        [n for n in getattr(write.value, "__dict__", {}).values() if isinstance(n, Sum)]
    assert write.buffer == "C" and isinstance(total.body, Sum)  # t-loop over the k-loop, forwarded


def test_naive_gemm_port_uses_row_and_column_guards_for_loads(tmp_path):
    (k,) = read_source(cuda(tmp_path, NAIVE)).kernels
    r = raise_kernel(k)
    assert r.rule == "gemm", r.reason
    text = one_line(print_port(raise_to_tiles(read_source(cuda(tmp_path, NAIVE)))))
    assert "T.Pipelined(T.ceildiv(K, " in text
    assert "T.Kernel(T.ceildiv(N, 64), T.ceildiv(M, 64), threads=128)" in text
    # C is the (M, N) view: T.copy writes the tile's rows and columns inside it, as the
    # original's `row < M && col < N` guard does
    assert "C: T.Tensor((M, N), T.float32)" in text and "T.copy(acc, C[by * 64, bx * 64])" in text


def test_an_fp32_fma_loop_keeps_fp32_products_unless_tf32_is_allowed(tmp_path):
    """T.gemm of float32 tiles runs on TF32 tensor cores (10-bit mantissas): the original's fp32
    FMA loop becomes fp32 products summed over k in order; --allow-tf32 gives T.gemm back."""
    text = one_line(print_port(raise_to_tiles(read_source(cuda(tmp_path, NAIVE)))))
    assert "T.gemm(" not in text
    assert "for acc_k in T.serial(16):" in text
    assert "acc[acc_i, acc_j] = acc[acc_i, acc_j] + a_tile[acc_i, acc_k] * b_tile[acc_k, acc_j]" in text
    assert "fp32 FMA tiles (the original's precision; --allow-tf32 for tensor cores)" in text
    fast = one_line(print_port(raise_to_tiles(read_source(cuda(tmp_path, NAIVE)), "auto", {"allow_tf32": True})))
    assert "T.gemm(a_tile, b_tile, acc)" in fast and "acc_k" not in fast


def test_row_major_operands_are_copied_and_the_aligned_program_copies_asynchronously(tmp_path):
    """A[row * K + k] and B[k * N + col], bounded by M, N, K: 2-D views, T.copy into the shared
    tiles inside T.Pipelined; the wrapper takes the program that may assume whole tiles along
    each operand's rows (K for A, N for B; M may be ragged: T.copy predicates whole rows) when
    the sizes allow, and TileLang lowers its copies to cp.async (sm_80) and TMA (sm_90a)."""
    text = one_line(print_port(raise_to_tiles(read_source(str(ROOT / "samples/cuda/matmul_tiled.cu")))))
    assert "A: T.Tensor((M, K), T.float32)" in text and "B: T.Tensor((K, N), T.float32)" in text
    assert "T.copy(A[by * 64, ko * 16], a_tile)" in text and "T.copy(B[ko * 16, bx * 64], b_tile)" in text
    assert "aligned = N % 64 == 0 and K % 16 == 0 and _aligned16(A, B)" in text
    port = tmp_path / "mm_tl.py"
    port.write_text(text)
    from porter.verify.port_exec import async_copies, load_port, lower, pass_configs

    module = load_port(str(port))
    # B's tiles are whole; A's rows past M are one predicate per 16-byte copy
    for arch, markers in (("sm_80", ("cp_async_gs<16>", "cp_async_gs_conditional<16>")), ("sm_90a", ("tma_load",))):
        fast = lower(module.sgemm_tiled_program(aligned=True), {"kind": "cuda", "arch": arch}, pass_configs(module))
        assert all(m in fast.kernel_source for m in markers) and async_copies(fast.kernel_source) >= 2, arch
    # ragged sizes: still asynchronous, one predicated 4-byte copy per element
    general = lower(module.sgemm_tiled_program(), {"kind": "cuda", "arch": "sm_80"}, pass_configs(module))
    assert "cp_async_gs_conditional<4>" in general.kernel_source and "cp_async_gs<16>" not in general.kernel_source


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_a_pipelined_loop_of_a_run_time_trip_count_lowers_at_three_and_four_stages(tmp_path, arch):
    """Triton's num_stages=3 (the tutorials' configs go to 5) over ceildiv(K, BLOCK_K): the loop
    that drains the pipeline waits on fewer copies each round; tilelang 0.1.15 prints that wait
    count only as a constant, so the port's configs unroll it (without them: 'Downcast from
    tirx.Sub to ir.IntImm failed'), and every wait stays a constant count."""
    text = print_port(raise_to_tiles(read_source(str(ROOT / "samples/triton/matmul_grouped.py"))))
    port = tmp_path / "mg_tl.py"
    port.write_text(text)
    from porter.verify.port_exec import async_copies, load_port, lower, pass_configs

    module = load_port(str(port))
    for stages in (3, 4):
        for aligned in (True, False):  # whole tiles (cp.async or TMA), and masked gathers
            program = module.matmul_grouped_kernel_program(stages=stages, aligned=aligned)
            source = lower(program, {"kind": "cuda", "arch": arch}, pass_configs(module, stages)).kernel_source
            waits = set(re.findall(r"cp_async_wait<(\d+)>", source))
            if aligned:
                assert async_copies(source) >= 2, (arch, stages)
            if aligned and arch == "sm_80":
                assert waits, "cp.async copies drain through waits"
            if waits:
                assert str(stages - 1) in waits and "0" in waits, waits
    # two stages drain without the unrolling (which makes a compile several times slower)
    assert "tl.UnrollLoop" not in pass_configs(module, 2) and "tl.UnrollLoop" in pass_configs(module, 3)
    assert "tl.UnrollLoop" not in module._PASS_CONFIGS


BATCHED = """
__global__ void bmm(const float* X, const float* W, float* Y, int M, int N, int K, int batches,
                    long long stride_x, long long stride_w) {
  int r = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
  const float* x = X + blockIdx.z * stride_x;
  const float* w = W + blockIdx.z * stride_w;
  if (r < M && c < N) {
    float s = 0.0f;
    for (int k = 0; k < K; k++) s += x[r * K + k] * w[k * N + c];
    Y[(blockIdx.z * M + r) * N + c] = s;
  }
}
void run(const float* X, const float* W, float* Y, int M, int N, int K, int batches) {
  bmm<<<dim3((N + 7) / 8, (M + 7) / 8, batches), dim3(8, 8)>>>(X, W, Y, M, N, K, batches,
                                                               (long long)M * K, (long long)K * N);
}
"""


def test_batched_operands_are_3d_views_copied_asynchronously_and_verify(tmp_path):
    """`X + blockIdx.z * stride_x` then `x[r * K + k]`: a (batches, M, K) view, matrices stride_x apart (a
    64-bit stride, bound by TileLang as int64), copied per block's batch with T.copy; the
    aligned program's copies are cp.async, and verify's aligned case keeps batches apart."""
    src = tmp_path / "bmm.cu"
    src.write_text(BATCHED)
    out = tmp_path / "bmm_tl.py"
    run = subprocess.run([sys.executable, "-m", "porter.cli", "convert", str(src), "-o", str(out)],
                         cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    text = out.read_text()
    assert "X: T.StridedTensor((batches, M, K), (stride_x, K, 1), T.float32)" in text
    assert 'stride_x = T.dynamic("stride_x", "int64")' in text
    assert "T.copy(X[bz, by * 64, ko * 16], a_tile)" in text and "T.copy(W[bz, ko * 16, bx * 64], b_tile)" in text
    assert "stride_x % 4 == 0" in text and "stride_w % 4 == 0" in text
    from porter.verify.port_exec import async_copies, load_port, lower, pass_configs

    module = load_port(str(out))
    fast = lower(module.bmm_program(aligned=True), {"kind": "cuda", "arch": "sm_80"}, pass_configs(module))
    assert "cp_async_gs<16>" in fast.kernel_source and async_copies(fast.kernel_source) >= 2
    check = subprocess.run([sys.executable, "-m", "porter.cli", "verify", str(src), str(out), "--no-compile-check",
                            "--format", "json"], cwd=ROOT, capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    cases = json.loads(check.stdout)["kernels"][0]["cases"]
    aligned = [c["sizes"] for c in cases if c["sizes"]["stride_x"] % 4 == 0 and c["sizes"]["K"] % 16 == 0]
    assert aligned and all(c["stride_x"] >= c["M"] * c["K"] for c in aligned)


def test_an_operand_with_a_row_stride_is_a_strided_view_and_verifies(tmp_path):
    """`A[row * lda + k]`: a (M, K) view whose rows are lda apart (T.StridedTensor), copied with
    T.copy; verify runs it on the CPU (TileLang's C host wrapper is given the stride there, see
    verify/cpu_target.py) and adds a case for the aligned program, lda a multiple of 4."""
    src = tmp_path / "lda.cu"
    src.write_text(NAIVE.replace("const float* A, const float* B", "const float* A, int lda, const float* B")
                   .replace("A[row * K + k]", "A[row * lda + k]").replace("mm<<<", "mm<<<").replace(
                       "void run(const float* A, const float* B", "void run(const float* A, int lda, const float* B")
                   .replace("(A, B, C, M, N, K)", "(A, lda, B, C, M, N, K)"))
    out = tmp_path / "lda_tl.py"
    text = _converted(src, out)
    assert "A: T.StridedTensor((M, K), (lda, 1), T.float32)" in text and "T.copy(A[by * 64, ko * 16], a_tile)" in text
    assert "lda % 4 == 0" in text
    check = subprocess.run([sys.executable, "-m", "porter.cli", "verify", str(src), str(out), "--no-compile-check",
                            "--format", "json"], cwd=ROOT, capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    cases = json.loads(check.stdout)["kernels"][0]["cases"]
    # the aligned program's case: lda a multiple, and M ragged (T.copy predicates the rows past it)
    assert any(c["sizes"]["M"] % 64 and c["sizes"]["lda"] % 4 == 0 and c["sizes"]["K"] % 16 == 0 for c in cases)
    assert all(c["sizes"]["lda"] > c["sizes"]["K"] for c in cases)  # padded rows show a mixed-up stride


def test_transposed_operands_are_copied_as_stored_and_read_transposed(tmp_path):
    """`At[k * M + row]` is a (K, M) matrix: its tile is copied as stored, (BK, BM), and T.gemm
    reads it with transpose_A; `Bt[col * K + k]` likewise with transpose_B (fp32: the k-ordered
    products index the tile the same way)."""
    tn = one_line(print_port(raise_to_tiles(read_source(str(ROOT / "samples/cuda/gemm_tn_half_bias_relu.cu")))))
    assert "At: T.Tensor((K, M), T.float16)" in tn and "T.copy(At[ko * 32, by * 64], a_tile)" in tn
    assert "a_tile = T.alloc_shared((32, 64), T.float16)" in tn
    assert "T.gemm(a_tile, b_tile, acc, transpose_A=True)" in tn
    nt = cuda(tmp_path, NAIVE.replace("B[k * N + col]", "B[col * K + k]"))
    fma = one_line(print_port(raise_to_tiles(read_source(nt))))
    assert "B: T.Tensor((N, K), T.float32)" in fma and "T.copy(B[bx * 64, ko * 16], b_tile)" in fma
    assert "a_tile[acc_i, acc_k] * b_tile[acc_j, acc_k]" in fma
    fast = one_line(print_port(raise_to_tiles(read_source(nt), "auto", {"allow_tf32": True})))
    assert "T.gemm(a_tile, b_tile, acc, transpose_B=True)" in fast


@pytest.mark.parametrize("body, reason", [
    # a row reduction through a shared-memory tree: not a GEMM, threads cooperate
    ("""
    __global__ void rs(const float* x, float* out, int n) {
        __shared__ float s[256];
        s[threadIdx.x] = threadIdx.x < n ? x[blockIdx.x * n + threadIdx.x] : 0.0f;
        __syncthreads();
        for (int k = 128; k > 0; k >>= 1) { if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k]; __syncthreads(); }
        if (threadIdx.x == 0) out[blockIdx.x] = s[0];
    }
    void run(const float* x, float* out, int n) { rs<<<n, 256>>>(x, out, n); }
    """, "no sum over k"),
    # a product of two loads indexed by the same coordinate is a dot product, not a GEMM
    ("""
    __global__ void dots(const float* a, const float* b, float* out, int n, int k) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) { float s = 0; for (int j = 0; j < k; j++) s += a[i * k + j] * b[i * k + j]; out[i] = s; }
    }
    void run(const float* a, const float* b, float* out, int n, int k) { dots<<<(n + 127) / 128, 128>>>(a, b, out, n, k); }
    """, "same output coordinate"),
])
def test_kernels_that_are_not_gemms_say_why(tmp_path, body, reason):
    (k,) = read_source(cuda(tmp_path, body)).kernels
    from porter.match import gemm
    from porter.match.formulas import Miss
    with pytest.raises(Miss) as info:
        gemm.match(k)
    assert reason in info.value.reason
    r = raise_kernel(k)
    assert r.rule != "gemm" and (r.rule in ("rowwise", "elementwise") or f"gemm: {info.value.reason}" in r.reason)


def test_a_row_reduction_folds_its_chunks_and_reduces_once_per_pass():
    """softmax over 4,096 columns was 16 block-wide reductions per pass (one per 256-wide chunk);
    the chunks now fold lane by lane into the fragment, then one T.reduce_* per pass."""
    text = one_line(print_port(raise_to_tiles(read_source(str(ROOT / "samples/cuda/softmax_row.cu")))))
    lines = text.splitlines()
    reduces = [i for i, line in enumerate(lines) if "T.reduce_" in line]
    assert len(reduces) == 2  # the max pass and the sum pass
    for i in reduces:
        loop = max(k for k in range(i) if "for ck in T.serial(" in lines[k])
        indent = len(lines[i]) - len(lines[i].lstrip())
        assert indent == len(lines[loop]) - len(lines[loop].lstrip()), (lines[loop], lines[i])
    assert "row_max_chunk[j] = T.max(row_max_chunk[j], T.if_then_else(" in text


def test_level_tile_fails_with_the_reasons_and_thread_keeps_simt(tmp_path):
    module = read_source(str(ROOT / "samples/cuda/prefix_scan_block.cu"))  # a block scan: no rule
    with pytest.raises(TileportError) as info:
        raise_to_tiles(module, "tile")
    assert info.value.diagnostic.code == "TP017" and "gemm:" in info.value.diagnostic.message
    kept = raise_to_tiles(read_source(str(ROOT / "samples/cuda/matmul_tiled.cu")), "thread")
    assert level_printed(kept.kernels[0])[0] == "thread"


def test_convert_prints_level_and_rule(tmp_path):
    out = tmp_path / "mm_tl.py"
    result = subprocess.run([sys.executable, "-m", "porter.cli", "convert", "samples/cuda/matmul_tiled.cu",
                             "-o", str(out)], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "tile level (rule gemm: T.Pipelined, T.clear, T.copy, fp32 FMA tiles" in result.stderr
    result = subprocess.run([sys.executable, "-m", "porter.cli", "convert", "samples/cuda/prefix_scan_block.cu",
                             "--level", "tile"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 1 and "error TP017" in result.stderr


def test_supported_md_is_generated_from_the_tables():
    assert (ROOT / "SUPPORTED.md").read_text(encoding="utf-8") == render(), \
        "regenerate with: python -m porter.match.supported > SUPPORTED.md"


@pytest.mark.parametrize("rel, kernel, reduce_ops", [
    ("samples/cuda/reduce_shared_tree.cu", "reduce_sum", ["sum"]),
    ("samples/cuda/softmax_row.cu", "softmax_row", ["max", "sum"]),
    ("samples/cuda/layernorm_forward.cu", "layernorm_forward", None),
    ("samples/cuda/cross_entropy.cu", "cross_entropy_forward", None),
    ("samples/cuda/rmsnorm.cu", "rmsnorm", ["sum"]),
    ("tests/fresh/cuda_thread/block_reduce_template.cu", "reduce", ["sum"]),
    ("samples/cuda/gemv_half.cu", "gemv_half", ["sum"]),  # warp per row, __shfl_down_sync
    ("tests/fresh/cuda_thread/dot_product_atomic.cu", "dot_kernel", ["sum"]),  # grid-stride + atomicAdd
    ("samples/cuda/reduce_warp_shuffle.cu", "reduce_warp_atomic", ["sum"]),  # warps, then warp 0
    ("tests/fresh/cuda_thread/coop_groups_reduce.cu", "cg_block_sum", ["sum"]),  # cooperative groups
    ("tests/fresh/cuda_thread/softmax_warp.cu", "softmax_online_warp", ["max", "sum"]),  # online softmax
    ("samples/cuda/argmax_row.cu", "argmax_row", ["max", "min"]),  # (value, index) tree: first index of the max
])
def test_block_reductions_are_raised_to_t_reduce(rel, kernel, reduce_ops):
    from porter.ir.tiles import Reduce
    k = next(k for k in read_source(str(ROOT / rel)).kernels if k.name == kernel)
    r = raise_kernel(k)
    assert r.rule == "rowwise", r.reason
    ops = [s.op for s in walk_stmts(r.kernel.body) if isinstance(s, Reduce)]
    assert ops and (reduce_ops is None or ops == reduce_ops)
    # the launch keeps the original grid and block size: one block still makes one block's result
    assert r.kernel.launch.grid == k.launch.grid and r.kernel.launch.threads == max(k.launch.block)
    assert not any(isinstance(s, ParallelFor) and len(s.extents) > 1 for s in walk_stmts(r.kernel.body))


def test_a_tree_over_a_value_from_another_thread_is_not_raised(tmp_path):
    # the tree combines s[tid + 1] shifted values: not the pattern, stays at thread level
    src = cuda(tmp_path, """
    __global__ void odd(const float* x, float* out, int n) {
        __shared__ float s[128];
        s[threadIdx.x] = x[blockIdx.x * 128 + threadIdx.x];
        __syncthreads();
        for (int k = 64; k > 0; k >>= 1) { if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k + 1]; __syncthreads(); }
        if (threadIdx.x == 0) out[blockIdx.x] = s[0];
    }
    void run(const float* x, float* out, int n) { odd<<<n / 128, 128>>>(x, out, n); }
    """)
    (k,) = read_source(src).kernels
    r = raise_kernel(k)
    assert r.rule is None and "rowwise:" in r.reason


def test_tile_option_sets_the_gemm_tiles_and_bad_values_are_diagnosed(tmp_path):
    run = lambda *a: subprocess.run([sys.executable, "-m", "porter.cli", "convert", "samples/cuda/matmul_tiled.cu", *a],  # noqa: E731
                                    cwd=ROOT, capture_output=True, text=True)
    good = run("--tile", "128,64,32")
    assert good.returncode == 0 and "T.alloc_shared((128, 32)" in one_line(good.stdout) and "T.ceildiv(N, 64)" in good.stdout
    bad = run("--tile", "128,100")
    assert bad.returncode == 2 and "error TP007" in bad.stderr


def test_batched_gemm_keeps_the_batch_axis():
    (k,) = read_source(str(ROOT / "samples/cuda/bmm_strided_batched.cu")).kernels
    r = raise_kernel(k)
    assert r.rule == "gemm", r.reason
    assert len(r.kernel.launch.grid) == 3 and r.kernel.launch.grid[2] == k.launch.grid[2]


def test_autotune_config_is_named_in_the_port():
    text = one_line(print_port(read_source(str(ROOT / "samples/triton/matmul_grouped.py"))))
    assert "autotune config 0 of 1 (BLOCK_M=32" in text


def test_a_shfl_down_result_stored_by_every_lane_is_not_raised(tmp_path):
    src = cuda(tmp_path, """
    __global__ void rows(const float* x, float* y, int n) {
        int lane = threadIdx.x % 32;
        float s = 0.0f;
        for (int c = lane; c < n; c += 32) s += x[blockIdx.x * n + c];
        for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffff, s, o);
        y[blockIdx.x * 32 + lane] = s;  // only lane 0 holds the row's sum
    }
    void run(const float* x, float* y, int n) { rows<<<n, 32>>>(x, y, n); }
    """)
    (k,) = read_source(src).kernels
    r = raise_kernel(k)
    assert r.rule is None and "lanes other than 0" in r.reason


def test_a_reduction_over_a_row_the_kernel_writes_first_is_not_raised(tmp_path):
    # `res` is stored, then its variance taken: the rowwise port reduces before it writes, so
    # it would read the old row (verify caught that port on llm.c's fused_residual_forward3)
    src = cuda(tmp_path, """
    __device__ float warp_sum(float v) {
        for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffff, v, o);
        return v;
    }
    __global__ void add_then_var(float* res, float* var, const float* a, const float* b, int N, int C) {
        int row = blockIdx.x;
        float m = 0.0f;
        for (int c = threadIdx.x; c < C; c += 32) { float o = a[row * C + c] + b[row * C + c]; res[row * C + c] = o; m += o; }
        m = warp_sum(m) / C;
        float v = 0.0f;
        for (int c = threadIdx.x; c < C; c += 32) { float d = res[row * C + c] - m; v += d * d; }
        v = warp_sum(v);
        if (threadIdx.x == 0) var[row] = v / C;
    }
    void run(float* res, float* var, const float* a, const float* b, int N, int C) {
        add_then_var<<<N, 32>>>(res, var, a, b, N, C);
    }
    """)
    (k,) = read_source(src).kernels
    r = raise_kernel(k)
    assert r.rule is None and "a reduction reads 'res'" in r.reason


TRITON_DOT = '''
import torch
import triton
import triton.language as tl


@triton.jit
def xw_kernel(x_ptr, w_ptr, y_ptr, rows, cols, depth, sx_r, sx_d, sw_d, sw_c, sy_r, sy_c,
              BR: tl.constexpr, BC: tl.constexpr, BD: tl.constexpr):
    r = tl.program_id(0) * BR + tl.arange(0, BR)
    c = tl.program_id(1) * BC + tl.arange(0, BC)
    d = tl.arange(0, BD)
    total = tl.zeros((BR, BC), dtype=tl.float32)
    for step in range(0, tl.cdiv(depth, BD)):
        at = step * BD + d
        xs = tl.load(x_ptr + r[:, None] * sx_r + at[None, :] * sx_d,
                     mask=(r[:, None] < rows) & (at[None, :] < depth), other=0.0)
        ws = tl.load(w_ptr + at[:, None] * sw_d + c[None, :] * sw_c,
                     mask=(at[:, None] < depth) & (c[None, :] < cols), other=0.0)
        total += tl.dot(xs, ws)
    tl.store(y_ptr + r[:, None] * sy_r + c[None, :] * sy_c, total.to(tl.float16),
             mask=(r[:, None] < rows) & (c[None, :] < cols))


def xw(x, w):
    y = torch.empty((x.shape[0], w.shape[1]), device=x.device, dtype=torch.float16)
    grid = (triton.cdiv(x.shape[0], 32), triton.cdiv(w.shape[1], 32))
    xw_kernel[grid](x, w, y, x.shape[0], w.shape[1], x.shape[1], x.stride(0), x.stride(1),
                    w.stride(0), w.stride(1), y.stride(0), y.stride(1), BR=32, BC=32, BD=32)
    return y
'''


def test_triton_block_loads_become_copies_of_strided_views_with_an_async_program(tmp_path):
    """`tl.load(base + rows[:, None] * s0 + cols[None, :] * s1, mask=bounds)` into a dot
    operand: a (rows, depth) view with the kernel's strides; the wrapper takes the program
    whose T.copy is asynchronous when the rows are contiguous and 16-byte aligned, the other
    gathers from the same view; verify runs a case of each (the aligned one at ragged rows)."""
    src = tmp_path / "xw.py"
    src.write_text(TRITON_DOT)
    out = tmp_path / "xw_tl.py"
    dtypes = ["--dtype", "x_ptr=float16", "--dtype", "w_ptr=float16", "--dtype", "y_ptr=float16"]
    run = subprocess.run([sys.executable, "-m", "porter.cli", "convert", str(src), "-o", str(out), *dtypes],
                         cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    text = one_line(out.read_text())
    assert "x_ptr: T.StridedTensor((rows, depth), (sx_r, sx_d), T.float16)" in text
    assert 'sx_d = 1 if aligned else T.dynamic("sx_d")' in text
    assert "T.copy(x_ptr[BR * bx, BD * step], xs)" in text and "T.copy(w_ptr[BD * step, BC * by], ws)" in text
    # whole tiles along the rows of each operand (depth for x, cols for w); rows past `rows` are
    # T.copy's predicate, one per 16-byte row piece, so `rows` may be ragged
    assert "sx_d == 1 and sw_c == 1 and depth % BD == 0" in text and "cols % BC == 0" in text
    assert "rows % BR" not in text
    from porter.verify.port_exec import async_copies, load_port, lower, pass_configs

    module = load_port(str(out))
    fast = lower(module.xw_kernel_program(aligned=True), {"kind": "cuda", "arch": "sm_80"}, pass_configs(module))
    # 16-byte cp.async into two stages of buffers (the next step's half while this one computes)
    assert re.search(r"cp_async_gs(_conditional)?<16>", fast.kernel_source) and async_copies(fast.kernel_source) >= 2
    assert "((step + 1) & 1) * 1024" in fast.kernel_source
    check = subprocess.run([sys.executable, "-m", "porter.cli", "verify", str(src), str(out), "--no-compile-check",
                            "--format", "json", *dtypes], cwd=ROOT, capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    cases = [c["sizes"] for c in json.loads(check.stdout)["kernels"][0]["cases"]]
    assert any(c["sx_d"] == 1 and c["sw_c"] == 1 and c["rows"] % 32 != 0 for c in cases)
    assert any(c["sx_d"] != 1 for c in cases)


TRITON_WRAPPED = '''
import torch
import triton
import triton.language as tl


@triton.jit
def mm_wrap_kernel(a_ptr, b_ptr, out_ptr, M, N, K, sa0, sa1, sb0, sb1, so0, so1,
                   TM: tl.constexpr, TN: tl.constexpr, TK: tl.constexpr, COLSUM: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rows = (pm * TM + tl.arange(0, TM)) % M
    cols = (pn * TN + tl.arange(0, TN)) % N
    ks = tl.arange(0, TK)
    acc = tl.zeros((TM, TN), dtype=tl.float32)
    for kk in range(0, tl.cdiv(K, TK)):
        left = K - kk * TK
        x = tl.load(a_ptr + rows[:, None] * sa0 + (kk * TK + ks)[None, :] * sa1, mask=ks[None, :] < left, other=0.0)
        y = tl.load(b_ptr + (kk * TK + ks)[:, None] * sb0 + cols[None, :] * sb1, mask=ks[:, None] < left, other=0.0)
        acc += tl.dot(x, y)
    r = pm * TM + tl.arange(0, TM)
    c = pn * TN + tl.arange(0, TN)
    if COLSUM:
        tl.store(out_ptr + c * so1, tl.sum(acc, axis=0).to(tl.float16), mask=c < N)
    else:
        tl.store(out_ptr + r[:, None] * so0 + c[None, :] * so1, acc.to(tl.float16),
                 mask=(r[:, None] < M) & (c[None, :] < N))


def mm_wrap(a, b, colsum=False):
    out = torch.empty((a.shape[0], b.shape[1]), device=a.device, dtype=torch.float16)
    grid = (triton.cdiv(a.shape[0], 32), triton.cdiv(b.shape[1], 32))
    mm_wrap_kernel[grid](a, b, out, a.shape[0], b.shape[1], a.shape[1], a.stride(0), a.stride(1),
                         b.stride(0), b.stride(1), out.stride(0), out.stride(1), TM=32, TN=32, TK=32,
                         COLSUM=colsum)
    return out
'''


def test_triton_rows_wrapped_past_the_end_are_copied_when_only_unstored_outputs_see_them(tmp_path):
    """`rows = (pm * TM + arange(TM)) % M`: rows past M read row r % M, which only makes
    accumulator rows the masked store drops, so T.copy (zeros there) gives the same port; the
    gathering program keeps the wrap. A column sum of the accumulator mixes those rows into
    stored outputs: the loads stay gathers."""
    src = tmp_path / "mmw.py"
    src.write_text(TRITON_WRAPPED)
    dtypes = ["--dtype", "a_ptr=float16", "--dtype", "b_ptr=float16", "--dtype", "out_ptr=float16"]
    out = tmp_path / "mmw_tl.py"
    run = subprocess.run([sys.executable, "-m", "porter.cli", "convert", str(src), "-o", str(out),
                          "--constexpr", "COLSUM=False", *dtypes], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    text = out.read_text()
    assert "T.copy(a_ptr[TM * pm, TK * kk], x)" in text and "T.copy(b_ptr[TK * kk, TN * pn], y)" in text
    assert "a_ptr[T.truncmod(pm * TM + i, M), TK * kk + j]" in text
    check = subprocess.run([sys.executable, "-m", "porter.cli", "verify", str(src), str(out), "--no-compile-check",
                            "--constexpr", "COLSUM=False", *dtypes], cwd=ROOT, capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    mixed = tmp_path / "mmw_sum_tl.py"
    run = subprocess.run([sys.executable, "-m", "porter.cli", "convert", str(src), "-o", str(mixed),
                          "--constexpr", "COLSUM=True", *dtypes], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "T.copy(a_ptr" not in mixed.read_text()


TRITON_WRAPPED_GROUPED = """
import torch
import triton
import triton.language as tl


@triton.jit
def mm_grouped_wrap(a_ptr, b_ptr, out_ptr, M, N, K, sa0, sa1, sb0, sb1, so0, so1,
                    TM: tl.constexpr, TN: tl.constexpr, TK: tl.constexpr, G: tl.constexpr):
    me = tl.program_id(0)
    tiles_m = tl.cdiv(M, TM)
    tiles_n = tl.cdiv(N, TN)
    per_group = G * tiles_n
    first = (me // per_group) * G
    height = min(tiles_m - first, G)
    pm = first + (me % per_group) % height
    pn = (me % per_group) // height
    rows = (pm * TM + tl.arange(0, TM)) % M
    cols = (pn * TN + tl.arange(0, TN)) % N
    ks = tl.arange(0, TK)
    xs = a_ptr + rows[:, None] * sa0 + ks[None, :] * sa1
    ys = b_ptr + ks[:, None] * sb0 + cols[None, :] * sb1
    acc = tl.zeros((TM, TN), dtype=tl.float32)
    for kk in range(0, tl.cdiv(K, TK)):
        x = tl.load(xs, mask=ks[None, :] < K - kk * TK, other=0.0)
        y = tl.load(ys, mask=ks[:, None] < K - kk * TK, other=0.0)
        acc = tl.dot(x, y, acc)
        xs += TK * sa1
        ys += TK * sb0
    r = pm * TM + tl.arange(0, TM)
    c = pn * TN + tl.arange(0, TN)
    tl.store(out_ptr + r[:, None] * so0 + c[None, :] * so1, acc.to(tl.float16),
             mask=(r[:, None] < M) & (c[None, :] < N))


def mm(a, b):
    out = torch.empty((a.shape[0], b.shape[1]), device=a.device, dtype=torch.float16)
    grid = (triton.cdiv(a.shape[0], 32) * triton.cdiv(b.shape[1], 32),)
    mm_grouped_wrap[grid](a, b, out, a.shape[0], b.shape[1], a.shape[1], a.stride(0), a.stride(1),
                          b.stride(0), b.stride(1), out.stride(0), out.stride(1), TM=32, TN=32, TK=32, G=2)
    return out
"""


def test_wrapped_rows_of_a_grouped_launch_are_copied_on_its_tile_grid(tmp_path):
    """The matmul tutorial's current spelling: rows and columns wrapped (`% M`, `% N`) and a
    1-D launch in grouped order. The tile grid binds the tile indices to block indices; the
    stores still guard the wrapped rows and columns (read through that binding), so both
    operands are T.copy in the aligned program."""
    src = tmp_path / "mmgw.py"
    src.write_text(TRITON_WRAPPED_GROUPED)
    dtypes = ["--dtype", "a_ptr=float16", "--dtype", "b_ptr=float16", "--dtype", "out_ptr=float16"]
    out = tmp_path / "mmgw_tl.py"
    text = _converted(src, out, *dtypes)
    assert "T.use_swizzle(G)" in text and "as (pn, pm)" in text
    assert "T.copy(a_ptr[TM * pm, TK * kk], x)" in text and "T.copy(b_ptr[TK * kk, TN * pn], y)" in text
    check = subprocess.run([sys.executable, "-m", "porter.cli", "verify", str(src), str(out), "--no-compile-check",
                            *dtypes], cwd=ROOT, capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr


def test_triton_flag_variants_keep_their_dispatch_when_loads_become_copies(tmp_path):
    """A flag the kernel tests is a variant the port dispatches on; each variant's printed form
    takes the same views and copies, so the dispatch stays (it was lost when only the main
    form's copies were raised)."""
    src = tmp_path / "xw_relu.py"
    src.write_text(TRITON_DOT.replace("BD: tl.constexpr):", "BD: tl.constexpr, RELU: tl.constexpr):")
                   .replace("    tl.store(y_ptr", "    if RELU:\n        total = tl.maximum(total, 0.0)\n    tl.store(y_ptr")
                   .replace("BR=32, BC=32, BD=32)", "BR=32, BC=32, BD=32, RELU=True)"))
    dtypes = ["--dtype", "x_ptr=float16", "--dtype", "w_ptr=float16", "--dtype", "y_ptr=float16"]
    out = tmp_path / "xw_relu_tl.py"
    run = subprocess.run([sys.executable, "-m", "porter.cli", "convert", str(src), "-o", str(out), *dtypes],
                         cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    text = out.read_text()
    assert "specialised for" not in text.split("@_TritonKernel\ndef xw_kernel", 1)[1]
    # one program whose body branches on the flag where the variants differ
    assert text.count("@T.prim_func") == 1 and re.search(r"\n +if RELU:\n", text)
    assert text.count("T.copy(x_ptr[BR * bx, BD * step], xs)") == 1


def test_attention_copies_keys_and_values_in_an_unrolled_aligned_program(tmp_path):
    """The K/V loop holds two products: TileLang 0.1.15 lowers its async copies on sm_80 only
    with loops unrolled before code generation, so the aligned program compiles with
    _DEEP_PIPELINE_CONFIGS, its sequence length dynamic; the general program (gathers) does not."""
    sample = ROOT / "samples" / "triton" / "attention_fwd_small.py"
    out = tmp_path / "attn_tl.py"
    text = _converted(sample, out)
    assert "T.copy(k_ptr[head, start_n, 0], k)" in text and "T.copy(v_ptr[head, start_n, 0], v)" in text
    assert 'seq_len = T.dynamic("seq_len")' in text and "unrolled=aligned or num_stages >= 3" in text
    from porter.verify.port_exec import aligned_arguments, async_copies, load_port, lower, program_configs

    module = load_port(str(out))
    factory = module.attention_fwd_kernel_program
    assert aligned_arguments(factory) == {"aligned": True}
    assert "tl.UnrollLoop" in program_configs(module, factory, {"aligned": True})
    assert "tl.UnrollLoop" not in program_configs(module, factory, {})
    target = {"kind": "cuda", "arch": "sm_80"}
    fast = lower(factory(aligned=True), target, program_configs(module, factory, {"aligned": True}))
    assert async_copies(fast.kernel_source) >= 3  # q, and k and v into two stages
    assert async_copies(lower(factory(), target, program_configs(module, factory, {})).kernel_source) == 0


def test_a_constant_stored_over_a_whole_tile_is_a_clear_or_a_fill():
    """`tl.zeros` and a running max's -inf start as element stores; over the whole tile they are
    T.clear / T.fill, as a TileLang author writes them. A store over part of a tile, or of a
    value that is not a constant, stays a T.Parallel loop."""
    i, j = Var("i", "int32"), Var("j", "int32")
    tile = TileBuffer("acc", "float32", (64, 32))
    def store(extents, value, indices=(i, j)):
        return ParallelFor((i, j), extents, [TileStore("acc", indices, value)])
    zero, other = Const(0.0, "float32"), Var("x", "float32")
    body = whole_tile_fills([tile, store((64, 32), zero), store((64, 16), zero),
                             store((64, 32), other), store((64, 32), zero, (j, i))])
    assert isinstance(body[1], Fill) and body[1].value == zero
    assert all(isinstance(s, ParallelFor) for s in body[2:])
    matmul = one_line((ROOT / "tests/golden/samples__triton__matmul_fp16_tl.py").read_text())
    attention = one_line((ROOT / "tests/golden/samples__triton__attention_fwd_small_tl.py").read_text())
    assert "T.clear(acc)" in matmul and "acc[i, j] = T.float32(0.0)" not in matmul
    assert "T.fill(m_i, -T.infinity(T.float32))" in attention and "T.clear(l_i)" in attention


def test_a_row_reduction_keeps_the_name_the_original_gives_its_result(tmp_path):
    """`float peak = red[0];` (after the tree) names the port's running max and its fragments;
    a helper's locals, inlined, do not (layernorm's `total` is two reductions)."""
    source = (ROOT / "samples/cuda/softmax_row.cu").read_text().replace("row_max", "peak")
    text = one_line(print_port(raise_to_tiles(read_source(cuda(tmp_path, source)))))
    assert "peak = T.alloc_var(T.float32)" in text and "T.reduce_max(peak_chunk, peak_part, dim=0)" in text
    assert "row_max" not in text
    layernorm = one_line(print_port(raise_to_tiles(read_source(str(ROOT / "samples/cuda/layernorm_forward.cu")))))
    assert "total" not in layernorm


ROW_SCALE = """
    __global__ void row_scale(const float* x, float* y, int rows, int {n}) {
        __shared__ float part[256];
        int r = blockIdx.x;
        float s = 0.0f;
        for (int {col} = threadIdx.x; {col} < {n}; {col} += blockDim.x) s += x[r * {n} + {col}];
        part[threadIdx.x] = s;
        __syncthreads();
        for (int h = 128; h > 0; h >>= 1) {
            if (threadIdx.x < h) part[threadIdx.x] += part[threadIdx.x + h];
            __syncthreads();
        }
        float total = part[0];
        for (int {col} = threadIdx.x; {col} < {n}; {col} += blockDim.x) y[r * {n} + {col}] = x[r * {n} + {col}] / total;
    }
    void run(const float* x, float* y, int rows, int {n}) { row_scale<<<rows, 256>>>(x, y, rows, {n}); }
"""


def test_a_row_steps_column_is_computed_once_under_the_originals_name(tmp_path):
    """Each chunked step binds the original's loop variable once (`col = ck * 256 + j`) and
    reads it in its mask and offsets, in both loops (the front end's `col_2` is the user's
    `col` again); a loop variable named like the port's own chunk variable is substituted."""
    src = ROW_SCALE.replace("{n}", "n").replace("{col}", "col")
    text = one_line(print_port(raise_to_tiles(read_source(cuda(tmp_path, src)))))
    assert text.count("col = ck * 256 + j") == 2, text
    assert "ck * 256 + j" not in text.replace("col = ck * 256 + j", "")
    assert "col_" not in text
    # a loop variable called `ck` would be bound inside the loop over `ck`, the chunks: it is
    # substituted instead
    clash = ROW_SCALE.replace("{n}", "w").replace("{col}", "ck")
    text = one_line(print_port(raise_to_tiles(read_source(cuda(tmp_path, clash, "clash.cu")))))
    assert "ck = ck * 256 + j" not in text and "ck_1 = " not in text
    assert "T.if_then_else(ck * 256 + j < w," in text


UNMASKED_STEPS = ROOT / "tests" / "fresh" / "triton" / "matmul_unmasked_steps.py"


def test_unmasked_tiles_are_copied_where_their_origins_step_over_sizes_in_whole_tiles(tmp_path):
    """No mask names a view's extents: a loop over ceildiv(K, BK) at `BK * step`, a loop
    stepping by its tile, and a block index over ceildiv(M, BM) at `BM * pid` each cover the
    size in whole tiles, which is where the original is defined (the aligned program's case).
    A grid the caller launches may hold more programs: the wrapper checks it does not."""
    grouped = _converted(ROOT / "tests" / "fresh" / "triton" / "matmul_whole_tiles.py", tmp_path / "wt_tl.py")
    assert "a: T.StridedTensor((n_rows, n_inner), (a_row_step, a_col_step), T.float32)" in grouped
    assert "T.copy(a[BR * tile_row, BK * step], a_shared)" in grouped
    assert "T.copy(b[BK * step, BC * tile_col], b_shared)" in grouped
    assert "a_shared[i, j] = a[BR * tile_row + i, BK * step + j]" in grouped  # the general program
    assert "grid[" not in grouped.split("aligned = ", 1)[1].split("\n", 1)[0]  # its own tile grid
    launched = _converted(UNMASKED_STEPS, tmp_path / "us_tl.py")
    assert "T.copy(x[TR * r, d0], xt)" in launched and "T.copy(w[d0, TC * c], wt)" in launched
    assert "and grid[0] * TR <= R and grid[1] * TC <= C" in launched


def test_unmasked_tiles_that_overlap_or_skip_stay_gathers(tmp_path):
    """A K loop stepping by half its tile reads overlapping tiles: no view covers it."""
    src = tmp_path / "half_steps.py"
    src.write_text(UNMASKED_STEPS.read_text().replace("range(0, D, TD)", "range(0, D, TD // 2)"))
    text = _converted(src, tmp_path / "half_tl.py")
    assert "T.copy(" not in text and "StridedTensor" not in text


def test_block_pointer_loads_are_copied_with_or_without_a_boundary_check(tmp_path):
    """`tl.load(blk, boundary_check=(0, 1))` also tests `r0 + i >= 0`, true for every tile a
    program id or a loop from 0 reads; without the check the load is unmasked and its origins
    step over M and K in whole tiles. Either way the aligned program copies both operands."""
    checked = ROOT / "tests" / "fresh" / "triton" / "matmul_block_pointers.py"
    for src in (checked, tmp_path / "unchecked.py"):
        if src != checked:
            src.write_text(checked.read_text().replace(", boundary_check=(0, 1))\n        b =", ")\n        b =")
                           .replace("b = tl.load(b_blk, boundary_check=(0, 1))", "b = tl.load(b_blk)"))
        text = _converted(src, tmp_path / f"{src.stem}_tl.py")
        assert "T.copy(a_ptr[BM * pid_m, k], a)" in text and "T.copy(b_ptr[k, BN * pid_n], b)" in text, src
        assert ("grid[0] * BM <= M" in text) == (src != checked)  # an unmasked load's tiles need the grid test


CAUSAL = ROOT / "tests" / "fresh" / "triton" / "attention_causal_block_ptrs.py"


def test_causal_block_pointer_attention_copies_q_k_and_v_from_batches_of_heads(tmp_path):
    """Tutorial-06-style attention: the batch offset `b * s_b + h * s_h` with h = bh % heads is
    two dimensions of a (batches, heads, seq, D) view; the key sweeps run over
    `range(first, last, BKV)` with first/last from the query block (left of the diagonal, then
    the diagonal block), whose whole tiles end inside seq where the caller's grid does; K, read
    as (D, BKV) blocks with order=(0, 1), is staged transposed so that its rows are contiguous."""
    text = _converted(CAUSAL, tmp_path / "causal_tl.py")
    for name in ("Qp", "Kp", "Vp"):
        assert f"{name}: T.StridedTensor(({name}_batches, heads, seq, D), (s_b, s_h, s_t, s_d), T.float16)" \
            in text, name
    assert "T.copy(Qp[b, h, BQ * qb, 0], q_tile)" in text
    assert "T.copy(Kp[b, h, BKV * kv_step, 0], kt)" in text  # left of the diagonal: from 0
    assert "T.copy(Kp[b, h, BKV * kv_1_step + BQ * qb, 0], kt_1)" in text  # the diagonal block
    assert "T.copy(Vp[b, h, BKV * kv_1_step + BQ * qb, 0], vals_1)" in text
    assert "T.gemm(q_tile, kt, acc_4, transpose_B=True, clear_accum=True)" in text
    assert "kt[j, i] = Kp[b, h, BKV * kv_step + j, i]" in text  # the general program, same view
    aligned = text.split("aligned = ", 1)[1].split("\n", 1)[0]
    assert "s_d == 1" in aligned and "s_t == 1" not in aligned and "grid[0] * BQ <= seq" in aligned


@pytest.mark.parametrize("change, left", [
    # the source says K's rows are contiguous: no transposition, and its own strides
    ("block_shape=(D, BKV), order=(0, 1)", "block_shape=(D, BKV), order=(1, 0)"),
    # a head index that is not a remainder: no bound for the heads dimension
    ("h = bh % heads", "h = bh - b * heads"),
    # sweeps that end half a block past the diagonal: not whole tiles of the span
    ("first, last = 0, qb * BQ", "first, last = 0, qb * BQ + BKV // 2"),
])
def test_causal_attention_views_need_their_evidence(change, left, tmp_path):
    src = tmp_path / "changed.py"
    assert change in CAUSAL.read_text()
    src.write_text(CAUSAL.read_text().replace(change, left))
    text = _converted(src, tmp_path / "changed_tl.py")
    if "order=(1, 0)" in left:
        assert "transpose_B" not in text and "(Kp_batches, heads, D, seq), (s_b, s_h, s_d, s_t)" in text
        assert "s_t == 1" in text.split("aligned = ", 1)[1].split("\n", 1)[0]
    elif "heads" in left:
        assert "StridedTensor" not in text and "T.copy(" not in text
    else:
        assert "T.copy(Kp" not in text and "T.copy(Qp[b, h, BQ * qb, 0], q_tile)" in text


CROSS = ROOT / "tests" / "fresh" / "triton" / "cross_attention_fp16.py"


def test_masked_rows_of_half_tiles_copy_asynchronously_at_any_length(tmp_path):
    """fp16 attention whose Q, K and V loads are masked by their lengths: the aligned program
    asks only for 16-byte aligned rows, not for lengths that are multiples of a tile (a row past
    the length is T.copy's own predicate, one per 16-byte copy), so it is the one that runs at
    ragged lengths, and its copies are cp.async (sm_80) and TMA (sm_90a) there."""
    text = _converted(CROSS, tmp_path / "cross_tl.py")
    test = text.split("aligned = ", 1)[1].split("\n", 1)[0]
    assert "q_row % 8 == 0" in test and "kv_row % 8 == 0" in test
    assert "len_q" not in test and "len_kv" not in test and "T.assume(len_" not in text
    from porter.verify.port_exec import async_copies, load_port, lower, program_configs

    module = load_port(str(tmp_path / "cross_tl.py"))
    factory = module.cross_attn_fwd_program
    fast = lower(factory(aligned=True), {"kind": "cuda", "arch": "sm_80"},
                 program_configs(module, factory, {"aligned": True}))
    assert "cp_async_gs_conditional<16>" in fast.kernel_source and async_copies(fast.kernel_source) >= 6
