"""Pick the front end for a file and turn unreadable input into diagnostics."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from porter.diagnostics import Loc, TileportError

CUDA_SUFFIXES = (".cu", ".cuh")


def language_of(path: str) -> str:
    suffix = Path(path).suffix.lower()
    if suffix in CUDA_SUFFIXES:
        return "cuda"
    if suffix == ".py":
        return "triton"
    raise TileportError("TP005", f"cannot tell the language of '{path}': expected .cu/.cuh (CUDA) "
                        "or .py (Triton)", Loc(path))


def check_readable(path: str) -> str:
    p = Path(path)
    if not p.exists():
        raise TileportError("TP001", "no such file", Loc(path))
    if not p.is_file():
        raise TileportError("TP001", "not a regular file", Loc(path))
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise TileportError("TP001", f"cannot read the file: {exc.strerror}", Loc(path)) from exc
    return decode_source(data, path)


def decode_source(data: bytes, path: str) -> str:
    """The text of a source file; TP002 for a binary file (a NUL byte in its first 8 KiB) or
    one that is not UTF-8 (with the line of the first bad byte)."""
    if b"\0" in data[:8192]:
        raise TileportError("TP002", "this is a binary file, not kernel source", Loc(path, 1, 1))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise TileportError("TP002", "the file is not valid UTF-8 text", Loc(path, line, 1)) from None


#: The most kernels one file may define before tileport asks for --max-kernels (a generated
#: file of 100k kernels would otherwise run for many minutes without a word).
MAX_KERNELS = 1000
_KERNEL_MARKS = {"cuda": re.compile(r"\b__global__\b"), "triton": re.compile(r"@\s*(?:triton\s*\.\s*)?jit\b")}


#: `context` of a CUDA file converted on its own: its includer is looked for in its folder.
FIND_INCLUDER = ":folder:"


def load_module(path: str, include_dirs=(), defines=(), config: int | None = None, dtypes=None, block=None,
                grid=None, constexprs=None, max_kernels: int | None = None, context: str | None = FIND_INCLUDER,
                foreign=(), find_generic=None):
    """Read a CUDA or Triton file into an IR Module.

    CUDA only: context is the includer the file is parsed in (None: alone; FIND_INCLUDER: one in
    its folder, if any); foreign lists files whose kernels other ports hold. Triton only:
    find_generic judges which constexprs a port's program takes (porter/reader.py)."""
    language = language_of(path)
    text = check_readable(path)
    if not text.strip():
        raise TileportError("TP100" if language == "cuda" else "TP200", "the file is empty", Loc(path, 1, 1))
    limit = MAX_KERNELS if max_kernels is None else max_kernels
    count = sum(1 for _ in _KERNEL_MARKS[language].finditer(text))
    if count > limit:
        raise TileportError("TP022", f"the file defines {count:,} kernels, more than the {limit:,} tileport "
                            "converts from one file; pass --max-kernels N to take them all", Loc(path, 1, 1))
    from porter.isolated import run_isolated

    if language == "cuda":
        from porter.frontends.cuda import convert_cuda

        refuse_special_includes(path, text, include_dirs)
        if context == FIND_INCLUDER:
            from porter.frontends.cuda.includers import context_in_folder

            context = context_in_folder(path, include_dirs)
        return run_isolated(convert_cuda, path, include_dirs, defines, block, grid, context, tuple(foreign),
                            where=path)
    from porter.frontends.triton import convert_triton

    return run_isolated(convert_triton, path, where=path, config=config, dtypes=dtypes or {}, grid=grid,
                        constexprs=constexprs, find_generic=find_generic)


_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*(?:"([^"\n]+)"|<([^>\n]+)>)', re.MULTILINE)


def refuse_special_includes(path: str, text: str, include_dirs=()) -> None:
    """TP021 for an `#include` of a device, FIFO, socket or directory: the compiler would read
    /dev/zero until memory runs out, or wait on a FIFO forever. (Includes a macro spells, or
    a header's own, are caught by the front end's memory and time limits instead.)"""
    here = os.path.dirname(os.path.abspath(path))
    for match in _INCLUDE.finditer(text):
        name = match.group(1) or match.group(2)
        bases = ([here] if match.group(1) else []) + [str(d) for d in include_dirs]
        candidates = [name] if os.path.isabs(name) else [os.path.join(b, name) for b in bases]
        for candidate in candidates:
            try:
                mode = os.stat(candidate).st_mode
            except (OSError, ValueError):
                continue
            if not stat.S_ISREG(mode):
                line = text.count("\n", 0, match.start()) + 1
                raise TileportError("TP021", f"refusing to include '{name}': it is not a regular file "
                                    f"({file_kind(mode)})", Loc(path, line, 1))
            break  # the first file found is the one the compiler takes


def file_kind(mode: int) -> str:
    """What a file that is not a regular one is, in words ("a FIFO"), for diagnostics."""
    for test, name in ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory")):
        if test(mode):
            return name
    return "a special file"
