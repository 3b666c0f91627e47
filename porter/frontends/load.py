"""Pick the front end for a file and turn unreadable input into diagnostics."""

from __future__ import annotations

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
    if b"\0" in data[:8192]:
        raise TileportError("TP002", "this is a binary file, not kernel source", Loc(path, 1, 1))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise TileportError("TP002", "the file is not valid UTF-8 text", Loc(path, line, 1)) from exc


def load_module(path: str, include_dirs=(), defines=(), config: int = 0, dtypes=None, block=None,
                grid=None, constexprs=None):
    """Read a CUDA or Triton file into an IR Module."""
    language = language_of(path)
    text = check_readable(path)
    if not text.strip():
        raise TileportError("TP100" if language == "cuda" else "TP200", "the file is empty", Loc(path, 1, 1))
    if language == "cuda":
        from porter.frontends.cuda import convert_cuda

        return convert_cuda(path, include_dirs, defines, block, grid)
    from porter.frontends.triton import convert_triton

    return convert_triton(path, config=config, dtypes=dtypes or {}, grid=grid, constexprs=constexprs)
