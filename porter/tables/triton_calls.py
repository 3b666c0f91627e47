"""Triton's `tl.*` functions called in a kernel: what the port makes of each, or why tileport
refuses it. The Triton front end dispatches on these names (frontends/triton/tl_functions.py:
one handler per ported row) and raises the refused rows' codes with their words; SUPPORTED.md
lists them. Math functions (`tl.exp`, libdevice) are porter/builtins.py's table."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TritonCall:
    """`tl.<name>` for each of names: what the port uses (ported, ignored), or the diagnostic
    code and the words after `tl.<name>` that refuse it."""

    names: tuple
    port: str = ""
    code: str = ""
    why: str = ""


PORTED = (
    TritonCall(("program_id", "num_programs"), "the block index / grid size of `T.Kernel`"),
    TritonCall(("arange",), "a lane of the block (power-of-2 ranges)"),
    TritonCall(("load", "store"), "a guarded gather into a fragment (`other`, masks) / a guarded store"),
    TritonCall(("sum", "max", "min", "reduce"), "T.reduce_sum / max / min over a fragment, or a combine loop"),
    TritonCall(("argmax", "argmin"), "T.reduce_max (min), then T.reduce_min of the indices reaching it"),
    TritonCall(("cumsum",), "T.cumsum"),
    TritonCall(("dot",), "T.alloc_shared operands and T.gemm into a fragment (fp32 products in k order for "
                         "`input_precision=\"ieee\"`); K loops T.Pipelined"),
    TritonCall(("zeros", "full", "zeros_like", "full_like", "ones_like"), "a constant fragment (T.clear / T.fill)"),
    TritonCall(("where",), "a select in a T.Parallel step"),
    TritonCall(("maximum", "minimum", "clamp"), "T.max / T.min"),
    TritonCall(("logical_and", "logical_or"), "bitwise and / or of booleans"),
    TritonCall(("fdiv", "div_rn"), "floating-point `/`"),
    TritonCall(("cdiv",), "T.ceildiv"),
    TritonCall(("next_power_of_2",), "a compile-time integer"),
    TritonCall(("cast",), "T.Cast (bitcast, saturation and rounding modes as Triton defines them)"),
    TritonCall(("reshape", "view", "ravel", "flatten", "expand_dims", "broadcast_to", "broadcast"),
               "the same lanes under a new block shape"),
    TritonCall(("trans", "permute"), "the lanes permuted"),
    TritonCall(("split", "join", "interleave"), "the halves of a trailing dimension of 2, or one made of two"),
    TritonCall(("make_block_ptr", "advance", "make_tensor_descriptor"), "bounds-checked windows (guarded gathers)"),
    TritonCall(("rand", "randint", "randn", "randint4x", "rand4x", "philox", "uint_to_uniform_float",
                "pair_uniform_to_normal"), "the Philox-4x32 stream computed exactly"),
    TritonCall(("static_assert",), "checked at convert time (TP229 when it fails)"),
    TritonCall(("constexpr",), "its value"),
)

IGNORED = (
    TritonCall(("multiple_of", "max_contiguous", "max_constancy"), "hints: the value itself"),
    TritonCall(("debug_barrier",), "T.sync_threads() in a tile-level port, else nothing"),
    TritonCall(("static_print", "device_print", "device_assert", "assume", "print"), "nothing: the port drops it"),
)

REFUSED = (
    TritonCall(("dot_scaled",), code="TP211", why="(matrix multiplication) is not supported yet"),
    TritonCall(("xor_sum", "cumprod", "associative_scan", "sort", "histogram", "softmax", "flip", "topk",
                "reduce_or", "gather", "sum_", "max_", "min_"), code="TP212",
               why="(reductions and scans) is not supported yet"),
    TritonCall(("philox_impl", "randn4x"), code="TP213", why="(random numbers) is not supported yet"),
    TritonCall(("atomic_cas",), code="TP214", why="has no TileLang equivalent except as a spin lock's acquire: "
                                                  "`while tl.atomic_cas(lock, 0, 1) == 1: pass`"),
    TritonCall(("atomic_add", "atomic_max", "atomic_min", "atomic_xchg"), code="TP214",
               why="is supported only as a statement (its result, the old value, cannot be used yet)"),
    TritonCall(("atomic_and", "atomic_or", "atomic_xor"), code="TP214", why="(atomics) is not supported yet"),
    TritonCall(("load_tensor_descriptor", "store_tensor_descriptor", "tensor_descriptor"), code="TP218",
               why="(block pointers / tensor descriptors) is not supported yet"),
    TritonCall(("static_range", "range"), code="TP210",
               why="is a loop's iterator: only `for ... in tl.range(...)` is supported"),
    TritonCall(("cat", "split_", "squeeze"), code="TP223", why="(reshaping blocks) is not supported yet"),
)

#: name -> its refusing row.
REFUSAL = {name: row for row in REFUSED for name in row.names}
