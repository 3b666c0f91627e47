"""What the CUDA front end can see while converting one function body."""

from __future__ import annotations

from dataclasses import dataclass, field

from porter.ir.nodes import Var


@dataclass
class _Scope:
    """Names visible while converting one function body (kernel or inlined device function)."""

    values: dict = field(default_factory=dict)   # clang decl hash -> Expr (params, locals)
    pointers: dict = field(default_factory=dict)  # decl hash -> (buffer name, offset Expr)
    arrays: dict = field(default_factory=dict)    # decl hash -> Alloc (shared and local arrays)
    groups: dict = field(default_factory=dict)    # decl hash -> cooperative group ("block",)/("tile", N)
    vectors: dict = field(default_factory=dict)   # decl hash -> component Vars of a float4 & co.
    packed: dict = field(default_factory=dict)  # decl hash -> local Alloc of a Packed128 & co.
    vector_views: dict = field(default_factory=dict)  # decl hash -> (buffer, offset) of a float4*
    record_views: dict = field(default_factory=dict)  # decl hash -> (buffer, offset) of a Struct*
    structs: dict = field(default_factory=dict)   # decl hash -> {field: Expr} of a struct param/local
    local_pointers: dict = field(default_factory=dict)  # decl hash -> (kind, local) a pointer is bound to
    lambdas: dict = field(default_factory=dict)   # decl hash -> LAMBDA_EXPR cursor of a lambda local
    textures: dict = field(default_factory=dict)  # decl hash -> TextureBinding of a texture parameter
    # where `return` puts the value: a Var, {field: Var} for a struct, [Var] for a float4 & co.
    result: Var | dict | list | None = None
