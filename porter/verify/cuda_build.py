"""Compile original CUDA C++ files for the CPU emulator (cuda_emu/tp_emu.h) with g++.

tileport runs a user's own CUDA kernels on the CPU as the numerical reference for a port. g++
cannot read `k<<<grid, block>>>(...)` launches or `extern __shared__ T x[];`, so
`prepare_source` rewrites those few constructs in place (line numbers stay put, so g++ errors and
the emulator's barrier reports point at the user's lines). `build` then appends an `extern "C"`
launcher per requested kernel and compiles a shared library into a content-addressed cache.

Only the rewritten constructs need a scanner; everything else is handled by macros and
definitions in tp_emu.h, pre-included with `-include`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from porter.util.cache_root import cache_root
from porter.diagnostics import Loc, TileportError
from porter.util.files import replaced_atomically, write_atomically
from porter.util.hashing import content_hash, file_hash
from porter.frontends.cuda.parse import DEVICE_ARCH, attributes_first

#: Directory holding tp_emu.h, tp_emu_runtime.cpp and the stand-in CUDA headers.
EMU_DIR = Path(__file__).resolve().parent / "cuda_emu"

#: Bump when generated code or flags change meaning, to invalidate every cached build.
_BUILD_ABI = "tp-emu-1"

_CXX_FLAGS = (
    "-std=c++20",
    "-O1",
    "-shared",
    "-fPIC",
    "-fno-gnu-unique",  # two builds of one file in a process must not share template statics
    "-fvisibility=hidden",
    "-fno-strict-aliasing",  # CUDA code type-puns freely (float4 loads of float buffers)
    "-g1",  # line tables only (no measurable cost): crashes are mapped back to source lines
    "-fsigned-char",  # as on the GPU, whatever the host's ABI says
    "-w",
    "-fmax-errors=20",
)
_RUNTIME_FLAGS = ("-std=c++20", "-O2", "-shared", "-fPIC", "-fno-gnu-unique", "-fvisibility=hidden")
_COMPILE_TIMEOUT_S = 600


# ----------------------------------------------------------------------------- kernel signature


@dataclass
class KernelSig:
    """One kernel to expose from a build.

    launch_name: how the kernel is called in C++, template arguments included ("saxpy",
        "scale<float, 256>", "ns::kern").
    symbol: a C identifier; the launcher is exported as `tp_launch_<symbol>`.
    param_types: the C type spelling of every parameter, in order ("int", "const float *").
        Pointer parameters receive device buffers; all others are passed by value.
    """

    launch_name: str
    symbol: str
    param_types: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", self.symbol):
            raise ValueError(f"KernelSig.symbol must be a C identifier, got {self.symbol!r}")
        self.param_types = list(self.param_types)


_QUALIFIERS_RE = re.compile(r"\b(?:const|volatile|__restrict__|__restrict|restrict)\b")


def is_pointer_type(spelling: str) -> bool:
    """True when a parameter type spelling is a pointer ("const float *__restrict__")."""
    return _QUALIFIERS_RE.sub(" ", spelling).strip().endswith("*")


def launcher_name(sig: KernelSig) -> str:
    return f"tp_launch_{sig.symbol}"


def symbol_accessor_name(name: str) -> str:
    """Exported accessor for a __constant__/__device__ variable (see `build(symbols=...)`)."""
    return "tp_symbol_" + re.sub(r"\W", "_", name)


# ----------------------------------------------------------------------------- scanning


@dataclass(frozen=True)
class _Tok:
    kind: str  # "id", "num", "str", "chr", "op"
    text: str
    start: int
    end: int
    pp: bool  # part of a preprocessor directive


_TOKEN_RE = re.compile(
    r"""
    (?P<ws>(?:[ \t\r\f\v]|\\\r?\n)+)
  | (?P<nl>\n)
  | (?P<lc>//(?:[^\n\\]|\\.)*)
  | (?P<bc>/\*.*?\*/)
  | (?P<raw>(?:u8|u|U|L)?R"(?P<delim>[^()\\\s"]{0,16})\(.*?\)(?P=delim)")
  | (?P<str>(?:u8|u|U|L)?"(?:[^"\\\n]|\\.)*"?)
  | (?P<chr>(?:u8|u|U|L)?'(?:[^'\\\n]|\\.)*'?)
  | (?P<num>\.?[0-9](?:[0-9A-Za-z_.]|'[0-9A-Za-z_]|[eEpP][+-])*)
  | (?P<id>[A-Za-z_$][A-Za-z_0-9$]*)
  | (?P<op>::|->|.)
    """,
    re.VERBOSE | re.DOTALL,
)


def _tokenize(text: str) -> list[_Tok]:
    """C++ tokens minus whitespace and comments; string and char literals stay whole so nothing
    inside them is ever rewritten. Tokens of `#` directives are flagged `pp`."""
    toks: list[_Tok] = []
    line_start = True  # only whitespace so far on this line
    in_pp = False
    for m in _TOKEN_RE.finditer(text):
        kind = m.lastgroup
        if kind == "nl":
            line_start, in_pp = True, False
            continue
        if kind in ("ws", "lc"):
            continue
        if kind == "bc":
            if "\n" in m.group():
                line_start = False  # a comment spanning lines does not end a directive
            continue
        if kind == "raw":
            kind = "str"
        if line_start and m.group() == "#":
            in_pp = True
        line_start = False
        toks.append(_Tok(kind, m.group(), m.start(), m.end(), in_pp))
    return toks


def _match_back(toks: list[_Tok], j: int) -> int:
    """Index of the bracket opening the one that closes at toks[j]."""
    pairs = {")": "(", "]": "[", "}": "{"}
    want, close, depth = pairs[toks[j].text], toks[j].text, 0
    while j >= 0:
        if toks[j].text == close:
            depth += 1
        elif toks[j].text == want:
            depth -= 1
            if depth == 0:
                return j
        j -= 1
    return -1


def _callee_start(toks: list[_Tok], j: int) -> int:
    """Start index of the kernel expression ending at toks[j] (`ns::k<T, 4>`, `(fp)`), or -1."""
    while j >= 0:
        t = toks[j]
        if t.text == ")":
            return _match_back(toks, j)
        if t.text == ">":  # template argument list: back to its '<'
            depth = 0
            while j >= 0:
                tt = toks[j].text
                if tt in (")", "]"):
                    j = _match_back(toks, j)
                elif tt == ">":
                    depth += 1
                elif tt == "<":
                    depth -= 1
                    if depth == 0:
                        break
                j -= 1
            j -= 1
            if j < 0 or toks[j].kind != "id":
                return -1
        elif t.kind != "id":
            return -1
        # toks[j] is a name; extend over `qualifier::`
        if j >= 1 and toks[j - 1].text == "::":
            if j >= 2 and (toks[j - 2].kind == "id" or toks[j - 2].text == ">"):
                j -= 2
                continue
            return j - 1  # leading global `::`
        return j
    return -1


def _adjacent(toks: list[_Tok], i: int, ch: str) -> bool:
    """toks[i:i+3] spell `<<<` or `>>>` with nothing between them."""
    if i + 2 >= len(toks):
        return False
    a, b, c = toks[i], toks[i + 1], toks[i + 2]
    return a.text == b.text == c.text == ch and a.end == b.start and b.end == c.start


def _same_lines(original: str, new: str) -> str:
    """Pad `new` with the newlines (escaped ones inside macros too) of `original`."""
    pad = []
    for m in re.finditer(r"(\\)?\r?\n", original):
        pad.append("\\\n" if m.group(1) else "\n")
    return new + "".join(pad)


#: Builtins tp_emu.h defines that CUDA code also writes itself (in PTX asm, which cannot run
#: here): the user's definition is renamed so that the emulator's serves the calls.
EMULATED_BUILTINS = frozenset({"__globaltimer"})


@dataclass
class _Prepared:
    text: str
    asm_lines: list[int]  # lines with inline assembly (cannot run on the CPU)


def _prepare(text: str) -> _Prepared:
    toks = _tokenize(text)
    edits: list[tuple[int, int, str]] = []
    asm_lines: list[int] = []
    n = len(toks)

    def line_of(pos: int) -> int:
        return text.count("\n", 0, pos) + 1

    i = 0
    while i < n:
        t = toks[i]
        # --- k<<<grid, block[, smem[, stream]]>>>(args) -> ::tp::launcher(cfg, call-k)(args)
        if t.text == "<" and _adjacent(toks, i, "<"):
            cs = _callee_start(toks, i - 1)
            if cs >= 0 and toks[cs].text == "operator":  # `operator<<<T>`: not a launch
                cs = -1
            j, depth = i + 3, 0
            while j < n:
                tt = toks[j].text
                if tt in "([{":
                    depth += 1
                elif tt in ")]}":
                    depth -= 1
                elif depth == 0 and tt == ";":  # a launch configuration never holds one
                    j = n
                    break
                elif depth == 0 and tt == ">" and _adjacent(toks, j, ">"):
                    break
                j += 1
            k = j + 3
            if cs >= 0 and j < n and k < n and toks[k].text == "(":
                config = text[toks[i + 2].end : toks[j].start]
                callee = text[toks[cs].start : toks[i - 1].end]
                ws1 = text[toks[i - 1].end : toks[i].start]
                ws2 = text[toks[j + 2].end : toks[k].start]
                new = (
                    f"::tp::launcher(::tp::cfg({config}), "
                    f"[&](auto&&... tp_a_) {{ {callee}(tp_a_...); }}){ws1}{ws2}"
                )
                edits.append((toks[cs].start, toks[k].start, new))
                # a NULL argument reaches the lambda as a long, which converts to no pointer
                # parameter; nullptr converts as it does in the launch nvcc compiles
                depth, m = 0, k
                while m < n:
                    depth += toks[m].text == "("
                    depth -= toks[m].text == ")"
                    if toks[m].kind == "id" and toks[m].text == "NULL":
                        edits.append((toks[m].start, toks[m].end, "nullptr"))
                    if depth == 0:
                        break
                    m += 1
                i = k
                continue
        # --- __shared__ declarations
        if t.kind == "id" and t.text == "__shared__" and not t.pp:
            a = i
            while a > 0 and toks[a - 1].text not in (";", "{", "}") and not toks[a - 1].pp:
                a -= 1
            b = i
            while b < n and toks[b].text != ";":
                b += 1
            span = range(a, min(b, n))
            if any(toks[x].text == "extern" for x in span):
                edit = _extern_shared(text, toks, a, b)
                if edit:
                    edits.append(edit)
                    i = b + 1
                    continue
            else:  # `static __shared__`: __shared__ already expands to `static`
                for x in span:
                    if toks[x].text == "static":
                        edits.append((toks[x].start, toks[x].end, " " * len(toks[x].text)))
        # --- the user's main() must not be the library's
        if (
            t.kind == "id"
            and t.text == "main"
            and i + 1 < n
            and toks[i + 1].text == "("
            and (i == 0 or toks[i - 1].text not in (".", "->", "::"))
        ):
            edits.append((t.start, t.end, "tp_original_main"))
        # --- the user's own definition of a builtin the emulator provides (`__globaltimer()`
        # read through PTX asm): renamed out of the way, calls reach the emulator's
        if (
            t.kind == "id"
            and t.text in EMULATED_BUILTINS
            and i + 1 < n
            and toks[i + 1].text == "("
            and i > 0
            and (toks[i - 1].kind == "id" and toks[i - 1].text != "return" or toks[i - 1].text in ("*", "&"))
        ):
            edits.append((t.start, t.end, "tp_user_" + t.text))
        if t.kind == "id" and t.text in ("asm", "__asm__", "__asm") and not t.pp:
            asm_lines.append(line_of(t.start))
        i += 1

    out = text
    for start, end, new in sorted(edits, reverse=True):
        out = out[:start] + new + out[end:]
    return _Prepared(out, asm_lines)


_DECL_ATTRS = {"__align__", "alignas", "__attribute__", "__declspec"}
_DECL_DROP = {"extern", "__shared__", "static", "__device__"}


def _extern_shared(text: str, toks: list[_Tok], a: int, b: int) -> tuple[int, int, str] | None:
    """`extern __shared__ __align__(16) T name[];` -> `T * const name = (T*)tp_dyn_smem;`"""
    if b >= len(toks) or toks[b - 1].text != "]":
        return None
    lb = _match_back(toks, b - 1)
    if lb < 1 or toks[lb - 1].kind != "id":
        return None
    name = toks[lb - 1].text
    parts: list[str] = []
    x = a
    while x < lb - 1:
        tt = toks[x].text
        if tt in _DECL_ATTRS and x + 1 < lb - 1 and toks[x + 1].text == "(":
            depth = 0
            while x < lb - 1:  # skip the attribute's balanced parentheses
                if toks[x].text == "(":
                    depth += 1
                elif toks[x].text == ")":
                    depth -= 1
                    if depth == 0:
                        break
                x += 1
        elif tt not in _DECL_DROP:
            parts.append(tt)
        x += 1
    if not parts:
        return None
    ty = " ".join(parts)
    new = f"{ty} * const {name} = reinterpret_cast<{ty} *>(tp_dyn_smem);"
    start, end = toks[a].start, toks[b].end
    return start, end, _same_lines(text[start:end], new)


def prepare_source(text: str) -> str:
    """Rewrite CUDA-only syntax so g++ (with tp_emu.h pre-included) accepts the file.

    - `k<<<g, b[, smem[, stream]]>>>(args)` becomes a call into the emulator's launcher;
    - `extern __shared__ T x[];` becomes a pointer to the block's dynamic shared memory;
    - `static` next to `__shared__` is blanked (the macro already says static);
    - `main` is renamed `tp_original_main` so a sample's main never clashes.
    Line numbers are preserved: every replacement keeps the newlines it replaces.
    """
    return _prepare(attributes_first(text)).text


# ----------------------------------------------------------------------------- toolchain and cache


def default_cache_dir() -> Path:
    """tileport's cache root: $TILEPORT_CACHE_DIR, else ~/.cache/tileport."""
    return cache_root()


def _cache_dir(cache_dir: str | os.PathLike | None) -> Path:
    """The emulator's builds live in <cache root>/cuda-emu/."""
    d = (Path(cache_dir) if cache_dir is not None else default_cache_dir()) / "cuda-emu"
    d.mkdir(parents=True, exist_ok=True)
    return d


_CXX_ID: dict[str, str] = {}


def _cxx() -> str:
    cxx = os.environ.get("TILEPORT_CXX", "g++")
    if shutil.which(cxx) is None:
        raise TileportError(
            "TP410", f"cannot run CUDA kernels on the CPU: the C++ compiler {cxx!r} was not found"
        )
    return cxx


def _cxx_identity(cxx: str) -> str:
    """Compiler version and target: part of every cache key."""
    if cxx not in _CXX_ID:
        out = subprocess.run(
            [cxx, "--version"], capture_output=True, text=True, check=False
        ).stdout.splitlines()
        machine = subprocess.run(
            [cxx, "-dumpmachine"], capture_output=True, text=True, check=False
        ).stdout.strip()
        _CXX_ID[cxx] = (out[0] if out else cxx) + " " + machine
    return _CXX_ID[cxx]


def _emu_files() -> list[Path]:
    return sorted(p for p in EMU_DIR.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


def _emu_digest() -> str:
    return content_hash(
        *(str(f.relative_to(EMU_DIR)).encode() + b"\0" + f.read_bytes() for f in _emu_files())
    )


def runtime_library(cache_dir: str | os.PathLike | None = None) -> Path:
    """Build (once per cache and compiler) and return the emulator runtime library."""
    cache = _cache_dir(cache_dir)
    cxx = _cxx()
    key = content_hash(_BUILD_ABI, _cxx_identity(cxx), " ".join(_RUNTIME_FLAGS), _emu_digest())[:20]
    final = cache / f"libtp_emu_rt-{key}.so"
    if final.exists():
        return final
    # a concurrent builder's copy is identical: whichever rename lands last wins harmlessly
    with replaced_atomically(final) as tmp:
        cmd = [cxx, *_RUNTIME_FLAGS, "-I", str(EMU_DIR), str(EMU_DIR / "tp_emu_runtime.cpp"), "-o", str(tmp)]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=_COMPILE_TIMEOUT_S)
        if proc.returncode != 0:
            raise TileportError(
                "TP410",
                "cannot build the CPU emulator runtime (tp_emu_runtime.cpp): "
                + _first_error_line(proc.stderr),
            )
    return final


# ----------------------------------------------------------------------------- launchers


_RESTRICT_RE = re.compile(r"\b(?:__restrict__|__restrict|restrict)\b")


def _launcher_code(sig: KernelSig) -> str:
    """`extern "C" int tp_launch_<symbol>(void **args, gx, gy, gz, bx, by, bz, smem)`.

    args[i] is the buffer itself for pointer parameters and points at the value otherwise.
    Returns the runtime's TP_RT_* status (0 = ran to completion)."""
    lines = [
        f'#line 1 "tileport-launcher:{sig.symbol}"',
        f'extern "C" __attribute__((visibility("default"))) int {launcher_name(sig)}('
        "void **args, int gx, int gy, int gz, int bx, int by, int bz, int smem_bytes) {",
    ]
    names = []
    for i, ty in enumerate(sig.param_types):
        ty = _RESTRICT_RE.sub(" ", ty).strip()  # std::is_pointer does not see through restrict
        lines.append(f"  using tp_param{i}_t = {ty};")
        unpack = "arg_ptr" if is_pointer_type(ty) else "arg_val"
        lines.append(f"  auto tp_a{i} = ::tp::{unpack}<tp_param{i}_t>(args[{i}]);")
        names.append(f"tp_a{i}")
    lines.append(f"  auto tp_body = [&] {{ {sig.launch_name}({', '.join(names)}); }};")
    lines.append(
        "  return ::tp::run_grid(dim3(gx, gy, gz), dim3(bx, by, bz), (size_t)smem_bytes, tp_body);"
    )
    lines.append("}")
    return "\n".join(lines) + "\n"


def _symbol_code(name: str) -> str:
    return (
        f'#line 1 "tileport-symbol:{name}"\n'
        f'extern "C" __attribute__((visibility("default"))) void *{symbol_accessor_name(name)}'
        f"(unsigned long *nbytes) {{ *nbytes = sizeof({name}); return (void *)&{name}; }}\n"
    )


# ----------------------------------------------------------------------------- build


def build(
    source_path: str | os.PathLike,
    kernels: Sequence[KernelSig],
    include_dirs: Iterable[str | os.PathLike] = (),
    defines: Iterable[str] = (),
    cache_dir: str | os.PathLike | None = None,
    symbols: Iterable[str] = (),
) -> Path:
    """Compile `source_path` for the CPU emulator and return the cached shared library.

    The library exports `tp_launch_<symbol>` for each kernel (see `_launcher_code`) and
    `tp_symbol_<name>` for each name in `symbols` (__constant__/__device__ variables whose
    contents a caller wants to set). defines are "NAME" or "NAME=VALUE". cache_dir is the
    tileport cache root (default `default_cache_dir()`); builds go to its `cuda-emu/`.
    Raises TileportError TP410 with the first g++ error mapped to the user's file:line.
    """
    src = Path(source_path).resolve()
    try:
        user_text = src.read_text(encoding="utf-8", errors="surrogateescape")
    except OSError as e:
        raise TileportError("TP410", f"cannot read CUDA source: {e}", Loc(str(source_path))) from e
    prepared = _prepare(attributes_first(user_text))
    rt = runtime_library(cache_dir)
    cache = _cache_dir(cache_dir)
    cxx = _cxx()

    generated = (
        f'#line 1 "{_c_string(str(src))}"\n'
        + prepared.text
        + "\n"
        + "".join(_launcher_code(k) for k in kernels)
        + "".join(_symbol_code(s) for s in symbols)
    )
    inc = [str(Path(d).resolve()) for d in include_dirs]
    defs = [str(d) for d in defines]
    flags = [
        *_CXX_FLAGS,
        "-I",
        str(EMU_DIR / "include"),
        "-include",
        str(EMU_DIR / "tp_emu.h"),
        "-iquote",
        str(src.parent),
        *[f"-I{d}" for d in inc],
        f"-D__CUDA_ARCH__={DEVICE_ARCH}",  # device code as the parse read it
        *[f"-D{d}" for d in defs],
    ]
    key = content_hash(
        _BUILD_ABI, _cxx_identity(cxx), _emu_digest(), str(rt), " ".join(flags), generated
    )[:24]
    stem = re.sub(r"[^A-Za-z0-9_.-]", "_", src.stem)[:40]
    final = cache / f"{stem}-{key}.so"
    deps_file = cache / f"{stem}-{key}.deps.json"
    if final.exists() and _deps_fresh(deps_file):
        return final

    with tempfile.TemporaryDirectory(prefix="tp-emu-build-") as tmpdir:
        gen_path = Path(tmpdir) / f"{stem}.tp.cpp"
        gen_path.write_text(generated, encoding="utf-8", errors="surrogateescape")
        dep_path = Path(tmpdir) / "deps.d"
        with replaced_atomically(final) as out_tmp:
            cmd = [
                cxx, *flags, "-MMD", "-MF", str(dep_path), "-x", "c++", str(gen_path),
                "-x", "none", str(rt), "-o", str(out_tmp),
            ]  # fmt: skip
            try:
                proc = subprocess.run(cmd, capture_output=True, text=True, timeout=_COMPILE_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                raise TileportError(
                    "TP410",
                    f"g++ took longer than {_COMPILE_TIMEOUT_S}s to compile",
                    Loc(str(source_path)),
                ) from None
            if proc.returncode != 0:
                raise _compile_error(proc.stderr, src, str(source_path), kernels, prepared)
        deps = _parse_deps(dep_path, exclude={gen_path.resolve()})
        write_atomically(deps_file, json.dumps({"deps": {d: file_hash(d) for d in deps}}, indent=1))
    return final


def _c_string(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"')


def _parse_deps(dep_path: Path, exclude: set[Path]) -> list[str]:
    """User headers the build read (from g++ -MMD), minus the generated file and tp_emu's own."""
    try:
        text = dep_path.read_text()
    except OSError:
        return []
    text = text.replace("\\\n", " ")
    _, _, rhs = text.partition(": ")
    names = [p.replace("\\ ", " ") for p in re.split(r"(?<!\\)\s+", rhs) if p]
    out = []
    for name in names:
        p = Path(name).resolve()
        if p in exclude or EMU_DIR in p.parents:
            continue
        out.append(str(p))
    return sorted(set(out))


def _deps_fresh(deps_file: Path) -> bool:
    try:
        deps = json.loads(deps_file.read_text())["deps"]
    except (OSError, ValueError, KeyError):
        return False
    return all(file_hash(path) == sha for path, sha in deps.items())


# ----------------------------------------------------------------------------- error mapping

_DIAG_RE = re.compile(
    r"^(?P<file>.+?):(?P<line>\d+):(?:(?P<col>\d+):)? (?:fatal )?error: (?P<msg>.*)$"
)
_REQUIRED_RE = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+):\s+required from here")


def _in_emu(file: str) -> bool:
    return not file.startswith("tileport-") and EMU_DIR in Path(file).resolve().parents


def _first_error_line(stderr: str) -> str:
    for line in stderr.splitlines():
        if "error" in line.lower():
            return line.strip()
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    return lines[0].strip() if lines else "unknown error"


def _compile_error(
    stderr: str, src: Path, shown_path: str, kernels: Sequence[KernelSig], prepared: _Prepared
) -> TileportError:
    """Turn g++'s output into one TP410 at the user's file:line."""
    lines = stderr.splitlines()
    user_file = str(src)

    def loc_for(file: str, line: int, col: int) -> Loc:
        return Loc(shown_path if file == user_file else file, line, col)

    if "Assembler messages" in stderr or re.search(r"\bError: ", stderr):
        where = Loc(shown_path, prepared.asm_lines[0] if prepared.asm_lines else 0, 0)
        detail = next((ln.split("Error: ", 1)[1] for ln in lines if "Error: " in ln), "")
        return TileportError(
            "TP410",
            "inline PTX assembly cannot run on the CPU emulator"
            + (f" (assembler: {detail.strip()})" if detail else ""),
            where,
        )
    for idx, line in enumerate(lines):
        m = _DIAG_RE.match(line)
        if not m:
            continue
        file, lno, col = m["file"], int(m["line"]), int(m["col"] or 0)
        msg = m["msg"].strip()
        if _in_emu(file):
            # inside the emulation header: blame the code that instantiated it
            for prev in reversed(lines[:idx]):
                r = _REQUIRED_RE.match(prev)
                if r and not _in_emu(r["file"]):
                    file, lno, col = r["file"], int(r["line"]), int(r["col"])
                    break
        if file.startswith("tileport-launcher:"):
            sym = file.split(":", 1)[1]
            name = next((k.launch_name for k in kernels if k.symbol == sym), sym)
            return TileportError(
                "TP410",
                f"the CPU emulator's launcher for kernel `{name}` does not compile: {msg}",
                Loc(shown_path),
            )
        if file.startswith("tileport-symbol:"):
            return TileportError(
                "TP410", f"no device variable `{file.split(':', 1)[1]}`: {msg}", Loc(shown_path)
            )
        if "No such file or directory" in msg:
            msg += (
                " (the CPU emulator provides cuda_runtime.h, cuda.h, cuda_fp16.h, cuda_bf16.h, "
                "device_launch_parameters.h, math_constants.h, cooperative_groups.h; "
                "pass include_dirs for your own headers)"
            )
        return TileportError(
            "TP410", f"cannot compile for the CPU emulator: {msg}", loc_for(file, lno, col)
        )
    return TileportError(
        "TP410",
        f"cannot compile for the CPU emulator: {_first_error_line(stderr)}",
        Loc(shown_path),
    )
