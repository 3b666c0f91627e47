"""CUDA device intrinsics real code uses (issue 38): the integer intrinsics port with CUDA's exact
semantics; timers, textures, surfaces, cuRAND and the atomics TileLang lacks are refused at their
call with a coded diagnostic that names them (never a parse error or an unknown function); files
using them still build in the CPU emulator for their other kernels."""

from __future__ import annotations

import json
import random

import pytest

from porter.diagnostics import NoKernelConverted
from porter.frontends.cuda import convert_cuda
from porter.frontends.cuda import intrinsics
from porter.ir.fold import evaluate
from porter.ir.nodes import Atomic, BinOp, Builtin, Cast, Var
from porter.ir.printer import format_module
from porter.ir.walk import walk_stmts
from tests.conftest import ROOT

INTRINSICS = ROOT / "tests/intrinsics"


def _keep(value, name):
    return value  # materialize(): evaluation needs no local


# ----------------------------------------------------------------------------- integer intrinsics


def _mul24(a: int, b: int) -> int:
    """CUDA's __mul24: low 32 bits of the product of the sign-extended low 24 bits."""
    def low24(x):
        x &= 0xFFFFFF
        return x - (1 << 24) if x & 0x800000 else x
    p = (low24(a) * low24(b)) & 0xFFFFFFFF
    return p - (1 << 32) if p >= 1 << 31 else p


def _brev(x: int, bits: int) -> int:
    return int(format(x, f"0{bits}b")[::-1], 2)


def test_mul24_is_the_product_of_the_low_24_bits():
    rng = random.Random(38)
    a, b = Var("a", "int32"), Var("b", "int32")
    signed = intrinsics.mul24([a, b], "int32", _keep)
    unsigned = intrinsics.mul24([Var("a", "uint32"), Var("b", "uint32")], "uint32", _keep)
    for _ in range(2000):
        x, y = rng.randrange(-2**31, 2**31), rng.randrange(-2**31, 2**31)
        assert evaluate(signed, {"a": x, "b": y}) == _mul24(x, y), (x, y)
        ux, uy = x & 0xFFFFFFFF, y & 0xFFFFFFFF
        assert evaluate(unsigned, {"a": ux, "b": uy}) == ((ux & 0xFFFFFF) * (uy & 0xFFFFFF)) & 0xFFFFFFFF


def test_mul24_of_operands_cuda_bounds_to_24_bits_is_a_plain_product():
    # blockIdx.y < 65535, blockDim.x <= 1024: both fit, and so does their product
    plain = intrinsics.mul24([Builtin("block_idx", 1), Builtin("block_dim", 0)], "int32", _keep)
    assert plain == BinOp("*", Builtin("block_idx", 1), Builtin("block_dim", 0), "int32")
    # blockIdx.x reaches 2^31 - 2: its bits above 24 are dropped, as the hardware drops them
    masked = intrinsics.mul24([Builtin("block_idx", 0), Builtin("block_dim", 0)], "int32", _keep)
    assert isinstance(masked, Cast) and "16777215" in repr(masked)
    env = {"block_idx.0": 2**24 + 5, "block_dim.0": 256}
    assert evaluate(masked, env) == 5 * 256


def test_brev_reverses_32_and_64_bits():
    rng = random.Random(7)
    r32 = intrinsics.brev([Var("x", "uint32")], "uint32", _keep)
    r64 = intrinsics.brev([Var("x", "uint64")], "uint64", _keep)
    for _ in range(500):
        x, y = rng.getrandbits(32), rng.getrandbits(64)
        assert evaluate(r32, {"x": x}) == _brev(x, 32)
        assert evaluate(r64, {"x": y}) == _brev(y, 64)


def test_integer_intrinsics_convert_to_tilelang_operations():
    module = convert_cuda(str(INTRINSICS / "int_intrinsics.cu"))
    assert not module.failures
    text = format_module(module)
    assert "popcount(" in text and "clz(" in text
    for name in ("__popc", "__clz", "__ffs", "__brev", "__mul24", "__umul24", "umin", "llmax"):
        assert name not in text


@pytest.mark.slow
@pytest.mark.parametrize("rel", ["tests/intrinsics/int_intrinsics.cu", "tests/intrinsics/int_intrinsics_thread.cu"])
def test_integer_intrinsics_verify_against_the_emulated_original(rel, tmp_path):
    from tests.test_verify import assert_equivalent, convert_and_verify

    # tile level (TileLang's C target, gcc builtins for popcount/clz) and thread level (lowered
    # CUDA C in the emulator); the compile check builds both for sm_80 and sm_90a
    extra = [] if rel.endswith("_thread.cu") else ["--no-compile-check"]
    _, result = convert_and_verify(rel, tmp_path, *extra)
    assert_equivalent(result)


@pytest.mark.slow
def test_verify_catches_a_mul24_without_its_sign_extension(tmp_path):
    from tests.test_verify import convert_and_verify, tileport

    port, _ = convert_and_verify("tests/intrinsics/int_intrinsics.cu", tmp_path, "--no-compile-check",
                                 "--kernel", "mul24_ops")
    text = port.read_text()
    assert "^ 8388608) - 8388608" in text
    port.write_text(text.replace(" ^ 8388608) - 8388608", ")"))
    result = tileport("verify", "tests/intrinsics/int_intrinsics.cu", port, "--format", "json",
                      "--no-compile-check", "--kernel", "mul24_ops")
    assert result.returncode == 1
    report = json.loads(result.stdout)
    assert any(not b["ok"] for k in report["kernels"] for c in k["cases"] for b in c["buffers"]
               if b["buffer"] == "prod")


# ----------------------------------------------------------------------------- refused at the call


def _failures(tmp_path, body: str, prelude: str = "") -> dict:
    """name -> diagnostic of the kernels of a file that did not convert (a plain kernel converts)."""
    f = tmp_path / "k.cu"
    f.write_text(prelude + body + "\n__global__ void plain(float* o) { o[threadIdx.x] = 1.0f; }\n")
    try:
        module = convert_cuda(str(f))
    except NoKernelConverted as err:  # pragma: no cover - the plain kernel converts
        pytest.fail(f"nothing converted: {err.diagnostic.render()}")
    return {k.name: k.diagnostic for k in module.failures}


@pytest.mark.parametrize("body, named", [
    ("__global__ void k(float* x, long long* t) { clock_t s = clock(); x[0] = 1.0f; t[0] = clock() - s; }",
     "'clock()'"),
    ("__global__ void k(long long* t) { t[threadIdx.x] = clock64(); }", "'clock64()'"),
    ("__global__ void k(unsigned long long* t) { t[0] = __globaltimer(); }", "'__globaltimer()'"),
    # surface and texture objects the kernel reads from memory or decodes (bindless)
    ("__global__ void k(cudaSurfaceObject_t* s, float v) { surf2Dwrite(v, s[1], threadIdx.x * 4, 0); }",
     "'surf2Dwrite'"),
    ("__global__ void k(const cudaSurfaceObject_t* s, float* o) { o[threadIdx.x] = surf2Dread<float>(s[0], 4, 0); }",
     "'surf2Dread'"),
    ("__global__ void k(uint2* codes, float* o) {\n"
     "  cudaTextureObject_t t = ((cudaTextureObject_t)codes[0].y << 32) | codes[0].x;\n"
     "  o[0] = tex2D<float>(t, 0.5f, 0.5f);\n}", "'tex2D'"),
    ("__global__ void k(cudaTextureObject_t t, float* o) { o[threadIdx.x] = tex2DLayered<float>(t, 0.5f, 0.5f, 1); }",
     "'tex2DLayered'"),
    ("__global__ void k(cudaTextureObject_t t, float* o) { o[0] = texCubemap<float>(t, 0.f, 0.f, 1.f); }",
     "'texCubemap'"),
    ("__global__ void k(CUtexObject t, float* o) { float v; tex2DLod(&v, t, 0.5f, 0.5f, 0.0f); o[0] = v; }",
     "'tex2DLod'"),
    ("texture<float, 2, cudaReadModeElementType> ref;\n"
     "__global__ void k(float* o) { o[threadIdx.x] = tex2D(ref, 0.5f, 0.5f); }", "'tex2D'"),
    ("__global__ void k(int* x) { atomicInc((unsigned int*)x, 17u); }", "'atomicInc'"),
    ("__global__ void k(int* x) { atomicAnd_system(x, 6); }", "'atomicAnd_system'"),
    ("__global__ void k(float* x) { x[0] = 1.0f; __threadfence(); x[1] = 2.0f; }", "'__threadfence()'"),
    ("#include <curand_kernel.h>\n"
     "__global__ void k(float* o) { o[threadIdx.x] = curand_uniform((curandStatePhilox4_32_10_t*)0); }",
     "'curand_uniform'"),
    ("__global__ void k(char* p, cudaGraphConditionalHandle h) { cudaGraphSetConditional(h, *p); }",
     "'cudaGraphSetConditional'"),
    ("__global__ void k(float* x) { x[0] = 1.0f; cudaDeviceSynchronize(); }", "'cudaDeviceSynchronize'"),
    ("__global__ void k(int* x) { x[0] = (int)cudaGetLastError(); }", "'cudaGetLastError'"),
])
def test_construct_without_tilelang_equivalent_is_named_at_its_call(tmp_path, body, named):
    failures = _failures(tmp_path, body)
    d = failures["k"]
    assert d.code == "TP156", d.render()
    assert named in d.message and "no TileLang equivalent" in d.message


def test_curand_state_is_refused_not_a_parse_error(tmp_path):
    failures = _failures(tmp_path, "__global__ void k(curandState* s, unsigned long long seed) {\n"
                                   "  int id = threadIdx.x;\n  curand_init(seed, id, 0, &s[id]);\n}\n",
                         prelude="#include <curand_kernel.h>\n")
    d = failures["k"]
    assert d.code == "TP156" and "curandState" in d.message, d.render()


def test_curand_state_types_have_no_tilelang_equivalent(tmp_path):
    from porter.frontends.cuda import parse as ct
    from porter.frontends.cuda.types import no_tilelang_equivalent_type

    f = tmp_path / "k.cu"
    f.write_text("#include <curand_kernel.h>\n__global__ void k(curandState* a, const curandStatePhilox4_32_10_t* b, "
                 "float* c) {}\n")
    parsed = ct.parse(str(f))
    kernel = next(c for c in parsed.tu.cursor.get_children() if c.spelling == "k")
    a, b, c = (p.type.get_pointee() for p in kernel.get_arguments())
    assert "curandState" in no_tilelang_equivalent_type(a) and "cuRAND" in no_tilelang_equivalent_type(b)
    assert no_tilelang_equivalent_type(c) is None


def test_device_declarations_real_files_use_parse(tmp_path):
    """cuFFT's types, device placement new, __grid_constant__, cudaStreamNonBlocking: once parse
    errors (TP101) of the kernels that use them."""
    f = tmp_path / "k.cu"
    f.write_text("#include <cufftXt.h>\n#include <new>\n"
                 "__global__ void scale(cufftComplex* a, float s, int n) {\n"
                 "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                 "  if (i < n) { a[i].x *= s; a[i].y *= s; }\n}\n"
                 "struct P { int n; };\n"
                 "__global__ void param(__grid_constant__ const P p, float* o) { o[threadIdx.x] = p.n; }\n"
                 "__global__ void placed(float* o) { float* q = new (o) float(2.0f); q[0] += 1.0f; }\n"
                 "__global__ void stream(float* o) { cudaStream_t s; cudaStreamCreateWithFlags(&s, "
                 "cudaStreamNonBlocking); o[0] = 1.0f; }\n")
    try:
        module = convert_cuda(str(f))
        failures = {k.name: k.diagnostic for k in module.failures}
        converted = [k.name for k in module.kernels]
    except NoKernelConverted as err:
        failures, converted = {k.name: k.diagnostic for k in err.failures}, []
    assert "scale" in converted and "param" in converted
    assert all(d.code != "TP101" for d in failures.values()), {n: d.render() for n, d in failures.items()}


# ----------------------------------------------------------------------------- atomics


def test_exchange_or_and_scoped_atomics_port_to_tilelang_atomics(tmp_path):
    f = tmp_path / "k.cu"
    f.write_text("__global__ void k(const int* in, int* flags, float* vals, unsigned* mask, int* total, int n) {\n"
                 "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i >= n) return;\n"
                 "  atomicExch(&vals[i], 0.5f * in[i]);\n  atomicExch_system(&flags[in[i] & 7], 1);\n"
                 "  atomicAdd_system(total, in[i]);\n  atomicMax_block(&flags[8], in[i]);\n"
                 "  atomicOr(&mask[in[i] & 3], 1u << (in[i] & 31));\n  atomicSub_block(total, 1);\n}\n")
    k = convert_cuda(str(f)).kernels[0]
    ops = [(s.op, s.buffer) for s in walk_stmts(k.body) if isinstance(s, Atomic)]
    assert ops == [("store", "vals"), ("store", "flags"), ("add", "total"), ("max", "flags"), ("or", "mask"),
                   ("add", "total")]


@pytest.mark.slow
def test_exchange_and_or_atomics_verify(tmp_path):
    from tests.test_verify import assert_equivalent, convert_and_verify

    _, result = convert_and_verify("tests/intrinsics/atomics_exch_or.cu", tmp_path)
    assert_equivalent(result)


# ----------------------------------------------------------------------------- the emulator


@pytest.mark.slow
def test_files_with_textures_surfaces_and_curand_build_for_their_other_kernels(tmp_path):
    """The emulator declares the texture, surface and cuRAND device APIs (a layered fetch and
    cuRAND calls stop the launch): before, `cudaTextureObject_t` alone made every kernel of such
    a file could-not-run (TP410). A surface object's writes port (textures.py)."""
    from tests.test_verify import assert_equivalent, tileport

    rel, port = "tests/intrinsics/texture_neighbours.cu", tmp_path / "texture_neighbours_tl.py"
    converted = tileport("convert", rel, "-o", port)
    assert converted.returncode == 1 and port.exists()  # two kernels refused, three ported
    for name in ("'tex2DLayered'", "'curandState'"):
        assert name in converted.stderr
    result = tileport("verify", rel, port, "--format", "json", "--no-compile-check")
    report = assert_equivalent(result)
    assert sorted(k["kernel"] for k in report["kernels"]) == ["scale", "scale_spectrum", "store"]


# ----------------------------------------------------------------------------- found before converting

_CHILD = "__global__ void child(float* x) { x[threadIdx.x] += 1.0f; }\n"


@pytest.mark.parametrize("body, line, named", [
    # dynamic parallelism: a launch in a kernel, in a device function, of a template, with a stream
    (_CHILD + "__global__ void k(float* x) {\n  child<<<1, 32>>>(x);\n}", 3, "'child<<<...>>>'"),
    (_CHILD + "__device__ void spawn(float* x, int n) {\n  if (n > 0) child<<<n, 2, 0>>>(x);\n}\n"
     "__global__ void k(float* x) { spawn(x, 4); }", 3, "dynamic parallelism"),
    ("template <int N> __global__ void t(float* x) { x[0] = N; }\n"
     "__global__ void k(float* x) {\n  cudaStream_t s;\n  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);\n"
     "  t<4><<<1, 1, 0, s>>>(x);\n}\nvoid host(float* x) { t<2><<<1, 1>>>(x); }", 5, "'t<<<...>>>'"),
    ("__global__ void k(float* x, int depth) {\n  if (depth < 3) k<<<2, 2>>>(x, depth + 1);\n  x[0] = 1.0f;\n}",
     2, "'k<<<...>>>'"),
    # the device heap
    ("__global__ void k(float* o) {\n  int* p = new int[4];\n  p[0] = 1; o[0] = p[0];\n}", 2, "'new'"),
    ("__global__ void k(int** o) {\n  delete[] *o;\n}", 2, "'delete'"),
    ("__global__ void k(float* o) {\n  float* q = (float*)malloc(16);\n  q[0] = 1.0f; o[0] = q[0]; free(q);\n}",
     2, "'malloc'"),
    ("__global__ void k(float* o) {\n  float* q = new (o) float(2.0f);\n  q[0] += 1.0f;\n}", 2, "'new'"),
    ("struct Shape { __device__ virtual float area() const = 0; };\n"
     "__global__ void k(Shape** s, float* o) {\n  o[threadIdx.x] = (*s)->area();\n}", 3, "virtual call 'area'"),
    # calls through function pointers
    ("typedef float (*op_t)(float);\n__global__ void k(float* x, op_t op) {\n  x[0] = op(x[0]);\n}", 2,
     "function pointer"),
    ("__device__ float sq(float v) { return v * v; }\n__device__ float (*table[])(float) = {sq};\n"
     "__global__ void k(float* x, int i) {\n  x[0] = (*table[i])(x[0]);\n}", 4, "function pointer"),
    # cuRAND, however spelled
    ("#include <curand_kernel.h>\ntypedef curandStatePhilox4_32_10_t rng_t;\n"
     "__global__ void k(rng_t* s, float* o) {\n  o[0] = 1.0f;\n}", 3, "curandStatePhilox4_32_10"),
    ("#include <curand_kernel.h>\ntemplate <typename S> __global__ void k(S* s, float* o) {\n"
     "  o[threadIdx.x] = curand_uniform(&s[threadIdx.x]);\n}\ntemplate __global__ void k<curandState>(curandState*, float*);",
     2, "'S' = 'curandStateXORWOW'"),
    ("__global__ void k(unsigned long long seed, float* o) {\n  curandState st;\n  curand_init(seed, 0, 0, &st);\n"
     "  o[0] = curand_uniform(&st);\n}", 2, "'curandState'"),  # no #include: undeclared names
    # cooperative groups TileLang cannot express
    ("#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
     "__global__ void k(float* x) {\n  cg::grid_group g = cg::this_grid();\n  x[0] = 1.0f;\n  g.sync();\n}", 4,
     "grid-wide"),
    ("#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
     "__global__ void k(float* x) {\n  if (x[threadIdx.x] > 0) {\n    cg::coalesced_group a = cg::coalesced_threads();\n"
     "    x[threadIdx.x] = a.thread_rank();\n  }\n}", 5, "coalesced"),
])
def test_construct_without_tilelang_equivalent_is_named_before_anything_else(tmp_path, body, line, named):
    """The construct is the diagnostic, at its line: not a parse error (device launches of a
    template, undeclared cuRAND names), an unsupported parameter type (Shape **, op_t) or a
    refusal of something that only serves it (cudaStreamCreateWithFlags for the launch)."""
    failures = _failures(tmp_path, body)
    d = failures["k"] if "k" in failures else next(v for n, v in failures.items() if n.startswith("k"))
    assert d.code == "TP156", d.render()
    assert named in d.message and "no TileLang equivalent" in d.message, d.render()
    assert d.loc.line == line, d.render()


def test_a_kernel_that_launches_nothing_still_converts(tmp_path):
    """Names that only look like the constructs are not them: a user's `free`, `newest`, a
    deleted member and a template's function parameter."""
    failures = _failures(tmp_path, "struct NoCopy { NoCopy(const NoCopy&) = delete; };\n"
                                   "__device__ float free(float v) { return v + 1.0f; }\n"
                                   "__device__ float neg(float v) { return -v; }\n"
                                   "template <float (*F)(float)> __device__ float apply(float v) { return F(v); }\n"
                                   "__global__ void k(float* x, int newest) {\n"
                                   "  x[threadIdx.x] = free(x[threadIdx.x]) + apply<neg>(newest);\n}\n")
    assert "k" not in failures, failures["k"].render()


def test_frexp_is_cs_frexp(monkeypatch):
    """frexp's IR, evaluated, gives C's mantissa and exponent: normal, subnormal, powers of two
    and the floats just below them (where log2 rounds up), zero, infinities, NaN."""
    import math
    import struct

    from porter.ir import fold

    monkeypatch.setitem(fold._CALLS, "log2", math.log2)  # what T.log2 / T.exp2 compute
    monkeypatch.setitem(fold._CALLS, "exp2", lambda v: 2.0 ** v)
    mantissa, exponent = intrinsics.frexp(Var("x", "float32"), "float32", _keep)

    def f32(v):
        return struct.unpack("f", struct.pack("f", v))[0]

    rng = random.Random(5)
    values = [0.0, -0.0, 1.0, 0.5, -3.0, 2.0 ** -149, 2.0 ** -126, 2.0 ** 127, 16777215.0, 3.4028234663852886e38]
    values += [f32(rng.uniform(-1, 1) * 2.0 ** rng.randint(-149, 127)) for _ in range(2000)]
    values += [f32(2.0 ** k * (1 - 2 ** -24)) for k in range(-120, 120)]
    for v in values:
        assert (evaluate(mantissa, {"x": v}), evaluate(exponent, {"x": v})) == math.frexp(v), v
    for v in (math.inf, -math.inf):
        assert (evaluate(mantissa, {"x": v}), evaluate(exponent, {"x": v})) == (v, 0)
    assert math.isnan(evaluate(mantissa, {"x": math.nan}))


def test_frexp_writes_its_exponent_through_the_pointer(tmp_path):
    """`frexp((float)n, &e)` as a statement (its result unused), `frexpf(v, &e)` for its
    mantissa, `frexp(v, &p[i])` into a buffer, and ldexp: once parse errors and TP118."""
    f = tmp_path / "k.cu"
    f.write_text("__device__ int ceilPow2(int n) { int e; frexp((float)n, &e); return 1 << e; }\n"
                 "__global__ void k(const float* x, float* m, int* e, int* p, float* l, int n) {\n"
                 "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i >= n) return;\n"
                 "  int ex;\n  m[i] = frexpf(x[i], &ex);\n  e[i] = ex + ceilPow2(i + 3);\n"
                 "  l[i] = ldexpf(frexp(x[i], &p[i]), ex) + ldexp(x[i], -3);\n}\n")
    k = convert_cuda(str(f)).kernels[0]
    text = format_module(convert_cuda(str(f)))
    assert "log2" in text and "exp2" in text
    assert {s.buffer for s in walk_stmts(k.body) if type(s).__name__ == "Store"} == {"m", "e", "p", "l"}


def test_helper_math_make_float4_overloads_inline(tmp_path):
    """helper_math.h's `make_float4(s)` (one value in every component) is the user's function:
    it was read as CUDA's four-argument one, declared only `.x` and crashed the emitter
    (KeyError 'v_y', TP014: cuda-samples recursiveGaussian)."""
    from porter.pipeline import print_port

    f = tmp_path / "k.cu"
    f.write_text("inline __host__ __device__ float4 make_float4(float s) { return make_float4(s, s, s, s); }\n"
                 "__global__ void k(float4* o, float a, int n) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                 "  if (i >= n) return;\n  float4 v = make_float4(0.0f);\n  float4 w = make_float4(a);\n"
                 "  v.y = w.y + w.z;\n  o[i] = v;\n}\n")
    module = convert_cuda(str(f))
    text = print_port(module, str(f))
    assert "v_y" in text and "v_w" in text


def test_tiled_partition_with_a_size_argument_is_a_tile(tmp_path):
    """`thread_group t = tiled_partition(block, 16)` (once a parse error) is a tile of 16, also
    inside a function taking a thread_group; binary_partition has no TileLang equivalent."""
    f = tmp_path / "k.cu"
    f.write_text("#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
                 "__device__ int rank_of(cg::thread_group g) { return g.thread_rank(); }\n"
                 "__global__ void k(int* o) {\n  cg::thread_block b = cg::this_thread_block();\n"
                 "  cg::thread_group t = cg::tiled_partition(b, 16);\n"
                 "  o[blockIdx.x * blockDim.x + threadIdx.x] = rank_of(t) + 100 * rank_of(b);\n}\n"
                 "__global__ void bin(int* o) {\n  cg::thread_block_tile<32> w = cg::tiled_partition<32>(cg::this_thread_block());\n"
                 "  auto half = cg::binary_partition(w, o[threadIdx.x] > 0);\n  o[threadIdx.x] = half.thread_rank();\n}\n")
    module = convert_cuda(str(f))
    text = format_module(module)
    assert "% 16" in text and "100 * threadIdx.x" in text.replace("(", "").replace(")", ""), text
    (failure,) = module.failures
    assert failure.diagnostic.code == "TP156" and "binary_partition" in failure.diagnostic.message
