"""The branch of a module-level `try:` or Triton feature `if` tileport reads
(porter/frontends/triton/static_branches)."""

import ast
import textwrap

from porter.frontends.triton.static_branches import taken_branch, taken_if_branch, triton_modules


def _try(text):
    (st,) = ast.parse(textwrap.dedent(text)).body
    return st


def test_a_body_of_imports_and_paths_is_taken():
    st = _try("""
        try:
            from triton.language.extra.cuda import libdevice as shim
        except ImportError:
            shim = triton.language.math
    """)
    assert taken_branch(st) is st.body


def test_a_body_that_runs_host_code_gives_way_to_the_first_static_handler():
    st = _try("""
        try:
            backend.select(device.vendor)
            shim = backend.math()
        except RuntimeError:
            shim = fallback()
        except ImportError:
            import triton
            try:
                shim = triton.language.extra.libdevice
            except AttributeError:
                shim = triton.language.math
    """)
    assert taken_branch(st) is st.handlers[1].body


def test_no_static_branch_keeps_the_body():
    st = _try("""
        try:
            shim = pick()
        except ImportError:
            shim = other()
    """)
    assert taken_branch(st) is st.body


def test_an_if_chain_of_triton_feature_tests_takes_the_branch_the_installed_triton_takes():
    tree = ast.parse(textwrap.dedent("""
        import triton
        from triton import language as lang
        if hasattr(triton.language, "no_triton_has_this") or not hasattr(lang, "abs"):
            pick = 1
        elif hasattr(lang, "abs") and hasattr(triton, "jit"):
            pick = 2
        else:
            pick = 3
        if hasattr(backend, "abs"):
            pick = 4
    """))
    modules = triton_modules(tree.body)
    assert modules == {"triton": "triton", "lang": "triton.language"}
    chain, other = tree.body[2], tree.body[3]
    assert taken_if_branch(chain, modules) is chain.orelse[0].body
    assert taken_if_branch(other, modules) is None  # a test of the module's own objects: not read
