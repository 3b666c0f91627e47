"""What verify reads of a port module besides calling it: the constants its wrapper compiles
with, and which of its functions are elementwise bodies. A converted port defines its
helpers itself; a migrated port imports them from the `_tileport_launch.py` beside it
(templates/launcher.py.j2), whose constants are then the port's."""

from __future__ import annotations

import ast
import sys

#: Launch helpers a migrated port may import: whichever it has names the helpers module
#: (`_compiler` for a port with programs of its own, `_elementwise` for elementwise bodies).
_HELPERS = ("_compiler", "_elementwise")


def launcher_module(module):
    """The launch helpers module a loaded port imports its helpers from; None for a port
    that holds them itself."""
    for name in _HELPERS:
        launcher = sys.modules.get(getattr(getattr(module, name, None), "__module__", "") or "")
        if launcher is not None and launcher is not module:
            return launcher
    return None


def port_constant(module, name: str, default=None):
    """`name` of the port module, else of the launch helpers module it imports from."""
    if hasattr(module, name):
        return getattr(module, name)
    launcher = launcher_module(module)
    return getattr(launcher, name, default) if launcher is not None else default


def elementwise_bodies(tree: ast.Module) -> list:
    """The names of a port's elementwise bodies (`@_elementwise(...) def abs_func(x: ...)`), read
    from its parsed text: each is a host whose `.kernel` and `.program` verify runs."""
    return [n.name for n in tree.body if isinstance(n, ast.FunctionDef) and
            any(isinstance(d, ast.Call) and ast.unparse(d.func) == "_elementwise" for d in n.decorator_list)]
