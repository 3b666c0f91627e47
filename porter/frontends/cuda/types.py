"""C/CUDA types -> IR dtypes.

Works on clang's raw CXTypeKind numbers: the Python bindings raise on kinds they do not know
(Float16 = 32, BFloat16 = 39), which is exactly what `__half` and `__nv_bfloat16` are here.
"""

from __future__ import annotations

from porter.diagnostics import Loc, TileportError

# CXTypeKind values (clang-c/Index.h)
VOID, POINTER, RECORD, ENUM, CONSTANTARRAY, INCOMPLETEARRAY, FUNCTIONPROTO, INVALID = \
    2, 101, 105, 106, 112, 114, 111, 0
LVALUE_REFERENCE, RVALUE_REFERENCE = 103, 104

_BY_KIND = {
    3: "bool", 4: "uint8", 5: "uint8", 8: "uint16", 9: "uint32", 10: "uint64", 11: "uint64",
    13: "int8", 14: "int8", 16: "int16", 17: "int32", 18: "int64", 19: "int64",
    21: "float32", 22: "float64", 31: "float16", 32: "float16", 39: "bfloat16",
}
_BY_NAME = {"__half": "float16", "half": "float16", "__nv_bfloat16": "bfloat16",
            "nv_bfloat16": "bfloat16", "__bf16": "bfloat16", "_Float16": "float16"}


def kind_id(ctype) -> int:
    return ctype.get_canonical()._kind_id


def is_pointer(ctype) -> bool:
    return kind_id(ctype) == POINTER


def is_reference(ctype) -> bool:
    return kind_id(ctype) in (LVALUE_REFERENCE, RVALUE_REFERENCE)


def is_array(ctype) -> bool:
    return kind_id(ctype) in (CONSTANTARRAY, INCOMPLETEARRAY)


def is_void(ctype) -> bool:
    return kind_id(ctype) == VOID


def is_scalar(ctype) -> bool:
    return kind_id(ctype) in _BY_KIND or kind_id(ctype) == ENUM


_NO_EQUIVALENT_TYPES = {
    "curandState": "cuRAND generator state '{type}' has no TileLang equivalent: TileLang has no cuRAND "
                   "generators, and the state is a struct kept in memory between calls and kernels, "
                   "which no TileLang buffer holds",
    "curandDirectionVectors": "cuRAND direction vectors '{type}' (quasi-random generator state) have no "
                              "TileLang equivalent: TileLang has no cuRAND generators",
    "texture<": "texture reference '{type}' has no TileLang equivalent; read the buffer directly",
    "cooperative_groups::grid_group": "grid-wide cooperative groups ('{type}': this_grid, grid.sync) have no "
                                      "TileLang equivalent (no grid barrier in TileLang's language); split the "
                                      "kernel at the grid barrier",
    "cooperative_groups::coalesced_group": "'{type}' (the set of threads active at this point, "
                                           "coalesced_threads) has no TileLang equivalent",
    "nvcuda::wmma::fragment<": "wmma fragments have no thread-level TileLang equivalent; tensor-core "
                               "GEMMs port through T.gemm (tile level)",
}


def no_tilelang_equivalent_type(ctype) -> str | None:
    """Why values of a C type (a parameter's, a buffer element's, a local's) have no TileLang
    equivalent (cuRAND states, texture references), else None."""
    spelled = ctype.get_canonical().spelling
    for word in ("const ", "volatile ", "struct "):
        spelled = spelled.replace(word, "")
    for start, why in _NO_EQUIVALENT_TYPES.items():
        if spelled.startswith(start):
            written = ctype.spelling.replace("const ", "")
            return why.format(type=written if written == spelled else f"{written}' = '{spelled}")
    return None


def dtype_of(ctype, loc: Loc | None = None, what: str = "expression") -> str:
    """The IR dtype of a scalar C type; vector types, structs and pointers are refused."""
    for spelling in (ctype.spelling, ctype.get_canonical().spelling):  # aliases: typedef ... floatX
        name = spelling.replace("const ", "").replace("volatile ", "").strip()
        if name in _BY_NAME:
            return _BY_NAME[name]
    kind = kind_id(ctype)
    if kind == ENUM:
        return "int32"
    dtype = _BY_KIND.get(kind)
    if dtype is None and no_tilelang_equivalent_type(ctype) is not None:
        raise TileportError("TP156", no_tilelang_equivalent_type(ctype), loc)
    if dtype is None:
        raise TileportError("TP122", f"type '{ctype.spelling}' of {what} is not supported yet", loc)
    return dtype


def pointee_dtype(ctype, loc: Loc | None = None) -> str:
    pointee = ctype.get_canonical().get_pointee()
    if kind_id(pointee) == POINTER:
        raise TileportError("TP123", f"pointer-to-pointer '{ctype.spelling}' is not supported", loc)
    direct = ctype.get_pointee()
    return dtype_of(direct if direct._kind_id != INVALID else pointee, loc, what="buffer element")


_VECTOR_ELEMENTS = {"__half": "float16", "half": "float16", "__nv_bfloat16": "bfloat16", "nv_bfloat16": "bfloat16",
                    "float": "float32", "double": "float64", "int": "int32", "uint": "uint32",
                    "char": "int8", "uchar": "uint8", "short": "int16", "ushort": "uint16",
                    "long": "int64", "ulong": "uint64", "longlong": "int64"}


def vector_info(ctype):
    """(element dtype, lanes) for CUDA vector types such as float4 or uchar3, else None."""
    name = ctype.get_canonical().spelling.replace("const ", "").replace("volatile ", "").strip()
    name = name.replace("struct ", "")
    if len(name) < 2 or name[-1] not in "234" or not name[:-1] in _VECTOR_ELEMENTS:
        return None
    return _VECTOR_ELEMENTS[name[:-1]], int(name[-1])


def is_struct(ctype) -> bool:
    """A plain struct passed by value (not a CUDA vector type, not a cooperative group)."""
    if kind_id(ctype) != RECORD or vector_info(ctype) is not None:
        return False
    spelling = ctype.get_canonical().spelling
    return "cooperative_groups" not in spelling and spelling not in ("dim3", "uint3")
