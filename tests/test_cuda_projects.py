"""CUDA as projects publish it (issue 38): template kernels instantiated as the project names
them (or with chosen values), kernels in headers, torch extensions, CUDA's launch convention
on the port, namespace-scope variables, vector-typed buffers and plain C++ the front end takes.
Each sample here is also verified end to end by test_verify.py's fresh samples."""

from __future__ import annotations


import numpy as np
import pytest
import torch

from porter.frontends.cuda import convert_cuda
from porter.frontends.cuda import parse as ct
from porter.frontends.cuda.templates import find_instantiations, kernel_templates
from porter.frontends.cuda.units import is_user_cursor
from porter.ir.nodes import BufferParam, Const, Decl, For, If, Store, While
from porter.ir.printer import format_expr
from porter.ir.walk import walk_stmts
from porter.pipeline import print_port, raise_to_tiles
from tests.conftest import ROOT, load_cuda_port

THREAD = ROOT / "tests" / "fresh" / "cuda_thread"


def instances(path):
    parsed = ct.parse(str(path), [], [])
    K = ct.cindex().CursorKind
    found = find_instantiations(parsed.tu, K, kernel_templates(parsed.tu, K, is_user_cursor))
    return {(i.name, tuple(i.args)): i for i in found}


def test_template_instances_come_from_a_dispatch_switch_in_a_host_template():
    found = instances(THREAD / "header_dispatch" / "runner.cu")
    sums = {args for name, args in found if name == "partial_sums"}
    # `partial_sums<T, 256/128/64>` in `launch_partial_sums<T>`, T from its explicit instantiations;
    # four instances at most, covering both types and every block size
    assert len(sums) == 4 and {a[0] for a in sums} == {"float", "int"}
    assert {a[1] for a in sums} == {"256", "128", "64"}
    assert all(found[("partial_sums", a)].block == (int(a[1]),) for a in sums)  # the launch's block
    assert found[("row_max", ("float",))].origin == "launch"


def test_a_template_nothing_instantiates_gets_chosen_values_that_the_port_states():
    module = convert_cuda(str(THREAD / "library" / "row_ops.cuh"))
    (block_max,) = [k for k in module.kernels if k.name == "block_max"]
    assert block_max.template_args == "<256, float>"  # the value default, the type's default
    assert "chosen by tileport" in block_max.note
    assert "chosen by tileport" in print_port(raise_to_tiles(module), "row_ops.cuh")


def test_a_kernel_launched_in_a_torch_dispatch_macro_takes_each_type_of_the_macro():
    found = instances(THREAD / "torch_extension" / "fused_bias_gelu_ext.cu")
    assert {a for name, a in found if name == "bias_gelu_kernel"} == {("float",), ("double",), ("__half",)}


def _port_module(tmp_path, source):
    return load_cuda_port(source, tmp_path)


def test_the_port_takes_cudas_launch_convention(tmp_path):
    port = _port_module(tmp_path, THREAD / "library" / "row_ops.cuh")
    calls = []
    launcher = port._CudaKernel(lambda *a, **kw: calls.append((a, kw)), block=(256, 1, 1), shared_bytes=0,
                                axes={"grid_y": 1})
    launcher[(4, 7), 256]("x", "y")
    assert calls[-1] == (("x", "y"), {"grid_y": 7})  # the caller's grid axis reaches the program

    class Dim3:
        x, y, z = 4, 9, 1

    launcher[Dim3(), (256,), 0, None]("x")
    assert calls[-1][1] == {"grid_y": 9}
    with pytest.raises(ValueError, match="blocks of"):
        launcher[(4, 7), 128]("x", "y")  # the port is made for one block size
    assert launcher[(0, 7), 256]("x") is None and len(calls) == 2  # an empty grid runs nothing
    # the generated launcher wraps the module's run function with the port's own launch
    assert port.axpy_rows._block == (256, 1, 1) and port.axpy_rows._axes == {"grid_y": 1}


def test_constant_and_device_variables_are_buffer_parameters_named_after_them():
    module = convert_cuda(str(THREAD / "constant_memory.cu"))
    remap = next(k for k in module.kernels if k.name == "remap_count")
    symbols = {p.name: (p.symbol, p.symbol_count) for p in remap.params if isinstance(p, BufferParam) and p.symbol}
    assert symbols == {"c_remap": ("c_remap", 16), "d_hits": ("d_hits", 1)}
    assert remap.param("d_hits").written


def test_vector_element_buffers_are_flat_component_buffers():
    module = convert_cuda(str(THREAD / "vector_element_buffers.cu"))
    points = next(k for k in module.kernels if k.name == "scale_points")
    assert points.param("in").dtype == "float32" and points.param("out").written
    gray = next(k for k in module.kernels if k.name == "rgba_to_gray")
    assert gray.param("img").dtype == "uint8"


def test_comma_loops_count_over_the_first_variable_and_returns_in_loops_break_out():
    module = convert_cuda(str(THREAD / "cpp_constructs.cu"))
    first = next(k for k in module.kernels if k.name == "first_match")
    flags = [s for s in walk_stmts(first.body) if isinstance(s, Decl) and s.var.name.startswith("returned")]
    assert len(flags) >= 2  # the kernel's own loop and the inlined function's nested loops
    # what follows a loop that returned runs only while its flag is clear
    guards = [format_expr(s.cond) for s in walk_stmts(first.body) if isinstance(s, If)]
    assert any(g.startswith("(returned") and "== 0" in g for g in guards), guards
    # `lerp3(t, lerp3(...), lerp3(...))`: the inner calls are the caller's arguments, not recursion
    assert "nested_lerp" in {k.name for k in module.kernels} and not module.failures


def test_matrixmul_style_loop_over_two_pointers_is_a_counted_loop(tmp_path):
    src = tmp_path / "mm.cu"
    src.write_text("""
#define BS 16
__global__ void mm(float *C, const float *A, const float *B, int wA, int wB) {
    int aBegin = wA * BS * blockIdx.y, aEnd = aBegin + wA - 1, aStep = BS;
    int bBegin = BS * blockIdx.x, bStep = BS * wB;
    float Csub = 0;
    for (int a = aBegin, b = bBegin; a <= aEnd; a += aStep, b += bStep) {
        __shared__ float As[BS][BS];
        __shared__ float Bs[BS][BS];
        As[threadIdx.y][threadIdx.x] = A[a + wA * threadIdx.y + threadIdx.x];
        Bs[threadIdx.y][threadIdx.x] = B[b + wB * threadIdx.y + threadIdx.x];
        __syncthreads();
        for (int k = 0; k < BS; ++k) Csub += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    C[wB * BS * blockIdx.y + BS * blockIdx.x + wB * threadIdx.y + threadIdx.x] = Csub;
}
""")
    (k,) = convert_cuda(str(src)).kernels
    loops = [s for s in walk_stmts(k.body) if isinstance(s, For) and s.var.name == "a"]
    assert len(loops) == 1 and not any(isinstance(s, While) for s in walk_stmts(k.body))
    # b follows a's trip count, declared once per trip (so buffer extents can bound it)
    (b,) = [s for s in loops[0].body if isinstance(s, Decl) and s.var.name == "b"]
    assert "aStep" in format_expr(b.init) and k.param("B").extent is not None


def test_buffers_of_uniform_structs_are_flat_buffers_a_struct_every_stride():
    module = convert_cuda(str(THREAD / "struct_element_buffers.cu"))
    copy = next(k for k in module.kernels if k.template_args == "<RGBA32>")
    assert copy.param("d_idata").dtype == "uint32"
    # `d_odata[i] = d_idata[i]`: four stores of four loads, 4 elements apart
    assert format_expr(copy.param("d_odata").extent) == "(4 * n)"


def test_half2_views_and_128_bit_packs_are_the_same_bits_as_elements():
    module = convert_cuda(str(THREAD / "half2_and_packs.cu"))
    assert {k.name for k in module.kernels} == {"h2_axpy", "h2_dot", "add_pack8"} and not module.failures
    pack = next(k for k in module.kernels if k.name == "add_pack8")
    # LDST128BITS(pa[0]) = LDST128BITS(a[idx]): eight half loads into the local array, not a
    # float4 value
    stores = [s for s in walk_stmts(pack.body) if isinstance(s, Store) and s.buffer == "pa"]
    assert len(stores) == 8 and pack.param("a").dtype == "float16"
    dot = next(k for k in module.kernels if k.name == "h2_dot")
    assert dot.param("a").dtype == "float16"  # a half2 buffer: halves, two a vector


def test_a_parse_error_inside_a_macro_use_in_a_kernel_fails_that_kernel(tmp_path):
    """A statement clang drops for an error inside a macro's expansion was once silently missing
    from the port: the macro use, not the kernel, owned the error."""
    src = tmp_path / "k.cu"
    src.write_text("#define AS4(v) (reinterpret_cast<float4 *>(&(v))[0])\n"
                   "__global__ void k(const float *a, float *b) {\n"
                   "    AS4(b[4 * threadIdx.x]) = AS4(a[4 * threadIdx.x]);\n}\n"
                   "__global__ void ok(float *b) { b[threadIdx.x] = 1.0f; }\n")
    module = convert_cuda(str(src))
    assert [k.name for k in module.kernels] == ["ok"]
    (failure,) = module.failures
    assert failure.name == "k" and failure.diagnostic.code == "TP101" and failure.diagnostic.loc.line == 3


@pytest.mark.slow
def test_host_code_of_a_header_on_the_include_path_costs_the_kernel_nothing(tmp_path):
    """A helper header found through -I (cuda-samples' Common/helper_cuda.h) whose host code
    this machine cannot compile (the driver API) is built from a cut copy, as the main file is."""
    import json
    import subprocess
    import sys

    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "helpers.h").write_text(
        "#pragma once\n#include <cuda.h>\n"
        "inline const char *driver_error(CUresult r) { const char *s; cuGetErrorNameFancy(r, &s); return s; }\n")
    (tmp_path / "src").mkdir()
    src = tmp_path / "src" / "scale.cu"
    src.write_text('#include "helpers.h"\n'
                   "__global__ void scale(float *x, float s, int n) {\n"
                   "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) x[i] *= s;\n}\n"
                   "int main() { float *x; scale<<<4, 128>>>(x, 2.0f, 500); }\n")
    port = tmp_path / "scale_tl.py"
    run = [sys.executable, "-m", "porter.cli"]
    converted = subprocess.run(run + ["convert", str(src), "-I", str(tmp_path / "inc"), "-o", str(port)],
                               capture_output=True, text=True, cwd=ROOT)
    assert converted.returncode == 0, converted.stderr
    checked = subprocess.run(run + ["verify", str(src), str(port), "-I", str(tmp_path / "inc"), "--no-compile-check",
                                    "--format", "json"], capture_output=True, text=True, cwd=ROOT)
    report = json.loads(checked.stdout)
    assert [k["verdict"] for k in report["kernels"]] == ["equivalent"], checked.stdout[-2000:] + checked.stderr


def test_an_index_read_from_shared_memory_is_no_buffers(tmp_path):
    """`cellEnd[sharedHash[t]] = i` (cuda-samples' particles): the index buffers verify bounds are
    the kernel's parameters; a shared array's name was looked up as one (KeyError, TP014)."""
    from porter.ir.extents import index_buffers

    src = tmp_path / "k.cu"
    src.write_text("__global__ void cells(const unsigned *hash, unsigned *cell_end, int n) {\n"
                   "    __shared__ unsigned s[129];\n    int i = blockIdx.x * 128 + threadIdx.x;\n"
                   "    if (i < n) s[threadIdx.x + 1] = hash[i];\n    __syncthreads();\n"
                   "    if (i < n) cell_end[s[threadIdx.x + 1]] = i;\n}\n")
    (k,) = convert_cuda(str(src)).kernels
    assert index_buffers(k) == set()  # s holds the index, and s is no parameter


def test_side_effects_in_operands_evaluated_only_sometimes_are_refused(tmp_path):
    """`i < n && (j = a[i]) > 3`: the assignment runs only when i < n, so it cannot run before
    the condition as a statement would; the kernel is refused at the assignment."""
    src = tmp_path / "k.cu"
    src.write_text("__global__ void k(int *a, int n) {\n"
                   "    int i = threadIdx.x, j = 0;\n    if (i < n && (j = a[i]) > 3) a[i] = j;\n}\n"
                   "__global__ void ok(int *a, int n) {\n"
                   "    int i = threadIdx.x, j = 0;\n    if (i < n) { j = a[i]; a[i] = j > 3 ? j : -j; }\n}\n")
    module = convert_cuda(str(src))
    assert [k.name for k in module.kernels] == ["ok"]
    (failure,) = module.failures
    assert failure.diagnostic.code == "TP132" and failure.diagnostic.loc.line == 3


def test_ports_of_operator_functions_param_free_kernels_and_endless_loops_are_python(tmp_path):
    """An inlined `operator*` named its locals `operator*_b` and a kernel without parameters
    printed `def _k(, *, target=None)`: neither port was Python (TP443). `while (1)` with a
    break printed `while True`, which TileLang 0.1.15 refuses."""
    import ast

    src = tmp_path / "k.cu"
    src.write_text("struct V { float x; };\n"
                   "__device__ V operator*(V a, float b) { V r; r.x = a.x * b; return r; }\n"
                   "__global__ void scale(float *x, float s) { V v; v.x = x[threadIdx.x]; "
                   "V w = v * s; x[threadIdx.x] = w.x; }\n"
                   "__global__ void nothing() {}\n"
                   "__global__ void spin(int *x, int n) { int i = 0;\n"
                   "    while (1) { if (i >= n) break; x[i] += 1; i++; }\n}\n")
    text = print_port(raise_to_tiles(convert_cuda(str(src))), str(src))
    ast.parse(text)
    assert "def _nothing(*, target=None):" in text
    assert "while True" not in text and "operator*" not in text.split('"""', 2)[2]


def test_an_index_local_given_a_new_value_is_a_new_local_and_both_buffers_get_extents(tmp_path):
    """NVIDIA's transposes reuse xIndex/yIndex for the output's coordinates: with one name the
    local had no single value, idata no extent, and verify's buffer was too small (SIGSEGV)."""
    src = tmp_path / "t.cu"
    src.write_text("#define TILE 32\n#define ROWS 8\n"
                   "__global__ void tr(float *odata, const float *idata, int width, int height) {\n"
                   "    __shared__ float tile[TILE][TILE + 1];\n"
                   "    int xIndex = blockIdx.x * TILE + threadIdx.x;\n"
                   "    int yIndex = blockIdx.y * TILE + threadIdx.y;\n"
                   "    int index_in = xIndex + yIndex * width;\n"
                   "    xIndex = blockIdx.y * TILE + threadIdx.x;\n"
                   "    yIndex = blockIdx.x * TILE + threadIdx.y;\n"
                   "    int index_out = xIndex + yIndex * height;\n"
                   "    for (int i = 0; i < TILE; i += ROWS) tile[threadIdx.y + i][threadIdx.x] = idata[index_in + i * width];\n"
                   "    __syncthreads();\n"
                   "    for (int i = 0; i < TILE; i += ROWS) odata[index_out + i * height] = tile[threadIdx.x][threadIdx.y + i];\n"
                   "}\n")
    (k,) = convert_cuda(str(src)).kernels
    assert k.param("idata").extent is not None and k.param("odata").extent is not None
    decls = [s.var.name for s in walk_stmts(k.body) if isinstance(s, Decl)]
    assert decls.count("xIndex") == 1 and any(n.startswith("xIndex_") for n in decls)


def test_a_header_is_parsed_in_its_includer_which_names_its_types_and_instances():
    from porter.diagnostics import TileportError
    from porter.reader import read_source

    header = THREAD / "includer_context" / "image_ops.cuh"
    with pytest.raises(TileportError) as alone:  # `Pixel` and `GAIN` exist only in the includer
        convert_cuda(str(header))
    assert {f.diagnostic.message for f in alone.value.failures} == {"C++ error: unknown type name 'Pixel'"}
    module = read_source(str(header))  # its includer is found in its folder
    assert module.context and module.context.endswith("app.cu")  # the program that launches, first by path
    assert {k.name + k.template_args for k in module.kernels} == {"scale_pixels", "blur_rows<2>"}
    blur = next(k for k in module.kernels if k.name == "blur_rows")
    assert blur.launch.block == (128,) and not blur.note  # the includer's launch, not chosen values
    assert all(k.loc.file.endswith("image_ops.cuh") for k in module.kernels)


def test_migrate_ports_a_header_once_and_its_includers_leave_its_kernels_to_it(tmp_path):
    import json
    import subprocess
    import sys

    report = tmp_path / "report.json"
    run = subprocess.run([sys.executable, "-m", "porter.cli", "analyze", str(THREAD / "includer_context"),
                          "--report", str(report)], capture_output=True, text=True, timeout=600)
    assert run.returncode in (0, 1), run.stderr
    files = {f["path"]: f for f in json.loads(report.read_text())["files"]}
    names = {path: sorted(k["name"] for k in f.get("kernels", [])) for path, f in files.items()}
    assert names["image_ops.cuh"] == ["blur_rows<2>", "scale_pixels"]
    for includer in ("app.cu", "batch_tool.cu"):  # the header's kernels are not ported a second time
        assert names[includer] == [] and files[includer]["status"] == "no-kernel"
        assert "image_ops.cuh" in files[includer]["diagnostics"][0]["message"]


def test_async_copies_are_the_copies_they_complete_and_their_waits_the_barriers_they_are():
    from porter.ir.nodes import Sync

    module = convert_cuda(str(THREAD / "async_copies.cu"))
    kernels = {k.name: k for k in module.kernels}
    assert set(kernels) == {"reverse_tiles", "neighbour_diff", "rotate_block", "scale_through_barrier"}
    stores = lambda k: [s for s in walk_stmts(k.body) if isinstance(s, Store) and s.buffer == "tile"]  # noqa: E731
    assert len(stores(kernels["reverse_tiles"])) == 4  # 16 bytes: four floats, one thread's chunk
    assert len(stores(kernels["scale_through_barrier"])) == 4  # through float4 views of both sides
    syncs = lambda k: [s for s in walk_stmts(k.body) if isinstance(s, Sync)]  # noqa: E731
    assert len(syncs(kernels["scale_through_barrier"])) == 2  # __syncthreads and arrive_and_wait
    loops = [s for s in walk_stmts(kernels["rotate_block"].body) if isinstance(s, For)]
    assert len(loops) == 1 and "threadIdx.x" in format_expr(loops[0].start)  # the group shares the copy
    assert syncs(kernels["rotate_block"])  # cg::wait(block): the copy is the group's


def test_a_block_scope_pipeline_is_refused_where_it_is_made(tmp_path):
    from porter.diagnostics import TileportError

    src = tmp_path / "roles.cu"
    src.write_text("#include <cuda/pipeline>\n#include <cooperative_groups.h>\n"
                   "__global__ void k(const float *a, float *b) {\n"
                   "    __shared__ float t[64];\n"
                   "    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;\n"
                   "    auto block = cooperative_groups::this_thread_block();\n"
                   "    auto pipe = cuda::make_pipeline(block, &state);\n"
                   "    pipe.producer_acquire();\n"
                   "    cuda::memcpy_async(block, t, a, sizeof(float) * 64, pipe);\n"
                   "    pipe.producer_commit();\n    pipe.consumer_wait();\n"
                   "    b[threadIdx.x] = t[63 - threadIdx.x];\n}\n")
    with pytest.raises(TileportError) as refused:
        convert_cuda(str(src))
    diagnostic = refused.value.diagnostic
    assert diagnostic.code == "TP151" and diagnostic.loc.line == 5 and "block-scope" in diagnostic.message


def test_device_code_is_read_for_a_device_architecture(tmp_path):
    # nvcc compiles a kernel's body under `#if __CUDA_ARCH__ >= 700` for the GPU; a host-only
    # parse would see an empty kernel (and verify would call an empty port equivalent)
    src = tmp_path / "arch.cu"
    src.write_text("__global__ void k(const float *a, float *b, int n) {\n#if __CUDA_ARCH__ >= 700\n"
                   "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) b[i] = 2.0f * a[i];\n"
                   "#endif\n}\n")
    (kernel,) = convert_cuda(str(src)).kernels
    assert any(isinstance(s, Store) for s in walk_stmts(kernel.body))


def test_a_vector_read_at_a_pitched_row_plus_an_offset_is_one_vector_of_the_buffer():
    # `*((const float2 *)((const char *)v + y * pitch) + x)`: the row in bytes, then x vectors along
    module = convert_cuda(str(THREAD / "pitched_rows.cu"))
    assert not module.failures
    field = next(k for k in module.kernels if k.name == "sample_field")
    assert field.param("v").dtype == "float32" and field.param("out").written


def test_shuffles_within_segments_keep_their_width(tmp_path):
    from porter.ir.nodes import Call
    from porter.ir.walk import walk_expr

    module = convert_cuda(str(THREAD / "segmented_shuffles.cu"))
    assert not module.failures and len(module.kernels) == 3

    def shuffles(kernel):
        return [e for s in walk_stmts(kernel.body) for field in ("init", "value", "cond") if getattr(s, field, None)
                is not None for e in walk_expr(getattr(s, field)) if isinstance(e, Call) and e.func.startswith("shfl")]
    kernels = {k.name: k for k in module.kernels}
    widths = {(c.func, format_expr(c.args[2])) for k in kernels.values() for c in shuffles(k)}
    # __shfl_up_sync(.., 8), __shfl_xor_sync(.., 4), __shfl_sync(.., 16), a thread_block_tile<8>
    assert widths == {("shfl_up", "8"), ("shfl_xor", "4"), ("shfl", "16"), ("shfl_down", "8")}
    src = tmp_path / "w.cu"
    src.write_text("__global__ void k(float *x, int w) {\n"  # a width the caller passes: converts
                   "    x[threadIdx.x] = __shfl_down_sync(0xffffffffu, x[threadIdx.x], 1, w);\n}\n"
                   "__global__ void bad(float *x) {\n"
                   "    x[threadIdx.x] = __shfl_down_sync(0xffffffffu, x[threadIdx.x], 1, 12);\n}\n")
    module = convert_cuda(str(src))
    assert [k.name for k in module.kernels] == ["k"]
    assert [(f.name, f.diagnostic.code, f.diagnostic.loc.line) for f in module.failures] == [("bad", "TP154", 5)]


def test_stores_through_wider_integer_views_are_the_elements_they_cover():
    module = convert_cuda(str(THREAD / "integer_views.cu"))
    assert not module.failures
    kernels = {k.name: k for k in module.kernels}
    stamped = [s.value.value for s in walk_stmts(kernels["stamp"].body) if isinstance(s, Store)]
    assert stamped == [0x01, -0x01, -0x80, 0x7F]  # 0x7f80ff01, little-endian, as signed chars
    cleared = [s for s in walk_stmts(kernels["byte_histogram"].body) if isinstance(s, Store) and s.buffer == "counts"
               and getattr(s.value, "value", None) == 0]
    assert len(cleared) == 4
    moved = [s for s in walk_stmts(kernels["swap_halves"].body) if isinstance(s, Store)]
    assert len(moved) == 4  # two ints each way: two shorts each
    # `counts[data[i]]`: a char index is promoted to int, as C does
    index = next(s.index for s in walk_stmts(kernels["byte_histogram"].body) if isinstance(s, Store)
                 and s.buffer == "counts" and getattr(s.value, "value", None) != 0)
    assert index.dtype == "int32"


def test_a_bool_parameter_is_a_tvmscript_bool():
    module = raise_to_tiles(convert_cuda(str(THREAD / "bool_params.cu")))
    port = print_port(module, "bool_params.cu")
    assert "relu: T.bool," in port and '"bool"' not in port.split("def clip_negative(")[1].split("):")[0]


def test_sm80_warp_reductions_are_butterflies_over_the_whole_warp(tmp_path):
    from porter.ir.nodes import Call
    from porter.ir.walk import walk_expr

    (kernel,) = convert_cuda(str(THREAD / "warp_reduce_intrinsics.cu")).kernels
    xors = [e for s in walk_stmts(kernel.body) if isinstance(s, Decl) and s.init is not None
            for e in walk_expr(s.init) if isinstance(e, Call) and e.func == "shfl_xor"]
    assert len(xors) == 15  # three reductions, five steps each
    src = tmp_path / "partial.cu"
    src.write_text("__global__ void k(int *x) {\n  unsigned m = __ballot_sync(0xffffffffu, threadIdx.x < 12);\n"
                   "  if (threadIdx.x < 12) x[threadIdx.x] = __reduce_add_sync(m, x[threadIdx.x]);\n}\n")
    from porter.diagnostics import TileportError

    with pytest.raises(TileportError) as refused:
        convert_cuda(str(src))
    assert refused.value.diagnostic.code == "TP151" and refused.value.diagnostic.loc.line == 3


def test_device_variables_a_kernel_changes_are_read_where_they_live():
    from porter.ir.nodes import Load
    from porter.ir.walk import walk_expr

    kernel = next(k for k in convert_cuda(str(THREAD / "device_counters.cu")).kernels if k.name == "count_negatives")
    flags = {p.name: p for p in kernel.params if isinstance(p, BufferParam) and p.symbol}
    assert set(flags) == {"negatives", "seen"} and flags["seen"].symbol_initial == 0
    reads = [e for s in walk_stmts(kernel.body) for f in ("cond", "value") if getattr(s, f, None) is not None
             for e in walk_expr(getattr(s, f)) if isinstance(e, Load) and e.buffer == "seen"]
    assert reads  # `!seen` reads the variable, not its initialiser 0
    assert any(isinstance(s, Store) and s.buffer == "seen" for s in walk_stmts(kernel.body))


def test_a_value_too_wide_for_a_char_parameter_wraps_as_c_converts_it():
    from porter.diagnostics import Loc
    from porter.ir.nodes import Kernel, Launch, ScalarParam
    from porter.verify.inputs import make_args

    kernel = Kernel("k", "cuda", [ScalarParam("size", "int8"), ScalarParam("n", "int32")], [],
                    Launch((Const(1, "int32"),), (32,)), Loc("k.cu", 1, 1))
    assert make_args(kernel, {"size": 1024 + 3, "n": 7}, {}, seed=0) == [3, 7]


def test_directed_rounding_has_no_tilelang_equivalent(tmp_path):
    from porter.diagnostics import TileportError

    src = tmp_path / "r.cu"
    src.write_text("__device__ float lo(float a, float b) { return __fdiv_rd(a, b); }\n"
                   "__global__ void k(float *x) { x[threadIdx.x] = lo(x[threadIdx.x], 3.0f); }\n")
    with pytest.raises(TileportError) as refused:
        convert_cuda(str(src))
    d = refused.value.diagnostic
    assert d.code == "TP156" and d.loc.line == 1 and "rounded down" in d.message


def test_a_thread_group_parameter_is_the_group_it_is_given():
    from porter.ir.nodes import Sync

    (kernel,) = convert_cuda(str(THREAD / "thread_group_params.cu")).kernels
    kinds = [s.kind for s in walk_stmts(kernel.body) if isinstance(s, Sync)]
    # group_sum(block, ...) syncs the block; group_sum(g = a tile of 16, ...) syncs the warp's tile
    assert "block" in kinds and "warp" in kinds


def test_shared_memory_of_a_vector_type_is_a_view_of_its_components():
    (kernel,) = convert_cuda(str(THREAD / "shared_memory_vectors.cu")).kernels
    stores = [s for s in walk_stmts(kernel.body) if isinstance(s, Store) and s.buffer != "out"]
    assert len(stores) == 4  # staged[threadIdx.x] = a float4: four float32 lanes of the storage


def test_an_includers_build_leaves_out_the_kernels_other_ports_hold(tmp_path):
    from porter.reader import read_source

    (tmp_path / "hard.cuh").write_text("__global__ void hard(float *x) { x[threadIdx.x] *= 2.0f; }\n")
    (tmp_path / "app.cu").write_text('#include "hard.cuh"\n'
                                     "__global__ void easy(float *y) { y[threadIdx.x] += 1.0f; }\n"
                                     "void run(float *x) { hard<<<1, 32>>>(x); easy<<<1, 32>>>(x); }\n")
    module = read_source(str(tmp_path / "app.cu"), context=None, foreign=(str(tmp_path / "hard.cuh"),))
    assert [k.name for k in module.kernels] == ["easy"]
    # the header's kernel is emptied in what the emulator builds for this file (its own port runs it)
    header = next(text for path, text in module.emulator_headers.items() if path.endswith("hard.cuh"))
    assert "*= 2.0f" not in header


def test_a_template_keeps_its_body_in_the_verify_build_while_an_instance_converted(tmp_path):
    src = tmp_path / "t.cu"
    src.write_text("template <class T> __device__ T warp_sum(unsigned m, T v) {\n"
                   "  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(m, v, o); return v; }\n"
                   "template <> __device__ int warp_sum<int>(unsigned m, int v) { return __reduce_add_sync(m, v); }\n"
                   "template <class T> __global__ void total(const T *x, T *out) {\n"
                   "  unsigned m = __ballot_sync(0xffffffffu, threadIdx.x < 16);\n"
                   "  if (threadIdx.x < 16) { T s = warp_sum<T>(m, x[threadIdx.x]); if (threadIdx.x == 0) *out = s; }\n}\n"
                   "void run(const float *a, float *b, const int *c, int *d) {\n"
                   "  total<float><<<1, 32>>>(a, b); total<int><<<1, 32>>>(c, d); }\n")
    module = convert_cuda(str(src))
    assert [k.name + k.template_args for k in module.kernels] == ["total<float>"]
    assert [f.diagnostic.code for f in module.failures] == ["TP151"]  # the int instance's partial-mask reduction
    built = module.emulator_source if module.emulator_source is not None else src.read_text()
    assert "*out = s" in built  # the float instance's original still runs


def test_a_buffer_read_only_as_other_elements_keeps_the_callers_tensor_type(tmp_path):
    # `(uchar4 *)rgba` of an `unsigned int *`: the port reads bytes, the caller still passes words
    port = _port_module(tmp_path, THREAD / "cast_only_buffers.cu")
    words = torch.tensor([0x00306090, 0x00FFFFFF, 0x12345678], dtype=torch.int32).view(torch.uint32)
    port.gray[1, 256](words, 3, target="c")
    def gray(w):
        r, g, b = w & 0xFF, w >> 8 & 0xFF, w >> 16 & 0xFF
        return int(np.float32(r) * np.float32(0.3) + np.float32(g) * np.float32(0.59) + np.float32(b) * np.float32(0.11))
    expected = [gray(w) * 0x010101 for w in (0x00306090, 0x00FFFFFF, 0x12345678)]
    assert [int(w) for w in words.view(torch.int32)] == expected


def test_loops_counted_in_floats_run_as_while_loops():
    # TIR takes only integer loop variables: `for (float i = -R; i <= R; i++)` was a T.serial
    # over floats that TileLang refused when the port ran
    module = convert_cuda(str(THREAD / "float_loop_counters.cu"))
    (kernel,) = module.kernels
    loops = [s for s in walk_stmts(kernel.body) if isinstance(s, (For, While))]
    assert loops and all(isinstance(s, While) for s in loops)
