"""Report every access of a port's CPU build outside a buffer or a tile (verify's C target only).

A guard zone around each argument (port_exec._guarded) shows writes just past a global
buffer, but not reads past it (a masked-off lane that reads one element too many computes
with poison that is then masked away), and shared/fragment tiles, plain arrays on the C
target, have no zone at all: `T.Parallel(257)` over a 256-element fragment writes into
whatever the C compiler put next to it. On a GPU both are undefined behaviour (a fault,
another tile's data), so verify must call them failures, not pass them by luck.

This pass runs just before TileLang flattens buffers, while every load and store still has
its buffer's shape: each access checks each index against its dimension. An access outside
calls `tileport_outside` (defined in the build's own C prelude), which prints one line per
stray access on stderr (the first few of each run) and lets the run go on: a read gives the
buffer's first element, a write is dropped. port_exec captures those lines per run (`strays`).

A port's `T.assume(cond)` is a promise TileLang's optimizers build on (an aligned program's
copies are vectorized because `K % 32 == 0`); a false one is undefined behaviour that the C
target happens to survive. The same pass checks each one where it stands and reports a false
one the same way (access "assume", the condition in place of a buffer).
"""

from __future__ import annotations

import contextlib
import itertools
import os

#: The marker of a stray-access line on stderr, and how many lines one run prints at most.
MARKER = "tileport-outside:"
SHOWN = 8
#: The environment variable that names the current run: the count of printed lines restarts
#: when it changes (the same build runs many cases in one child).
RUN_VARIABLE = "TILEPORT_RUN"
#: The attribute TileLang's InjectAssumes wraps around the code after each `T.assume(cond)`
#: (with `cond` as its node) and checks only where a host entry can: never inside a kernel.
ASSUME_KEY = "tl.assume_requires_runtime_check"

# The C prelude of a checked build: `name` is the reporting function of one prim_func, `accesses`
# its table of access names ("read x", "write tile"); the build's own codegen declares the
# function from its call sites (int32 arguments: a string argument would be declared void*).
PRELUDE = r"""
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static const char* %(name)s_accesses[] = {%(accesses)s};
extern "C" int32_t %(name)s(int64_t access, int64_t dim, int64_t index, int64_t extent) {
  static char run[64];
  static int shown;
  const char* now = getenv("%(run)s");
  if (now == NULL) now = "";
  if (strncmp(run, now, sizeof(run) - 1) != 0) {
    strncpy(run, now, sizeof(run) - 1);
    shown = 0;
  }
  if (shown < %(shown)d) {
    fprintf(stderr, "%(marker)s %%s %%d %%lld %%lld\n", %(name)s_accesses[access], (int)dim,
            (long long)index, (long long)extent);
    fflush(stderr);
  }
  ++shown;
  return 0;
}
"""


@contextlib.contextmanager
def checked_lowering():
    """TileLang lowerings inside get the checks (just before FlattenBuffer, for any target);
    yields {reporting function: its C prelude}, filled as functions are lowered. The C target
    takes the prelude from the build itself; a CUDA source (the emulator's) must be given it."""
    import tilelang.transform
    from tilelang import tvm

    flatten = tilelang.transform.FlattenBuffer
    preludes: dict = {}
    tilelang.transform.FlattenBuffer = lambda: tvm.transform.Sequential([bounds_checks_pass(preludes), flatten()])
    try:
        yield preludes
    finally:
        tilelang.transform.FlattenBuffer = flatten


def bounds_checks_pass(preludes: dict | None = None):
    """A TIR pass (before FlattenBuffer) that guards every BufferLoad/BufferStore by its shape;
    the C prelude of each function it changes goes into preludes."""
    from tilelang import tvm

    tirx = tvm.tirx

    def dims_inside(buffer, indices):
        if len(indices) != len(buffer.shape) or any(isinstance(i, tirx.Ramp) for i in indices):
            return None  # a vector access or a reinterpreted view: not checked
        return [tirx.And(tirx.GE(i, tirx.const(0, i.dtype)), tirx.LT(i, tirx.Cast(i.dtype, e)))
                for i, e in zip(indices, buffer.shape)]

    def all_of(conditions):
        out = conditions[0]
        for c in conditions[1:]:
            out = tirx.And(out, c)
        return out

    accesses: list = []  # the access names of the function being rewritten
    function = ["tileport_outside"]

    def report(kind, buffer, dim, index):
        return reporting_call(f"{kind} {buffer.name}", dim, index, buffer.shape[dim])

    def reporting_call(name, dim, index, extent):
        if name not in accesses:
            accesses.append(name)
        # every argument int64: the codegen declares the function from its call sites, and a
        # later index-width pass may widen int32 ones (a prototype that conflicts with the prelude)
        return tirx.call_extern("int32", function[0], tirx.IntImm("int64", accesses.index(name)),
                                tirx.IntImm("int64", dim), tirx.Cast("int64", index),
                                tirx.Cast("int64", extent))

    def post(node):
        if isinstance(node, tirx.AttrStmt):
            if node.attr_key != ASSUME_KEY:
                return None
            # the condition as one word (a report line is split on spaces)
            name = "assume " + "".join(str(node.node).split())
            zero = tirx.IntImm("int64", 0)
            check = tirx.IfThenElse(tirx.Not(node.node), tirx.Evaluate(reporting_call(name, 0, zero, zero)), None)
            return tirx.AttrStmt(node.node, node.attr_key, node.value, tirx.SeqStmt([check, node.body]))
        if isinstance(node, tirx.BufferLoad):
            inside = dims_inside(node.buffer, node.indices)
            if not inside:
                return None
            # a stray read reads element 0 instead, through an index made of the report calls
            # (each returns 0): the calls cannot be simplified away, and the value is a plain
            # load of the buffer's dtype (16-bit floats need no arithmetic of their own)
            stray = tirx.BufferLoad(node.buffer, [
                tirx.Cast(i.dtype, tirx.if_then_else(c, tirx.IntImm("int32", 0), report("read", node.buffer, d, i)))
                for d, (c, i) in enumerate(zip(inside, node.indices))])
            return tirx.if_then_else(all_of(inside), node, stray)
        if isinstance(node, tirx.BufferStore):
            inside = dims_inside(node.buffer, node.indices)
            if not inside:
                return None
            reports = [tirx.IfThenElse(tirx.Not(c), tirx.Evaluate(report("write", node.buffer, d, i)), None)
                       for d, (c, i) in enumerate(zip(inside, node.indices))]
            return tirx.IfThenElse(all_of(inside), node,
                                   reports[0] if len(reports) == 1 else tirx.SeqStmt(reports))
        return None

    def rewrite(func, mod, ctx):
        accesses.clear()
        symbol = str(func.attrs["global_symbol"]) if func.attrs and "global_symbol" in func.attrs else "kernel"
        function[0] = "tileport_outside_" + "".join(c if c.isalnum() else "_" for c in symbol)
        body = tirx.stmt_functor.ir_transform(func.body, None, post, ["tirx.BufferLoad", "tirx.BufferStore", "tirx.AttrStmt"])
        if not accesses:
            return func
        table = ", ".join('"' + a.replace("\\", "").replace('"', "") + '"' for a in accesses)
        prelude = PRELUDE % {"name": function[0], "accesses": table, "run": RUN_VARIABLE,
                             "shown": SHOWN, "marker": MARKER}
        if preludes is not None:
            preludes[function[0]] = prelude
        return func.with_body(tirx.AttrStmt(tirx.StringImm("tileport"), "pragma_import_c",
                                            tirx.StringImm(prelude), body))

    return tirx.transform.prim_func_pass(rewrite, opt_level=0, name="tileport.BoundsChecks")


def strays(stderr_text: str) -> list:
    """The distinct stray accesses a run printed: [{"access": "read"|"write", "buffer", "dim",
    "index", "extent"}] (of the first SHOWN it printed)."""
    found = []
    for line in stderr_text.splitlines():
        if not line.startswith(MARKER):
            continue
        parts = line[len(MARKER):].split()
        if len(parts) != 5:
            continue
        access, buffer, dim, index, extent = parts
        stray = {"access": access, "buffer": buffer, "dim": int(dim), "index": int(index),
                 "extent": int(extent)}
        if stray not in found:
            found.append(stray)
    return found


def describe(stray: dict) -> str:
    """'write of tile at index 256 of dimension 0, which has 256' for one stray access;
    'assumption M%64==0, false here' for a false T.assume."""
    if stray["access"] == "assume":
        return f"assumption T.assume({stray['buffer']}), which is false here"
    return (f"{stray['access']} of {stray['buffer']} at index {stray['index']} of dimension "
            f"{stray['dim']}, which has {stray['extent']}")


class CapturedStderr:
    """Collects what the process (C code included) writes on fd 2 during a run; lines that are
    not stray-access reports go back to the real stderr afterwards."""

    _runs = itertools.count(1)  # runs in this process: each names its own reports

    def __init__(self):
        self.run_name = f"run-{next(CapturedStderr._runs)}"
        self.text = ""

    def __enter__(self):
        import sys
        import tempfile

        sys.stderr.flush()
        os.environ[RUN_VARIABLE] = self.run_name
        self._file = tempfile.TemporaryFile()
        self._saved = os.dup(2)
        os.dup2(self._file.fileno(), 2)
        return self

    def __exit__(self, *exc):
        import sys

        sys.stderr.flush()
        os.dup2(self._saved, 2)
        os.close(self._saved)
        self._file.seek(0)
        self.text = self._file.read().decode(errors="replace")
        self._file.close()
        other = "".join(ln + "\n" for ln in self.text.splitlines() if not ln.startswith(MARKER))
        if other:
            sys.stderr.write(other)
        return False
