"""A port computes what the original computes: 64-bit offsets stay 64-bit, a padded shared tile
keeps its padding, exp is exp2 only where that changes nothing (fp32 products: test_match.py
and test_triton_frontend.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from porter.emit.exp2 import EXP2_RELATIVE_ERROR, rounding_hides
from tests.conftest import one_line

ROOT = Path(__file__).resolve().parents[1]


def _convert(tmp_path, name: str, text: str) -> str:
    src = tmp_path / f"{name}.cu"
    src.write_text(text)
    out = tmp_path / f"{name}_tl.py"
    run = subprocess.run([sys.executable, "-m", "porter.cli", "convert", str(src), "-o", str(out)],
                         cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return one_line(out.read_text())


def test_a_size_t_row_offset_is_multiplied_in_64_bits(tmp_path):
    """`in + (size_t)row * cols` passes 2^31 elements for big matrices: the product itself must
    be 64-bit (it was `T.Cast(T.int64, row * cols)`, a 32-bit multiply that wraps first)."""
    port = _convert(tmp_path, "wide", """
__global__ void row_scale(float* out, const float* in, int rows, int cols, float s) {
    int row = blockIdx.x;
    const float* src = in + (size_t)row * cols;
    float* dst = out + (size_t)row * cols;
    for (int j = threadIdx.x; j < cols; j += blockDim.x) dst[j] = src[j] * s;
}
void launch(float* out, const float* in, int rows, int cols, float s) { row_scale<<<rows, 256>>>(out, in, rows, cols, s); }
""")
    assert "T.Cast(T.int64, row) * cols" in port
    assert "T.Cast(T.int64, row * cols)" not in port


def test_int_offsets_stay_32_bit_as_written(tmp_path):
    port = _convert(tmp_path, "narrow", """
__global__ void row_scale(float* out, const float* in, int rows, int cols, float s) {
    int row = blockIdx.x;
    for (int j = threadIdx.x; j < cols; j += blockDim.x) out[row * cols + j] = in[row * cols + j] * s;
}
void launch(float* out, const float* in, int rows, int cols, float s) { row_scale<<<rows, 256>>>(out, in, rows, cols, s); }
""")
    assert "T.int64" not in port.split("def row_scale_program")[1].split("return row_scale")[0]


def test_a_padded_transpose_tile_keeps_its_padding(tmp_path):
    """`tile[32][33]` puts a transposed column read on 33 banks; a (32, 32) tile puts all 32 on one."""
    port = _convert(tmp_path, "tr", """
#define TILE 32
__global__ void transpose(float* out, const float* in, int rows, int cols) {
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    if (x < cols && y < rows) tile[threadIdx.y][threadIdx.x] = in[y * cols + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    if (x < rows && y < cols) out[y * rows + x] = tile[threadIdx.x][threadIdx.y];
}
void launch(float* out, const float* in, int rows, int cols) {
    dim3 block(TILE, TILE); dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
    transpose<<<grid, block>>>(out, in, rows, cols);
}
""")
    assert "rule transpose" in port
    assert "T.alloc_shared((32, 33), T.float32)" in port
    assert "for tile_r, tile_c in T.Parallel(32, 32):" in port


def test_float4_accesses_stay_128_bit_in_the_lowered_cuda(tmp_path):
    """`reinterpret_cast<const float4*>(a)[i]` was four scalar loads in the port; now one
    T.vectorized loop per access, which TileLang lowers to a float4 load / store."""
    port = _convert(tmp_path, "add4", """
__global__ void add4(float* out, const float* a, const float* b, int n4) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 x = reinterpret_cast<const float4*>(a)[i];
        float4 y = reinterpret_cast<const float4*>(b)[i];
        reinterpret_cast<float4*>(out)[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
}
void launch(float* out, const float* a, const float* b, int n) { add4<<<(n / 4 + 255) / 256, 256>>>(out, a, b, n / 4); }
""")
    assert port.count("in T.vectorized(4):") == 3
    assert "x_lanes[v] = a[i * 4 + v]" in port
    from porter.verify.port_exec import load_port, lower, pass_configs

    module = load_port(str(tmp_path / "add4_tl.py"))
    source = lower(module.add4_program(), {"kind": "cuda", "arch": "sm_90a"}, pass_configs(module)).kernel_source
    for access in ("*(float4*)(a + ", "*(float4*)(b + ", "*(float4*)(out + "):
        assert access in source, source


def test_scalar_loads_of_consecutive_elements_stay_scalar(tmp_path):
    """A scalar access needs no alignment: grouping the user's own scalar loads could fault."""
    port = _convert(tmp_path, "pairs", """
__global__ void pairs(float* out, const float* a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[2 * i] + a[2 * i + 1];
}
void launch(float* out, const float* a, int n) { pairs<<<(n + 255) / 256, 256>>>(out, a, n); }
""")
    assert "T.vectorized" not in port


def test_an_unsigned_thread_index_comparison_survives_lowering(tmp_path):
    """`if (threadIdx.x < RADIUS)` compares uint32: printed as `T.Cast(T.uint32, tx) < T.uint32(3)`
    TileLang 0.1.15 dropped the branch condition, so every thread wrote the halo (found once the
    ports stopped carrying per-access extent checks that hid the stray reads)."""
    port = _convert(tmp_path, "halo", """
__global__ void halo(const float* in, float* out, int n) {
    __shared__ float t[256 + 6];
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    t[threadIdx.x + 3] = g < n ? in[g] : 0.0f;
    if (threadIdx.x < 3) t[threadIdx.x] = g >= 3 ? in[g - 3] : 0.0f;
    __syncthreads();
    if (g < n) out[g] = t[threadIdx.x] + t[threadIdx.x + 3];
}
void launch(const float* in, float* out, int n) { halo<<<(n + 255) / 256, 256>>>(in, out, n); }
""")
    assert "if tx < 3:" in port
    from porter.verify.port_exec import load_port, lower, pass_configs

    module = load_port(str(tmp_path / "halo_tl.py"))
    source = lower(module.halo_program(), {"kind": "cuda", "arch": "sm_80"}, pass_configs(module)).kernel_source
    assert "((int)threadIdx.x) < 3)" in source, source


def test_exp_is_exp2_only_where_the_original_computes_it_so_or_rounding_hides_it(tmp_path):
    """exp2(x * log2 e) rounds x * log2 e first: up to ~5.5e-6 relative, below float16's and
    bfloat16's rounding, above float32's (emit/exp2.py)."""
    assert rounding_hides("float16") and rounding_hides("bfloat16")
    assert not rounding_hides("float32") and 5e-6 < EXP2_RELATIVE_ERROR < 6e-6
    golden = ROOT / "tests" / "golden"
    # Triton lowers its float32 tl.exp to ex2.approx of x * log2 e: the port does the same
    triton = one_line((golden / "samples__triton__softmax_fused_tl.py").read_text())
    assert "T.exp2((x[r, i] - x_max[r]) * T.float32(1.4426950408889634))" in triton  # several rows per block
    assert "T.exp(" not in triton
    # a CUDA expf kept in float32 stays exp
    cuda = one_line((golden / "samples__cuda__softmax_row_tl.py").read_text())
    assert "T.exp(" in cuda and "T.exp2(" not in cuda
    # an exp rounded straight to half: exp2, and the port still matches the original
    port = _convert(tmp_path, "hexp", """
#include <cuda_fp16.h>
__global__ void half_exp(__half* out, const __half* x, float* wide, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = __float2half(expf(__half2float(x[i])));
        wide[i] = expf(__half2float(x[i]));
    }
}
void launch(__half* out, const __half* x, float* wide, int n) {
    half_exp<<<(n + 255) / 256, 256>>>(out, x, wide, n);
}
""")
    assert port.count("T.exp2(") == 1 and port.count("T.exp(") == 1
    check = subprocess.run([sys.executable, "-m", "porter.cli", "verify", str(tmp_path / "hexp.cu"),
                            str(tmp_path / "hexp_tl.py"), "--no-compile-check"],
                           cwd=ROOT, capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr


def test_a_cuda_fast_exp_is_the_exp2_it_is_made_of(tmp_path):
    """`__expf(x)` is ex2.approx of x * log2 e on the GPU: the port computes exp2 of the same
    product, while `expf` beside it stays exp."""
    port = _convert(tmp_path, "fastexp", """
__global__ void fast_exp(float* fast, float* exact, const float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        fast[i] = __expf(x[i]);
        exact[i] = expf(x[i]);
    }
}
void launch(float* fast, float* exact, const float* x, int n) {
    fast_exp<<<(n + 255) / 256, 256>>>(fast, exact, x, n);
}
""")
    assert "fast[i] = T.exp2(x[i] * T.float32(1.4426950408889634))" in port
    assert "exact[i] = T.exp(x[i])" in port
    check = subprocess.run([sys.executable, "-m", "porter.cli", "verify", str(tmp_path / "fastexp.cu"),
                            str(tmp_path / "fastexp_tl.py"), "--no-compile-check"],
                           cwd=ROOT, capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
