"""The loop-and-buffer model both front ends produce and everything after them reads.

A kernel is SIMT-shaped: a grid of programs (CUDA blocks / Triton programs), each running
one instance of `body` per point of its `block` index space (CUDA threads / Triton lanes).
Buffers are flat, typed, and know whether they are read or written; every node carries a
source location so later stages can point at the user's line.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from porter.diagnostics import Loc

# dtype names follow TileLang/TVM spelling: float32, float16, bfloat16, int32, uint8, bool, ...
FLOAT_DTYPES = ("float16", "bfloat16", "float32", "float64")
INT_DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")


def is_float(dtype: str) -> bool:
    return dtype in FLOAT_DTYPES


def is_int(dtype: str) -> bool:
    return dtype in INT_DTYPES or dtype == "bool"


def dtype_bits(dtype: str) -> int:
    if dtype == "bool":
        return 8
    return int("".join(ch for ch in dtype if ch.isdigit()) or 32)


# ----------------------------------------------------------------------------- expressions


@dataclass(frozen=True)
class Const:
    """A literal; `name` keeps the constant's source name (a constexpr, a #define) for display."""

    value: int | float | bool
    dtype: str
    name: str | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Var:
    """A scalar parameter, local variable or loop variable."""

    name: str
    dtype: str


@dataclass(frozen=True)
class Builtin:
    """Launch-geometry builtins: thread_idx, block_idx, block_dim, grid_dim on axis 0..2."""

    kind: str
    axis: int
    dtype: str = "int32"


@dataclass(frozen=True)
class BinOp:
    """C semantics: integer `/` and `%` truncate toward zero; `&&`/`||` are logical."""

    op: str
    a: Expr
    b: Expr
    dtype: str


@dataclass(frozen=True)
class UnaryOp:
    op: str  # "-", "!", "~"
    a: Expr
    dtype: str


@dataclass(frozen=True)
class Call:
    """A math builtin, by its canonical name in porter.builtins (exp, sqrt, max, ...)."""

    func: str
    args: tuple
    dtype: str


@dataclass(frozen=True)
class Cast:
    dtype: str
    a: Expr


@dataclass(frozen=True)
class Select:
    cond: Expr
    a: Expr
    b: Expr
    dtype: str


@dataclass(frozen=True)
class Load:
    buffer: str
    index: Expr
    dtype: str
    lanes: int = 0  # > 0: one element of a vector access of the original (float4: 4), see transforms/vector_lanes.py


Expr = Const | Var | Builtin | BinOp | UnaryOp | Call | Cast | Select | Load


# ----------------------------------------------------------------------------- statements


@dataclass
class Decl:
    """Declare a local scalar, optionally initialised."""

    var: Var
    init: Expr | None
    loc: Loc | None = None


@dataclass
class Assign:
    var: Var
    value: Expr
    loc: Loc | None = None


@dataclass
class Store:
    buffer: str
    index: Expr
    value: Expr
    loc: Loc | None = None
    lanes: int = 0  # > 0: one element of a vector store of the original


@dataclass
class If:
    cond: Expr
    then: list
    orelse: list = field(default_factory=list)
    loc: Loc | None = None


@dataclass
class For:
    """`for (var = start; cond; var += step)`: cond and step are arbitrary expressions."""

    var: Var
    start: Expr
    cond: Expr
    step: Expr
    body: list
    loc: Loc | None = None
    stages: int = 0  # > 0: a tile-level loop TileLang software-pipelines with this many stages
    vectorized: bool = False  # T.vectorized: the lanes of one vector access


@dataclass
class Return:
    """Early exit of the current thread / lane."""

    loc: Loc | None = None


@dataclass
class While:
    cond: Expr
    body: list
    loc: Loc | None = None


@dataclass
class Break:
    loc: Loc | None = None


@dataclass
class Continue:
    loc: Loc | None = None


@dataclass
class Alloc:
    """A block-shared (`__shared__`) or thread-local array, row-major; indices are flattened.

    dynamic: `extern __shared__ T name[]`, sized at launch (shape from the launch's smem bytes).
    """

    name: str
    dtype: str
    shape: tuple
    scope: str  # "shared" or "local"
    dynamic: bool = False
    loc: Loc | None = None

    @property
    def size(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n


@dataclass
class Sync:
    """A barrier: `__syncthreads()` (kind "block") or `__syncwarp()` (kind "warp")."""

    kind: str
    loc: Loc | None = None


@dataclass
class Atomic:
    """`atomicAdd(&buffer[index], value)` and friends (op: add, max, min; store: an exchange),
    result unused. Op "lock" spins until it turns `buffer[index]` from 0 (free) to `value`
    (held): a spin lock's acquire."""

    op: str
    buffer: str
    index: Expr
    value: Expr
    loc: Loc | None = None


@dataclass
class Comment:
    """A source comment carried into the port."""

    text: str
    loc: Loc | None = None


Stmt = Decl | Assign | Store | If | For | While | Break | Continue | Return | Alloc | Sync | Atomic | Comment


# ----------------------------------------------------------------------------- kernel


@dataclass
class ScalarParam:
    name: str
    dtype: str
    c_type: str = ""  # original spelling, for the CUDA emulator's launcher
    loc: Loc | None = None
    member: StructMember | None = None  # set when this scalar is a field of a struct parameter
    # Not an argument of the original kernel: the size of its launch grid on this axis, which
    # the launch computes from host values the kernel never receives (Triton `grid = (M,)`).
    grid_axis: int | None = None
    # Not an argument of the original kernel either: (texture parameter, axis) of a texture's
    # extent, which the port's wrapper takes from the tensor (frontends/cuda/textures.py)
    texture_extent: tuple | None = None


@dataclass(frozen=True)
class StructMember:
    """A field of a struct passed by value: the kernel sees one scalar per scalar field, one
    buffer per pointer or array field."""

    struct: str      # the original parameter's name
    c_type: str      # the struct's type, as spelled in the source
    field: str
    offset: int      # bytes from the struct's start
    size: int        # the struct's size in bytes
    count: int = 0   # elements of an array field, which the struct's bytes hold (0: not one)


@dataclass
class BufferParam:
    name: str
    dtype: str
    read: bool = False
    written: bool = False
    extent: Expr | None = None  # element count, in terms of scalar params
    c_type: str = ""
    loc: Loc | None = None
    # row-major shape in scalar parameters (("M", "K")) when the port indexes it in 2-D (T.copy);
    # the port's wrapper passes a view of that shape; None: a flat buffer
    shape: tuple | None = None
    strides: tuple | None = None  # with shape: (row stride name, 1) when rows are not contiguous;
    #                                (batch stride, row stride, 1) for a batch of matrices
    # CUDA: the `__constant__` / `__device__` variable at namespace scope this parameter stands
    # for (the original reads the variable, the port takes a tensor), and its element count
    symbol: str = ""
    symbol_count: int = 0
    # CUDA: a `cudaTextureObject_t` parameter's texels and how it samples (textures.Sampler);
    # the original gets a texture object over this buffer
    texture: object = None
    # CUDA: the element dtype of the original's pointer when the kernel reads it only as other
    # elements (`(uchar4 *)words`): the port takes the same bits as `dtype`
    view_of: str = ""
    # a scalar symbol's initialiser (`__device__ unsigned errors = 0;`): the state a run starts in
    symbol_initial: float | None = None
    member: StructMember | None = None  # a pointer or array field of a struct parameter

    @property
    def access(self) -> str:
        return ("r" if self.read else "") + ("w" if self.written else "") or "-"


Param = ScalarParam | BufferParam


@dataclass
class Launch:
    """Launch geometry. grid entries are expressions over params; block entries are ints.

    `origin` says where it came from: "launch-site", "inferred" or "given" (--grid/--block).
    """

    grid: tuple
    block: tuple
    smem_bytes: object = 0  # int, or an Expr over params when the launch computes it
    origin: str = "inferred"
    loc: Loc | None = None
    threads: int | None = None  # hardware threads when they differ from the block (Triton warps)
    note: str = ""  # what the reader had to choose (a runtime block size), for the port's header
    fixed: dict = field(default_factory=dict)  # kernel scalars that must equal it (block_size=32)
    # the port's own grid when it differs from the original's (Triton's grouped 1-D order as a
    # 2-D tile grid, porter/transforms/grouped_launch.py), and the T.use_swizzle panel size
    tile_grid: tuple = ()
    swizzle: object = None


@dataclass(frozen=True)
class AlignedProgram:
    """The aligned specialization a rule gave a kernel's port (match/copies.py, match/gemm.py):
    what its wrapper tests before taking it, which case verify adds, how the programs compile."""

    # size -> the multiple the aligned program needs (gemm: whole tiles, async copies; a tuple
    # when several tiles step over one size); verify runs one case with each size a multiple
    sizes: dict = field(default_factory=dict)
    # strides the aligned program takes as 1 (a Triton view's column stride: T.copy's rows must
    # be contiguous); the wrapper tests `stride == 1`, verify runs one case with each 1
    unit_strides: tuple = ()
    # (grid axis, size, tile): the aligned program reads whole tiles without a mask at the program
    # id's origin, so the wrapper checks the caller's grid holds no tile past the size
    grid: tuple = ()
    # which programs compile with loops unrolled before code generation besides those of 3
    # stages or more: "aligned" when the aligned program pipelines a loop of two products
    # (attention's K/V loop; TileLang 0.1.15 prints its cp.async wait counts only once loops are
    # unrolled); "always" when such a loop also gathers whole unmasked rows in the general
    # program, which TileLang makes cp.async too; "" for none
    unrolled: str = ""


@dataclass
class SizingHints:
    """What verify reads to choose problem sizes and buffer lengths, gathered by the front ends
    (alignments, byte strides), the extent analysis (program maxima) and verify itself from the
    port (its tiles). Shared by a kernel's copies, as the analyses add to it in place."""

    # CUDA: scalar parameters in the offset of a vector access (`reinterpret_cast<float4*>(x + r * P)`)
    # -> the element count they must be a multiple of, for the access to be aligned
    alignments: dict = field(default_factory=dict)
    # CUDA: scalars that step in bytes (`(T *)((char *)p + y * pitch)`) -> the bytes of one
    # element of the rows they step over; verify gives them its stride values times that
    byte_strides: dict = field(default_factory=dict)
    # extents' "max(pid_m)" atoms: a local computed from the program id by div/mod/min
    # arithmetic -> (its value over scalars and the program id, a looser bound or None); verify
    # takes the maximum over every program of the grid (porter/ir/extents.py)
    program_maxima: dict = field(default_factory=dict)
    # sizes the port's program steps over in tiles (`T.ceildiv(cols, 256)`): size -> tile;
    # verify makes its problems span two of them
    port_tiles: dict = field(default_factory=dict)


@dataclass
class Kernel:
    name: str
    language: str  # "cuda" or "triton"
    params: list
    body: list
    launch: Launch
    loc: Loc
    constexprs: dict = field(default_factory=dict)  # Triton constexpr params and their values
    template_args: str = ""  # CUDA: "<float, 256>" when instantiated from a launch site
    # CUDA template instances: the template's parameters (name, "type" or "value") and this
    # instance's values (a type's dtype, or its C spelling when it has none; a value's int or
    # bool), in order: one port per template dispatches on them (templates.py, the emitter)
    template_params: tuple = ()
    template_values: tuple = ()
    # CUDA: the instance converted with stand-in values of its candidate value parameters
    # (frontends/cuda/generic_templates.py); emptied once compared
    stand_ins: list = field(default_factory=list)
    # Triton constexprs the launch computes from scalar arguments: name -> Expr over them
    derived_constexprs: dict = field(default_factory=dict)
    note: str = ""        # how the port was specialised (e.g. which autotune config it took)
    # Triton: constexprs the port's program takes as parameters (its text does not depend on
    # their values), where each constexpr's value came from, and the kernel converted with
    # stand-in values that the port is printed from (None: print this kernel itself)
    generic: tuple = ()
    constexpr_origin: dict = field(default_factory=dict)
    dtype_constexprs: tuple = ()  # Triton: constexprs whose value is a dtype (`OUT_DTYPE: tl.constexpr`)
    emit_as: Kernel | None = None
    # Triton: the same kernel converted for the other values of its flag/enum constexprs
    # (HAS_BIAS both ways, each compared `mode`); the port dispatches on them
    variants: list = field(default_factory=list)
    # Triton: the kernel converted for the other values its launch may pass to a generic
    # constexpr (`G = 64`, `if N <= 1024: G = 256`): the port's one program takes them all,
    # and verify runs each
    launch_values: list = field(default_factory=list)
    # what verify must know to choose sizes that the kernel's own indexing reads correctly
    sizing: SizingHints = field(default_factory=lambda: SizingHints())
    # what the rules' aligned program assumes and how the programs compile (match/ sets it)
    aligned: AlignedProgram = field(default_factory=lambda: AlignedProgram())
    # CUDA: the original's block (x, y, z) and dynamic shared bytes, which `kernel[grid, block,
    # shared_bytes](...)` on the port checks (matching may replace the launch with TileLang's)
    cuda_launch: tuple = ()
    # Triton: buffer -> stride parameters that a block pointer's `order` declares its
    # fastest-varying (contiguous) dimension's: the copy rule stages such tiles transposed
    fastest_strides: dict = field(default_factory=dict)
    # Triton: the calling convention of the library decorator that generated this kernel (its
    # name and inputs, outputs, promotions: porter/frontends/triton/generators.py), or None
    generated: dict | None = None
    rule: str = ""        # the porter.match rule that raised this kernel to tile level
    not_raised: str = ""  # why no rule raised it ("rule: reason (line N)"), for reports
    # the form as its port prints it (transforms/printable.py, the last stage): None before
    printable: object = field(default=None, compare=False)

    @property
    def ident(self) -> str:
        """A Python identifier for this kernel: `reduce<256>` -> `reduce_256`."""
        if not self.template_args:
            return self.name
        tail = "".join(ch if ch.isalnum() else "_" for ch in self.template_args)
        return "_".join([self.name] + [p for p in tail.split("_") if p])

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    @property
    def buffers(self) -> list:
        return [p for p in self.params if isinstance(p, BufferParam)]

    @property
    def scalars(self) -> list:
        return [p for p in self.params if isinstance(p, ScalarParam)]


@dataclass
class Module:
    """Everything one source file yields."""

    source_file: str
    language: str
    kernels: list
    # CUDA only: the file as the CPU emulator should build it when its host code cannot be
    # compiled here (a missing header, an unknown host API); good kernels untouched. None: as is.
    emulator_source: str | None = None
    # kernels that did not convert (porter.diagnostics.KernelFailure), beside those that did
    failures: list = field(default_factory=list)
    # CUDA only: the user's headers changed the same way as emulator_source, by real path
    emulator_headers: dict = field(default_factory=dict)
    # CUDA only: headers this machine lacks, stood in for by empty files (parse.stand_in_dir)
    stand_ins: list = field(default_factory=list)
    # Triton only: other modules of the user's tree the conversion read (helpers, constants)
    dependencies: list = field(default_factory=list)
    # CUDA only: the includer the file was parsed in (frontends/cuda/includers.py); the emulator
    # builds it, with emulator_source as its text. None: the file was parsed alone.
    context: str | None = None
