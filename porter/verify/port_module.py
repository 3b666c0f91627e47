"""What verify reads of a loaded port module besides calling it: the constants its wrapper
compiles with. A converted port defines them itself; a migrated port imports its helpers from
the `_tileport_launch.py` beside it (templates/launcher.py.j2), whose constants are then the
port's."""

from __future__ import annotations

import sys


def port_constant(module, name: str, default=None):
    """`name` of the port module, else of the launcher module its `_compiler` came from."""
    if hasattr(module, name):
        return getattr(module, name)
    compiler = getattr(module, "_compiler", None)
    launcher = sys.modules.get(getattr(compiler, "__module__", "") or "")
    return getattr(launcher, name, default) if launcher is not None else default
