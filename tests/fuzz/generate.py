"""Hostile inputs for tileport, generated from the bundled samples and a seed (issue 15).

Each case is a small directory of files and one tileport command line run in it:

    flip        random bytes of a sample changed
    truncate    a sample cut at a random byte
    lines       lines of a sample deleted, duplicated or swapped
    tokens      a number, name or operator of a sample replaced (huge numbers, NaN, keywords)
    special     FIFOs, devices, directories and links where a source or an include is expected
    trap        constructs that blow up naive front ends: deep nesting, long sums, macro
                bombs, constants past machine types, recursion, odd grids
    output      -o onto the input (by a link, a hard link), under a file, onto a FIFO
    usage       bad options and arguments
    runtime     kernels that crash or hang under verify, ports that misbehave

`cases(seed, count)` is deterministic: the same seed gives the same cases.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = sorted(p for p in (ROOT / "samples").rglob("*") if p.suffix in (".cu", ".py") and p.is_file())

KINDS = ("flip", "truncate", "lines", "tokens", "special", "trap", "output", "usage", "runtime")
#: How often each kind is drawn (runtime cases run verify: slow, so fewer of them).
WEIGHTS = {"flip": 14, "truncate": 10, "lines": 14, "tokens": 18, "special": 6, "trap": 14, "output": 6,
           "usage": 6, "runtime": 2}


@dataclass
class Case:
    """One input and the command run on it, in a directory of its own."""

    ident: str
    kind: str
    argv: list  # tileport's arguments, paths relative to the case directory
    files: dict = field(default_factory=dict)  # relative path -> bytes
    fifos: tuple = ()  # relative paths made as FIFOs
    links: dict = field(default_factory=dict)  # relative path -> what the symlink points at
    hard_links: dict = field(default_factory=dict)  # relative path -> an existing file's relative path
    prepare: list = field(default_factory=list)  # tileport command lines run first (not judged)
    note: str = ""


def cases(seed: int, count: int) -> list[Case]:
    rng = random.Random(seed)
    kinds = list(WEIGHTS)
    out = []
    for n in range(count):
        kind = rng.choices(kinds, weights=[WEIGHTS[k] for k in kinds])[0]
        case = _MAKERS[kind](rng)
        case.ident = f"{seed}-{n:04d}-{kind}"
        out.append(case)
    return out


def _sample(rng) -> tuple[str, bytes]:
    path = rng.choice(SAMPLES)
    return path.name, path.read_bytes()


def _convert(name: str, rng, extra=()) -> list:
    argv = ["convert", name]
    if rng.random() < 0.5:
        argv += ["-o", "out_tl.py"]
    return argv + list(extra)


def _flip(rng) -> Case:
    name, data = _sample(rng)
    data = bytearray(data)
    for _ in range(rng.choice((1, 2, 8, 64))):
        i = rng.randrange(len(data))
        data[i] = rng.randrange(256) if rng.random() < 0.5 else data[i] ^ (1 << rng.randrange(8))
    return Case("", "flip", _convert(name, rng), {name: bytes(data)})


def _truncate(rng) -> Case:
    name, data = _sample(rng)
    return Case("", "truncate", _convert(name, rng), {name: data[:rng.randrange(len(data))]})


def _lines(rng) -> Case:
    name, data = _sample(rng)
    lines = data.split(b"\n")
    for _ in range(rng.choice((1, 3, 10))):
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        action = rng.choice(("delete", "duplicate", "swap"))
        if action == "delete" and len(lines) > 1:
            del lines[i]
        elif action == "duplicate":
            lines.insert(i, lines[j])
        else:
            lines[i], lines[j] = lines[j], lines[i]
    return Case("", "lines", _convert(name, rng), {name: b"\n".join(lines)})


_TOKEN = re.compile(rb"[A-Za-z_]\w*|\d+(?:\.\d*)?(?:[eE][-+]?\d+)?f?|[-+*/%<>=!&|^~]+")
_REPLACEMENTS = [b"0", b"-1", b"2147483648", b"99999999999999999999999", b"1e400", b"nan", b"0x7fffffff",
                 b"(", b")", b"[", b"]", b"{", b"}", b";", b"", b"while", b"return", b"__syncthreads()",
                 b"tl.program_id(3)", b"threadIdx.w", b"1 / 0", b"**", b"<<", b"int64_t", b"half2",
                 b"\xc3\xa9", b"\\", b'"', b"#define", b"lambda", b"yield", b"self", b"None"]


def _tokens(rng) -> Case:
    name, data = _sample(rng)
    spans = [m.span() for m in _TOKEN.finditer(data)]
    for _ in range(rng.choice((1, 2, 5))):
        start, end = rng.choice(spans)
        new = rng.choice(_REPLACEMENTS) if rng.random() < 0.7 else data[slice(*rng.choice(spans))]
        data = data[:start] + new + data[end:]
        spans = [m.span() for m in _TOKEN.finditer(data)]
    return Case("", "tokens", _convert(name, rng), {name: data})


KERNEL = b"__global__ void k(float* x) { x[0] = 1.0f; }\n"


def _special(rng) -> Case:
    choice = rng.randrange(8)
    if choice == 0:
        return Case("", "special", ["convert", "pipe.cu"], fifos=("pipe.cu",), note="a FIFO as the source")
    if choice == 1:
        return Case("", "special", ["convert", "k.cu"], {"k.cu": b'#include "pipe.h"\n' + KERNEL},
                    fifos=("pipe.h",), note="an include of a FIFO")
    if choice == 2:
        device = rng.choice(("/dev/zero", "/dev/urandom", "/dev/null", "/proc/self/mem", "/dev/stdin"))
        return Case("", "special", ["convert", "k.cu"], {"k.cu": f'#include "{device}"\n'.encode() + KERNEL},
                    note=f"an include of {device}")
    if choice == 3:
        return Case("", "special", ["convert", "k.cu"],
                    {"k.cu": b'#include "h.h"\n' + KERNEL, "h.h": b'#include "/dev/zero"\n'},
                    note="a header that includes /dev/zero")
    if choice == 4:
        return Case("", "special", ["convert", "loop.cu"], links={"loop.cu": "loop.cu"}, note="a symlink loop")
    if choice == 5:
        return Case("", "special", ["convert", "dir.cu/"], {"dir.cu/x": b""}, note="a directory as the source")
    if choice == 6:
        return Case("", "special", ["migrate", "src", "-o", "out", "--jobs", "1"],
                    {"src/a.cu": KERNEL, "src/blob.py": bytes(range(256)) * 4}, fifos=("src/pipe.cu",),
                    note="a tree with a FIFO and a binary file")
    return Case("", "special", ["convert", "k.cu"], {"k.cu": b'#include "k.cu"\n' + KERNEL},
                note="a file that includes itself")


def _triton(body: str, grid: str = "(1,)", params: str = "x_ptr, n, BLOCK: tl.constexpr") -> bytes:
    return ("import triton\nimport triton.language as tl\n\n\n@triton.jit\n"
            f"def k({params}):\n{body}\n\n\ndef run(x):\n"
            f"    k[lambda meta: {grid}](x, x.numel(), BLOCK=128)\n").encode()


_OFFS = "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"


def _trap(rng) -> Case:
    choice = rng.randrange(12)
    depth = rng.choice((200, 1000, 3000, 10000))
    if choice == 0:
        return Case("", "trap", ["convert", "k.cu"],
                    {"k.cu": f"__global__ void k(float* x) {{ x[1] = {'-' * depth}x[0]; }}\n".encode()},
                    note=f"{depth} nested unary minus (CUDA)")
    if choice == 1:
        return Case("", "trap", ["convert", "k.py"],
                    {"k.py": _triton(f"    tl.store(x_ptr, {'-' * depth}tl.load(x_ptr))", params="x_ptr")},
                    note=f"{depth} nested unary minus (Triton)")
    if choice == 2:
        terms = rng.choice((300, 600, 1500))
        sum_ = " + ".join(f"x[i + {k}]" for k in range(terms))
        return Case("", "trap", ["convert", "k.cu", "-o", "k_tl.py"],
                    {"k.cu": ("__global__ void k(const float* x, float* y, int n) {\n"
                              f"  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) y[i] = {sum_};\n}}\n")
                     .encode()}, note=f"a {terms}-term sum")
    if choice == 3:
        levels = rng.choice((4, 5, 6))
        macros = "#define A0(x) (x+x)\n" + "".join(f"#define A{i}(x) A{i - 1}(A{i - 1}(x))\n"
                                                  for i in range(1, levels + 1))
        return Case("", "trap", ["convert", "k.cu"],
                    {"k.cu": (macros + f"__global__ void k(float* y) {{ y[0] = A{levels}(y[1]); }}\n").encode()},
                    note=f"a macro of 2^{2 ** levels} terms")
    if choice == 4:
        expr = rng.choice(("2 ** 1024", "2 ** 10 ** 9", "1 << 100000", "10 ** 400", "-2 ** 70", "1e308 * 10"))
        return Case("", "trap", ["convert", "k.py"],
                    {"k.py": _triton(_OFFS + f"    tl.store(x_ptr + offs, {expr} + tl.load(x_ptr + offs), "
                                     "mask=offs < n)")}, note=f"the constant {expr}")
    if choice == 5:
        grid = rng.choice(("(1, 1, 1, 1)", "(n // 0,)", "()", "(-1,)", "(2 ** 40,)", "(meta['NOPE'],)"))
        return Case("", "trap", ["convert", "k.py"],
                    {"k.py": _triton(_OFFS + "    tl.store(x_ptr + offs, 1.0, mask=offs < n)", grid=grid)},
                    note=f"the grid {grid}")
    if choice == 6:
        return Case("", "trap", ["convert", "k.py"],
                    {"k.py": (b"import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef f(x):\n"
                              b"    return f(x)\n\n\n@triton.jit\ndef k(x_ptr):\n    tl.store(x_ptr, f(1.0))\n")},
                    note="a recursive jit helper")
    if choice == 7:
        return Case("", "trap", ["convert", "k.cu"],
                    {"k.cu": (b"__device__ float f(float x) { return f(x) + 1; }\n"
                              b"__global__ void k(float* x) { x[0] = f(x[1]); }\n")}, note="a recursive device function")
    if choice == 8:
        parens = "(" * depth + "x[0]" + ")" * depth
        return Case("", "trap", ["convert", "k.cu"],
                    {"k.cu": f"__global__ void k(float* x) {{ x[1] = {parens}; }}\n".encode()},
                    note=f"{depth} nested parentheses")
    if choice == 9:
        count = rng.choice((1200, 5000))
        text = "".join(f"__global__ void k{i}(float* x) {{ x[{i}] = 1.0f; }}\n" for i in range(count))
        return Case("", "trap", ["convert", "many.cu", "-o", "many_tl.py"], {"many.cu": text.encode()},
                    note=f"{count} kernels in one file")
    if choice == 10:
        nest = "".join("    " * (i + 1) + f"if offs[0] > {i}:\n" for i in range(min(depth, 90)))
        return Case("", "trap", ["convert", "k.py"],
                    {"k.py": _triton(_OFFS + nest + "    " * (min(depth, 90) + 1) + "pass")},
                    note="deeply nested ifs on a block")
    return Case("", "trap", ["convert", "k.py"],
                {"k.py": (b"import triton\nimport triton.language as tl\nimport os\nos.system('touch PWNED')\n\n\n"
                          b"@triton.jit\ndef k(x_ptr):\n    tl.store(x_ptr, 1.0)\n")},
                note="a module whose top level runs code (must never be executed)")


def _output(rng) -> Case:
    name, data = _sample(rng)
    choice = rng.randrange(5)
    files = {name: data, "plain.txt": b"mine\n"}
    if choice == 0:
        return Case("", "output", ["convert", name, "-o", name, "--force"], files, note="-o the input")
    if choice == 1:
        return Case("", "output", ["convert", name, "-o", "alias" + Path(name).suffix, "--force"], files,
                    links={"alias" + Path(name).suffix: name}, note="-o a symlink to the input")
    if choice == 2:
        return Case("", "output", ["convert", name, "-o", "hard" + Path(name).suffix, "--force"], files,
                    hard_links={"hard" + Path(name).suffix: name}, note="-o a hard link to the input")
    if choice == 3:
        return Case("", "output", ["convert", name, "-o", "plain.txt/x.py"], files, note="-o under a file")
    return Case("", "output", ["convert", name, "-o", "pipe.py", "--force"], files, fifos=("pipe.py",),
                note="-o a FIFO")


def _usage(rng) -> Case:
    name, data = _sample(rng)
    argv = rng.choice((
        ["convert", name, "--grid", "0"], ["convert", name, "--tile", "0,0,0"], ["convert", name, "--block", "x"],
        ["convert", name, "--dtype", "x_ptr=float77"], ["convert", name, "--constexpr", "B"],
        ["convert", name, "--max-kernels", "0"], ["convert", name, "--no-such-option"], ["convert"],
        ["verify", name], ["verify", name, name, "--timeout", "-1"], ["migrate", ".", "-o", "."],
        ["migrate", name, "-o", "out"], ["no-such-command"], ["convert", name, "--level", "best"],
    ))
    return Case("", "usage", argv, {name: data})


def _runtime(rng) -> Case:
    choice = rng.randrange(3)
    launch = "void run(float* x, int n) { k<<<(n + 127) / 128, 128>>>(x, n); }\n"
    head = "__global__ void k(float* x, int n) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    if choice == 0:
        body = head + "  if (i < n) { while (x[i] == x[i]) { x[i] += 1.0f; } }\n}\n"
        note = "a kernel that never ends"
    elif choice == 1:
        body = head + "  if (i < n) x[i + 1100000000] = 1.0f;\n}\n"
        note = "a kernel that writes 4 GiB past its buffer"
    else:
        body = head + "  if (i < n) x[i] = (float)(n / (i - i));\n}\n"
        note = "a kernel that divides an integer by zero (SIGFPE on the CPU)"
    return Case("", "runtime", ["verify", "k.cu", "k_tl.py", "--no-compile-check", "--timeout", "20"],
                {"k.cu": (body + launch).encode()}, prepare=[["convert", "k.cu", "-o", "k_tl.py"]],
                note=note + " (verify of its own port)")


_MAKERS = {"flip": _flip, "truncate": _truncate, "lines": _lines, "tokens": _tokens, "special": _special,
           "trap": _trap, "output": _output, "usage": _usage, "runtime": _runtime}
