"""Generate include/tp_device_api.h: the device API as the CPU emulator implements it, declared.

The emulator (porter/verify/cuda_emu/tp_emu.h) is where tileport says what every CUDA device
function means; the parse shim must declare the same names with the same overloads, or kernels
that use them stop at the parse. So the declarations are generated from the emulator, not kept by
hand: every free function and function template it (or a header of its own it includes,
EMU_FILES) defines outside its private `tp` namespace, marked `__device__`. The candidate header
is parsed once with the shim, and declarations clang rejects there (operators on the shim's
builtin half types, host calls on types the shim lacks, which need no declaration) are dropped.

Run `python -m porter.frontends.cuda.shim.generate` after changing tp_emu.h; a test checks the
checked-in header is what this prints.
"""

from __future__ import annotations

import sys
from pathlib import Path

from porter.frontends.cuda import parse as ct

HERE = Path(__file__).resolve().parent
EMU = HERE.parents[2] / "verify" / "cuda_emu" / "tp_emu.h"
#: The emulator's headers that tp_emu.h includes itself (the rest stand in for CUDA's own).
EMU_FILES = {EMU, EMU.parent / "include" / "tp_texture.h"}
OUT = HERE / "include" / "tp_device_api.h"

_DROP_WORDS = {"inline", "static", "constexpr", "__forceinline__", "__device__", "__host__"}
#: Spellings of the emulator's own machinery (its `tp` namespace, tp_* helpers, std types).
_PRIVATE = ("tp::", "tp_", "TP_", "std::", "source_location")


def _declarations() -> list[str]:
    """The declaration of each public function the emulator header defines, in its order."""
    ci = ct.cindex()
    tu = ci.Index.create().parse(str(EMU), args=["-x", "c++", "-std=c++20", "-w",
                                                 "-isystem", ct._gcc_include()])
    out = []
    for c in tu.cursor.get_children():
        if c.location.file is None or Path(c.location.file.name).resolve() not in EMU_FILES:
            continue
        if c.kind not in (ci.CursorKind.FUNCTION_DECL, ci.CursorKind.FUNCTION_TEMPLATE):
            continue
        if not c.is_definition():
            continue
        body = next((ch for ch in c.get_children() if ch.kind == ci.CursorKind.COMPOUND_STMT), None)
        if body is None:
            continue
        if c.kind == ci.CursorKind.FUNCTION_DECL:
            text = _from_types(c)
        else:
            text = _from_tokens(c, body)
        if text is None:
            continue
        text = text.replace("tp::nd<", "__cuda_nondeduced<")
        if c.spelling.startswith("cuda"):  # the host runtime's stubs
            text = text.replace("__device__", "__host__", 1)
        if any(p in text for p in _PRIVATE):
            continue
        out.append(text + ";")
    return out


def _from_types(c) -> str:
    """A plain function's declaration from its types (works for macro-generated ones too)."""
    params = ", ".join(f"{a.type.spelling} {a.spelling}".strip() for a in c.get_arguments())
    if c.type.is_function_variadic():
        params += ", ..." if params else "..."
    return f"__device__ {c.result_type.spelling} {c.spelling}({params})"


def _from_tokens(c, body) -> str | None:
    """A function template's declaration from its tokens, `__device__` after the template
    header; None for one a macro generated (its tokens are the macro's invocation)."""
    words = [t.spelling for t in c.get_tokens() if t.extent.start.offset < body.extent.start.offset]
    if c.spelling not in words or not words or words[0] != "template":
        return None
    depth, split = 0, 0
    for i, w in enumerate(words):
        depth += {"<": 1, ">": -1, ">>": -2}.get(w, 0)
        if depth == 0 and i > 0:
            split = i + 1
            break
    rest = [w for w in words[split:] if w not in _DROP_WORDS]
    text = " ".join(words[:split]) + " __device__ " + " ".join(rest)
    for a, b in ((" ( ", "("), (" (", "("), (" )", ")"), (" , ", ", "), (" :: ", "::"), ("< ", "<"),
                 (" >", ">"), (" <", "<")):
        text = text.replace(a, b)
    return text


def _rejected(lines: list[str]) -> set[int]:
    """Indices of the lines clang reports errors on when the header is parsed with the shim."""
    ci = ct.cindex()
    text = "\n".join(lines) + "\n"
    probe = str(HERE / "include" / "tp_device_api_probe.cu")  # never written: an unsaved file
    tu = ci.Index.create().parse(probe, args=ct.parse_args() + ["-DTP_NO_DEVICE_API"],
                                 unsaved_files=[(probe, text)])
    bad = set()
    for d in tu.diagnostics:
        if d.severity >= ci.Diagnostic.Error and d.location.file and d.location.file.name == probe:
            bad.add(d.location.line - 1)
    return bad


def generate() -> str:
    decls = _declarations()
    for _ in range(5):
        bad = _rejected(decls)
        if not bad:
            break
        decls = [d for i, d in enumerate(decls) if i not in bad]
    head = ("/* Generated by porter/frontends/cuda/shim/generate.py from porter/verify/cuda_emu/tp_emu.h:\n"
            " * the device API the CPU emulator implements, declared for the parse. Do not edit. */\n"
            "#pragma once\n")
    return head + "\n".join(decls) + "\n"


def main() -> int:
    text = generate()
    if "--check" in sys.argv:
        return 0 if OUT.read_text() == text else 1
    OUT.write_text(text)
    print(f"wrote {OUT} ({text.count(chr(10))} lines)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
