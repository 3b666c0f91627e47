"""libclang plumbing: parse CUDA with tileport's shim, and the C API calls the Python bindings lack.

TOOLCHAIN.md records why the flags look like this: the PyPI libclang has no CUDA headers and
cannot read CUDA 13's, so the shim header declares the CUDA language instead.
"""

from __future__ import annotations

import ctypes
import functools
import os
import re
import subprocess
from pathlib import Path

from porter.util.cache_root import cache_root
from porter.diagnostics import Loc, TileportError
from porter.util.files import replaced_atomically, write_atomically
from porter.util.hashing import content_hash

SHIM_DIR = Path(__file__).parent / "shim"

# clang's BinaryOperatorKind / UnaryOperatorKind numbering (clang_getCursor*OperatorKind).
BINARY_OPERATORS = [None, ".*", "->*", "*", "/", "%", "+", "-", "<<", ">>", "<=>", "<", ">", "<=",
                    ">=", "==", "!=", "&", "^", "|", "&&", "||", "=", "*=", "/=", "%=", "+=", "-=",
                    "<<=", ">>=", "&=", "^=", "|=", ","]
UNARY_OPERATORS = [None, "post++", "post--", "pre++", "pre--", "&", "*", "+", "-", "~", "!"]


@functools.lru_cache(maxsize=1)
def cindex():
    """Import clang.cindex once and register the C functions the bindings do not wrap."""
    try:
        import clang.cindex as ci
    except ImportError as exc:  # pragma: no cover - install problem
        raise TileportError("TP401", f"libclang is not installed: {exc}") from exc
    lib = ci.conf.lib
    for name, argtypes, restype in (
        ("clang_getCursorBinaryOperatorKind", [ci.Cursor], ctypes.c_int),
        ("clang_getCursorUnaryOperatorKind", [ci.Cursor], ctypes.c_int),
        ("clang_Cursor_Evaluate", [ci.Cursor], ctypes.c_void_p),
        ("clang_EvalResult_getKind", [ctypes.c_void_p], ctypes.c_int),
        ("clang_EvalResult_getAsLongLong", [ctypes.c_void_p], ctypes.c_longlong),
        ("clang_EvalResult_getAsDouble", [ctypes.c_void_p], ctypes.c_double),
        ("clang_EvalResult_dispose", [ctypes.c_void_p], None),
        ("clang_getPresumedLocation", [ci.SourceLocation, ctypes.POINTER(ci._CXString),
                                       ctypes.POINTER(ctypes.c_uint), ctypes.POINTER(ctypes.c_uint)], None),
    ):
        fn = getattr(lib, name)
        fn.argtypes, fn.restype = argtypes, restype
    return ci


def binary_operator(cursor) -> str:
    kind = cindex().conf.lib.clang_getCursorBinaryOperatorKind(cursor)
    return BINARY_OPERATORS[kind] if 0 < kind < len(BINARY_OPERATORS) else "?"


def unary_operator(cursor) -> str:
    kind = cindex().conf.lib.clang_getCursorUnaryOperatorKind(cursor)
    return UNARY_OPERATORS[kind] if 0 < kind < len(UNARY_OPERATORS) else "?"


def evaluate(cursor):
    """clang's own constant evaluation: an int or float, or None when not constant."""
    lib = cindex().conf.lib
    result = lib.clang_Cursor_Evaluate(cursor)
    if not result:
        return None
    try:
        kind = lib.clang_EvalResult_getKind(result)
        if kind == 1:
            return int(lib.clang_EvalResult_getAsLongLong(result))
        if kind == 2:
            return float(lib.clang_EvalResult_getAsDouble(result))
        return None
    finally:
        lib.clang_EvalResult_dispose(result)


@functools.lru_cache(maxsize=1)
def _gcc_include() -> str:
    try:
        return subprocess.check_output(["gcc", "-print-file-name=include"], text=True).strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


SHIM_HEADER = SHIM_DIR / "tp_parse_shim.h"


#: The device architecture kernels are read for (`__CUDA_ARCH__`), by the parse and the CPU
#: emulator alike: the lowest the GPU compile check builds (sm_80). clang's host-only parse
#: would leave it undefined, and a kernel body under `#if __CUDA_ARCH__ >= 700` would be empty.
DEVICE_ARCH = 800


def parse_args(include_dirs=(), defines=(), shim=True) -> list[str]:
    """clang's flags for a CUDA file; `shim=False` leaves out the pre-included shim header."""
    args = ["-x", "cuda", "--cuda-host-only", "-nocudainc", "-nocudalib", "-std=c++17",
            "-Wno-unknown-cuda-version", "-Wno-unused-value", "-ferror-limit=0",
            f"-D__CUDA_ARCH__={DEVICE_ARCH}"]
    if _gcc_include():
        args += ["-isystem", _gcc_include()]
    for d in include_dirs:
        args += ["-I", str(d)]
    args += ["-I", str(SHIM_DIR / "include")]
    if shim:
        args += ["-include", str(SHIM_HEADER)]
    for d in defines:
        args.append(f"-D{d}")
    return args


@functools.lru_cache(maxsize=1)
def _shim_identity() -> str:
    """What a precompiled shim depends on besides the flags: libclang and the shim's files."""
    lib = cindex().conf.lib._name or ""
    try:
        st = os.stat(lib)
        stamp = f"{st.st_size}:{st.st_mtime_ns}"
    except OSError:
        stamp = ""
    files = [f for f in sorted(SHIM_DIR.rglob("*.h")) + sorted((SHIM_DIR / "include").rglob("*")) if f.is_file()]
    return content_hash(lib, stamp, *(str(f.relative_to(SHIM_DIR)).encode() + b"\0" + f.read_bytes() for f in files))


def _pch_path(args: list) -> Path:
    key = content_hash(_shim_identity(), *args)[:24]
    return cache_root() / "parse-pch" / f"shim-{key}.pch"


def shim_pch(include_dirs=(), defines=()) -> Path | None:
    """The shim header and the standard headers it includes, precompiled once per flag set.

    Parsing them took 0.11 s of a 0.16 s parse of a 47-line kernel (they are ten thousand
    declarations); loading the precompiled form takes a few milliseconds. Built on first use
    into the cache root, written atomically (concurrent runs race harmlessly); None when it
    cannot be built or stored, and the caller pre-includes the shim as text.
    """
    args = parse_args(include_dirs, defines, shim=False)
    path = _pch_path(args)
    if path.is_file():
        return path
    ci = cindex()
    try:
        tu = ci.Index.create().parse(str(SHIM_HEADER), args=args,
                                     options=ci.TranslationUnit.PARSE_INCOMPLETE)
        if any(d.severity >= ci.Diagnostic.Error for d in tu.diagnostics):
            return None  # e.g. a user -D that breaks a standard header: parse as text, see it there
        path.parent.mkdir(parents=True, exist_ok=True)
        with replaced_atomically(path) as tmp:  # a save that fails half-way leaves no temp file
            tu.save(str(tmp))
    except (ci.TranslationUnitLoadError, ci.TranslationUnitSaveError, OSError):
        return None
    return path


_PCH_TROUBLE = re.compile(r"precompiled header|PCH file|AST file|has been modified since")


def loc_of(cursor) -> Loc:
    """The presumed location: honours `#line`, which template instantiations rely on."""
    ci = cindex()
    filename, line, column = ci._CXString(), ctypes.c_uint(), ctypes.c_uint()
    ci.conf.lib.clang_getPresumedLocation(cursor.location, ctypes.byref(filename),
                                          ctypes.byref(line), ctypes.byref(column))
    name = ci._CXString.from_result(filename)
    return Loc(name or "", line.value, column.value)


_MISSING_HEADER = re.compile(r"'(.+)' file not found")


def stand_in_dir(headers) -> Path:
    """A folder of empty stand-ins for headers the machine lacks (cublas_v2.h, thrust/sort.h).

    It goes last on the include path (-idirafter) of both the parse and the emulator build,
    so a header that exists anywhere is still the real one. Content-addressed by the names:
    concurrent runs share it. It lives in tileport's cache root, not the temp folder (where it
    outlived every run), and nothing is written into the user's tree.
    """
    names = sorted(set(headers))
    key = content_hash("\n".join(names))[:16]
    root = cache_root() / "missing-headers" / key
    for name in names:
        target = root / name
        if target.is_file():
            continue
        if name.startswith("/") or ".." in Path(name).parts:
            continue  # an absolute or escaping path cannot be stood in for
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(target, "/* tileport: stand-in for a header this machine does not have */\n")
    return root


def _discard(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass


#: `__shared__ alignas(16) float t[..]`: nvcc takes a standard attribute after the CUDA one, clang
#: and g++ only before it (their __shared__ is a GNU attribute, or `static`).
_ATTRIBUTE_AFTER_SHARED = re.compile(r"\b(__shared__|__device__|__constant__)(\s+)"
                                     r"(alignas\s*\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\))")


def attributes_first(text: str) -> str:
    """The text with `alignas(..)` moved before the CUDA memory-space word it follows; the same
    length and lines, so every location stays the user's."""
    if "alignas" not in text:
        return text
    return _ATTRIBUTE_AFTER_SHARED.sub(lambda m: m.group(3) + m.group(2) + m.group(1), text)


def _attributes_first_in_headers(path: str, include_dirs, headers: dict) -> dict:
    """Unsaved copies of the user's headers that need attributes_first (real path -> text)."""
    from porter.frontends.cuda.includers import included_files, read_text

    out = dict(headers)
    for header in included_files(path, include_dirs):
        if header not in out and not header.startswith(str(SHIM_DIR)):
            body = read_text(header)
            if "alignas" in body and attributes_first(body) != body:
                out[header] = attributes_first(body)
    return out


class Parsed:
    """A translation unit and what the parse found wrong, located, for the caller to judge.

    errors: TileportErrors (TP101) with a file position: fatal only for a kernel they sit in
    (or in device code it calls). missing: headers stood in for by empty files.
    """

    def __init__(self, tu, errors, missing):
        self.tu, self.errors, self.missing = tu, errors, missing


def parse(path: str, include_dirs=(), defines=(), text: str | None = None, missing=(),
          headers: dict | None = None) -> Parsed:
    """Parse a CUDA file (or `text` standing in for it).

    A header the machine lacks, in the file or in any header it includes, must not stop the
    parse: it is stood in for by an empty file and the file parsed again; what the header
    declared then fails only in the code that uses it. clang's error limit is off, so every
    error is seen and none stops the parse. `headers` stands in for files by path (real path ->
    text), as the emulator's cleaned copies do.
    """
    ci = cindex()
    if text is None:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise TileportError("TP001", f"cannot read the file: {exc}", Loc(path)) from exc
    missing = list(missing)
    text = attributes_first(text)
    headers = _attributes_first_in_headers(path, include_dirs, {k: attributes_first(v) for k, v in (headers or {}).items()})
    pch = shim_pch(include_dirs, defines)
    suspect = None  # a precompiled shim whose load failed: discarded once the text shim works
    for _ in range(64):
        if pch is not None:
            args = parse_args(include_dirs, defines, shim=False) + ["-include-pch", str(pch)]
        else:
            args = parse_args(include_dirs, defines)
        if missing:
            args += ["-idirafter", str(stand_in_dir(missing))]
        try:
            tu = ci.Index.create().parse(
                path, args=args, unsaved_files=[(path, text)] + list((headers or {}).items()),
                options=ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD)
        except ci.TranslationUnitLoadError as exc:
            if pch is not None:  # a damaged precompiled shim fails the whole load: parse as text
                suspect, pch = pch, None
                continue
            # libclang gives no reason (its message is a dump of the call): the usual ones
            raise TileportError("TP101", "libclang could not parse the file at all (it gives no reason; "
                                "usually an input that ran it out of memory, e.g. a macro or include that "
                                "expands without end)", Loc(path)) from exc
        if suspect is not None:  # the same file parses with the text shim: the PCH was bad
            _discard(suspect)
            suspect = None
        errors, new = [], []
        if pch is not None and any(d.severity >= ci.Diagnostic.Error and _PCH_TROUBLE.search(d.spelling)
                                   for d in tu.diagnostics):
            _discard(pch)  # stale or damaged: parse the shim as text, rebuild next time
            pch = None
            continue
        for diag in tu.diagnostics:
            if diag.severity < ci.Diagnostic.Error:
                continue
            match = _MISSING_HEADER.search(diag.spelling)
            if match and match.group(1) not in missing:
                new.append(match.group(1))
                continue
            where = diag.location
            if not where.file:
                continue  # no location: not any kernel's error (e.g. "too many errors")
            loc = Loc(where.file.name, where.line, where.column)
            errors.append(TileportError("TP101", f"C++ error: {diag.spelling}", loc))
        if not new:
            return Parsed(tu, errors, missing)
        missing += new
    raise TileportError("TP101", "too many headers are missing", Loc(path))
