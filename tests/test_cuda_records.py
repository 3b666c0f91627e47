"""CUDA structs whose fields are not all scalars: vector and struct fields in locals and
by-value parameters, pointer and array fields of by-value parameters, structs in memory that
flatten to one scalar type, and the coded refusals of what has no flat form. The samples are
also verified end to end by test_verify.py's fresh samples."""

from __future__ import annotations

import numpy as np
import pytest

from porter.diagnostics import NoKernelConverted
from porter.frontends.cuda import convert_cuda
from porter.ir.nodes import BufferParam, ScalarParam
from porter.verify.driver import _c_arguments
from tests.conftest import ROOT
from tests.test_cuda_projects import _port_module

THREAD = ROOT / "tests" / "fresh" / "cuda_thread"


def _kernel(module, name):
    return next(k for k in module.kernels if k.name == name)


def test_vector_and_struct_fields_flatten_to_one_local_or_parameter_each():
    module = convert_cuda(str(THREAD / "nested_struct_fields.cu"))
    assert not module.failures
    march = _kernel(module, "march")
    fields = [(p.name, p.member.field, p.member.offset) for p in march.params if isinstance(p, ScalarParam) and p.member]
    assert fields == [("where_a_x", "a.x", 0), ("where_a_y", "a.y", 4), ("where_a_z", "a.z", 8),
                      ("where_b_x", "b.x", 12), ("where_b_y", "b.y", 16), ("where_b_z", "b.z", 20)]
    shade = _kernel(module, "shade")
    tint = [p for p in shade.params if p.name.startswith("f_tint")]
    assert [(p.dtype, p.member.offset) for p in tint] == [("uint8", 16), ("uint8", 17), ("uint8", 18), ("uint8", 19)]


def test_pointer_and_array_fields_of_a_struct_parameter_are_buffers_of_the_port(tmp_path):
    module = convert_cuda(str(THREAD / "struct_pointer_fields.cu"))
    assert not module.failures
    arrays = _kernel(module, "scale_arrays")
    buffers = {p.name: (p.member.field, p.member.count) for p in arrays.params if isinstance(p, BufferParam)}
    assert buffers == {"a_in": ("in", 0), "a_out": ("out", 0)} and arrays.param("a_out").written
    fir = _kernel(module, "fir")
    assert fir.param("t_weight").member.count == 8 and fir.param("t_weight").dtype == "float32"
    # the original's arguments: the array's elements inside the struct's bytes, after them `width`
    weights = np.arange(8, dtype=np.float32)
    args = [np.zeros(4, np.float32), np.zeros(4, np.float32), 4, weights, 3]
    c_args, _, where = _c_arguments(fir, args)
    struct = c_args[where[fir.params.index(fir.param("t_weight"))]]
    assert struct[:32].view(np.float32).tolist() == weights.tolist() and struct[32:36].view(np.int32)[0] == 3
    # pointer fields travel beside the struct's bytes, at their offsets
    a_in, a_out = np.ones(3, np.float32), np.zeros(3, np.float32)
    c_args, _, where = _c_arguments(arrays, [a_in, a_out, 3, 2.0])
    assert c_args[0].pointers == {0: a_in, 8: a_out} and c_args[0].raw[16:20] == np.int32(3).tobytes()
    # the port's wrapper takes the struct as CUDA does: an object, a mapping or a tuple
    port = _port_module(tmp_path, THREAD / "struct_pointer_fields.cu")
    assert "a_in = _member(a, \"in\", 0)" in (tmp_path / "port_tl.py").read_text()
    assert port._member((1, 2, 7), "count", 2) == 7  # a tuple's own count() is no field


def test_structs_in_memory_of_one_scalar_type_are_flat_buffers():
    module = convert_cuda(str(THREAD / "struct_buffers_nested.cu"))
    assert not module.failures
    assert _kernel(module, "paint").param("v").dtype == "float32"
    assert _kernel(module, "radius").param("pts").dtype == "float32"
    xform = _kernel(module, "transform").param("c_xform")
    assert (xform.symbol, xform.symbol_count, xform.dtype) == ("c_xform", 12, "float32")
    table = _kernel(module, "poly").param("c_table")
    assert (table.symbol, table.symbol_count) == ("c_table", 12)


def test_structs_in_memory_without_a_flat_form_are_refused_with_a_code(tmp_path):
    src = tmp_path / "k.cu"
    src.write_text("struct Mixed { float w; int id; };\n"
                   "struct Line { float2 cp[3]; float2 *verts; };\n"
                   "__constant__ Mixed c_m;\n"
                   "__global__ void a(Mixed *m, float *o) { o[threadIdx.x] = m[threadIdx.x].w; }\n"
                   "__global__ void b(Line *l, float *o) { o[threadIdx.x] = l[0].cp[1].x; }\n"
                   "__global__ void c(float *o) { o[threadIdx.x] = c_m.w; }\n"
                   "union U { float f; int i; };\n"
                   "__global__ void d(float *o, U u) { o[threadIdx.x] = u.f; }\n")
    with pytest.raises(NoKernelConverted) as refused:
        convert_cuda(str(src))
    found = {f.name: f.diagnostic for f in refused.value.failures}
    # a pointer held in memory has no TileLang equivalent (TP156); the rest are not supported yet
    assert {name: d.code for name, d in found.items()} == {"a": "TP122", "b": "TP156", "c": "TP122", "d": "TP122"}
    assert "mixes field types (float32, int32)" in found["a"].message and found["a"].loc.line == 4
    assert "'verts' is a pointer" in found["b"].message
    assert "mixes field types" in found["c"].message and found["c"].loc.line == 6
    assert "union" in found["d"].message
