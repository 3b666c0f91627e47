"""CUDA front end: what it understands of real files, and how it refuses what it cannot."""

from __future__ import annotations

import pytest

from porter.diagnostics import TileportError
from porter.frontends.cuda import convert_cuda
from porter.ir.nodes import BufferParam, For, ScalarParam
from porter.ir.printer import format_expr, format_module
from porter.ir.walk import walk_expr, walk_stmts
from tests.conftest import ROOT, SAMPLES


def kernel(path, name):
    module = convert_cuda(str(path))
    return next(k for k in module.kernels if k.name == name)


def test_saxpy_params_extents_and_launch_site():
    k = kernel(SAMPLES / "cuda/saxpy.cu", "saxpy")
    assert [type(p) for p in k.params] == [ScalarParam, ScalarParam, BufferParam, BufferParam]
    x, y = k.param("x"), k.param("y")
    assert (x.dtype, x.access, format_expr(x.extent)) == ("float32", "r", "n")
    assert (y.access, format_expr(y.extent)) == ("rw", "n")
    assert k.launch.origin == "launch-site" and k.launch.block == (256,)
    assert format_expr(k.launch.grid[0]) == "((n + 255) / 256)"


def test_2d_launch_through_dim3_variables_and_host_locals():
    k = kernel(SAMPLES / "cuda/matrix_add_2d.cu", "matrix_add")
    assert k.launch.block == (16, 16)
    # `int w = cols; dim3 grid((w + 15) / 16, ...)` is traced back to the kernel's `cols`.
    assert [format_expr(g) for g in k.launch.grid] == ["((cols + 15) / 16)", "((rows + 15) / 16)"]
    assert format_expr(k.param("C").extent) == "(cols * rows)"


def test_grid_stride_loop_and_fixed_grid():
    k = kernel(SAMPLES / "cuda/relu_grid_stride.cu", "leaky_relu")
    loops = [s for s in walk_stmts(k.body) if isinstance(s, For)]
    assert len(loops) == 1
    assert format_expr(loops[0].cond) == "(i < n)"
    assert [format_expr(g) for g in k.launch.grid] == ["32"] and k.launch.block == (128,)
    assert format_expr(k.param("y").extent) == "n"


def test_half_types_and_device_function_inlining():
    half = kernel(SAMPLES / "cuda/half_scale_bias.cu", "half_scale_bias")
    assert half.param("x").dtype == "float16" and half.param("out").access == "w"
    silu = kernel(SAMPLES / "cuda/gelu_tanh.cu", "silu")
    text = format_module(type("M", (), {"kernels": [silu]}))
    assert "sigmoidf_" not in text and "exp(-v)" in text  # the helper was inlined


def test_early_return_guard_and_size_t_from_another_author():
    k = kernel(ROOT / "tests/fresh/cuda/vec_sigmoid.cu", "sigmoid_kernel")
    assert k.param("count").dtype == "uint64"
    assert k.param("out").access == "w"
    assert k.launch.origin == "launch-site" and k.launch.block == (512,)


def test_no_kernel_is_a_diagnostic(tmp_path):
    f = tmp_path / "host.cu"
    f.write_text("int add(int a, int b) { return a + b; }\n")
    with pytest.raises(TileportError) as err:
        convert_cuda(str(f))
    assert err.value.diagnostic.code == "TP100"


def test_syntax_error_points_at_the_line(tmp_path):
    f = tmp_path / "bad.cu"
    f.write_text("__global__ void k(float* x) {\n  x[0] = 1.0f\n}\n")
    with pytest.raises(TileportError) as err:
        convert_cuda(str(f))
    d = err.value.diagnostic
    assert d.code == "TP101" and d.loc.line in (2, 3)
    assert d.render().startswith(f"{f}:")


@pytest.mark.parametrize("line, code", [
    ("  atomicCAS((int*)x, 0, 1);", "TP151"),
    ('  asm volatile("membar.gl;");', "TP150"),
    ("  float v = atomicAdd(x, 1.0f); x[1] = v;", "TP153"),
    ("  x[0] = tex1Dfetch<float>((cudaTextureObject_t)0, 0);", "TP156"),
    ("  k<<<1, 1>>>(x);", "TP156"),
])
def test_unsupported_construct_is_reported_at_its_line(tmp_path, line, code):
    f = tmp_path / "k.cu"
    f.write_text("__global__ void k(float* x) {\n" + line + "\n}\n")
    with pytest.raises(TileportError) as err:
        convert_cuda(str(f))
    assert err.value.diagnostic.code == code and err.value.diagnostic.loc.line == 2


def test_shared_memory_barriers_and_warp_primitives(tmp_path):
    from porter.ir.nodes import Alloc, Atomic, Sync, While

    k = kernel(SAMPLES / "cuda/reduce_warp_shuffle.cu", "reduce_warp_atomic")
    stmts = list(walk_stmts(k.body))
    assert any(isinstance(s, Alloc) and s.scope == "shared" for s in stmts)
    assert any(isinstance(s, Sync) and s.kind == "block" for s in stmts)
    assert any(isinstance(s, Atomic) and s.op == "add" and s.buffer == "out" for s in stmts)
    assert "shfl_down(" in format_module(type("M", (), {"kernels": [k]}))
    tree = kernel(SAMPLES / "cuda/reduce_shared_tree.cu", "reduce_sum")
    assert any(isinstance(s, While) for s in walk_stmts(tree.body))  # for (s = ...; s >>= 1)


def test_two_dimensional_shared_tiles_flatten_row_major():
    from porter.ir.nodes import Alloc

    k = kernel(SAMPLES / "cuda/transpose_padded.cu", "transpose_padded")
    tile = next(s for s in walk_stmts(k.body) if isinstance(s, Alloc))
    assert tile.shape == (32, 33) and tile.size == 32 * 33


def test_no_launch_site_infers_grid_from_guard(tmp_path):
    f = tmp_path / "k.cu"
    f.write_text("__global__ void scale(float* v, int count, float s) {\n"
                 "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                 "  if (i < count) v[i] *= s;\n}\n")
    k = convert_cuda(str(f)).kernels[0]
    assert k.launch.origin == "inferred" and k.launch.block == (256,)
    assert format_expr(k.launch.grid[0]) == "ceildiv(count, 256)"
    assert k.param("v").access == "rw" and format_expr(k.param("v").extent) == "count"


def test_given_block_and_grid(tmp_path):
    f = tmp_path / "k.cu"
    f.write_text("__global__ void fill(float* v) { v[blockIdx.x * blockDim.x + threadIdx.x] = 1.0f; }\n")
    k = convert_cuda(str(f), block=(128,), grid=(4,)).kernels[0]
    assert k.launch.origin == "given" and k.launch.block == (128,)
    assert format_expr(k.param("v").extent) == "512"


def _parse_facts(parsed):
    from porter.frontends.cuda.units import user_top_level

    # expansions of the shim's own macros (__global__) are not recorded from a precompiled shim;
    # nothing reads them
    names = [c.spelling for c in user_top_level(parsed.tu) if c.kind.name != "MACRO_INSTANTIATION"]
    errors = [(e.diagnostic.loc.line, e.diagnostic.message) for e in parsed.errors]
    return names, errors


def test_precompiled_shim_parses_as_the_text_shim_does(tmp_path, monkeypatch):
    """The shim and its standard headers are read from a precompiled header: the same user
    declarations and errors as pre-including the text, and the header lands in the cache."""
    from porter.frontends.cuda import parse as ct

    monkeypatch.setenv("TILEPORT_CACHE_DIR", str(tmp_path / "cache"))
    f = tmp_path / "k.cu"
    f.write_text("#include <cmath>\nstruct P { float a; };\n__device__ float sq(float v) { return v * v; }\n"
                 "__global__ void k(float* x, int n) {\n  x[0] = sqrtf(sq(x[1])) + undeclared;\n}\n")
    with_pch = ct.parse(str(f))
    assert list((tmp_path / "cache" / "parse-pch").glob("shim-*.pch"))
    monkeypatch.setattr(ct, "shim_pch", lambda *a, **k: None)
    as_text = ct.parse(str(f))
    assert _parse_facts(with_pch) == _parse_facts(as_text)
    names, errors = _parse_facts(with_pch)
    assert names == ["cmath", "P", "sq", "k"] and [line for line, _ in errors] == [5]


def test_damaged_precompiled_shim_is_rebuilt_not_trusted(tmp_path, monkeypatch):
    from porter.frontends.cuda import parse as ct

    monkeypatch.setenv("TILEPORT_CACHE_DIR", str(tmp_path / "cache"))
    f = tmp_path / "k.cu"
    f.write_text("__global__ void k(float* x) { x[0] = 1.0f; }\n")
    ct.parse(str(f))
    (pch,) = (tmp_path / "cache" / "parse-pch").glob("shim-*.pch")
    pch.write_bytes(b"not a precompiled header")
    parsed = ct.parse(str(f))
    assert _parse_facts(parsed) == (["k"], [])  # and no error about the damaged file
    assert not pch.exists() or pch.read_bytes() != b"not a precompiled header"


def test_launch_through_a_function_pointer_is_each_assigned_kernels():
    k = kernel(ROOT / "tests/fresh/cuda_thread/transpose_fnptr_launch.cu", "transposeTiled")
    assert k.launch.origin == "launch-site" and k.launch.block == (16, 4)
    assert [format_expr(g) for g in k.launch.grid] == ["(width / 16)", "(height / 16)"]
    assert kernel(ROOT / "tests/fresh/cuda_thread/transpose_fnptr_launch.cu", "copyTiled").launch.block == (16, 4)


def test_no_launch_site_block_from_a_shared_tile_stored_per_thread():
    path = ROOT / "tests/fresh/cuda_thread/matmul_driver_api_tiles.cu"
    assert kernel(path, "matmul_bs8").launch.block == (8, 8)
    assert kernel(path, "matmul_bs32").launch.block == (32, 32)


def test_grid_written_through_its_address_is_the_callers(tmp_path):
    # cuda-samples simpleIPC: `int blocks = 0;` is filled by the occupancy query, not 0
    f = tmp_path / "k.cu"
    f.write_text("__global__ void fill(char* p, int sz, char v) {\n"
                 "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < sz; i += gridDim.x * blockDim.x)"
                 " p[i] = v;\n}\n"
                 "int query(int *b);\n"
                 "void run(char *p) { int blocks = 0; query(&blocks);\n"
                 "  fill<<<blocks, 512>>>(p, 1000, 3); }\n")
    k = convert_cuda(str(f)).kernels[0]
    assert k.launch.block == (512,)
    assert [format_expr(g) for g in k.launch.grid] != ["0"]


def test_no_launch_site_block_from_a_constant_table_read_per_thread(tmp_path):
    # dct8x8_kernel_quantization.cuh alone: `Q[threadIdx.y * 8 + threadIdx.x]` over Q[64] is an
    # 8 x 8 block (16 x 16 read past the table: a SIGFPE on its zeros)
    f = tmp_path / "q.cuh"
    f.write_text("__constant__ float Q[64];\n"
                 "__global__ void quant(float *v, int stride) {\n"
                 "  int x = blockIdx.x * 8 + threadIdx.x, y = blockIdx.y * 8 + threadIdx.y;\n"
                 "  v[y * stride + x] = roundf(v[y * stride + x] / Q[threadIdx.y * 8 + threadIdx.x]);\n}\n")
    assert convert_cuda(str(f)).kernels[0].launch.block == (8, 8)


def test_dim3_fields_given_after_declaration_and_a_signed_step_back_from_an_unsigned_offset():
    # eigenvalues bisect_large: `dim3 threads_onei; threads_onei.x = MAX_THREADS_BLOCK;` was
    # block (1,), and `g_s + i + threadIdx.x - 1` added 4294967295 as uint32 (TVM: 0u - 1u)
    k = kernel(ROOT / "tests/fresh/cuda_thread/unsigned_prev_element.cu", "prev_products")
    assert k.launch.block == (64,) and [format_expr(g) for g in k.launch.grid] == ["2"]
    assert "4294967295" not in format_module(type("M", (), {"kernels": [k]}))


def test_a_guard_against_a_loop_changed_value_sizes_no_grid(tmp_path):
    # shfl_integral_image.cuh alone: `for (int i = 1; i <= 8; i *= 2) if (lane_id >= i) ...`
    # made the grid ceildiv(i, 16) over the loop's counter (TP431 "cannot evaluate ... (i)")
    f = tmp_path / "k.cu"
    f.write_text("__global__ void steps(float *v, int width) {\n"
                 "  int tidx = blockIdx.x * blockDim.x + threadIdx.x;\n"
                 "  unsigned int lane = tidx % 8;\n  float s = v[tidx];\n"
                 "  for (int i = 1; i <= 8; i *= 2) { if (lane >= i) s += 1.0f; }\n"
                 "  v[tidx] = s;\n}\n")
    k = convert_cuda(str(f)).kernels[0]
    assert all("i" not in {v.name for v in walk_expr(g) if hasattr(v, "name")} for g in k.launch.grid)


def test_a_global_cut_from_the_emulator_build_takes_its_initializer_along(tmp_path):
    # imageDenoising's `cudaChannelFormatDesc uchar4tex = cudaCreateChannelDesc<uchar4>();`: a cut
    # of the declaration alone left `= cudaCreateChannelDesc<uchar4>();`, which the emulator refused
    src = tmp_path / "g.cu"
    src.write_text("cudaTextureObject_t texImage;\n"
                   "cudaChannelFormatDesc uchar4tex = cudaCreateChannelDesc<uchar4>();\n"
                   "__global__ void k(float *x, int n) { if (threadIdx.x < n) x[threadIdx.x] *= 2.0f; }\n")
    module = convert_cuda(str(src))
    text = module.emulator_source or src.read_text()
    assert not any(line.lstrip().startswith("=") for line in text.splitlines())
    assert text.count("\n") == src.read_text().count("\n")  # lines kept for the emulator's messages
