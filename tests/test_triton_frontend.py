"""Tests for porter.frontends.triton: Triton source (read with `ast`, never run) -> IR."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from porter.diagnostics import TileportError
from porter.generic.constexprs import find_generic
from porter.frontends.triton import convert_triton
from porter.ir.nodes import (
    Assign, Atomic, BinOp, For, While, Builtin, BufferParam, Call, Cast, Decl, If, Load, ScalarParam, Select, Store, Var,
)
from porter.ir.printer import format_expr, format_module
from porter.ir.tiles import Gemm, ParallelFor, Reduce, TileBuffer
from porter.ir.walk import all_exprs, walk_stmts

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = sorted((ROOT / "samples" / "triton").glob("*.py")) + \
    sorted((ROOT / "tests" / "fresh" / "triton").glob("*.py"))

HEADER = "import torch\nimport triton\nimport triton.language as tl\n"


def write(tmp_path, body: str, name: str = "kern.py") -> str:
    path = tmp_path / name
    path.write_text(HEADER + textwrap.dedent(body))
    return str(path)


def line_of(path: str, needle: str) -> int:
    return next(i for i, line in enumerate(Path(path).read_text().splitlines(), 1) if needle in line)


def kinds(kernel) -> dict:
    return {p.name: ("buffer" if isinstance(p, BufferParam) else "scalar", p.dtype)
            for p in kernel.params}


def decls(kernel) -> dict:
    return {s.var.name: s for s in walk_stmts(kernel.body) if isinstance(s, Decl)}


def stores(kernel) -> list:
    return [s for s in walk_stmts(kernel.body) if isinstance(s, Store)]


def convert_error(path: str, **kw) -> TileportError:
    with pytest.raises(TileportError) as info:
        convert_triton(path, **kw)
    return info.value


# ----------------------------------------------------------------------------- samples


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_every_sample_converts(path):
    module = convert_triton(str(path))
    assert module.language == "triton" and module.kernels
    for k in module.kernels:
        assert k.language == "triton"
        assert k.launch.origin == "launch-site"
        assert all(isinstance(b, int) and b > 0 for b in k.launch.block)
        assert k.launch.threads == 128
        assert stores(k) or any(isinstance(s, Atomic) for s in walk_stmts(k.body))
        assert format_module(module)  # printable: no placeholder left in the IR
        for p in k.buffers:
            assert p.extent is not None
    # the genericity proof compares IRs, not printed text: the port they choose must print
    from porter.pipeline import print_port
    assert "@T.prim_func" in print_port(module)


def test_add_sample():
    path = str(ROOT / "samples/triton/add.py")
    (k,) = convert_triton(path).kernels
    assert k.name == "add_kernel" and k.loc.line == line_of(path, "def add_kernel")
    assert kinds(k) == {"x_ptr": ("buffer", "float32"), "y_ptr": ("buffer", "float32"),
                        "output_ptr": ("buffer", "float32"), "n_elements": ("scalar", "int32")}
    assert k.constexprs == {"BLOCK_SIZE": 1024}
    assert k.launch.block == (1024,)
    assert [format_expr(g) for g in k.launch.grid] == ["ceildiv(n_elements, 1024)"]
    assert k.launch.loc.line == line_of(path, "add_kernel[grid]")
    assert [p.access for p in k.buffers] == ["r", "r", "w"]
    assert k.param("output_ptr").extent is not None
    assert format_expr(k.param("output_ptr").extent) == "n_elements"
    d = decls(k)
    assert format_expr(d["offsets"].init) == "(block_start + threadIdx.x)"
    assert format_expr(d["x"].init) == "((offsets < n_elements) ? x_ptr[offsets] : 0.0)"
    (top,) = [s for s in k.body if isinstance(s, If)]
    assert format_expr(top.cond) == "(offsets < n_elements)"
    assert top.loc.line == line_of(path, "tl.store")


def test_fused_silu_mul_fp16_casts():
    (k,) = convert_triton(str(ROOT / "samples/triton/fused_silu_mul.py")).kernels
    assert {p.name: p.dtype for p in k.buffers} == {"a_ptr": "float16", "b_ptr": "float16",
                                                   "out_ptr": "float16"}
    d = decls(k)
    a = d["a"].init
    assert d["a"].var.dtype == "float32" and isinstance(a, Cast) and a.dtype == "float32"
    assert isinstance(a.a, Select) and isinstance(a.a.a, Load) and a.a.a.dtype == "float16"
    assert format_expr(d["silu_a"].init) == "(a * sigmoid(a))"
    (st,) = stores(k)
    assert isinstance(st.value, Cast) and st.value.dtype == "float16"
    assert k.constexprs == {"BLOCK_SIZE": 512}


def test_leaky_relu_helper_is_inlined_with_where():
    (k,) = convert_triton(str(ROOT / "samples/triton/leaky_relu_where.py")).kernels
    assert kinds(k)["negative_slope"] == ("scalar", "float32")
    y = decls(k)["y"].init
    assert isinstance(y, Select)
    assert format_expr(y) == "((x >= 0.0) ? x : (x * negative_slope))"
    assert not any(isinstance(e, Call) for e in all_exprs(k.body))
    assert [format_expr(g) for g in k.launch.grid] == ["ceildiv(n_elements, 256)"]


def test_scale_clamp_2d_broadcasting():
    path = str(ROOT / "samples/triton/scale_clamp_2d.py")
    (k,) = convert_triton(path).kernels
    assert kinds(k) == {
        "x_ptr": ("buffer", "float32"), "out_ptr": ("buffer", "float32"),
        "M": ("scalar", "int32"), "N": ("scalar", "int32"), "stride_m": ("scalar", "int32"),
        "stride_om": ("scalar", "int32"), "scale": ("scalar", "float32"),
        "lo": ("scalar", "float32"), "hi": ("scalar", "float32")}
    assert k.constexprs == {"BLOCK_M": 32, "BLOCK_N": 64}
    assert k.launch.block == (64, 32)  # (BLOCK_N, BLOCK_M): the last dim is lane axis 0
    assert [format_expr(g) for g in k.launch.grid] == ["ceildiv(M, 32)", "ceildiv(N, 64)"]
    d = decls(k)
    assert format_expr(d["offs_m"].init) == "((pid_m * 32) + threadIdx.y)"
    assert format_expr(d["offs_n"].init) == "((pid_n * 64) + threadIdx.x)"
    assert format_expr(d["pid_m"].init) == "blockIdx.x" and format_expr(d["pid_n"].init) == "blockIdx.y"
    assert format_expr(d["y_1"].init) == "min(max(y, lo), hi)"  # SSA name for the reassignment
    (top,) = [s for s in k.body if isinstance(s, If)]
    assert format_expr(top.cond) == "((offs_m < M) && (offs_n < N))"
    assert format_expr(top.then[0].index) == "((offs_m * stride_om) + offs_n)"
    assert format_expr(k.param("out_ptr").extent) == "(((M * stride_om) + N) - stride_om)"


def test_softplus_module_constant_and_host_default():
    (k,) = convert_triton(str(ROOT / "tests/fresh/triton/softplus.py")).kernels
    assert k.constexprs == {"BLOCK": 2048}  # BLOCK=block, the host function's default
    assert kinds(k) == {"X": ("buffer", "float32"), "Y": ("buffer", "float32"),
                        "numel": ("scalar", "int32"), "beta": ("scalar", "float32")}
    assert format_expr(decls(k)["y"].init) == "((z > 20.0) ? x : sp)"  # THRESHOLD folded
    assert [format_expr(g) for g in k.launch.grid] == ["ceildiv(numel, 2048)"]


def test_mul_add_scalar_low_precision_hint():
    # the host tries float32 and float16; `.to(tl.float32)` after the loads decides
    (k,) = convert_triton(str(ROOT / "tests/fresh/triton/mul_add_scalar.py")).kernels
    assert {p.name: p.dtype for p in k.buffers} == {"x_ptr": "float16", "y_ptr": "float16",
                                                   "out_ptr": "float16"}
    assert [p.dtype for p in k.scalars] == ["int32", "float32", "float32", "float32"]
    assert format_expr(decls(k)["acc"].init) == \
        "((((float32)xv * alpha) + ((float32)yv * beta)) + gamma)"
    assert isinstance(stores(k)[0].value, Cast)


def test_dtypes_override(tmp_path):
    path = str(ROOT / "samples/triton/add.py")
    (k,) = convert_triton(path, dtypes={"x_ptr": "bfloat16", "n_elements": "int64"}).kernels
    assert k.param("x_ptr").dtype == "bfloat16" and k.param("y_ptr").dtype == "float32"
    assert k.param("n_elements").dtype == "int64"
    x = decls(k)["x"].init
    assert x.dtype == "bfloat16"


def test_autograd_function_callers_type_forward_and_backward_launches(tmp_path):
    # forward(ctx, x, w) is reached through Scaled.apply (an alias of it); backward's tensors
    # are the ones forward saved. Without those links every buffer falls back to float32.
    src = write(tmp_path, """
        @triton.jit
        def scale_fwd(x_ptr, w_ptr, y_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            m = offs < n
            tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m) * tl.load(w_ptr + offs, mask=m), mask=m)

        @triton.jit
        def scale_bwd(dy_ptr, w_ptr, dx_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            m = offs < n
            tl.store(dx_ptr + offs, tl.load(dy_ptr + offs, mask=m) * tl.load(w_ptr + offs, mask=m), mask=m)

        class Scaled(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x, w):
                y = torch.empty_like(x)
                scale_fwd[(triton.cdiv(x.numel(), 256),)](x, w, y, x.numel(), BLOCK=256)
                ctx.save_for_backward(x, w)
                return y

            @staticmethod
            def backward(ctx, dy):
                x, w = ctx.saved_tensors
                dx = torch.empty_like(x)
                scale_bwd[(triton.cdiv(x.numel(), 256),)](dy.half(), w, dx, x.numel(), BLOCK=256)
                return dx, None

        scaled = Scaled.apply

        def demo(n=4096):
            x = torch.randn(n, dtype=torch.bfloat16, requires_grad=True)
            w = torch.randn(n, dtype=torch.float16)
            return scaled(x, w)
        """)
    fwd, bwd = convert_triton(src).kernels
    assert {p.name: p.dtype for p in fwd.buffers} == \
        {"x_ptr": "bfloat16", "w_ptr": "float16", "y_ptr": "bfloat16"}
    assert {p.name: p.dtype for p in bwd.buffers} == \
        {"dy_ptr": "float16", "w_ptr": "float16", "dx_ptr": "bfloat16"}


def test_a_launcher_that_asserts_a_dtype_types_its_tensors(tmp_path):
    # no caller in the file: the launcher's asserts are what says the tensors are half and bf16
    src = write(tmp_path, """
        @triton.jit
        def axpy(x_ptr, y_ptr, out_ptr, a, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            m = offs < n
            y = tl.load(y_ptr + offs, mask=m).to(tl.float32)
            tl.store(out_ptr + offs, a * tl.load(x_ptr + offs, mask=m) + y, mask=m)

        def launch(x, y, a: float):
            assert x.is_contiguous() and x.dtype == torch.float16
            assert y.dtype is torch.bfloat16, "y must be bf16"
            out = torch.empty_like(x)
            axpy[(triton.cdiv(x.numel(), 512),)](x, y, out, a, x.numel(), BLOCK=512)
            return out
        """)
    (k,) = convert_triton(src).kernels
    assert {p.name: p.dtype for p in k.buffers} == \
        {"x_ptr": "float16", "y_ptr": "bfloat16", "out_ptr": "float16"}


def test_a_static_range_bound_is_never_generic(tmp_path, monkeypatch):
    # the port holds one copy of the loop body per iteration: NB stays the launch's value, and
    # no stand-in conversion unrolls it (a Liger kernel's 32-block static_range took 120 s
    # of stand-ins), while BLOCK is generic
    from porter.frontends.triton.module import TritonFrontend

    tried = []
    real = TritonFrontend._convert_overriding

    def recording(self, fn, overrides):
        tried.append(dict(overrides))
        return real(self, fn, overrides)

    monkeypatch.setattr(TritonFrontend, "_convert_overriding", recording)
    src = write(tmp_path, """
        @triton.jit
        def sum_blocks(x_ptr, out_ptr, n, NB: tl.constexpr, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            total = tl.zeros((BLOCK,), dtype=tl.float32)
            for b in tl.static_range(0, NB):
                total += tl.load(x_ptr + b * n + offs, mask=offs < n, other=0.0)
            tl.store(out_ptr + offs, total, mask=offs < n)

        def run(x, out):
            sum_blocks[(1,)](x, out, x.shape[1], NB=4, BLOCK=256)
        """)
    (k,) = convert_triton(src, find_generic=find_generic).kernels
    assert "BLOCK" in k.generic and "NB" not in k.generic
    assert any("BLOCK" in o for o in tried) and not any(o.get("NB", 4) != 4 for o in tried)


def test_block_pointer_offsets_multiply_in_64_bits():
    # make_block_ptr holds its strides as int64: row * stride must not wrap at 2**31 elements
    (k,) = convert_triton(str(ROOT / "tests/fresh/triton/matmul_block_pointers.py")).kernels
    (store,) = stores(k)
    index = format_expr(store.index)
    assert "(int64)scm" in index and "(int64)scn" in index
    assert "* scm)" not in index and "* scn)" not in index


# ----------------------------------------------------------------------------- semantics


def test_broadcasting_2d_same_arange_on_both_axes(tmp_path):
    src = write(tmp_path, """
        @triton.jit
        def tadd(x_ptr, y_ptr, out_ptr, N, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            mask = (offs[:, None] < N) & (offs[None, :] < N)
            x = tl.load(x_ptr + offs[:, None] * N + offs[None, :], mask=mask, other=0.0)
            xt = tl.load(x_ptr + offs[None, :] * N + offs[:, None], mask=mask, other=0.0)
            y = tl.load(y_ptr + offs)
            tl.store(out_ptr + offs[:, None] * N + offs[None, :], x + xt + y[None, :], mask=mask)

        def run(x, y):
            out = torch.empty_like(x)
            tadd[(1,)](x, y, out, x.shape[0], BLOCK=32, num_warps=2)
    """)
    (k,) = convert_triton(src).kernels
    assert k.launch.block == (32, 32) and k.launch.threads == 64
    assert [format_expr(g) for g in k.launch.grid] == ["1"]
    d = decls(k)
    # offs is declared once per lane axis it is used on
    assert format_expr(d["offs"].init) == "threadIdx.x"
    assert format_expr(d["offs_1"].init) == "threadIdx.y"
    assert format_expr(d["x"].init.a.index) == "((offs_1 * N) + offs)"
    assert format_expr(d["xt"].init.a.index) == "((offs * N) + offs_1)"
    assert format_expr(d["y"].init) == "y_ptr[offs]"  # 1D load broadcast along lane axis 0


def test_1d_arange_alone_is_axis_0_and_arange_start(tmp_path):
    src = write(tmp_path, """
        @triton.jit
        def k(x_ptr, BLOCK: tl.constexpr = 64):
            offs = tl.arange(4, 4 + BLOCK)
            tl.store(x_ptr + offs, offs.to(tl.float32))
    """)
    (k,) = convert_triton(src).kernels
    assert k.launch.block == (64,) and k.launch.origin == "inferred"
    assert format_expr(decls(k)["offs"].init) == "(threadIdx.x + 4)"


def test_mixed_block_shapes_convert_at_tile_level(tmp_path):
    src = write(tmp_path, """
        @triton.jit
        def k(x_ptr, out_ptr, BLOCK: tl.constexpr = 64):
            offs = tl.arange(0, BLOCK)
            tl.store(out_ptr + offs, tl.load(x_ptr + offs))
            tl.store(out_ptr + offs[:, None], tl.load(x_ptr + offs)[:, None])
            tl.store(out_ptr + offs[None, :] * 2, tl.load(x_ptr + offs)[None, :])
    """)
    kernel = convert_triton(src).kernels[0]
    loops = [s for s in walk_stmts(kernel.body) if isinstance(s, ParallelFor)]
    assert [s.extents for s in loops] == [(64,), (64, 1), (1, 64)]


def test_helper_with_expression_argument_and_tuple_return(tmp_path):
    src = write(tmp_path, """
        @triton.jit
        def _twice(a, b):
            t = a * 2
            return t, t + b

        @triton.jit
        def k(x_ptr, y_ptr, n, BLOCK: tl.constexpr = 128):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            m = offs < n
            x = tl.load(x_ptr + offs, mask=m)
            p, q = _twice(x + 1.0, x)
            tl.store(y_ptr + offs, p * q, mask=m)
    """)
    (k,) = convert_triton(src).kernels
    d = decls(k)
    assert format_expr(d["twice_a"].init) == "(x + 1.0)"
    assert format_expr(d["t"].init) == "(twice_a * 2.0)"
    assert d["t"].loc.line == line_of(src, "t = a * 2")
    assert format_expr(d["q"].init) == "(t + x)"
    assert format_expr(stores(k)[0].value) == "(t * q)"  # p aliases t


def test_promotion_rules(tmp_path):
    src = write(tmp_path, """
        @triton.jit
        def k(x_ptr, out_ptr, n, BLOCK: tl.constexpr = 128):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            x = tl.load(x_ptr + offs)
            h = x * 2.0
            q = x / 2
            r = offs / 3
            s = offs // 3 + offs % 3
            c = (x > 0) & (offs < n)
            tl.store(out_ptr + offs, tl.where(c, h.to(tl.float32) + q + r + s, 0.0))

        def run(x):
            out = torch.empty(x.shape, dtype=torch.float32)
            k[(4,)](x.half(), out, x.numel())
    """)
    (k,) = convert_triton(src).kernels
    assert k.param("x_ptr").dtype == "float16" and k.param("out_ptr").dtype == "float32"
    d = decls(k)
    assert d["h"].var.dtype == "float16" and format_expr(d["h"].init) == "(x * 2.0)"
    assert d["q"].var.dtype == "float32" and format_expr(d["q"].init) == "((float32)x / 2.0)"
    assert d["r"].var.dtype == "float32" and format_expr(d["r"].init) == "((float32)offs / 3.0)"
    assert d["s"].var.dtype == "int32" and format_expr(d["s"].init) == "((offs / 3) + (offs % 3))"
    cond = stores(k)[0].value.cond
    assert isinstance(cond, BinOp) and cond.op == "&&" and cond.dtype == "bool"


def test_runtime_if_merges_and_early_return(tmp_path):
    src = write(tmp_path, """
        @triton.jit
        def k(x_ptr, n, flag, BLOCK: tl.constexpr = 128, SCALE: tl.constexpr = False):
            pid = tl.program_id(0)
            if pid * BLOCK >= n:
                return
            offs = pid * BLOCK + tl.arange(0, BLOCK)
            x = tl.load(x_ptr + offs)
            if SCALE:
                x = x * 3.0
            if flag > 0:
                x = x * 2.0
            else:
                x = x + 1.0
            tl.store(x_ptr + offs, x)
    """)
    (k,) = convert_triton(src).kernels
    assert kinds(k)["flag"] == ("scalar", "int32") and kinds(k)["x_ptr"][0] == "buffer"
    (guard,) = [s for s in k.body if isinstance(s, If)]
    assert format_expr(guard.cond) == "!((pid * 128) >= n)"
    merged = [s for s in walk_stmts(k.body) if isinstance(s, Decl) and s.init is None]
    assert [s.var.name for s in merged] == ["x_3"]
    assigns = [s for s in walk_stmts(k.body) if isinstance(s, Assign)]
    assert [(s.var.name, format_expr(s.value)) for s in assigns] == [("x_3", "x_1"), ("x_3", "x_2")]
    assert format_expr(stores(k)[0].value) == "x_3"
    assert "3.0" not in format_module(convert_triton(src))  # constexpr if resolved


def test_pointers_and_scalar_types_from_use_without_host(tmp_path):
    src = write(tmp_path, """
        @triton.jit
        def k(X, Y, S, n, eps, stride, BLOCK: tl.constexpr = 128):
            row = tl.program_id(0)
            cols = tl.arange(0, BLOCK)
            base = X + row * stride
            s = tl.load(S)
            x = tl.load(base + cols, mask=cols < n, other=0.0)
            tl.store(Y + row * stride + cols, (x + eps) * s, mask=cols < n)

        def run(a, b, c, d, e, f, rows):
            k[(d,)](a, b, c, d, e, f)  # nothing known about the arguments
    """)
    (k,) = convert_triton(src).kernels
    assert kinds(k) == {"X": ("buffer", "float32"), "Y": ("buffer", "float32"),
                        "S": ("buffer", "float32"), "n": ("scalar", "int32"),
                        "eps": ("scalar", "float32"), "stride": ("scalar", "int32")}
    assert format_expr(decls(k)["s"].init) == "S[0]"
    assert k.launch.origin == "launch-site" and k.launch.loc.line == line_of(src, "k[(d,)]")
    # a launch grid over a host value the kernel does not receive cannot be used, and the
    # masks do not involve the program id: no grid
    body = Path(src).read_text().split("\ndef run(")[0]
    unmappable = tmp_path / "unmappable.py"
    unmappable.write_text(body + "\ndef run(x, y, s):\n"
                          "    k[(x.shape[0],)](x, y, s, x.shape[1], 1e-5, x.stride(0))\n")
    # ... becomes a parameter of the port: the caller passes the grid size
    (grid_k,) = convert_triton(str(unmappable)).kernels
    assert [(p.name, p.grid_axis) for p in grid_k.scalars if p.grid_axis is not None] == [("grid_x", 0)]
    (given,) = convert_triton(str(unmappable), grid=(8,)).kernels
    assert given.launch.origin == "given" and [format_expr(g) for g in given.launch.grid] == ["8"]
    # the same host expression as an argument maps to that parameter
    mapped = tmp_path / "mapped.py"
    mapped.write_text(body + "\ndef run(x, y, s):\n"
                      "    k[(x.stride(0),)](x, y, s, x.shape[1], 1e-5, x.stride(0))\n")
    (k2,) = convert_triton(str(mapped)).kernels
    assert [format_expr(g) for g in k2.launch.grid] == ["stride"]
    assert k2.launch.origin == "launch-site"


def test_grid_inferred_2d_without_launch_site(tmp_path):
    text = (ROOT / "samples/triton/scale_clamp_2d.py").read_text().split("\ndef scale_clamp(")[0]
    text = text.replace("BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr",
                        "BLOCK_M: tl.constexpr = 16, BLOCK_N: tl.constexpr = 32")
    path = tmp_path / "nosite.py"
    path.write_text(text)
    (k,) = convert_triton(str(path)).kernels
    assert k.launch.origin == "inferred" and k.launch.block == (32, 16)
    assert [format_expr(g) for g in k.launch.grid] == ["ceildiv(M, 16)", "ceildiv(N, 32)"]
    assert k.launch.threads == 128


def test_autotune_config(tmp_path):
    src = write(tmp_path, """
        @triton.autotune(configs=[triton.Config({'BLOCK': 128}, num_warps=4),
                                  triton.Config({'BLOCK': 256}, num_warps=8)], key=['n'])
        @triton.jit
        def k(x_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            tl.store(x_ptr + offs, 1.0, mask=offs < n)

        def run(x):
            k[lambda meta: (triton.cdiv(x.numel(), meta['BLOCK']),)](x, x.numel())
    """)
    (k0,) = convert_triton(src).kernels
    assert k0.constexprs == {"BLOCK": 128} and k0.launch.threads == 128
    assert [format_expr(g) for g in k0.launch.grid] == ["ceildiv(n, 128)"]
    (k1,) = convert_triton(src, config=1).kernels
    assert k1.constexprs == {"BLOCK": 256} and k1.launch.threads == 256
    assert k1.launch.block == (256,)
    assert [format_expr(g) for g in k1.launch.grid] == ["ceildiv(n, 256)"]
    assert convert_error(src, config=2).diagnostic.code == "TP204"


def test_constexpr_without_value_is_chosen_and_generic(tmp_path):
    src = write(tmp_path, """
        @triton.jit
        def k(x_ptr, BLOCK: tl.constexpr):
            tl.store(x_ptr + tl.arange(0, BLOCK), 0.0)
    """)
    k = convert_triton(src).kernels[0]
    assert k.constexpr_origin["BLOCK"] == "chosen" and k.constexprs["BLOCK"] == 16
    assert k.generic == ()  # the front end alone judges no constexpr generic
    k = convert_triton(src, find_generic=find_generic).kernels[0]
    assert k.generic == ("BLOCK",)


def test_a_kernel_of_more_runtime_sizes_than_powers_of_two_still_gets_a_value_for_each(tmp_path):
    """Liger's mhc kernels take a dozen strides as constexprs from `t.stride(i)` of tensors the
    launcher makes, with the block shapes last: the shapes get the powers of two, every stride
    a distinct value, and a count that only `tl.static_range` unrolls a small one."""
    strides = [f"s{i}" for i in range(10)]
    src = write(tmp_path, f"""
        @triton.jit
        def k(x_ptr, {", ".join(s + ": tl.constexpr" for s in strides)}, STEPS: tl.constexpr,
              BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            acc = tl.load(x_ptr + offs * s0)
            for t in tl.static_range(0, STEPS):
                acc += tl.load(x_ptr + offs * ({" + ".join(strides)}) + t)
            tl.store(x_ptr + offs, acc)
    """)
    k = convert_triton(src).kernels[0]
    values = [k.constexprs[n] for n in strides + ["STEPS", "BLOCK"]]
    assert len(set(values)) == len(values), values
    assert k.constexprs["BLOCK"] in (16, 32, 64, 128, 256, 512, 1024, 2048, 4096)
    assert k.constexprs["STEPS"] < 16


def test_a_size_a_mask_bounds_a_block_by_is_chosen_below_the_block(tmp_path):
    """Liger's rope takes `n_qh`, `hd` and their padded powers `pad_n_qh`, `pad_hd` as
    constexprs the launch computes (`pad_hd = next_power_of_2(head_dim)`): with every int a
    power of its own, n_qh * hd made rows of 512 K elements and verify refused the sizes
    (TP433). A size that masks a block (`tl.arange(0, PAD) < n`, also through `// 2`) is now
    a little below that block, as the launch makes it, and the mask cuts the block."""
    src = write(tmp_path, """
        @triton.jit
        def heads(x_ptr, row_stride, n_h: tl.constexpr, hd: tl.constexpr, PAD_H: tl.constexpr,
                  PAD_D: tl.constexpr):
            row = tl.program_id(0)
            offs = tl.arange(0, PAD_H)[:, None] * hd + tl.arange(0, PAD_D // 2)[None, :]
            mask = (tl.arange(0, PAD_H)[:, None] < n_h) & (tl.arange(0, PAD_D // 2)[None, :] < hd // 2)
            v = tl.load(x_ptr + row * row_stride + offs, mask=mask, other=0.0)
            tl.store(x_ptr + row * row_stride + offs, v * 2.0, mask=mask)
    """)
    k = convert_triton(src).kernels[0]
    values = k.constexprs
    assert values["n_h"] < values["PAD_H"] and values["hd"] < values["PAD_D"]
    assert values["hd"] // 2 < values["PAD_D"] // 2 and len(set(values.values())) == 4
    assert all(k.constexpr_origin[n] == "chosen" for n in values)


def test_constexprs_one_divides_by_the_other_are_chosen_divisible(tmp_path):
    """FlagGems' FLA kernels read `i_h // (H // Hg)` (query heads per key group) with H and Hg
    computed by the launch from tensor shapes: chosen as distinct powers, H = 16 and Hg = 32
    made the port divide by zero (`T.truncdiv(i_h, 0)`). The numerator is now a multiple of
    the denominator, whichever is chosen first."""
    src = write(tmp_path, """
        @triton.jit
        def grouped(q_ptr, o_ptr, H: tl.constexpr, Hg: tl.constexpr, G: tl.constexpr, Q: tl.constexpr):
            i_h = tl.program_id(0)
            g = i_h // (H // Hg) + Q // G
            tl.store(o_ptr + i_h, tl.load(q_ptr + g))
    """)
    values = convert_triton(src).kernels[0].constexprs
    assert values["H"] % values["Hg"] == 0 and values["H"] > values["Hg"]
    assert values["Q"] % values["G"] == 0 and values["Q"] > values["G"]


def test_a_scalar_only_a_flag_branch_reads_keeps_its_type_in_the_other_form(tmp_path):
    """Liger's vocab-parallel cross entropy subtracts `eps` only `if HAS_SMOOTHING`: the form
    converted for False never reads it, typed it int32, and its signature differed, so the port
    dropped that form and refused HAS_SMOOTHING=False. Both forms are in the port now."""
    from porter.pipeline import print_port
    from porter.pipeline import raise_to_tiles

    src = write(tmp_path, """
        @triton.jit
        def shift(x_ptr, eps, n, HAS_SMOOTHING: tl.constexpr, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
            if HAS_SMOOTHING:
                x = x - eps
            tl.store(x_ptr + offs, x * 2.0, mask=offs < n)


        def run(x, eps):
            shift[(triton.cdiv(x.numel(), 256),)](x, eps, x.numel(), HAS_SMOOTHING=eps > 0, BLOCK=256)
    """)
    module = convert_triton(src)
    (k,) = module.kernels
    assert len(k.variants) == 1 and k.variants[0].param("eps").dtype == k.param("eps").dtype == "float32"
    text = print_port(raise_to_tiles(module), src)
    # one program for both forms: the subtraction branches on the flag, no value is refused
    assert text.count("@T.prim_func") == 1 and re.search(r"\n +if HAS_SMOOTHING:\n", text)
    assert "no variant for" not in text and "specialised for" not in text.split("@_TritonKernel\ndef shift(", 1)[1]


def test_a_dtype_called_as_a_constructor_is_a_typed_scalar(tmp_path):
    """`m = tl.float32(-float("inf"))` (Liger's multi-block softmax) was TP217, "this value is
    not callable in a kernel"; it is the value in that dtype."""
    src = write(tmp_path, """
        @triton.jit
        def row_max(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
            m = tl.float32(-float("inf"))
            for start in range(0, n, BLOCK):
                offs = start + tl.arange(0, BLOCK)
                m = tl.maximum(m, tl.max(tl.load(x_ptr + offs, mask=offs < n, other=-float("inf")), axis=0))
            tl.store(out_ptr, m)
    """)
    text = format_module(convert_triton(src))
    assert "float32 m;" in text and "m = -inf;" in text


def test_a_loop_bound_loaded_from_an_untyped_pointer_makes_it_an_int_buffer(tmp_path):
    """Liger's MoE backward kernels loop `for k in tl.range(0, end - start, BLOCK)` with both
    ends loaded from an offsets pointer nothing types (its dtype guessed float32): TP210 "loop
    bounds must be integers". A bound loaded from a guessed buffer makes that buffer int32."""
    src = write(tmp_path, """
        @triton.jit
        def segment_sum(offsets_ptr, x_ptr, out_ptr, BLOCK: tl.constexpr):
            seg = tl.program_id(0)
            start = tl.load(offsets_ptr + seg)
            end = tl.load(offsets_ptr + seg + 1)
            n = end - start
            acc = tl.zeros([BLOCK], dtype=tl.float32)
            for k in tl.range(0, n, BLOCK):
                offs = k + tl.arange(0, BLOCK)
                acc += tl.load(x_ptr + start + offs, mask=offs < n, other=0.0)
            tl.store(out_ptr + seg, tl.sum(acc, axis=0))
    """)
    (k,) = convert_triton(src).kernels
    assert k.param("offsets_ptr").dtype == "int32" and k.param("x_ptr").dtype == "float32"


def test_tl_split_takes_the_last_dimension_apart(tmp_path):
    """`re, im = tl.split(z)` of a (BLOCK, 2) block (Liger's llama4 rope, complex numbers stored
    as pairs): the halves read the block's fragment at [i, 0] and [i, 1]; a last dimension
    other than 2 is refused."""
    fresh = str(ROOT / "tests" / "fresh" / "triton" / "complex_scale_split.py")
    text = format_module(convert_triton(fresh))
    assert "(z[i, 0] * w_re) - (z[i, 1] * w_im)" in text and "(z[i, 0] * w_im) + (z[i, 1] * w_re)" in text
    src = write(tmp_path, """
        @triton.jit
        def halves(x_ptr, a_ptr, b_ptr, BLOCK: tl.constexpr):
            rows = tl.arange(0, BLOCK)
            pairs = tl.load(x_ptr + rows[:, None] * 2 + tl.arange(0, 2)[None, :])
            a, b = tl.split(pairs)
            tl.store(a_ptr + rows, a)
            tl.store(b_ptr + rows, b)
    """)
    text = format_module(convert_triton(src))
    assert "a_ptr[i] = pairs[i, 0];" in text and "b_ptr[i] = pairs[i, 1];" in text
    wide = write(tmp_path, """
        @triton.jit
        def bad(x_ptr, BLOCK: tl.constexpr):
            v = tl.load(x_ptr + tl.arange(0, BLOCK)[:, None] * 4 + tl.arange(0, 4)[None, :])
            a, b = tl.split(v)
            tl.store(x_ptr + tl.arange(0, BLOCK), a + b)
    """, name="bad.py")
    assert convert_error(wide).diagnostic.code == "TP223"


def test_static_assert(tmp_path):
    src = write(tmp_path, """
        @triton.jit
        def k(x_ptr, BLOCK: tl.constexpr = 48):
            tl.static_assert(BLOCK % 32 == 0, "BLOCK must be a multiple of 32")
            tl.store(x_ptr + tl.arange(0, 64), 0.0)
    """)
    err = convert_error(src)
    assert err.diagnostic.code == "TP229" and "multiple of 32" in err.diagnostic.message
    assert err.diagnostic.loc.line == line_of(src, "tl.static_assert")


def test_a_chosen_size_that_fails_an_assert_reports_what_stops_a_size_that_passes(tmp_path):
    """HEAD is chosen (16: nothing gives it) and fails `BN <= HEAD`; at 64 the assert holds and
    the kernel stops at an unsupported call: that is what the user must hear about."""
    src = write(tmp_path, """
        @triton.jit
        def k(x_ptr, HEAD: tl.constexpr, BN: tl.constexpr = 32):
            tl.static_assert(BN <= HEAD)
            offs = tl.arange(0, HEAD)
            tl.store(x_ptr + offs, tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [offs],
                                                             dtype=tl.int32, is_pure=True, pack=1))
    """)
    err = convert_error(src)
    assert err.diagnostic.code != "TP229", err.diagnostic.message
    assert err.diagnostic.loc.line == line_of(src, "tl.inline_asm_elementwise")


def test_a_flag_value_that_cannot_be_converted_is_left_out_when_another_converts(tmp_path):
    """A flag taken True first (it is tested by `if`) whose branch rounds through fp8: the port
    is the False form, says what it left out, and refuses True."""
    src = write(tmp_path, """
        @triton.jit
        def k(x_ptr, y_ptr, n, AS_BITS: tl.constexpr):
            offs = tl.arange(0, 64)
            x = tl.load(x_ptr + offs, mask=offs < n)
            if AS_BITS:
                x = x.to(tl.float8e5).to(tl.float32)
            tl.store(y_ptr + offs, x * 2.0, mask=offs < n)
    """)
    (kernel,) = convert_triton(src).kernels
    assert kernel.constexprs["AS_BITS"] is False and kernel.variants == []
    assert "AS_BITS=True left out (TP225" in kernel.note
    from porter.pipeline import print_port
    from porter.reader import read_source
    from porter.pipeline import raise_to_tiles

    port = print_port(raise_to_tiles(read_source(str(src))))
    assert '_specialised("k", "AS_BITS", AS_BITS, False)' in port and "AS_BITS=True left out" in port


def test_a_flag_value_left_out_after_the_first_converted_is_named_in_the_note(tmp_path):
    """The first value converts, the other does not: the note says which value the port
    refuses and why (it used to be dropped without a word, and verify then met the refusal)."""
    src = write(tmp_path, """
        @triton.jit
        def k(x_ptr, y_ptr, n, PLAIN: tl.constexpr):
            offs = tl.arange(0, 64)
            x = tl.load(x_ptr + offs, mask=offs < n)
            if not PLAIN:
                x = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [x], dtype=tl.float32,
                                              is_pure=True, pack=1)
            tl.store(y_ptr + offs, x * 2.0, mask=offs < n)
    """)
    (kernel,) = convert_triton(src).kernels
    assert kernel.constexprs["PLAIN"] is True and kernel.variants == []
    assert "PLAIN=False left out (TP" in kernel.note


def test_a_port_specialised_for_a_none_constexpr_takes_none(tmp_path):
    """The matmul tutorial launches `ACTIVATION=activation` with `activation=None`: the port
    converted for None must take None (it refused it as the string 'None')."""
    src = write(tmp_path, """
        @triton.jit
        def k(x_ptr, n, ACT: tl.constexpr):
            offs = tl.arange(0, 64)
            x = tl.load(x_ptr + offs, mask=offs < n)
            if ACT == "relu":
                x = tl.maximum(x, 0.0)
            tl.store(x_ptr + offs, x, mask=offs < n)

        def run(x, act=None):
            k[(1,)](x, x.numel(), ACT=act)
    """)
    from porter.pipeline import print_port
    from porter.reader import read_source
    from porter.pipeline import raise_to_tiles
    from porter.verify.port_exec import load_port

    port = tmp_path / "k_tl.py"
    port.write_text(print_port(raise_to_tiles(read_source(str(src)))))
    module = load_port(str(port))
    module._specialised("k", "ACT", None, None)
    with pytest.raises(ValueError, match="specialised for ACT=None"):
        module._specialised("k", "ACT", "gelu", None)


def test_user_code_is_never_run(tmp_path):
    src = write(tmp_path, """
        raise SystemExit("must not run")

        @triton.jit
        def k(x_ptr, n, BLOCK: tl.constexpr = 64):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            tl.store(x_ptr + offs, tl.exp(tl.load(x_ptr + offs, mask=offs < n)), mask=offs < n)
    """)
    (k,) = convert_triton(src).kernels
    assert [format_expr(g) for g in k.launch.grid] == ["ceildiv(n, 64)"]
    assert any(isinstance(e, Builtin) and e.kind == "block_idx" for e in all_exprs(k.body))
    assert all(isinstance(p, (BufferParam, ScalarParam)) for p in k.params)


# ----------------------------------------------------------------------------- diagnostics


@pytest.mark.parametrize("snippet, needle, code", [
    ("for i in range(4):\n        break", "break", "TP210"),
    ("for i in range(offs):\n        acc = acc + i", "for i in range", "TP210"),
    ("while acc > 0:\n        acc = acc - 1", "while acc", "TP228"),
    ("acc = tl.dot(tl.load(x_ptr + offs[:, None] + offs[None, :]), acc)", "tl.dot", "TP211"),
    ("acc = tl.xor_sum(acc, axis=0)", "tl.xor_sum", "TP212"),
    ("acc = tl.randn4x(7, offs)", "tl.randn4x", "TP213"),
    ("acc = tl.atomic_add(x_ptr + offs, acc)", "tl.atomic_add", "TP214"),
    ("tl.atomic_and(x_ptr + offs, acc)", "tl.atomic_and", "TP214"),
    ("acc = tl.atomic_xchg(x_ptr + offs, acc)", "tl.atomic_xchg", "TP214"),
])
def test_unsupported_constructs(tmp_path, snippet, needle, code):
    snippet = snippet.replace("\n", "\n" + " " * 12)
    src = write(tmp_path, f"""
        @triton.jit
        def k(x_ptr, n, BLOCK: tl.constexpr = 64):
            offs = tl.arange(0, BLOCK)
            acc = tl.load(x_ptr + offs)
            {snippet}
            tl.store(x_ptr + offs, acc)
    """)
    err = convert_error(src)
    assert err.diagnostic.code == code
    assert err.diagnostic.loc.line == line_of(src, needle)
    assert err.diagnostic.loc.file == src


def test_syntax_error(tmp_path):
    src = write(tmp_path, """
        @triton.jit
        def k(x_ptr:
            pass
    """)
    err = convert_error(src)
    assert err.diagnostic.code == "TP201" and err.diagnostic.loc.line == line_of(src, "def k(")


def test_no_kernel(tmp_path):
    src = write(tmp_path, """
        def host(x):
            return x * 2
    """)
    err = convert_error(src)
    assert err.diagnostic.code == "TP200"
    assert "no @triton.jit kernel" in err.diagnostic.message


# ----------------------------------------------------------------------------- loops and atomics


def test_loop_with_carried_accumulator(tmp_path):
    src = write(tmp_path, """
        @triton.jit
        def k(x_ptr, y_ptr, n_rows, n_cols, stride, BLOCK: tl.constexpr = 64):
            rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            acc = tl.zeros([BLOCK], dtype=tl.float32)
            for c in range(0, n_cols):
                acc += tl.load(x_ptr + rows * stride + c, mask=rows < n_rows, other=0.)
            tl.store(y_ptr + rows, acc, mask=rows < n_rows)
    """)
    (k,) = convert_triton(src).kernels
    loops = [s for s in walk_stmts(k.body) if isinstance(s, For)]
    assert len(loops) == 1
    loop = loops[0]
    assert loop.var.dtype == "int32" and format_expr(loop.start) == "0"
    assert format_expr(loop.cond) == f"({loop.var.name} < n_cols)" and format_expr(loop.step) == "1"
    acc = decls(k)["acc"]
    assert acc.init is None and acc.var.dtype == "float32"
    inits = [s for s in k.body if isinstance(s, Assign) and s.var.name == "acc"]
    assert inits and format_expr(inits[0].value) in ("0.0", "0.0f", "0")
    carried = [s for s in loop.body if isinstance(s, Assign) and s.var.name == "acc"]
    assert len(carried) == 1
    # the store after the loop reads the carried variable
    (st,) = stores(k)
    assert format_expr(st.value) == "acc"
    assert kinds(k)["n_cols"] == ("scalar", "int32")
    assert [format_expr(g) for g in k.launch.grid] == ["ceildiv(n_rows, 64)"]


def test_tl_range_step_static_range_and_while(tmp_path):
    src = write(tmp_path, """
        @triton.jit
        def k(x_ptr, n, BLOCK: tl.constexpr = 64, R: tl.constexpr = 3):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            x = tl.load(x_ptr + offs, mask=offs < n)
            for i in tl.range(n, 0, -2, num_stages=2):
                x = x * 0.5
            for j in tl.static_range(R):
                x = x + j
            s = 0
            while s < n:
                s += 3
            tl.store(x_ptr + offs, x + s, mask=offs < n)
    """)
    (k,) = convert_triton(src).kernels
    (loop,) = [s for s in walk_stmts(k.body) if isinstance(s, For)]
    assert format_expr(loop.start) == "n" and format_expr(loop.step) == "-2"
    assert format_expr(loop.cond) == f"({loop.var.name} > 0)"
    (wh,) = [s for s in walk_stmts(k.body) if isinstance(s, While)]
    assert format_expr(wh.cond) == "(s < n)"
    assert any(isinstance(s, Assign) and s.var.name == "s" for s in wh.body)
    # static_range is unrolled: no loop for it, three additions
    assert len([s for s in walk_stmts(k.body) if isinstance(s, (For, While))]) == 2


def test_loop_carried_type_change_is_an_error(tmp_path):
    src = write(tmp_path, """
        @triton.jit
        def k(x_ptr, n, BLOCK: tl.constexpr = 64):
            offs = tl.arange(0, BLOCK)
            acc = tl.zeros([BLOCK], dtype=tl.int32)
            for i in range(n):
                acc = acc + tl.load(x_ptr + offs)
            tl.store(x_ptr + offs, acc)
    """)
    err = convert_error(src)
    assert err.diagnostic.code == "TP225" and "acc" in err.diagnostic.message


def test_atomics(tmp_path):
    src = write(tmp_path, """
        @triton.jit
        def k(x_ptr, bins_ptr, total_ptr, n, BLOCK: tl.constexpr = 64):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            m = offs < n
            v = tl.load(x_ptr + offs, mask=m, other=0)
            tl.atomic_add(bins_ptr + v, 1, mask=m)
            tl.atomic_max(total_ptr + 1, 7)
            tl.atomic_min(total_ptr + offs, v, m)
            tl.atomic_xchg(total_ptr, 3)
    """, name="hist.py")
    (k,) = convert_triton(src, dtypes={"x_ptr": "int32", "bins_ptr": "int32",
                                       "total_ptr": "int32"}).kernels
    atomics = [s for s in walk_stmts(k.body) if isinstance(s, Atomic)]
    assert [(a.op, a.buffer) for a in atomics] == [("add", "bins_ptr"), ("max", "total_ptr"),
                                                   ("min", "total_ptr"), ("store", "total_ptr")]
    assert format_expr(atomics[0].value) == "1"
    guards = [s for s in walk_stmts(k.body) if isinstance(s, If)]
    assert len(guards) == 2  # the masked ones
    # each atomic is a T.Parallel over the block it updates; a scalar one runs once per program
    loops = [s for s in walk_stmts(k.body) if isinstance(s, ParallelFor)
             and any(isinstance(x, Atomic) for x in walk_stmts(s.body))]
    assert [s.extents for s in loops] == [(64,), (1,), (64,), (1,)]
    assert kinds(k)["bins_ptr"] == ("buffer", "int32")


def test_reduction_inside_a_loop_is_a_tile_reduce(tmp_path):
    src = write(tmp_path, """
        @triton.jit
        def k(x_ptr, n, BLOCK: tl.constexpr = 64):
            offs = tl.arange(0, BLOCK)
            acc = tl.zeros([BLOCK], dtype=tl.float32)
            for i in range(n):
                acc += tl.sum(tl.load(x_ptr + offs), axis=0)
            tl.store(x_ptr + offs, acc)
    """)
    (k,) = convert_triton(src).kernels
    (loop,) = [s for s in walk_stmts(k.body) if isinstance(s, For)]
    reduces = [s for s in walk_stmts(loop.body) if isinstance(s, Reduce)]
    assert [(r.op, r.dim) for r in reduces] == [("sum", 0)]
    tiles = {s.name: s for s in walk_stmts(k.body) if isinstance(s, TileBuffer)}
    assert tiles["acc"].shape == (64,) and tiles["acc"].scope == "fragment"
    assert tiles[reduces[0].dst].shape == (1,)


def test_dot_in_a_k_loop_is_a_pipelined_gemm_into_the_accumulator(tmp_path):
    src = write(tmp_path, """
        @triton.jit
        def mm(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr = 32, BN: tl.constexpr = 64,
               BK: tl.constexpr = 16):
            rm = tl.arange(0, BM)
            rn = tl.arange(0, BN)
            rk = tl.arange(0, BK)
            acc = tl.zeros((BM, BN), dtype=tl.float32)
            for k in range(0, tl.cdiv(K, BK)):
                a = tl.load(a_ptr + rm[:, None] * K + (k * BK + rk)[None, :])
                b = tl.load(b_ptr + (k * BK + rk)[:, None] * BN + rn[None, :])
                acc = tl.dot(a, b, acc)
            tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)
    """)
    (k,) = convert_triton(src).kernels
    (loop,) = [s for s in walk_stmts(k.body) if isinstance(s, For)]
    assert loop.stages == 2
    (gemm,) = [s for s in walk_stmts(loop.body) if isinstance(s, Gemm)]
    tiles = {s.name: s for s in walk_stmts(k.body) if isinstance(s, TileBuffer)}
    assert gemm.c == "acc" and not gemm.clear
    assert (tiles[gemm.a].shape, tiles[gemm.a].scope) == ((32, 16), "shared")
    assert (tiles[gemm.b].shape, tiles[gemm.b].scope) == ((16, 64), "shared")


@pytest.mark.parametrize("extra, precision", [
    ("", "tf32"),  # Triton's default for fp32 dots on NVIDIA
    (", input_precision=\"tf32\"", "tf32"),
    (", input_precision=\"ieee\"", "ieee"),
    (", allow_tf32=False", "ieee"),
    (", input_precision=\"tf32x3\"", "ieee"),
])
def test_dot_keeps_the_precision_the_source_asks_for(tmp_path, extra, precision):
    src = write(tmp_path, f"""
        @triton.jit
        def mm(a_ptr, b_ptr, c_ptr, BM: tl.constexpr = 32, BN: tl.constexpr = 32, BK: tl.constexpr = 16):
            rm = tl.arange(0, BM)
            rn = tl.arange(0, BN)
            rk = tl.arange(0, BK)
            a = tl.load(a_ptr + rm[:, None] * BK + rk[None, :])
            b = tl.load(b_ptr + rk[:, None] * BN + rn[None, :])
            tl.store(c_ptr + rm[:, None] * BN + rn[None, :], tl.dot(a, b{extra}))

        def run(a, b, c):
            mm[(1,)](a, b, c)
    """)
    (gemm,) = [s for s in walk_stmts(convert_triton(src).kernels[0].body) if isinstance(s, Gemm)]
    assert gemm.precision == precision
    from porter.pipeline import print_port
    from porter.pipeline import raise_to_tiles
    text = print_port(convert_triton(src))
    assert ("T.gemm(" in text) == (precision == "tf32")
    allowed = print_port(raise_to_tiles(convert_triton(src), "auto", {"allow_tf32": True}))
    assert "T.gemm(" in allowed


def test_constexpr_computed_at_the_launch_becomes_a_program_parameter(tmp_path):
    src = write(tmp_path, """
        @triton.jit
        def k(x_ptr, n_rows, n_cols, BLOCK: tl.constexpr):
            cols = tl.arange(0, BLOCK)
            x = tl.load(x_ptr + tl.program_id(0) * n_cols + cols, mask=cols < n_cols)
            tl.store(x_ptr + tl.program_id(0) * n_cols + cols, x - tl.max(x, axis=0), mask=cols < n_cols)

        def run(x):
            k[(x.shape[0],)](x, x.shape[0], x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
    """)
    (k,) = convert_triton(src).kernels
    assert list(k.derived_constexprs) == ["BLOCK"]
    assert format_expr(k.derived_constexprs["BLOCK"]) == "next_power_of_2(n_cols)"
    from porter.pipeline import print_port
    from porter.frontends.triton import convert_triton as again
    text = print_port(again(src))
    assert "def k_program(BLOCK, threads=128):" in text and "T.alloc_fragment((BLOCK,)" in text
    assert "BLOCK = _next_power_of_2(int(n_cols))" in text


def test_grid_from_a_host_value_the_kernel_never_sees_is_a_port_parameter(tmp_path):
    src = write(tmp_path, """
        @triton.jit
        def k(x_ptr, n, BLOCK: tl.constexpr = 64):
            row = tl.program_id(0)
            cols = tl.arange(0, BLOCK)
            tl.store(x_ptr + row * n + cols, tl.load(x_ptr + row * n + cols, mask=cols < n) * 2, mask=cols < n)

        def run(x):
            rows, n = x.shape
            k[(rows,)](x, n)
    """)
    (k,) = convert_triton(src).kernels
    grid_params = [p for p in k.params if getattr(p, "grid_axis", None) is not None]
    assert [(p.name, p.grid_axis) for p in grid_params] == [("rows", 0)]
    assert [format_expr(g) for g in k.launch.grid] == ["rows"]
    assert format_expr(k.param("x_ptr").extent) == "(((rows * n) - n) + n)" or "rows" in format_expr(k.param("x_ptr").extent)


def test_pointer_advanced_in_a_counted_loop_is_rewritten_in_closed_form(tmp_path):
    src = write(tmp_path, """
        @triton.jit
        def k(x_ptr, out_ptr, n, K, BLOCK: tl.constexpr = 32):
            offs = tl.arange(0, BLOCK)
            p = x_ptr + offs
            acc = tl.zeros([BLOCK], dtype=tl.float32)
            for i in range(0, K):
                acc += tl.load(p)
                p += n
            tl.store(out_ptr + offs, acc)
    """)
    (k,) = convert_triton(src).kernels
    loads = [e for e in all_exprs(k.body) if isinstance(e, Load) and e.buffer == "x_ptr"]
    assert loads and all("i" in format_expr(e.index) and "n" in format_expr(e.index) for e in loads)
    assert k.param("x_ptr").extent is not None  # the closed form has bounds


def test_block_pointers_and_tensor_descriptors_are_bounds_checked_windows(tmp_path):
    src = write(tmp_path, """
        @triton.jit
        def k(x_ptr, y_ptr, M, N, BM: tl.constexpr = 16, BN: tl.constexpr = 32):
            src = tl.make_block_ptr(x_ptr, shape=(M, N), strides=(N, 1), offsets=(tl.program_id(0) * BM, 0),
                                    block_shape=(BM, BN), order=(1, 0))
            dst = tl.make_tensor_descriptor(y_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
            dst.store([tl.program_id(0) * BM, 0], tl.load(src, boundary_check=(0, 1)) * 2)
    """)
    (k,) = convert_triton(src).kernels
    (store,) = [s for s in walk_stmts(k.body) if isinstance(s, Store)]
    guards = [format_expr(s.cond) for s in walk_stmts(k.body) if isinstance(s, If)]
    assert any("< M" in g and "< N" in g for g in guards)
    assert format_expr(store.index).replace(" ", "").count("N") >= 1


def test_tl_rand_is_the_philox_stream(tmp_path):
    src = write(tmp_path, """
        @triton.jit
        def k(out_ptr, seed, BLOCK: tl.constexpr = 64):
            offs = tl.arange(0, BLOCK)
            tl.store(out_ptr + offs, tl.rand(seed, offs))
    """)
    module = convert_triton(src)
    (k,) = module.kernels
    (word,) = [s for s in walk_stmts(k.body) if isinstance(s, Decl) and s.var.name.startswith("philox_")]
    assert format_expr(word.init) == "philox(seed, (uint32)offs, 0, 0)"  # word 0 of counter (offs, 0)
    # the port: the rounds once, as a macro (it printed 70 inline temporaries per draw before)
    from porter.pipeline import print_port

    text = print_port(module, src)
    macro = text.split("@T.macro\ndef _philox(seed, c0, c1):", 1)[1].split("\n\n\n", 1)[0]
    assert macro.count("c0, c1, c2, c3 = _philox_round(c0, c1, c2, c3, k0, k1)") == 10
    assert macro.count("k0 + T.uint32(0x9E3779B9), k1 + T.uint32(0xBB67AE85)") == 9
    assert "T.uint64(0xD2511F53) * T.Cast(T.uint64, c0)" in text and "T.uint32(0xCD9E8D57) * c2" in text
    assert "philox_c0 = _philox(seed, T.Cast(T.uint32, offs), T.uint32(0))[0]" in text
    program = text.split("def k_program", 1)[1]
    assert program.count("_philox(") == 1 and "_philox_round" not in program and "philox_k" not in program
    plain = print_port(convert_triton(write(tmp_path, """
        @triton.jit
        def k(out_ptr, BLOCK: tl.constexpr = 64):
            tl.store(out_ptr + tl.arange(0, BLOCK), 1.0)
    """, "plain.py")), "plain.py")
    assert "_philox" not in plain


def test_a_pointer_advanced_by_the_loops_own_step_is_its_variable_without_a_division(tmp_path):
    """`range(lo, hi, BN)` advancing a block pointer by BN (attention's K/V loop), or
    `a_ptrs += BK * stride` in `range(0, K, BK)`: the offset after (n - lo) / BN steps is n
    itself (times the stride), not `(n - lo) / BN * BN`, which hides the tile's origin from the
    copy rule and the reader."""
    path = write(tmp_path, """
        @triton.jit
        def walk(x_ptr, y_ptr, out_ptr, N, K, lo, stride_y, BN: tl.constexpr, BK: tl.constexpr):
            blocks = tl.make_block_ptr(x_ptr, shape=(1, N), strides=(N, 1), offsets=(0, lo),
                                       block_shape=(1, BN), order=(1, 0))
            total = tl.zeros((1, BN), dtype=tl.float32)
            for n in range(lo, N, BN):
                total += tl.load(blocks)
                blocks = tl.advance(blocks, (0, BN))
            ys = y_ptr + tl.arange(0, BK) * stride_y
            other = tl.zeros((BK,), dtype=tl.float32)
            for k in range(0, K, BK):
                other += tl.load(ys)
                ys += BK * stride_y
            tl.store(out_ptr + tl.arange(0, BN), tl.sum(total, 0) + tl.sum(other, 0))
        """)
    (kernel,) = convert_triton(path, constexprs={"BN": 32, "BK": 16}).kernels
    reads = sorted(format_expr(e.index) for e in all_exprs(kernel.body) if isinstance(e, Load))
    # (block pointers multiply by their strides in 64 bits, as Triton's int64 strides do)
    assert reads == ["(((int64)(0 + i) * (int64)N) + (int64)((n + j) * 1))",
                     "((i * stride_y) + (k * stride_y))"], reads


NESTED = """
    @triton.jit
    def scale(x_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)


    def negate(x):
        @triton.jit
        def inner(x_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            tl.store(x_ptr + offs, -tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)
        inner[(triton.cdiv(x.numel(), 128),)](x, x.numel(), BLOCK=128)
    """


def test_a_kernel_defined_inside_a_host_function_is_reported_not_missed(tmp_path):
    """The old matmul tutorial defines and launches `kernel` inside `f8_to_f16`: it was not
    found at all. It is a TP205 failure beside the module-level kernels, which still convert;
    a file with only such kernels says so instead of 'no kernel'."""
    module = convert_triton(write(tmp_path, NESTED), constexprs={"BLOCK": 128})
    assert [k.name for k in module.kernels] == ["scale"]
    (failure,) = module.failures
    assert failure.name == "inner" and failure.diagnostic.code == "TP205"
    assert "defined inside the function 'negate'" in failure.diagnostic.message
    assert failure.diagnostic.loc.line == line_of(str(tmp_path / "kern.py"), "def inner")
    only = write(tmp_path, "\n    def negate" + NESTED.split("    def negate", 1)[1], "only.py")
    assert convert_error(only).diagnostic.code == "TP205"


def test_a_dtype_constexpr_looked_up_in_a_table_of_another_module_is_the_tensors_dtype(tmp_path):
    """Liger passes `torch_to_triton_dtype[X.dtype]` (a dict in its utils module) as
    `X_dtype: tl.constexpr`: the port is specialised for X's buffer dtype, whichever way that
    is known (an assert of a caller, --dtype), and the table is read from the other module."""
    ops = tmp_path / "lib" / "ops"
    ops.mkdir(parents=True)
    (tmp_path / "lib" / "__init__.py").write_text("")
    (ops / "__init__.py").write_text("")
    (ops / "utils.py").write_text(HEADER + "\ntorch_to_triton_dtype = {torch.float32: tl.float32, "
                                  "torch.float16: tl.float16, torch.bfloat16: tl.bfloat16}\n")
    body = textwrap.dedent("""
        from lib.ops.utils import torch_to_triton_dtype


        @triton.jit
        def scale(x_ptr, y_ptr, n, X_dtype: tl.constexpr, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            x = tl.load(x_ptr + offs, mask=offs < n, other=0.0).to(tl.float32)
            tl.store(y_ptr + offs, (x * 2.0).to(X_dtype), mask=offs < n)


        def launch(x):
            y = torch.empty_like(x)
            scale[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), torch_to_triton_dtype[x.dtype], BLOCK=256)
            return y
    """)
    plain = ops / "plain.py"
    plain.write_text(HEADER + body)
    (k,) = convert_triton(str(plain), dtypes={"x_ptr": "bfloat16"}).kernels
    assert k.constexprs["X_dtype"] == "bfloat16" and kinds(k)["x_ptr"] == ("buffer", "bfloat16")
    asserted = ops / "asserted.py"
    asserted.write_text(HEADER + body + "\n\ndef half(x):\n    assert x.dtype == torch.float16\n"
                        "    return launch(x)\n")
    (k,) = convert_triton(str(asserted)).kernels
    assert k.constexprs["X_dtype"] == "float16" and kinds(k)["x_ptr"] == ("buffer", "float16")
    chosen = ops / "chosen.py"  # Liger's group_norm: `tl.float32 if X.dtype == torch.float32 else tl.bfloat16`
    chosen.write_text(HEADER + body.replace("torch_to_triton_dtype[x.dtype]",
                                            "tl.float32 if x.dtype == torch.float32 else tl.bfloat16"))
    for given, expected in (("float16", "bfloat16"), ("float32", "float32")):
        (k,) = convert_triton(str(chosen), dtypes={"x_ptr": given}).kernels
        assert k.constexprs["X_dtype"] == expected, given


def test_a_flag_variant_generic_over_a_stride_the_main_form_fixes_is_kept():
    """With KEEP_HISTORY the history stride is unrolled into constants (fixed); without it the
    stride is unused (generic). The port keeps both forms, and refuses another stride only
    under the flag (before, the variant was dropped and KEEP_HISTORY=False refused)."""
    from porter.pipeline import print_port

    module = convert_triton(str(ROOT / "tests" / "fresh" / "triton" / "damped_steps.py"), find_generic=find_generic)
    text = print_port(module)
    # one program: the history stores branch on the flag; both flag values are variants
    assert text.count("@T.prim_func") == 1 and re.search(r"\n +if KEEP_HISTORY:\n +if offs < n:", text)
    assert re.search(r'    if KEEP_HISTORY:\n        _specialised\("_damped_steps_kernel", "stride_step"', text)
    assert "no variant for" not in text
    (k,) = module.kernels
    assert k.dtype_constexprs == ("OUT_DTYPE",) and k.constexprs["OUT_DTYPE"] == kinds(k)["out_ptr"][1]


def test_a_float_constexpr_of_one_never_names_a_size_one_fragment(tmp_path):
    """Liger's grpo_loss has `SAPO_TEMP_POS: tl.constexpr` = 1.0: the (1,) fragments of its
    scalar reductions printed as `(SAPO_TEMP_POS,)`, which TileLang rejects as a shape."""
    from porter.pipeline import print_port

    src = write(tmp_path, """
        @triton.jit
        def row_lse(x_ptr, out_ptr, n, TEMP: tl.constexpr, BLOCK: tl.constexpr):
            row = tl.program_id(0)
            offs = tl.arange(0, BLOCK)
            x = tl.load(x_ptr + row * n + offs, mask=offs < n, other=-float("inf")) / TEMP
            m = tl.max(x, axis=0)
            tl.atomic_add(out_ptr + row, m + tl.log(tl.sum(tl.exp(x - m), axis=0)))


        def launch(x, out):  # (an atomic keeps one row per block: its reductions are (1,))
            row_lse[(x.shape[0],)](x, out, x.shape[1], TEMP=1.0, BLOCK=128)
    """)
    text = print_port(convert_triton(src))
    assert "(TEMP,)" not in text and "T.alloc_fragment((1,), T.float32)" in text


def test_a_grid_size_named_like_a_kernel_local_gets_its_own_name(tmp_path):
    """The host's `bh` sizes the grid and the kernel's `bh = tl.program_id(1)` is a local: one
    name to the IR made the grid's size read as the program id, verify sized each buffer for
    one batch, and the original (the interpreter) read past its buffers and crashed."""
    from porter.verify.inputs import buffer_lengths, problem_sizes

    path = write(tmp_path, """
        @triton.jit
        def rows_copy(src, dst, n, s_bh, BLOCK: tl.constexpr):
            bh = tl.program_id(1)
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            keep = offs < n
            tl.store(dst + bh * s_bh + offs, tl.load(src + bh * s_bh + offs, mask=keep), mask=keep)


        def run(x):
            bh, n = x.shape
            y = torch.empty_like(x)
            rows_copy[(triton.cdiv(n, 128), bh)](x, y, n, x.stride(0), BLOCK=128)
            return y
    """)
    (k,) = convert_triton(path).kernels
    axis = k.launch.grid[1]
    assert isinstance(axis, Var) and axis.name != "bh" and "bh" in decls(k)
    sizes = problem_sizes(k, {})[0]
    lengths = buffer_lengths(k, sizes, {})
    # every program row's last element: (grid rows - 1) * s_bh + n
    assert lengths["src"] >= (sizes[axis.name] - 1) * sizes["s_bh"] + sizes["n"]


@pytest.mark.parametrize("grid", [
    "(n, triton.cdiv(k, min(triton.next_power_of_2(k), 512)))",
    "lambda meta: (n, triton.cdiv(k, triton.next_power_of_2(k) // 2))",
])
def test_a_grid_sized_by_a_host_helper_is_the_callers(tmp_path, grid):
    """A launch grid computed with `triton.next_power_of_2` (FlagGems' mean over a dim) has no
    TileLang spelling: a Triton port takes the caller's grid as parameters, so the grid's
    expression is never printed in the prim_func (it was: KeyError 'next_power_of_2', TP014)."""
    src = write(tmp_path, f"""
        @triton.jit
        def colmean(x_ptr, y_ptr, n, k, BLOCK: tl.constexpr):
            row = tl.program_id(0)
            cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
            x = tl.load(x_ptr + row * k + cols, mask=cols < k, other=0.0)
            tl.store(y_ptr + row * k + cols, x * 0.5, mask=cols < k)


        def launch(x, y):
            n, k = x.shape
            block = min(triton.next_power_of_2(k), 512)
            colmean[{grid}](x, y, n, k, BLOCK=block)
    """)
    from porter.pipeline import print_port
    from porter.reader import read_source
    from porter.pipeline import raise_to_tiles

    port = print_port(raise_to_tiles(read_source(str(src))))
    assert "with T.Kernel(grid_x, grid_y, threads=threads)" in port
    assert "next_power_of_2" not in port.split("def colmean_program")[1].split("@T.prim_func")[1].split("return colmean")[0]


@pytest.mark.parametrize("use", [
    "mask = cols < N",  # compared with offsets
    "mask = N > cols",  # the other way round
    "mask = cols + row * 0 < N",
    "mask = cols < BLOCK\n    x_ptr = x_ptr + (N - N)",  # in a pointer offset
])
def test_a_scalar_compared_with_offsets_is_an_integer_though_it_divides_a_sum(tmp_path, use):
    """`cols < N` and `tl.sum(x * x) / N` (RMS norms): N is an integer, not a float guessed from
    the division (verify drew N = 1.96 and sized the weight to one element)."""
    src = write(tmp_path, f"""
        @triton.jit
        def rms(x_ptr, w_ptr, y_ptr, stride, N, eps, BLOCK: tl.constexpr):
            row = tl.program_id(0)
            cols = tl.arange(0, BLOCK)
            {use}
            x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0)
            ms = tl.sum(x * x, axis=0) / N
            w = tl.load(w_ptr + cols, mask=mask)
            tl.store(y_ptr + row * stride + cols, x / tl.sqrt(ms + eps) * w, mask=mask)
    """.replace("\n    x_ptr", "\n            x_ptr"))
    (kernel,) = convert_triton(src).kernels
    assert kinds(kernel)["N"] == ("scalar", "int32")
    assert kinds(kernel)["eps"] == ("scalar", "float32")


def test_a_tile_of_loaded_targets_makes_its_buffer_an_index_buffer(tmp_path):
    """`tgt = tl.load(tgt_ptr + offs)` then `tl.load(w_ptr + tgt)` in a kernel that reduces (tile
    level: tgt is a tile): tgt_ptr holds indices, which verify draws below the index limit (it
    drew any int, and an NLL loss port read its weight at -47)."""
    from porter.ir.extents import index_buffers

    src = write(tmp_path, """
        @triton.jit
        def nll(inp_ptr, tgt_ptr, w_ptr, out_ptr, N, C, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            inside = offs < N
            tgt = tl.load(tgt_ptr + offs, mask=inside, other=0)
            w = tl.load(w_ptr + tgt, mask=inside, other=0.0)
            x = tl.load(inp_ptr + offs * C + tgt, mask=inside, other=0.0)
            tl.atomic_add(out_ptr, tl.sum(-x * w))
    """)
    (kernel,) = convert_triton(src).kernels
    assert any(isinstance(s, TileBuffer) and s.name == "tgt" for s in walk_stmts(kernel.body))
    assert index_buffers(kernel) == {"tgt_ptr"}


def test_a_scalar_made_float_is_a_float_unless_it_is_also_an_integer(tmp_path):
    """Liger's layer norm: `rsqrt(var + eps.to(tl.float32))`, eps a caller's argument of no
    written type: a float32 argument (an int32 one took eps=1e-6 as 0). `n.to(tl.float32)` of
    a size that also bounds the lanes stays an int32."""
    path = write(tmp_path, """
        @triton.jit
        def norm_kernel(x_ptr, y_ptr, n, eps, BLOCK: tl.constexpr):
            cols = tl.arange(0, BLOCK)
            x = tl.load(x_ptr + cols, mask=cols < n, other=0.0)
            var = tl.sum(x * x, axis=0) / n.to(tl.float32)
            tl.store(y_ptr + cols, x * tl.rsqrt(var + eps.to(tl.float32)), mask=cols < n)


        def norm(x, y, eps):
            norm_kernel[(1,)](x, y, x.numel(), eps, BLOCK=1024)
        """)
    k = convert_triton(path).kernels[0]
    assert kinds(k)["eps"] == ("scalar", "float32")
    assert kinds(k)["n"] == ("scalar", "int32")


def test_a_where_on_a_constexpr_is_the_operand_it_picks(tmp_path):
    """Liger's rope offsets its cos table by `tl.where(cos_bs == 1, row * stride, batch *
    (sl * stride) + row * stride)`, cos_bs a constexpr: the offset is the picked operand, not a
    select the address computes both sides of."""
    path = write(tmp_path, """
        @triton.jit
        def pick_kernel(x_ptr, y_ptr, stride, sl, CB: tl.constexpr, BLOCK: tl.constexpr):
            pid = tl.program_id(0)
            base = tl.where(CB == 1, (pid % sl) * stride, (pid // sl) * (sl * stride) + (pid % sl) * stride)
            cols = tl.arange(0, BLOCK)
            tl.store(y_ptr + pid * BLOCK + cols, tl.load(x_ptr + base + cols))


        def pick(x, y, stride, sl):
            pick_kernel[(4,)](x, y, stride, sl, CB=1, BLOCK=32)
        """)
    k = convert_triton(path).kernels[0]
    assert not [e for e in all_exprs(k.body) if isinstance(e, Select)]


DEGENERATE_FIRST = """
@triton.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def copy(x, y):
    if x.dim() == 0:
        copy_kernel[(1,)](x, y, 1, BLOCK=1)
    else:
        copy_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
"""


def test_the_defaults_come_from_a_launch_that_is_not_a_block_of_one(tmp_path):
    """A scalar's launch (`BLOCK=1`) before the vector's (`BLOCK=1024`): the port is built and
    printed for the vector's, generic over BLOCK, so the scalar's launch runs it too."""
    path = write(tmp_path, DEGENERATE_FIRST)
    (k,) = convert_triton(path).kernels
    assert k.constexprs["BLOCK"] == 1024
    from porter.pipeline import print_port, raise_to_tiles, read_source
    text = print_port(raise_to_tiles(read_source(path)), path)
    assert "def copy_kernel_program(BLOCK=1024," in text and '_specialised("copy_kernel"' not in text


EDGE_GUARD = """
@triton.jit
def row_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    v = tl.load(x_ptr + tl.program_id(0) * n + cols, mask=cols < n, other=0.0)
    tl.store(y_ptr + tl.program_id(0) * n + cols, v * 2, mask=cols < n)


def rows(x, y):
    def _next_pow2(v):
        if v <= 1:
            return 1
        return 1 << (v - 1).bit_length()

    BLOCK = min(4096, _next_pow2(x.shape[1]))
    row_kernel[(x.shape[0],)](x, y, x.shape[1], BLOCK=BLOCK)
"""


def test_a_helpers_edge_case_return_is_not_taken_for_its_value(tmp_path):
    """`if v <= 1: return 1` before the general return: the block is not 1 (the value the
    general return has is unknown here, so the kernel's own use chooses one)."""
    (k,) = convert_triton(write(tmp_path, EDGE_GUARD)).kernels
    assert k.constexprs["BLOCK"] > 1


AUTOTUNED = """
@triton.autotune(configs=[triton.Config({"ROWS": 1, "BLOCK": 128}), triton.Config({"ROWS": 4, "BLOCK": 128})],
                 key=["n"])
@triton.jit
def rows_kernel(x_ptr, y_ptr, m, n, ROWS: tl.constexpr, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK)
    mask = (rows[:, None] < m) & (cols[None, :] < n)
    offs = rows[:, None] * n + cols[None, :]
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2, mask=mask)


def rows(x, y):
    rows_kernel[lambda meta: (triton.cdiv(x.shape[0], meta["ROWS"]),)](x, y, x.shape[0], x.shape[1])
"""


def test_the_default_autotune_config_is_the_first_without_a_block_of_one(tmp_path):
    """Config 0 blocks one row (ROWS=1), the degenerate case: the port is built for config 1,
    unless --config asks for another."""
    path = write(tmp_path, AUTOTUNED)
    (k,) = convert_triton(path).kernels
    assert k.constexprs["ROWS"] == 4
    (k,) = convert_triton(path, config=0).kernels
    assert k.constexprs["ROWS"] == 1


DISPATCH_HELPER = """
@triton.jit
def cast_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr, OUT_DTYPE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n).to(OUT_DTYPE), mask=offs < n)


def _to_triton_dtype(dtype):
    if dtype == torch.float32:
        return tl.float32
    if dtype == torch.float16:
        return tl.float16
    return None


def cast(x, y):
    cast_kernel[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), BLOCK=256, OUT_DTYPE=_to_triton_dtype(y.dtype))
"""


def test_a_helpers_returns_chosen_by_equality_are_its_cases_not_edge_cases(tmp_path):
    """`if dtype == torch.float32: return tl.float32` picks a case: the first known return is
    the helper's value, as before (only a bound, `if v <= 1`, marks an edge case)."""
    (k,) = convert_triton(write(tmp_path, DISPATCH_HELPER)).kernels
    assert str(k.constexprs["OUT_DTYPE"]).endswith("float32")
