"""Per-file -I / -D from a compilation database (compile_commands.json).

A tree built with CMake or Bear already knows each file's include paths and defines; the CUDA
front end and the emulator need the same ones to see what the compiler saw. Only -I/-isystem/
-iquote and -D/-U are taken (relative paths are relative to the entry's "directory").
"""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

from porter.diagnostics import Loc, TileportError

_INCLUDE_FLAGS = ("-I", "-isystem", "-iquote", "--include-path")
_DEFINE_FLAGS = ("-D", "--define-macro")


def _arguments(entry: dict) -> list[str]:
    if isinstance(entry.get("arguments"), list):
        return [str(a) for a in entry["arguments"]]
    return shlex.split(str(entry.get("command", "")))


def flags_of(args: list[str], directory: str) -> tuple[list[str], list[str]]:
    """(include dirs, defines) from one compiler command line."""
    includes, defines = [], []
    i = 0
    while i < len(args):
        arg, following = args[i], args[i + 1] if i + 1 < len(args) else None
        target, value = None, None
        for flags, out in ((_INCLUDE_FLAGS, includes), (_DEFINE_FLAGS, defines)):
            for flag in flags:
                if arg == flag and following is not None:
                    target, value = out, following
                    i += 1
                elif flag.startswith("--") and arg.startswith(flag + "="):
                    target, value = out, arg[len(flag) + 1:]
                elif not flag.startswith("--") and arg.startswith(flag) and len(arg) > len(flag):
                    target, value = out, arg[len(flag):]
                if target is not None:
                    break
            if target is not None:
                break
        if target is includes:
            includes.append(os.path.normpath(os.path.join(directory, value)))
        elif target is defines:
            defines.append(value)
        i += 1
    return includes, defines


def load(path: str) -> dict[str, tuple[list[str], list[str]]]:
    """realpath of each source -> (include dirs, defines)."""
    try:
        entries = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise TileportError("TP011", f"cannot read the compilation database: {exc.strerror}", Loc(path)) from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise TileportError("TP011", f"the compilation database is not valid JSON: {exc}", Loc(path)) from exc
    if not isinstance(entries, list):
        raise TileportError("TP011", "the compilation database must be a JSON list of entries", Loc(path))
    table = {}
    base = os.path.dirname(os.path.abspath(path))
    for entry in entries:
        if not isinstance(entry, dict) or "file" not in entry:
            continue
        directory = str(entry.get("directory") or base)
        source = os.path.realpath(os.path.join(directory, str(entry["file"])))
        table[source] = flags_of(_arguments(entry), directory)
    return table
