"""Human-readable dump of the IR (`tileport convert --emit-ir`): shows what was understood."""

from __future__ import annotations

from porter.ir.tiles import (
    Copy, CopyOut, Cumsum, Fill, Gemm, ParallelFor, Reduce, TileBuffer, TileLoad, TileStore,
)
from porter.ir.nodes import (
    Alloc, Assign, Atomic, BinOp, Break, Builtin, BufferParam, Call, Cast, Comment, Const, Continue,
    Decl, For, If, Kernel, Load, Module, Return, Select, Store, Sync, UnaryOp, Var, While,
)

_BUILTIN_NAMES = {"thread_idx": "threadIdx", "block_idx": "blockIdx", "block_dim": "blockDim",
                  "grid_dim": "gridDim"}


def format_expr(e) -> str:
    if isinstance(e, Const):
        return repr(e.value) if e.dtype != "bool" else str(bool(e.value)).lower()
    if isinstance(e, Var):
        return e.name
    if isinstance(e, Builtin):
        return f"{_BUILTIN_NAMES[e.kind]}.{'xyz'[e.axis]}"
    if isinstance(e, BinOp):
        return f"({format_expr(e.a)} {e.op} {format_expr(e.b)})"
    if isinstance(e, UnaryOp):
        return f"{e.op}{format_expr(e.a)}"
    if isinstance(e, Call):
        return f"{e.func}({', '.join(format_expr(a) for a in e.args)})"
    if isinstance(e, Cast):
        return f"({e.dtype}){format_expr(e.a)}"
    if isinstance(e, Select):
        return f"({format_expr(e.cond)} ? {format_expr(e.a)} : {format_expr(e.b)})"
    if isinstance(e, Load):
        return f"{e.buffer}[{format_expr(e.index)}]"
    if isinstance(e, TileLoad):
        return f"{e.buffer}[{', '.join(format_expr(i) for i in e.indices)}]"
    raise TypeError(f"unknown expression {e!r}")


def _loc(s) -> str:
    return f"  @{s.loc.line}" if getattr(s, "loc", None) and s.loc.line else ""


def format_stmts(stmts, indent: int = 1) -> list[str]:
    pad = "  " * indent
    lines: list[str] = []
    for s in stmts:
        if isinstance(s, Decl):
            init = f" = {format_expr(s.init)}" if s.init is not None else ""
            lines.append(f"{pad}{s.var.dtype} {s.var.name}{init};{_loc(s)}")
        elif isinstance(s, Assign):
            lines.append(f"{pad}{s.var.name} = {format_expr(s.value)};{_loc(s)}")
        elif isinstance(s, Store):
            lines.append(f"{pad}{s.buffer}[{format_expr(s.index)}] = {format_expr(s.value)};{_loc(s)}")
        elif isinstance(s, If):
            lines.append(f"{pad}if {format_expr(s.cond)} {{{_loc(s)}")
            lines += format_stmts(s.then, indent + 1)
            if s.orelse:
                lines.append(f"{pad}}} else {{")
                lines += format_stmts(s.orelse, indent + 1)
            lines.append(f"{pad}}}")
        elif isinstance(s, For):
            if s.stages:
                lines.append(f"{pad}// pipelined, {s.stages} stages")
            lines.append(f"{pad}for ({s.var.dtype} {s.var.name} = {format_expr(s.start)}; "
                         f"{format_expr(s.cond)}; {s.var.name} += {format_expr(s.step)}) {{{_loc(s)}")
            lines += format_stmts(s.body, indent + 1)
            lines.append(f"{pad}}}")
        elif isinstance(s, Return):
            lines.append(f"{pad}return;{_loc(s)}")
        elif isinstance(s, While):
            lines.append(f"{pad}while {format_expr(s.cond)} {{{_loc(s)}")
            lines += format_stmts(s.body, indent + 1)
            lines.append(f"{pad}}}")
        elif isinstance(s, Break):
            lines.append(f"{pad}break;{_loc(s)}")
        elif isinstance(s, Continue):
            lines.append(f"{pad}continue;{_loc(s)}")
        elif isinstance(s, Alloc):
            dims = "".join(f"[{d}]" for d in s.shape) if not s.dynamic else "[] (dynamic)"
            lines.append(f"{pad}{s.scope} {s.dtype} {s.name}{dims};{_loc(s)}")
        elif isinstance(s, Sync):
            lines.append(f"{pad}sync_{s.kind}();{_loc(s)}")
        elif isinstance(s, Atomic):
            lines.append(f"{pad}atomic_{s.op}(&{s.buffer}[{format_expr(s.index)}], "
                         f"{format_expr(s.value)});{_loc(s)}")
        elif isinstance(s, Comment):
            lines.append(f"{pad}// {s.text}")
        elif isinstance(s, TileBuffer):
            lines.append(f"{pad}{s.scope} tile {s.dtype} {s.name}{list(s.shape)};{_loc(s)}")
        elif isinstance(s, ParallelFor):
            its = ", ".join(f"{v.name} < {n}" for v, n in zip(s.vars, s.extents))
            lines.append(f"{pad}parallel ({its}) {{{_loc(s)}")
            lines += format_stmts(s.body, indent + 1)
            lines.append(f"{pad}}}")
        elif isinstance(s, TileStore):
            idx = ", ".join(format_expr(i) for i in s.indices)
            lines.append(f"{pad}{s.buffer}[{idx}] = {format_expr(s.value)};{_loc(s)}")
        elif isinstance(s, Fill):
            lines.append(f"{pad}fill({s.buffer}, {format_expr(s.value)});{_loc(s)}")
        elif isinstance(s, Gemm):
            clear = ", clear" if s.clear else ""
            lines.append(f"{pad}gemm({s.a}, {s.b} -> {s.c}{clear});{_loc(s)}")
        elif isinstance(s, Reduce):
            lines.append(f"{pad}reduce_{s.op}({s.src} -> {s.dst}, dim={s.dim});{_loc(s)}")
        elif isinstance(s, Copy):
            origin = region_text(s.origin, s.spans, format_expr)
            lines.append(f"{pad}copy({s.buffer}[{origin}] -> {s.tile});{_loc(s)}")
        elif isinstance(s, CopyOut):
            origin = region_text(s.origin, s.spans, format_expr)
            lines.append(f"{pad}copy({s.tile} -> {s.buffer}[{origin}]);{_loc(s)}")
        elif isinstance(s, Cumsum):
            rev = ", reverse" if s.reverse else ""
            lines.append(f"{pad}cumsum({s.src} -> {s.dst}, dim={s.dim}{rev});{_loc(s)}")
        else:
            raise TypeError(f"unknown statement {s!r}")
    return lines


def format_kernel(k: Kernel) -> str:
    out = [f"kernel {k.name}{k.template_args}  [{k.language}, {k.loc}]"]
    for p in k.params:
        if isinstance(p, BufferParam):
            ext = format_expr(p.extent) if p.extent is not None else "?"
            out.append(f"  buffer {p.name}: {p.dtype}[{ext}]  access={p.access}")
        else:
            grid = f"  (the launch's grid on axis {p.grid_axis}; not a kernel argument)" \
                if getattr(p, "grid_axis", None) is not None else ""
            out.append(f"  scalar {p.name}: {p.dtype}{grid}")
    for name, value in k.constexprs.items():
        out.append(f"  constexpr {name} = {value!r}")
    L = k.launch
    grid = ", ".join(format_expr(g) for g in L.grid)
    threads = f" threads={L.threads}" if L.threads else ""
    smem = L.smem_bytes if isinstance(L.smem_bytes, int) else format_expr(L.smem_bytes)
    out.append(f"  launch grid=({grid}) block={tuple(L.block)} smem={smem}{threads}  "
               f"origin={L.origin}" + (f" @{L.loc.line}" if L.loc and L.loc.line else ""))
    if L.tile_grid:
        tiles = ", ".join(format_expr(g) for g in L.tile_grid)
        swizzle = f" swizzle={format_expr(L.swizzle)}" if L.swizzle is not None else ""
        out.append(f"  port grid=({tiles}){swizzle}")
    out.append("  body {")
    out += format_stmts(k.body, 2)
    out.append("  }")
    return "\n".join(out)


def format_module(m: Module) -> str:
    return "\n\n".join(format_kernel(k) for k in m.kernels) + "\n"


def region_text(origin: tuple, spans: tuple, text) -> str:
    """A copy's region as index text: its origin (`r, c`), or with spans the slices of the
    dimensions the tile spans and the fixed indices of the others (`r:r + 64, 1`)."""
    if not spans:
        return ", ".join(text(o) for o in origin)
    from porter.ir.symbolic_ints import int_text

    return ", ".join(text(o) if extent is None else f"{text(o)}:{text(o)} + {int_text(extent)}"
                     for o, extent in zip(origin, spans))
