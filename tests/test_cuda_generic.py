"""A template kernel is one port: instances behind the template's name, programs generic over
the value parameters whose text they only spell, per instance where a value decides."""

from __future__ import annotations

import inspect
import re

import numpy as np
import pytest
import torch

from porter.ir.symbolic_ints import IntSpelling
from porter.frontends.cuda.generic_templates import _deciding_names
from tests.conftest import ROOT, load_cuda_port

SAMPLE = ROOT / "tests" / "fresh" / "cuda_thread" / "generic_block_templates.cu"


@pytest.fixture(scope="module")
def port(tmp_path_factory):
    return load_cuda_port(SAMPLE, tmp_path_factory.mktemp("generic"), "generic_port_tl")


def test_a_value_the_text_only_spells_is_a_parameter_of_the_program(port):
    assert inspect.signature(port.scale_pairs_float_128_program).parameters["BLOCK"].default == 128
    text = inspect.getsource(port.scale_pairs_float_128_program)
    # the block, the stride of 2 * BLOCK and the launch's rounding-up division, all by name
    assert "threads=BLOCK" in text and "bx * (BLOCK * 2)" in text and "T.ceildiv(n, BLOCK * 2)" in text
    assert "128" not in text[text.index("with T.Kernel"):text.index("    return")]


def test_a_generic_template_port_runs_values_no_instance_held(port):
    n = 1000
    x = torch.arange(n, dtype=torch.float32)
    for block in (128, 256, 32):  # 128 converted; 256 and 32 only through the generic program
        y = torch.zeros(n)
        port.scale_pairs[(n + 2 * block - 1) // (2 * block), block](x, y, 3.0, n, target="c")
        np.testing.assert_array_equal(y.numpy(), 3.0 * x.numpy())
    assert port.scale_pairs.instance(torch.float32, 256)._block == (256, 1, 1)
    xd, yd = torch.arange(n, dtype=torch.float64), torch.zeros(n, dtype=torch.float64)
    port.scale_pairs[(n + 15) // 16, 8](xd, yd, 0.5, n, target="c")  # the double instance, BLOCK = 8
    np.testing.assert_array_equal(yd.numpy(), 0.5 * xd.numpy())


def test_the_template_picks_its_instance_by_dtypes_and_block_or_by_name(port):
    assert port.scale_pairs.instance("double", 64) is port.scale_pairs_double_64
    assert port.scale_pairs.instance(T_=torch.float32, BLOCK=128) is port.scale_pairs_float_128
    with pytest.raises(TypeError, match="no instance"):
        port.scale_pairs[1, 64](torch.zeros(4, dtype=torch.int32), torch.zeros(4, dtype=torch.int32), 1, 4)
    with pytest.raises(ValueError, match="holds the instances"):
        port.scale_pairs.instance("half", 128)
    with pytest.raises(TypeError, match="template parameters"):
        port.scale_pairs.instance("float", 128, 3)


def test_a_value_that_decides_a_branch_keeps_one_program_per_instance(port):
    # `if (BLOCK >= 256)` is folded per instance: a program taking BLOCK would be right at 256
    # and wrong at 128
    assert "BLOCK" not in inspect.signature(port.wide_or_narrow_256_program).parameters
    assert port.wide_or_narrow.instance(64) is port.wide_or_narrow_64
    with pytest.raises(ValueError, match="holds the instances"):
        port.wide_or_narrow.instance(128)
    assert "BLOCK" not in inspect.signature(port.block_sums_64_program).parameters or \
        "BLOCK" in inspect.signature(port.block_sums_256_program).parameters


@pytest.mark.parametrize("body, deciding", [
    ("{ if (B >= 64 && threadIdx.x < 32) x[0] = 1; }", {"B"}),      # a folded part of a condition
    ("{ int v = B > 4 ? 1 : 2; x[0] = v; }", {"B"}),                # ?: over constants
    ("{ static_assert(B % 32 == 0, \"warps\"); x[0] = B; }", {"B"}),
    ("{ if constexpr (B == 1) x[0] = 1; }", {"B"}),
    ("{ reduce_warp<B>(x); }", {"B"}),                             # another template's argument
    ("{ if (x[0] < B) x[1] = 2; }", set()),                         # a run-time comparison
    ("{ for (int k = B / 2; k > 0; k >>= 1) x[k] = 0; }", set()),   # text comparison judges loops
])
def test_parameters_that_decide_at_compile_time_are_found_in_several_spellings(body, deciding):
    tokens = ["template", "<", "int", "B", ">", "__global__", "void", "f", "(", "int", "*", "x", ")"]
    tokens += re.findall(r'[A-Za-z_]\w*|\d+|"[^"]*"|&&|\|\||>>=|<=|>=|==|!=|\S', body)  # as clang tokenizes
    assert _deciding_names(tokens, {"B"}) == deciding


def test_integers_are_spelled_after_the_values_that_explain_them_and_evaluate_back():
    spelling = IntSpelling({"BLOCK": 512})
    assert [spelling.text(v) for v in (512, 1024, 256, 1023, 511, 3, 700)] == \
        ["BLOCK", "(BLOCK * 2)", "(BLOCK // 2)", "(BLOCK * 2 - 1)", "(BLOCK - 1)", "3", "700"]
    at_real = IntSpelling({"BLOCK": 512}, evaluate_at={"BLOCK": 128})
    assert [at_real.text(v) for v in (512, 1024, 1023)] == ["128", "256", "255"]


@pytest.mark.parametrize("body, deciding", [
    ("{ unsigned m = (B & 31); x[0] = m; }", {"B"}),                       # a bit operation folds
    ("{ const int e = (B / warpSize) > 0 ? (B / warpSize) : 1; x[e] = 0; }", {"B"}),
    ("{ if (B >= 64) x[threadIdx.x] += x[threadIdx.x + 32]; }", {"B"}),   # the condition alone
    ("{ x[threadIdx.x & (B - 1)] = 0; }", set()),                          # a run-time mask
    ("{ int i = blockIdx.x * B * 2 + threadIdx.x; x[i] = B; }", set()),   # linear: spelled
])
def test_folded_values_a_text_cannot_spell_are_found_too(body, deciding):
    tokens = ["template", "<", "int", "B", ">", "__global__", "void", "f", "(", "int", "*", "x", ")"]
    tokens += re.findall(r'[A-Za-z_]\w*|\d+|&&|\|\||>>=|<<|>>|<=|>=|==|!=|\S', body)
    assert _deciding_names(tokens, {"B"}) == deciding
