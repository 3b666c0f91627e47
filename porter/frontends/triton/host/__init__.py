"""Host-side reading of a Triton file, from its `ast` only (user code is never imported or run).

`ModuleInfo` indexes the file: imports, `@triton.jit` functions, `@triton.autotune` configs,
`@triton.heuristics`, and `kernel[grid](args...)` launch sites anywhere in the module. A small
abstract evaluator (`HostEval`) answers what a host expression is: a constant (constexpr values,
block sizes, num_warps), a torch tensor of some dtype (buffer dtypes), an int or float (scalar
parameter types), or a grid expression in terms of the kernel's scalar parameters.

Names are resolved to their binding at the point of use (the last assignment before it in
the same function, then enclosing scopes); a host function's parameter is resolved through
every call of that function in the file (`Cls.apply(...)` for a torch.autograd.Function's
forward), through its default and annotation, and through the function's own
`assert x.dtype == ...`.

The package: values.py (what a host value is), index.py (ModuleInfo, launch sites, scopes),
evaluate.py (HostEval), grid.py (GridBuilder).
"""

from porter.frontends.triton.host.evaluate import HostEval
from porter.frontends.triton.host.grid import GridBuilder
from porter.frontends.triton.host.index import LaunchSite, ModuleInfo
from porter.frontends.triton.host.values import HConfig, HConst, HDict, HDType, HScalar, HTensor, HTuple

__all__ = ["GridBuilder", "HConfig", "HConst", "HDict", "HDType", "HScalar", "HTensor", "HTuple", "HostEval",
           "LaunchSite", "ModuleInfo"]
