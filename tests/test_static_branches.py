"""The branch of a module-level `try:` tileport reads (porter/frontends/triton/static_branches)."""

import ast
import textwrap

from porter.frontends.triton.static_branches import taken_branch


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
