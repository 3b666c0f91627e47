"""CUDA locals named another way: pointers to locals (out-parameters, `float *best = &a`), local
references (`uint &e = edges[i]`, `auto &v = local`), vector values spelled as constructors
(`float4{...}`, `half2(x, y)`), and the coded refusals of what stays unsupported. The samples are
verified end to end by test_verify.py's fresh samples."""

from __future__ import annotations

import pytest

from porter.diagnostics import NoKernelConverted
from porter.frontends.cuda import convert_cuda
from porter.ir.nodes import Decl, Store
from porter.ir.printer import format_expr
from porter.ir.walk import walk_stmts
from tests.conftest import ROOT

THREAD = ROOT / "tests" / "fresh" / "cuda_thread"


def _kernel(module, name):
    return next(k for k in module.kernels if k.name == name)


def _stores(kernel):
    return [s for s in walk_stmts(kernel.body) if isinstance(s, Store)]


def test_out_parameters_and_bound_pointers_are_the_locals_they_point_to():
    module = convert_cuda(str(THREAD / "pointers_to_locals.cu"))
    assert not module.failures
    out = _kernel(module, "out_params")
    assert [p.name for p in out.params] == ["x", "y", "n"]
    # `*tnear = ...`, `v->x *= s`, `s->lo = a`: assignments to the caller's locals, never stores
    assert {s.buffer for s in _stores(out)} == {"y"}
    names = {s.var.name for s in walk_stmts(out.body) if isinstance(s, Decl)}
    assert {"tnear", "tfar", "v_x", "sp_lo", "sp_hi", "lo", "hi"} <= names
    bound = _kernel(module, "bound_pointers")
    # `&acc[i % 4]` and `acc + 1` are the local array at an offset
    assert {s.buffer for s in _stores(bound)} == {"y", "acc"}


def test_local_references_name_their_element_with_the_index_taken_once():
    module = convert_cuda(str(THREAD / "local_references.cu"))
    assert not module.failures
    loops = _kernel(module, "invalidate_loops")
    stores = _stores(loops)
    assert {s.buffer for s in stores} == {"edges"}
    assert {format_expr(s.index) for s in stores} == {"endpoint_index"}
    aliases = _kernel(module, "aliases")
    later = [s for s in _stores(aliases) if s.buffer == "sums"][0]
    assert format_expr(later.index) == "later_index"  # `j` as it was when `later` was bound


def test_vector_constructor_spellings_and_half2_arrays_to_pointer_parameters():
    module = convert_cuda(str(THREAD / "vector_constructors.cu"))
    assert not module.failures
    assert {k.name for k in module.kernels} == {"build", "dot_half2"}


@pytest.mark.parametrize("body, code, words", [
    ("float a = x[i], b = 1.f; float *p = &a; if (b > a) p = &b; *p = 0.f; x[i] = a + b;",
     "TP133", "re-pointing it is not supported"),
    ("float a = x[i]; float *p = &a; x[i] = p[1];", "TP133", "only '*p', 'p[0]'"),
    ("float4 *v = reinterpret_cast<float4 *>(x); float4 &r = v[i]; r.x = 1.f;", "TP122",
     "vector or struct in memory"),
    ("int k = i; float *p = (float *)&k; x[i] = *p;", "TP133", "of the local's own type"),
])
def test_what_stays_unsupported_is_refused_with_a_code(tmp_path, body, code, words):
    src = tmp_path / "k.cu"
    src.write_text("__global__ void k(float *x) {\n"
                   "  int i = threadIdx.x;\n"
                   f"  {body}\n"
                   "}\n")
    with pytest.raises(NoKernelConverted) as refused:
        convert_cuda(str(src))
    diagnostic = refused.value.failures[0].diagnostic
    assert diagnostic.code == code and words in diagnostic.message and diagnostic.loc.line == 3


def test_bool_buffers_reach_the_c_device_code_as_int8():
    from tilelang.jit.adapter import wrapper

    from porter.verify.cpu_target import enable_bfloat16

    enable_bfloat16()
    assert wrapper.TLCPUSourceWrapper._TYPE_MAP["bool"] == "int8_t"
