"""Texture objects as buffers: a fetch is the reads and arithmetic the texture unit does.

TileLang has no textures, but a fetch through a `cudaTextureObject_t` is plain arithmetic on
the texels (the CUDA programming guide's "Texture Fetching" appendix): coordinates scaled when
normalized, addressed per dimension (wrap, clamp, border), then the texel at floor(x) (point
filtering) or the 2/4/8 around x - 0.5 weighted by fractions kept to 8 bits (linear), and
8/16-bit texels read as floats in [0, 1] or [-1, 1] (normalized-float reads). So a texture
parameter ports as a buffer of its texels (row-major, `channels` components each) and its
extents, which the port's wrapper takes from the tensor's shape.

How a texture samples is host code's (`cudaTextureDesc` handed to `cudaCreateTextureObject`):
read from the project's files for the variable each launch passes (host_samplers); CUDA's
defaults (a zeroed descriptor: point, wrap, element reads, unnormalized) where none is found,
which the port's header states. Verify runs the original with the same settings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from porter.diagnostics import TileportError
from porter.frontends.cuda import parse as ct
from porter.frontends.cuda.types import dtype_of, is_void, vector_info
from porter.ir.nodes import (
    INT_DTYPES, BinOp, BufferParam, Call, Cast, Const, If, Load, ScalarParam, Select, Store, Var, dtype_bits,
)

#: fetch -> (coordinates it takes, filtered: False for tex1Dfetch's integer index)
FETCHES = {"tex1Dfetch": (1, False), "tex1D": (1, True), "tex2D": (2, True), "tex3D": (3, True),
           "tex2DLod": (2, True), "tex1DLod": (1, True), "tex3DLod": (3, True)}
TEXTURE_TYPES = ("cudaTextureObject_t", "CUtexObject")  # runtime and driver API
SURFACE_TYPES = ("cudaSurfaceObject_t", "CUsurfObject")
#: surface access -> its dimensions (x counts bytes; out of range reads 0 and writes nothing,
#: where CUDA's default boundary mode traps)
SURFACE_READS = {"surf1Dread": 1, "surf2Dread": 2, "surf3Dread": 3}
SURFACE_WRITES = {"surf1Dwrite": 1, "surf2Dwrite": 2, "surf3Dwrite": 3}
_AXES = ("width", "height", "depth")
#: a normalized-float read of an integer texel: the divisor, and whether it is signed
_NORMALIZED = {"uint8": (255.0, False), "int8": (127.0, True), "uint16": (65535.0, False),
               "int16": (32767.0, True)}
_MODES = {"cudaFilterModePoint": "point", "cudaFilterModeLinear": "linear",
          "cudaAddressModeWrap": "wrap", "cudaAddressModeClamp": "clamp", "cudaAddressModeMirror": "mirror",
          "cudaAddressModeBorder": "border", "cudaReadModeElementType": "element",
          "cudaReadModeNormalizedFloat": "normalized", "true": True, "false": False, "1": True, "0": False}
def is_texture_type(ctype) -> bool:
    """A texture or surface object's type (`const cudaTextureObject_t` too)."""
    return ctype.spelling.replace("const ", "").replace("volatile ", "").strip() in TEXTURE_TYPES + SURFACE_TYPES


def is_surface_type(ctype) -> bool:
    return ctype.spelling.replace("const ", "").replace("volatile ", "").strip() in SURFACE_TYPES


#: the emulator's texel codes (porter/verify/cuda_emu/include/tp_texture.h)
TEXEL_CODES = {"float32": 0, "uint8": 1, "int8": 2, "uint16": 3, "int16": 4, "int32": 5, "uint32": 6, "float16": 7}
#: the emulator's codes for each setting (porter/verify/cuda_emu/include/tp_texture.h)
EMULATOR_CODES = {"point": 0, "linear": 1, "wrap": 0, "clamp": 1, "mirror": 2, "border": 3,
                  "element": 0, "normalized": 1}


@dataclass
class Sampler:
    """How a texture samples: CUDA's zeroed cudaTextureDesc unless host code says otherwise."""

    filter: str = "point"
    address: tuple = ("wrap", "wrap", "wrap")
    normalized: bool = False
    read: str = "element"
    texel: str = ""      # the texel's component dtype a channel description names ("" unknown)
    channels: int = 0    # its components (0 unknown)
    origin: str = "CUDA's defaults (no cudaTextureDesc found in host code)"

    def describe(self, dims: int = 3) -> str:
        coords = "normalized" if self.normalized else "unnormalized"
        return f"{self.filter} filtering, {'/'.join(self.address[:dims])} addressing, {coords} coordinates, " \
               f"{'normalized-float' if self.read == 'normalized' else 'element-type'} reads, from {self.origin}"


@dataclass
class TextureBinding:
    """A texture parameter while its kernel converts: its buffer, extents and sampler."""

    param: BufferParam
    sampler: Sampler
    extents: list = field(default_factory=list)  # ScalarParams width, height, depth (as used)
    channels: int = 0


_CREATE = re.compile(r"cudaCreateTextureObject\s*\(\s*&\s*([\w.\[\]>-]+)\s*,\s*&\s*(\w+)\s*,\s*&\s*(\w+)")
_FIELD = r"\b{desc}\s*\.\s*(filterMode|addressMode\s*\[\s*(\d)\s*\]|normalizedCoords|readMode)\s*=\s*(\w+)"
_CHANNEL = re.compile(r"cudaCreateChannelDesc\s*<\s*([\w ]+?)\s*>\s*\(")
_CHANNEL_BITS = re.compile(r"cudaCreateChannelDesc\s*\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*,\s*"
                           r"cudaChannelFormatKind(\w+)")
_C_TEXELS = {"float": ("float32", 1), "unsigned char": ("uint8", 1), "uchar": ("uint8", 1), "char": ("int8", 1),
             "signed char": ("int8", 1), "unsigned short": ("uint16", 1), "ushort": ("uint16", 1),
             "short": ("int16", 1), "int": ("int32", 1), "unsigned int": ("uint32", 1), "uint": ("uint32", 1),
             "half": ("float16", 1), "__half": ("float16", 1)}
_BITS = {("Unsigned", 8): "uint8", ("Signed", 8): "int8", ("Unsigned", 16): "uint16", ("Signed", 16): "int16",
         ("Float", 32): "float32", ("Float", 16): "float16", ("Unsigned", 32): "uint32", ("Signed", 32): "int32"}


def host_samplers(text: str, path: str = "") -> dict:
    """Host texture variable -> its Sampler, from each `cudaCreateTextureObject(&tex, &res,
    &desc, ...)`: the assignments to desc's fields and the channel description before it in
    the same function (the last of each)."""
    out = {}
    for match in _CREATE.finditer(text):
        variable, desc = match.group(1), match.group(3)
        start = _function_start(text, match.start())
        before = text[start:match.start()]
        sampler = Sampler(origin=f"host code ({path.rsplit('/', 1)[-1]}:{text.count(chr(10), 0, match.start()) + 1})")
        address = list(sampler.address)
        for m in re.finditer(_FIELD.format(desc=re.escape(desc)), before):
            value = _MODES.get(m.group(3))
            if value is None:
                continue
            name = m.group(1).split("[")[0].strip()
            if name == "addressMode":
                address[int(m.group(2))] = value
            elif name == "filterMode":
                sampler.filter = value
            elif name == "normalizedCoords":
                sampler.normalized = bool(value)
            else:
                sampler.read = value
        sampler.address = tuple(address)
        resource = match.group(2)
        sampler.texel, sampler.channels = _texel_of(text, before, resource)
        out[variable.split(".")[-1].split(">")[-1]] = sampler
        # a helper that makes and returns a texture (`tex = make_texture(...)`) by its name
        header = re.search(r"(\w+)\s*\([^;{]*\)\s*(?:const\s*)?\{", text[start:match.start()])
        if header:
            out.setdefault(header.group(1) + "()", sampler)
    return out


def _texel_of(text: str, before: str, resource: str) -> tuple:
    """(component dtype, components) of a resource's texels: the channel description its
    linear or pitched memory names, or the one its CUDA array was allocated with; else the
    last one made before the texture in that function; ("", 0) when none is found."""
    named = list(re.finditer(rf"\b{re.escape(resource)}\s*\.\s*res\s*\.\s*(?:linear|pitch2D)\s*\.\s*desc\s*=\s*"
                             r"([^;]+);", before))
    if named:
        return _channel_format(before, named[-1].group(1), named[-1].start())
    array = list(re.finditer(rf"\b{re.escape(resource)}\s*\.\s*res\s*\.\s*(?:array\s*\.\s*array|mipmap\s*\.\s*mipmap)"
                             r"\s*=\s*([\w.>-]+)", before))
    if array:
        malloc = re.search(rf"cudaMalloc(?:3D|Mipmapped)?Array\s*\(\s*&\s*{re.escape(array[-1].group(1))}\s*,\s*&\s*(\w+)",
                           text)
        if malloc:
            return _channel_format(text, malloc.group(1), malloc.start())
    made = [m for m in (*_CHANNEL.finditer(before), *_CHANNEL_BITS.finditer(before))]
    return _channel_format(text, max(made, key=lambda m: m.start()).group(0) + ")", len(text)) if made else ("", 0)


def _channel_format(text: str, expression: str, at: int) -> tuple:
    """(component dtype, components) of a channel description: made in place, or the variable
    it names, as last set before `at`."""
    expression = expression.strip()
    if re.fullmatch(r"\w+", expression):
        sets = list(re.finditer(rf"(?<![.\w>]){re.escape(expression)}\s*=\s*([^;]+);", text[:at]))
        if not sets:
            return "", 0
        expression = sets[-1].group(1)
    channel = _CHANNEL.search(expression)
    if channel:
        spelled = " ".join(channel.group(1).split())
        alias = re.search(rf"typedef\s+([\w ]+?)\s+{re.escape(spelled)}\s*;", text) or \
            re.search(rf"using\s+{re.escape(spelled)}\s*=\s*([\w ]+?)\s*;", text)
        spelled = " ".join(alias.group(1).split()) if alias else spelled  # `typedef unsigned char VolumeType`
        vector = re.fullmatch(r"(u?)(char|short|int|float)([124])", spelled)
        if vector:
            base = {"char": "int8", "short": "int16", "int": "int32", "float": "float32"}[vector.group(2)]
            return ("u" + base if vector.group(1) and base != "float32" else base), int(vector.group(3))
        return _C_TEXELS.get(spelled, ("", 0))
    bits = _CHANNEL_BITS.search(expression)
    if bits:
        widths = [int(bits.group(i)) for i in range(1, 5)]
        return _BITS.get((bits.group(5), widths[0]), ""), sum(1 for w in widths if w)
    return "", 0


def _function_start(text: str, at: int) -> int:
    """Where the function around `at` starts, roughly: after the last line that closes a
    top-level brace before it."""
    depth, start = 0, 0
    for i in range(at):
        ch = text[i]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                start = i + 1
    return start


def launch_arguments(text: str, kernel: str, index: int) -> list:
    """The argument texts at position `index` of each `kernel<<<...>>>(...)` in the text."""
    out = []
    for match in re.finditer(rf"\b{re.escape(kernel)}\s*(?:<[^<>;]*>\s*)?<<<.*?>>>\s*\(", text, re.DOTALL):
        depth, args, current = 1, [], ""
        for ch in text[match.end():]:
            if ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth -= 1
                if depth == 0:
                    args.append(current)
                    break
            if ch == "," and depth == 1:
                args.append(current)
                current = ""
                continue
            current += ch
        if index < len(args):
            out.append(args[index].strip())
    return out


class TexturesMixin:
    """Methods of CudaFrontend for texture objects."""

    def texture_param(self, p, position: int, scope, loc) -> BufferParam:
        """A `cudaTextureObject_t` parameter: a buffer of its texels (dtype set by its fetches);
        a surface's, written and read by element (its settings unused)."""
        sampler = Sampler(origin="a surface") if is_surface_type(p.type) else \
            self.sampler_for(p.semantic_parent.spelling if p.semantic_parent else "", position)
        param = BufferParam(p.spelling, sampler.texel or "float32", c_type=p.type.spelling, loc=loc)
        scope.textures[p.hash] = TextureBinding(param, sampler)
        self._textures.append(scope.textures[p.hash])
        return param

    def sampler_for(self, kernel: str, position: int) -> Sampler:
        """The sampler of the host variable the kernel's launches pass at `position` (the first
        one found), else CUDA's defaults."""
        cache = self._host_samplers  # each file's, read once per conversion
        for path in dict.fromkeys([self.path, self.source]):
            text = self._original_text(path)
            if path not in cache:
                cache[path] = host_samplers(text, path)
            samplers = cache[path]
            for argument in launch_arguments(text, kernel, position):
                name = re.sub(r"[^\w]", " ", argument).split()
                if name and name[-1] in samplers:
                    return samplers[name[-1]]
                made = re.search(rf"\b{re.escape(name[-1])}\s*=\s*(\w+)\s*\(", text) if name else None
                if made and made.group(1) + "()" in samplers:
                    return samplers[made.group(1) + "()"]
        return Sampler()

    def texture_of(self, c, scope):
        """The TextureBinding a texture-object expression names, or None."""
        c = self.skip_parens(self.skip_implicit(c))
        if c.kind == self.K.DECL_REF_EXPR and c.referenced is not None:
            return scope.textures.get(c.referenced.hash)
        return None

    def bound_texture(self, c, scope, call: str):
        """The TextureBinding of a fetch's or access's object: None when c is no texture
        object, TP156 for one the kernel computes or reads from memory."""
        if not is_texture_type(c.type):
            return None
        binding = self.texture_of(c, scope)
        if binding is None:
            raise TileportError("TP156", f"'{call}' of a texture or surface object computed at run time (read "
                                "from an array of them, decoded from data) has no TileLang equivalent: a port "
                                "reads each texture as the buffer parameter it is", ct.loc_of(c))
        return binding

    def texture_fetch(self, c, scope, lanes: int | None = None):
        """The components of `texND<T>(tex, coords...)` (lanes of them for a vector T, else a
        one-item list), or None when c is no fetch of a texture parameter."""
        name = c.spelling
        if c.kind == self.K.CALL_EXPR and name in SURFACE_READS and len(list(c.get_arguments())) > 1 + \
                SURFACE_READS[name] - 1 and not is_void(c.type):
            return self.surface_read(c, scope, lanes)
        if c.kind != self.K.CALL_EXPR or name not in FETCHES:
            return None
        args = list(c.get_arguments())
        binding = self.bound_texture(args[0], scope, name) if args else None
        if binding is None:
            return None
        loc = ct.loc_of(c)
        dims, filtered = FETCHES[name]
        vector = vector_info(c.type)
        component, count = vector if vector is not None else (dtype_of(c.type, loc), 1)
        self.bind_texels(binding, component, count, dims, loc)
        coords = [self.expr(a, scope) for a in args[1:1 + dims]]
        if not filtered:
            values = self.fetch_index(binding, self.coerce(coords[0], "int32"), count, component, scope, loc)
        else:
            values = self.fetch_filtered(binding, [self.coerce(x, "float32") for x in coords], count, component,
                                         scope, loc)
        return values if lanes is None else (values + [Const(0, component)] * lanes)[:lanes]

    def bind_texels(self, binding: TextureBinding, component: str, count: int, dims: int, loc) -> None:
        """Fix the texture's texel dtype, components and extents at its first fetch."""
        sampler = binding.sampler
        if sampler.read == "normalized" and not sampler.texel:
            raise TileportError("TP151", f"texture '{binding.param.name}' is read as normalized floats, but "
                                "tileport found no channel description (cudaCreateChannelDesc) for it in "
                                "host code, so its texel type is unknown", loc)
        # an element-type read returns the texel's own type; a normalized one, host code's
        texel = sampler.texel if sampler.read == "normalized" else component
        channels = (sampler.channels or count) if sampler.read == "normalized" else count
        if binding.extents and (binding.param.dtype, binding.channels) != (texel, channels):
            raise TileportError("TP122", f"texture '{binding.param.name}' is fetched as two texel types", loc)
        binding.param.dtype, binding.channels = texel, channels
        self._buffer_dtypes[binding.param.name] = texel
        while len(binding.extents) < dims:
            axis = _AXES[len(binding.extents)]
            extent = ScalarParam(f"{binding.param.name}_{axis}", "int32", loc=loc,
                                 texture_extent=(binding.param.name, len(binding.extents)))
            binding.extents.append(extent)

    def fetch_index(self, binding, i, count: int, component: str, scope, loc) -> list:
        """tex1Dfetch: the texel at an integer index, 0 outside the texture."""
        width = Var(binding.extents[0].name, "int32")
        i = self.materialize(i, f"{binding.param.name}_i", scope, loc)
        inside = BinOp("&&", BinOp(">=", i, Const(0, "int32"), "bool"), BinOp("<", i, width, "bool"), "bool")
        at = self.materialize(_clamp(i, width), f"{binding.param.name}_at", scope, loc)
        return [Select(inside, self.texel(binding, at, k, component), Const(0, component), component)
                if k < binding.channels else Const(0, component) for k in range(count)]

    def fetch_filtered(self, binding, coords: list, count: int, component: str, scope, loc) -> list:
        """texND: addressing, then point or linear filtering, per component; every step a
        named local (`tex_x`, `tex_fx`, `tex_x0`) as a reader would write it."""
        sampler = binding.sampler
        name = binding.param.name
        if sampler.filter == "linear" and not (component.startswith("float") and
                                               (sampler.read == "normalized" or binding.param.dtype.startswith("float"))):
            raise TileportError("TP122", "linear filtering returns floats of float or normalized texels", loc)
        axes = []  # per axis: [(weight or None, index, inside or None)] of the texels it reads
        for axis, x in enumerate(coords):
            extent = Var(binding.extents[axis].name, "int32")
            letter = "xyz"[axis]
            mode = sampler.address[axis] if sampler.normalized else \
                ("border" if sampler.address[axis] == "border" else "clamp")
            if mode in ("wrap", "mirror"):  # normalized only: frac(x), reflected on odd periods
                period = self.materialize(Call("floor", (x,), "float32"), f"{name}_{letter}_period", scope, loc)
                x = BinOp("-", x, period, "float32")
            if mode == "mirror":
                odd = BinOp("==", BinOp("&", Cast("int32", period), Const(1, "int32"), "int32"), Const(1, "int32"), "bool")
                x = Select(odd, BinOp("-", Const(1.0, "float32"), x, "float32"), x, "float32")
                mode = "clamp"  # the reflected coordinate's texels are inside
            if sampler.normalized:
                x = BinOp("*", x, Cast("float32", extent), "float32")
            if sampler.filter == "point":
                index = Cast("int32", Call("floor", (x,), "float32"))
                axes.append([(None,) + self.address_index(index, extent, mode, f"{name}_{letter}", scope, loc)])
                continue
            below = self.materialize(BinOp("-", x, Const(0.5, "float32"), "float32"), f"{name}_{letter}", scope, loc)
            low = self.materialize(Call("floor", (below,), "float32"), f"{name}_{letter}0", scope, loc)
            # the texture unit keeps the fraction to 8 bits (9-bit fixed point)
            fraction = self.materialize(BinOp("/", Call("nearbyint", (BinOp(
                "*", BinOp("-", below, low, "float32"), Const(256.0, "float32"), "float32"),), "float32"),
                Const(256.0, "float32"), "float32"), f"{name}_f{letter}", scope, loc)
            first = Cast("int32", low)
            axes.append([(BinOp("-", Const(1.0, "float32"), fraction, "float32"),)
                         + self.address_index(first, extent, mode, f"{name}_i{letter}0", scope, loc),
                         (fraction,) + self.address_index(BinOp("+", first, Const(1, "int32"), "int32"), extent, mode,
                                                          f"{name}_i{letter}1", scope, loc)])
        corners = [[]]
        for choices in axes:
            corners = [corner + [choice] for corner in corners for choice in choices]
        extents = [Var(e.name, "int32") for e in binding.extents[:len(coords)]]
        out = []
        for k in range(count):
            if k >= binding.channels:
                out.append(Const(0, component))
                continue
            total = None
            for corner in corners:
                flat, inside, weight = None, None, None
                for axis in reversed(range(len(corner))):
                    w, index, check = corner[axis]
                    flat = index if flat is None else BinOp("+", BinOp("*", flat, extents[axis], "int32"), index, "int32")
                    inside = check if inside is None else (inside if check is None else BinOp("&&", inside, check, "bool"))
                    weight = w if weight is None else (weight if w is None else BinOp("*", w, weight, "float32"))
                value = self.texel(binding, flat, k, component if weight is None else "float32")
                if inside is not None:
                    value = Select(inside, value, Const(0, value.dtype), value.dtype)
                term = value if weight is None else BinOp("*", weight, value, "float32")
                total = term if total is None else BinOp("+", total, term, "float32")
            out.append(self.coerce(total, component))
        return out

    def address_index(self, index, extent, mode: str, name: str, scope, loc) -> tuple:
        """(the index addressed as a local, whether it is inside the texture for border mode)."""
        if mode == "wrap":  # normalized coordinates only: the index modulo the extent
            index = BinOp("%", BinOp("+", BinOp("%", index, extent, "int32"), extent, "int32"), extent, "int32")
            return self.materialize(index, name, scope, loc), None
        raw = self.materialize(index, name, scope, loc) if mode == "border" else index
        inside = BinOp("&&", BinOp(">=", raw, Const(0, "int32"), "bool"), BinOp("<", raw, extent, "bool"), "bool") \
            if mode == "border" else None
        return self.materialize(_clamp(raw, extent), name, scope, loc), inside

    def texel(self, binding, flat, k: int, component: str):
        """Component k of the texel at a flat index, as the fetch returns it."""
        texel = binding.param.dtype
        index = flat if binding.channels == 1 else \
            BinOp("+", BinOp("*", flat, Const(binding.channels, "int32"), "int32"), Const(k, "int32"), "int32")
        value = Load(binding.param.name, index, texel)
        if binding.sampler.read == "normalized" and texel in _NORMALIZED:
            divisor, signed = _NORMALIZED[texel]
            value = BinOp("/", Cast("float32", value), Const(divisor, "float32"), "float32")
            if signed:
                value = Call("max", (value, Const(-1.0, "float32")), "float32")
            return self.coerce(value, component)
        return self.coerce(value, component)

    def surface_element(self, binding, args: list, dims: int, component: str, count: int, scope, loc):
        """(flat index of the element a surface access names, whether it is inside): x is in
        bytes, of `count` components of `component` each."""
        self.bind_texels(binding, component, count, dims, loc)
        size = dtype_bits(component) // 8 * count
        coords = [_narrow(self.expr(a, scope)) for a in args[:dims]]
        coords[0] = BinOp("/", coords[0], Const(size, "int32"), "int32")
        extents = [Var(e.name, "int32") for e in binding.extents[:dims]]
        flat, inside = None, None
        for axis in reversed(range(dims)):
            i = self.materialize(coords[axis], f"{binding.param.name}_{'xyz'[axis]}", scope, loc)
            check = BinOp("&&", BinOp(">=", i, Const(0, "int32"), "bool"), BinOp("<", i, extents[axis], "bool"), "bool")
            inside = check if inside is None else BinOp("&&", inside, check, "bool")
            flat = i if flat is None else BinOp("+", BinOp("*", flat, extents[axis], "int32"), i, "int32")
        return flat, self.materialize(inside, f"{binding.param.name}_inside", scope, loc)

    def surface_read(self, c, scope, lanes):
        """`surf2Dread<T>(surf, x_bytes, y)`: the element's components, 0 outside."""
        args = list(c.get_arguments())
        binding = self.bound_texture(args[0], scope, c.spelling)
        if binding is None:
            return None
        loc = ct.loc_of(c)
        vector = vector_info(c.type)
        component, count = vector if vector is not None else (dtype_of(c.type, loc), 1)
        flat, inside = self.surface_element(binding, args[1:], SURFACE_READS[c.spelling], component, count,
                                            scope, loc)
        at = self.materialize(Select(inside, flat, Const(0, "int32"), "int32"), f"{binding.param.name}_at", scope, loc)
        values = [Select(inside, self.texel(binding, at, k, component), Const(0, component), component)
                  for k in range(count)]
        return values if lanes is None else (values + [Const(0, component)] * lanes)[:lanes]

    def surface_write(self, c, scope, loc):
        """`surf2Dwrite(value, surf, x_bytes, y)`: the element's stores, none outside; None when
        c is no surface write (`surf2Dread(&v, ...)` assigns v)."""
        name = c.spelling
        args = list(c.get_arguments())
        if c.kind != self.K.CALL_EXPR or name not in SURFACE_WRITES and name not in SURFACE_READS:
            return None
        writes = name in SURFACE_WRITES
        binding = self.bound_texture(args[1], scope, name) if len(args) > 1 else None
        if binding is None:
            return None
        value_c = args[0]
        target = None
        if not writes:  # the out-pointer form: `surf2Dread(&v, surf, x, y)`
            address = self.skip_implicit(value_c)
            if address.kind != self.K.UNARY_OPERATOR or ct.unary_operator(address) != "&":
                return None
            target = self.first_child(address)
            value_type = target.type
        else:
            value_type = value_c.type
        vector = vector_info(value_type)
        component, count = vector if vector is not None else (dtype_of(value_type, loc), 1)
        dims = (SURFACE_WRITES if writes else SURFACE_READS)[name]
        flat, inside = self.surface_element(binding, args[2:], dims, component, count, scope, loc)
        if not writes:
            at = self.materialize(Select(inside, flat, Const(0, "int32"), "int32"), f"{binding.param.name}_at", scope, loc)
            values = [Select(inside, self.texel(binding, at, k, component), Const(0, component), component)
                      for k in range(count)]
            if vector is not None:
                return self.vector_assign_values(target, values, vector, scope, loc)
            return [self.assign(target, values[0], scope, loc)]
        values = self.vector_expr(value_c, scope, count) if vector is not None else [self.expr(value_c, scope)]
        base = BinOp("*", flat, Const(count, "int32"), "int32") if count > 1 else flat
        stores = [Store(binding.param.name, base if k == 0 else BinOp("+", base, Const(k, "int32"), "int32"),
                        self.coerce(v, component), loc) for k, v in enumerate(values)]
        return [If(inside, stores, [], loc)]

    def texture_params(self) -> list:
        """The texture extents of the kernel just converted (parameters the original has not:
        the port's wrapper takes them from the tensor)."""
        out = []
        for binding in self._textures:
            binding.param.texture = replace(binding.sampler, texel=binding.param.dtype,
                                            channels=binding.channels or 1)
            out += binding.extents
        return out

    def texture_notes(self) -> list:
        """How each texture of the kernel just converted samples, for the port's header."""
        return [f"surface '{b.param.name}': x in bytes, out of range reads 0 and writes nothing"
                if b.sampler.origin == "a surface" else
                f"texture '{b.param.name}': {b.sampler.describe(len(b.extents))}" for b in self._textures]


def _clamp(i, extent):
    return Call("min", (Call("max", (i, Const(0, "int32")), "int32"),
                        BinOp("-", extent, Const(1, "int32"), "int32")), "int32")


def size_textures(kernel) -> None:
    """A texture buffer holds width x height x depth texels of `channels` components, whatever
    its clamped reads bound."""
    for p in kernel.params:
        if isinstance(p, BufferParam) and p.texture is not None:
            extent = Const(p.texture.channels, "int32")
            for q in kernel.params:
                if getattr(q, "texture_extent", None) and q.texture_extent[0] == p.name:
                    extent = BinOp("*", extent, Var(q.name, "int32"), "int32")
            p.extent = extent


def _narrow(e):
    """A coordinate as int32: `x * sizeof(uchar4)` is size_t arithmetic in C, whose low 32
    bits are the int32 product (an unsigned 64-bit cast of a negative int is no TVM constant)."""
    if isinstance(e, Cast) and e.a.dtype in INT_DTYPES:
        return _narrow(e.a)
    if isinstance(e, BinOp) and e.op in ("+", "-", "*"):
        return BinOp(e.op, _narrow(e.a), _narrow(e.b), "int32")
    if isinstance(e, Const) and isinstance(e.value, int):
        return Const(int(e.value), "int32")
    return e if e.dtype == "int32" else Cast("int32", e)
