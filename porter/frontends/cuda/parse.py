"""libclang plumbing: parse CUDA with tileport's shim, and the C API calls the Python bindings lack.

TOOLCHAIN.md records why the flags look like this: the PyPI libclang has no CUDA headers and
cannot read CUDA 13's, so the shim header declares the CUDA language instead.
"""

from __future__ import annotations

import ctypes
import functools
import re
import subprocess
from pathlib import Path

from porter.diagnostics import Loc, TileportError

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


def parse_args(include_dirs=(), defines=()) -> list[str]:
    args = ["-x", "cuda", "--cuda-host-only", "-nocudainc", "-nocudalib", "-std=c++17",
            "-Wno-unknown-cuda-version", "-Wno-unused-value"]
    if _gcc_include():
        args += ["-isystem", _gcc_include()]
    for d in include_dirs:
        args += ["-I", str(d)]
    args += ["-I", str(SHIM_DIR / "include"), "-include", str(SHIM_DIR / "tp_parse_shim.h")]
    for d in defines:
        args.append(f"-D{d}")
    return args


def loc_of(cursor) -> Loc:
    """The presumed location: honours `#line`, which template instantiations rely on."""
    ci = cindex()
    filename, line, column = ci._CXString(), ctypes.c_uint(), ctypes.c_uint()
    ci.conf.lib.clang_getPresumedLocation(cursor.location, ctypes.byref(filename),
                                          ctypes.byref(line), ctypes.byref(column))
    name = ci._CXString.from_result(filename)
    return Loc(name or "", line.value, column.value)


_MISSING_HEADER = re.compile(r"'(.+)' file not found")


def parse(path: str, include_dirs=(), defines=(), text: str | None = None):
    """Parse a CUDA file (or `text` standing in for it).

    A header the machine lacks (cublas_v2.h, a project header not on -I) must not stop the
    parse: its #include is blanked (lines kept) and the file parsed again; what the header
    declared then fails only in the code that uses it. Returns (translation unit, errors),
    the errors as TileportErrors for the caller to judge: fatal inside a kernel, noise in
    host code.
    """
    ci = cindex()
    if text is None:
        try:
            text = open(path, encoding="utf-8").read()
        except (OSError, UnicodeDecodeError) as exc:
            raise TileportError("TP001", f"cannot read the file: {exc}", Loc(path)) from exc
    skipped: list[str] = []
    for _ in range(20):
        try:
            tu = ci.Index.create().parse(
                path, args=parse_args(include_dirs, defines), unsaved_files=[(path, text)],
                options=ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD)
        except ci.TranslationUnitLoadError as exc:
            raise TileportError("TP101", f"libclang could not parse the file: {exc}", Loc(path)) from exc
        errors = []
        missing = None
        for diag in tu.diagnostics:
            if diag.severity < ci.Diagnostic.Error:
                continue
            where = diag.location
            loc = Loc(where.file.name if where.file else path, where.line, where.column)
            match = _MISSING_HEADER.search(diag.spelling)
            if match and where.file and where.file.name == path and missing is None:
                missing = (where.line, match.group(1))
            errors.append(TileportError("TP101", f"C++ error: {diag.spelling}", loc))
        if missing is None:
            tu.skipped_headers = skipped
            return tu, errors
        lines = text.split("\n")
        lines[missing[0] - 1] = "/* tileport: header not available here: " + \
            lines[missing[0] - 1].replace("*/", "* /") + " */"
        text = "\n".join(lines)
        skipped.append(missing[1])
    raise TileportError("TP101", "too many headers are missing", Loc(path))
