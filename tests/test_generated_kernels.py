"""Kernels a library's decorator generates (porter/frontends/triton/generators.py): FlagGems'
`@pointwise_dynamic` expanded into an elementwise @triton.jit kernel around the unchanged scalar
function; the port keeps the library's calling convention (broadcast, torch's type promotion,
`outN=`), and verify compares it with that kernel run in the interpreter.

The samples in tests/generated import the decorator in several spellings from a stand-in
package beside them (mylib), which is never run."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import textwrap

import pytest

from porter.diagnostics import NoKernelConverted, TileportError
from porter.frontends.triton import generators
from porter.frontends.triton.module import convert_triton
from porter.verify.triton_extract import extract
from tests.conftest import ROOT

SAMPLES = {"tests/generated/unary.py": ["erf_gelu", "soft_sign"],
           "tests/generated/binary_broadcast.py": ["smooth_max"],
           "tests/generated/tensor_scalar.py": ["clamp_scalars", "above"],
           "tests/generated/two_outputs.py": ["split_scale"],
           "tests/generated/bitwise.py": ["mix_bits", "halve_masked"]}


@pytest.mark.parametrize("rel", sorted(SAMPLES))
def test_each_decorated_function_is_a_kernel_under_its_own_name(rel):
    module = convert_triton(str(ROOT / rel))
    assert [k.name for k in module.kernels] == SAMPLES[rel]
    assert not module.failures
    for k in module.kernels:
        assert k.generated["generator"] == "pointwise_dynamic"
        assert k.loc.line > 1  # the decorated function's own line in the user's file


def test_the_schema_gives_the_kernel_its_parameters_and_output_dtypes():
    module = convert_triton(str(ROOT / "tests/generated/tensor_scalar.py"))
    clamp, above = module.kernels
    assert [(p.name, p.dtype, type(p).__name__) for p in clamp.params[:5]] == [
        ("x", "float32", "BufferParam"), ("lo", "float32", "ScalarParam"), ("hi", "float32", "ScalarParam"),
        ("out0", "float32", "BufferParam"), ("n_elements", "int32", "ScalarParam")]
    assert above.param("out0").dtype == "bool"  # ALWAYS_BOOL
    assert clamp.generated["inputs"] == [("x", True), ("lo", False), ("hi", False)]
    assert clamp.generated["promotions"] == [([0, 1, 2], "DEFAULT")]
    two = convert_triton(str(ROOT / "tests/generated/two_outputs.py")).kernels[0]
    assert [p.name for p in two.params if p.name.startswith("out")] == ["out0", "out1"]


def test_a_body_triton_refuses_on_floats_is_converted_for_int32_inputs():
    mix, halve = convert_triton(str(ROOT / "tests/generated/bitwise.py")).kernels
    assert [(p.name, p.dtype) for p in mix.params[:3]] == [("a", "int32"), ("b", "int32"), ("out0", "int32")]
    assert [(p.name, p.dtype) for p in halve.params[:3]] == [("a", "int32"), ("m", "int32"), ("out0", "float32")]


def test_the_scalar_function_stays_unchanged_beside_the_kernel(tmp_path):
    tree = ast.parse((ROOT / "tests/generated/unary.py").read_text())
    expansions, failures = generators.expand(tree, "unary.py")
    assert not failures and [e.name for e in expansions] == ["erf_gelu", "soft_sign"]
    expanded = generators.expanded_tree(tree, expansions)
    helper = next(n for n in expanded.body if isinstance(n, ast.FunctionDef) and n.name == "erf_gelu_scalar")
    original = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "erf_gelu")
    assert ast.dump(helper.body[-1]) == ast.dump(original.body[-1])
    assert "erf_gelu_scalar(x_value)" in ast.unparse(expansions[0].kernel)


def test_verifys_copy_holds_the_kernel_around_the_original_scalar_function(tmp_path):
    copy = extract(str(ROOT / "tests/generated/two_outputs.py"), tmp_path).read_text()
    assert "@utils.pointwise_dynamic" not in copy and "from mylib import utils" not in copy
    assert "split_scale_scalar = split_scale" in copy
    assert "out0_value, out1_value = split_scale_scalar(x_value, y_value)" in copy
    assert "def frac_parts" not in copy  # the module's host code is not kept
    # one name for triton.language: the interpreter patches it once per name it finds
    assert "_tileport_tl" not in copy


def test_a_module_without_its_own_tl_gets_one(tmp_path):
    source = tmp_path / "bare.py"
    source.write_text(textwrap.dedent("""
        from triton import jit
        import triton.language as lang
        from mylib.utils import pointwise_dynamic

        @pointwise_dynamic(promotion_methods=[(0, "DEFAULT")])
        @jit
        def relu(x):
            return lang.maximum(x, 0.0)
    """))
    copy = extract(str(source), tmp_path / "copy").read_text()
    # `tl`: the interpreter reads annotations as text, and another alias's constexpr is none
    assert "import triton.language as tl\n" in copy and "BLOCK_SIZE: tl.constexpr" in copy
    assert [k.name for k in convert_triton(str(source)).kernels] == ["relu"]
    import numpy as np

    from porter.verify.triton_exec import run_kernel

    x = np.linspace(-1, 1, 9, dtype=np.float32)
    _, out, _ = run_kernel(str(source), "relu", (1,), [x, np.zeros_like(x), 9], {"BLOCK_SIZE": 16})
    assert np.array_equal(out, np.maximum(x, 0))


def test_unreadable_decorator_arguments_are_tp203_naming_the_function(tmp_path):
    source = tmp_path / "dyn.py"
    source.write_text(textwrap.dedent("""
        import triton
        import triton.language as tl
        from mylib.utils import pointwise_dynamic

        KINDS = [(0, "DEFAULT")]

        @pointwise_dynamic(promotion_methods=KINDS)
        @triton.jit
        def neg(x):
            return -x

        @pointwise_dynamic(is_tensor=[True, True], promotion_methods=[(0, "DEFAULT")])
        @triton.jit
        def one_arg(x):
            return x
    """))
    with pytest.raises(NoKernelConverted) as info:
        convert_triton(str(source))
    failures = {f.name: f.diagnostic for f in info.value.failures}
    assert failures["neg"].code == "TP203" and "promotion_methods=KINDS" in failures["neg"].message
    assert failures["one_arg"].code == "TP203" and "takes 1 arguments" in failures["one_arg"].message


def test_an_unlisted_generator_stays_tp203_naming_it(tmp_path):
    source = tmp_path / "other.py"
    source.write_text(textwrap.dedent("""
        import triton
        import triton.language as tl
        from mylib.codegen import elementwise_template

        @elementwise_template(promotion_methods=[(0, "DEFAULT")])
        @triton.jit
        def neg(x):
            return -tl.abs(x)
    """))
    with pytest.raises(TileportError) as info:
        convert_triton(str(source))
    assert info.value.diagnostic.code == "TP203" and "@elementwise_template" in info.value.diagnostic.message


# ------------------------------------------------------------------ the port's host function


def _port(tmp_path, rel):
    out = tmp_path / (rel.replace("/", "_")[:-3] + "_tl.py")
    done = subprocess.run([sys.executable, "-m", "porter.cli", "convert", rel, "-o", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    text = out.read_text()  # plain TileLang and torch: neither tileport nor the library
    assert "porter" not in text and "mylib" not in text and "@pointwise_dynamic" not in text
    imported = {(n.module or "") if isinstance(n, ast.ImportFrom) else a.name
                for n in ast.walk(ast.parse(text)) if isinstance(n, (ast.Import, ast.ImportFrom))
                for a in n.names}
    assert {m.split(".")[0] for m in imported} <= {"tilelang", "torch", "functools"}
    from porter.verify.port_exec import load_port

    return load_port(str(out))


@pytest.mark.slow
def test_the_port_broadcasts_and_promotes_as_the_library_does(tmp_path):
    import torch

    binary = _port(tmp_path, "tests/generated/binary_broadcast.py")
    a, b = torch.randn(3, 1, 5), torch.randn(1, 4, 1)
    out = binary.smooth_max(a, b, target="c")
    expected = torch.maximum(a, b) + torch.log(1 + torch.exp(-(a - b).abs()))
    assert out.shape == (3, 4, 5) and out.dtype == torch.float32
    assert torch.allclose(out, expected, atol=1e-5)
    given = torch.empty(5, 4, 3).permute(2, 1, 0)  # a non-contiguous out0 is written through
    assert binary.smooth_max(a, b, out0=given, target="c") is given
    assert torch.allclose(given, expected, atol=1e-5)
    with pytest.raises(RuntimeError, match="broadcast to"):
        binary.smooth_max(a, b, out0=torch.empty(3, 4), target="c")
    with pytest.raises(TypeError, match="float32"):  # the port is specialised for float32
        binary.smooth_max(a.double(), b.double(), target="c")

    scalars = _port(tmp_path, "tests/generated/tensor_scalar.py")
    x = torch.randn(2, 7)
    clamped = scalars.clamp_scalars(x, -0.5, 0.25, target="c")
    assert clamped.dtype == torch.float32 and torch.equal(clamped, x.clamp(-0.5, 0.25))
    flags = scalars.above(x, 0.1, target="c")
    assert flags.dtype == torch.bool and torch.equal(flags, x > 0.1)  # ALWAYS_BOOL

    two = _port(tmp_path, "tests/generated/two_outputs.py")
    whole, part = two.split_scale(x, torch.full((7,), 3.0), target="c")
    assert torch.equal(whole, torch.floor(x)) and torch.allclose(part, (x - torch.floor(x)) * 3.0)


# ------------------------------------------------------------------ the port's shape


def _converted(rel, tmp_path) -> str:
    out = tmp_path / (rel.replace("/", "_") + "_tl.py")
    done = subprocess.run([sys.executable, "-m", "porter.cli", "convert", rel, "-o", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return out.read_text()


def test_an_elementwise_kernel_is_printed_as_its_body_of_one_element(tmp_path):
    """What the original's author wrote is the scalar function: the port is that function over
    one element's values (inputs and outputs annotated with their dtypes), under the helpers'
    `@_elementwise` (its one program copies the tiles): no program, launcher or host of its own."""
    two = _converted("tests/generated/two_outputs.py", tmp_path)
    assert '@_elementwise(promotions=(((0,), "DEFAULT"), ((0, 1), "DEFAULT")))\n' \
           "def split_scale(x: T.float32, y: T.float32) -> (T.float32, T.float32):\n" \
           "    whole = T.floor(x)\n    return whole, (x - whole) * y\n" in two
    assert "split_scale_program" not in two and "split_scale_kernel" not in two
    scalars = _converted("tests/generated/tensor_scalar.py", tmp_path)
    assert "@_elementwise(promotions=(((0, 1, 2), \"DEFAULT\"),), tensors=(True, False, False))\n" \
           "def clamp_scalars(x: T.float32, lo: T.float32, hi: T.float32) -> T.float32:" in scalars
    assert "def above(x: T.float32, threshold: T.float32) -> T.bool:\n    return x > threshold" in scalars
    bits = _converted("tests/generated/bitwise.py", tmp_path)  # converted for int32 inputs
    assert "def mix_bits(a: T.int32, b: T.int32) -> T.int32:" in bits
    assert "def halve_masked(a: T.int32, m: T.int32) -> T.float32:" in bits


def test_a_generated_kernel_whose_body_is_more_than_its_elements_keeps_its_program():
    """elementwise_body takes the generated frame and nothing else: a frame with a constexpr
    besides the block, or a body reading another element, keeps the whole program."""
    import dataclasses

    from porter.match import raise_module
    from porter.transforms.elementwise_body import elementwise_body
    from porter.transforms.printable import printable

    (kernel,) = raise_module(convert_triton(str(ROOT / "tests/generated/binary_broadcast.py")), "auto", None).kernels
    ready = printable(kernel)
    form = ready.emit_as or ready
    body = elementwise_body(form, form.printable.body, kernel.generated)
    assert [name for name, _, _ in body.inputs] == ["a", "b"] and len(body.results) == 1
    assert elementwise_body(dataclasses.replace(form, constexprs={**form.constexprs, "MODE": 1}),
                            form.printable.body, kernel.generated) is None
    assert elementwise_body(form, form.printable.body, None) is None  # not a library's kernel
    from porter.ir.nodes import Var
    from porter.ir.tiles import ParallelFor, TileLoad, TileStore

    def neighbour(s):  # out0[i] = a[j]: an element other than its own
        if isinstance(s, ParallelFor):
            store = next(t for t in s.body if isinstance(t, TileStore))
            read = TileLoad("a_value", (Var("j", "int32"),), "float32")
            return dataclasses.replace(s, body=[dataclasses.replace(store, value=read)])
        return s

    assert elementwise_body(form, [neighbour(s) for s in form.printable.body], kernel.generated) is None


# ------------------------------------------------------------------ verify against the original


def _verify(rel, tmp_path, *extra):
    port = tmp_path / "port_tl.py"
    run = [sys.executable, "-m", "porter.cli"]
    assert subprocess.run(run + ["convert", rel, "-o", str(port)], cwd=ROOT, capture_output=True,
                          timeout=300).returncode == 0
    result = subprocess.run(run + ["verify", rel, str(port), "--format", "json", *extra], cwd=ROOT,
                            capture_output=True, text=True, timeout=900)
    return port, result


@pytest.mark.slow
@pytest.mark.parametrize("rel", sorted(SAMPLES))
def test_generated_kernels_verify_against_the_library_kernel(rel, tmp_path):
    extra = [] if rel.endswith("binary_broadcast.py") else ["--no-compile-check"]
    _, result = _verify(rel, tmp_path, *extra)
    report = json.loads(result.stdout)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert sorted(k["kernel"] for k in report["kernels"]) == sorted(SAMPLES[rel])
    for k in report["kernels"]:
        assert k["verdict"] == "equivalent" and len(k["cases"]) >= 2
        if not extra:
            assert all(c["ok"] in (True, None) for c in k["compile"].values()), k["compile"]


@pytest.mark.slow
def test_a_changed_scalar_body_in_the_port_is_a_mismatch(tmp_path):
    port, _ = _verify("tests/generated/binary_broadcast.py", tmp_path, "--no-compile-check")
    text = port.read_text()
    assert "T.max(a, b)" in text  # the body over one element's values (an elementwise body)
    port.write_text(text.replace("T.max(a, b)", "T.min(a, b)", 1))
    result = subprocess.run([sys.executable, "-m", "porter.cli", "verify", "tests/generated/binary_broadcast.py",
                             str(port), "--format", "json", "--no-compile-check"], cwd=ROOT,
                            capture_output=True, text=True, timeout=900)
    assert result.returncode == 1
    assert json.loads(result.stdout)["kernels"][0]["verdict"] == "mismatch"


def test_a_migrated_elementwise_body_is_run_and_compiled_as_its_helpers_build_it(tmp_path):
    """In a migrated tree an elementwise body's program is built by the folder's launch
    helpers: verify's loader names its kernel and program, compiles them with the helpers'
    pass configs (the ones the port runs with), and puts its C-target stand-ins on the
    helpers module once however many ports load it."""
    from porter.verify.port_exec import load_port, pass_configs
    from porter.verify.port_module import launcher_module

    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "porter.cli", "migrate", "tests/generated", "-o", str(out),
                           "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert (out / "unary_tl.py").is_file(), done.stdout + done.stderr
    unary = load_port(str(out / "unary_tl.py"))
    helpers = launcher_module(unary)
    assert helpers is not None and helpers.__file__.endswith("_tileport_launch.py")
    assert unary.erf_gelu_program is unary.erf_gelu.program and unary.erf_gelu_kernel is unary.erf_gelu.kernel
    assert pass_configs(unary) == helpers._PASS_CONFIGS and helpers._PASS_CONFIGS
    stand_in = helpers._compiled
    load_port(str(out / "two_outputs_tl.py"))
    assert helpers._compiled is stand_in  # installed once
