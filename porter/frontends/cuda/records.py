"""Structs in device code. Plain structs (`struct SoftmaxParams { float scale; float offset; };`) as one
scalar local per field, the way CUDA vector types are one local per component.

A record value is a list of field expressions in declaration order. It comes from a struct
local or parameter, an initializer list (`SoftmaxParams{a, b}`, `{x, 1.0f}`; missing fields are
zero), a copy, a conditional (`big ? a : b`, field by field), or an inlined `__device__` function
that returns the struct. Assignment copies field by field; `r.field = v` assigns one local.
Fields that are CUDA vectors or structs themselves flatten recursively: `ray.o.x` is one local
(`ray_o_x`), keyed by its dotted path `o.x`; `ray.o` names the parts under that path. Fields
of other types (arrays, pointers) and unions are refused (TP122) in locals, except packed records
(one array field, llm.c's Packed128): packed.py; kernel parameters: memory.struct_params.
"""

from __future__ import annotations

from porter.diagnostics import TileportError
from porter.frontends.cuda import parse as ct
from porter.frontends.cuda.types import CONSTANTARRAY, INVALID, RECORD, dtype_of, is_array, is_pointer, is_scalar, is_struct, kind_id, no_tilelang_equivalent_type, vector_info
from porter.ir.fold import fold
from porter.ir.nodes import Assign, BinOp, Call, Const, Decl, Load, Select, Store, Var, dtype_bits
from porter.ir.walk import walk_expr


def record_leaves(ctype, prefix: str = "", offset: int = 0, arrays: bool = False):
    """(dotted path, C type, byte offset) of each field of a struct, vector and struct fields
    taken apart down to what is neither (`o.x`, `o.y`, `o.z` for `float3 o`; a __half, a
    pointer or an array is a leaf). arrays: constant arrays taken apart too (`m.0.x` of
    `float4 m[3]`), and ctype may be one (`typedef float vec2[2]`)."""
    canonical = ctype.get_canonical()
    if arrays and kind_id(canonical) == CONSTANTARRAY:
        element = canonical.get_array_element_type()
        for k in range(canonical.get_array_size()):
            yield from _leaf(element, f"{prefix}{k}", offset + k * element.get_size(), arrays)
        return
    for f in canonical.get_fields():
        yield from _leaf(f.type, prefix + f.spelling, offset + f.get_field_offsetof() // 8, arrays)


def _leaf(ftype, path: str, at: int, arrays: bool):
    vector = vector_info(ftype)
    if vector is not None and not _is_scalar_type(ftype):
        for k in range(vector[1]):
            yield f"{path}.{'xyzw'[k]}", Component(vector[0]), at + k * dtype_bits(vector[0]) // 8
    elif (is_struct(ftype) and not _is_scalar_type(ftype) and list(ftype.get_canonical().get_fields())) or \
            (arrays and kind_id(ftype) == CONSTANTARRAY):
        yield from record_leaves(ftype, path + ".", at, arrays)
    else:
        yield path, ftype, at


class Component:
    """A vector field's component, as record_leaves reports it: its dtype is known."""

    def __init__(self, dtype):
        self.dtype = dtype


def _is_scalar_type(ctype) -> bool:
    """Whether dtype_of reads ctype as one value (`__half` is a struct to clang)."""
    try:
        dtype_of(ctype)
    except TileportError:
        return False
    return True


def leaf_dtype(ctype, loc, what: str) -> str:
    return ctype.dtype if isinstance(ctype, Component) else dtype_of(ctype, loc, what=what)


def leaf_spelling(ctype) -> str:
    return ctype.dtype if isinstance(ctype, Component) else ctype.spelling


def is_union(ctype) -> bool:
    declaration = ctype.get_canonical().get_declaration()
    return declaration is not None and declaration.kind.name == "UNION_DECL"


#: Scalars a struct local may take apart into (one local each).
_MOST_LOCAL_FIELDS = 64


class GivenValues:
    """An argument already converted (a struct's field values), passed where `inline` takes a
    cursor: record_value returns it as it is."""

    def __init__(self, values):
        self.values = values


class RecordsMixin:
    """Methods of CudaFrontend for struct-typed locals, values and results."""

    def record_fields(self, ctype, loc) -> list | None:
        """[(field path, dtype)] of a struct whose fields flatten to scalars (nested structs and
        vectors taken apart: `o.x`); None for other types."""
        if not is_struct(ctype):
            return None
        if "(lambda at " in ctype.get_canonical().spelling:
            raise TileportError("TP122", "a C++ lambda is supported only as a local called by name "
                                "(`auto f = [&](int j) {...}; f(j);`)", loc)
        if not list(ctype.get_canonical().get_fields()):
            return None
        if is_union(ctype):
            raise TileportError("TP122", f"union '{ctype.spelling}' is not supported yet (its fields "
                                "share bytes)", loc)
        out = []
        for path, ftype, _ in record_leaves(ctype, arrays=True):
            if len(out) >= _MOST_LOCAL_FIELDS:
                raise TileportError("TP122", f"struct '{ctype.spelling}' has more than {_MOST_LOCAL_FIELDS} "
                                    "scalar fields; a struct local holds at most that many", loc)
            try:
                out.append((path, leaf_dtype(ftype, loc, f"field '{path}'")))
            except TileportError as exc:
                if exc.diagnostic.code == "TP156":
                    raise
                raise TileportError("TP122", f"struct '{ctype.spelling}' has a field '{path}' of type "
                                    f"'{ftype.spelling}'; struct locals of scalar, vector and struct "
                                    "fields are supported", loc) from None
        return out

    def record_part(self, c, scope):
        """A struct local or parameter, or a struct or vector field inside one (`ray.o`):
        ({path: Var} of the whole struct, the path prefix of c's fields: "" or "o."), else None."""
        c = self.through_local_pointer(self.skip_implicit(c), scope)
        if c is None:
            return None
        if c.kind == self.K.DECL_REF_EXPR and c.referenced is not None and c.referenced.hash in scope.structs:
            return scope.structs[c.referenced.hash], ""
        if c.kind == self.K.MEMBER_REF_EXPR:
            base = self.record_part(self.first_child(c), scope)
            if base is not None:
                prefix = base[1] + c.spelling + "."
                if any(k.startswith(prefix) for k in base[0]):
                    return base[0], prefix
        if c.kind == self.K.ARRAY_SUBSCRIPT_EXPR:  # `M.m[1]`: an element of an array field
            base_c, index_c = list(c.get_children())
            base = self.record_part(base_c, scope)
            index = ct.evaluate(index_c)
            if base is not None and index is None:
                raise TileportError("TP122", "an array field of a struct local is indexed by constants "
                                    "only", ct.loc_of(c))
            prefix = f"{base[1]}{int(index)}." if base is not None else ""
            if base is not None and any(k.startswith(prefix) for k in base[0]):
                return base[0], prefix
        return None

    def record_parts(self, c, scope) -> list | None:
        """The Vars of a whole struct local or of a struct/vector field in one, in field order."""
        part = self.record_part(c, scope)
        if part is None:
            return None
        members, prefix = part
        return [v for k, v in members.items() if k.startswith(prefix)]

    def record_locals(self, name: str, fields, scope) -> dict:
        return {f: Var(self.unique(f"{name}_{f}", scope), dtype) for f, dtype in fields}

    def record_declaration(self, d, fields, init_cursor, scope, loc) -> list:
        members = self.record_locals(d.spelling, fields, scope)
        scope.structs[d.hash] = members
        values = self.record_value(init_cursor, fields, scope) if init_cursor is not None else None
        values = values or [None] * len(fields)
        return [Decl(v, self.coerce(e, v.dtype) if e is not None else None, loc)
                for v, e in zip(members.values(), values)]

    def record_value(self, c, fields, scope) -> list | None:
        """The field expressions of a struct-typed expression; None: left uninitialised."""
        if isinstance(c, GivenValues):
            return list(c.values)
        K = self.K
        loc = ct.loc_of(c)
        c = self.skip_implicit(c)
        while c.kind in (K.PAREN_EXPR, K.CXX_FUNCTIONAL_CAST_EXPR, K.CSTYLE_CAST_EXPR) or \
                (c.kind == K.UNEXPOSED_EXPR and len(list(c.get_children())) == 1):
            c = self.skip_implicit([k for k in c.get_children() if k.kind.is_expression()][-1])
        parts = self.record_parts(c, scope)
        if parts is not None:  # a struct local, parameter, or a struct field of one
            return parts
        if c.kind == K.INIT_LIST_EXPR:
            items = [v for k in c.get_children() if k.kind.is_expression()
                     for v in self.aggregate_items(k, scope)]
            if len(items) > len(fields):
                raise TileportError("TP122", "too many initializers for this struct", loc)
            # aggregate initialisation: the fields not named are zero
            return items + [Const(0, dtype) for _, dtype in fields[len(items):]]
        if c.kind == K.CONDITIONAL_OPERATOR:
            return self.select_values(c, lambda x: self.record_value(x, fields, scope),
                                      [dtype for _, dtype in fields], scope, "structs")
        if c.kind == K.CALL_EXPR:
            callee = c.referenced
            args = list(c.get_arguments())
            if c.spelling == "reduce" and args and self.group_arg(args[0], scope) is not None:
                return self.record_reduce(args, fields, scope, loc)
            if callee is not None and self.is_device_function(callee) and \
                    callee.kind != K.CONSTRUCTOR:
                return list(self.inline(callee, args, scope, loc, want_value=True)[1].values())
            if not args:
                return None  # `S s;` / `S s = S();`: default construction
            if len(args) == 1 and self.record_fields(args[0].type, loc) is not None:
                return self.record_value(args[0], fields, scope)  # copy construction
        loads = self.record_loads(c, fields, scope)
        if loads is not None:
            return loads
        if c.kind == K.MEMBER_REF_EXPR or c.kind == K.ARRAY_SUBSCRIPT_EXPR:
            raise TileportError("TP122", "structs read from memory or nested in other structs are "
                                "not supported yet", loc)
        raise TileportError("TP122", f"unsupported struct-valued expression ({c.kind.name.lower()})", loc)

    def aggregate_items(self, c, scope) -> list:
        """The leaf values one initializer gives: a vector's components, a struct's fields
        (`{o, d}` of two float3, `{{1, 2, 3}, ...}`), else one scalar."""
        vector = vector_info(c.type)
        if vector is not None:
            return self.vector_expr(c, scope, vector[1])
        fields = self.record_fields(c.type, ct.loc_of(c))
        if fields is not None:
            return self.record_value(c, fields, scope) or [Const(0, dtype) for _, dtype in fields]
        return [self.expr(c, scope)]

    def record_layout(self, ctype):
        """(dtype, {field path: element index}, elements per struct) of a struct (or constant
        array, `typedef float vec2[2]`) whose fields flatten to scalars of one type at
        whole-element offsets (`struct {float x, y, z;}`, `{float3 position; float4 color;}`,
        an `__align__(16)` RGBA of four uint8): a buffer of them is the same bytes as a flat
        buffer of that type. None for any other type."""
        canonical = ctype.get_canonical()
        if kind_id(canonical) == CONSTANTARRAY:
            pass  # `vec2 *p` of `typedef float vec2[2]`: two floats a point
        elif kind_id(canonical) != RECORD or vector_info(canonical) is not None or not is_struct(canonical) \
                or is_union(canonical):
            return None
        leaves = list(record_leaves(canonical, arrays=True))
        try:
            dtypes = {leaf_dtype(t, None, "field") for _, t, _ in leaves}
        except TileportError:
            return None
        if len(dtypes) != 1:
            return None
        dtype = dtypes.pop()
        size = dtype_bits(dtype) // 8
        total = canonical.get_size()
        if size <= 0 or total % size or any(o % size for _, _, o in leaves):
            return None
        return dtype, {path: o // size for path, _, o in leaves}, total // size

    def record_buffer_refusal(self, ctype) -> tuple | None:
        """(code, why) structs of this type in memory (a buffer, a `__constant__` variable) cannot
        be a flat buffer of one type (TP156 for pointers held in memory), else None."""
        canonical = ctype.get_canonical()
        if kind_id(canonical) != RECORD or not is_struct(canonical) or self.record_layout(canonical) is not None \
                or no_tilelang_equivalent_type(ctype) is not None:  # curandState: TP156, types.py
            return None
        kinds = set()
        leaves = list(record_leaves(canonical, arrays=True))
        if not leaves or any(not isinstance(t, Component) and kind_id(t) == INVALID for _, t, _ in leaves):
            return ("TP122", f"the fields of struct '{ctype.spelling}' have types this parse does not know "
                    "(a header missing here?)")
        for path, t, _ in leaves:
            if not isinstance(t, Component) and is_pointer(t):
                return ("TP156", f"a buffer of struct '{ctype.spelling}', whose field '{path}' is a pointer, has "
                        "no TileLang equivalent: a TileLang buffer holds values, not pointers to other buffers")
            kinds.add(leaf_spelling(t) if isinstance(t, Component) or not _is_scalar_type(t)
                      else dtype_of(t))
        return ("TP122", f"struct '{ctype.spelling}' in memory (a buffer, a __constant__ variable) mixes field "
                f"types ({', '.join(sorted(kinds))}); not supported yet: a port views structs in memory as a "
                "flat buffer of one type")

    def member_refusal(self, c) -> tuple | None:
        """Why `s.f` (or `a[i].f`, `p->f`) cannot be read: the struct at the root of the access
        has no flat layout (fields of mixed types), else None."""
        K = self.K
        while c is not None and c.kind in (K.MEMBER_REF_EXPR, K.ARRAY_SUBSCRIPT_EXPR, K.UNEXPOSED_EXPR,
                                           K.PAREN_EXPR, K.UNARY_OPERATOR):
            t = c.type.get_pointee() if is_pointer(c.type) else c.type
            refusal = self.record_buffer_refusal(t)
            if refusal is not None:
                return refusal
            c = self.first_child(c)
        if c is not None and c.kind == K.DECL_REF_EXPR:
            return self.record_buffer_refusal(c.type.get_pointee() if is_pointer(c.type) else c.type)
        return None

    def record_element(self, c, scope):
        """`p[i]`, `*p`, `p` (for `p->f`) over a buffer of such structs, or a `__constant__`
        struct variable (or an element of an array of them) -> (buffer, first element, layout),
        else None."""
        K = self.K
        c = self.skip_implicit(c)
        arrow = is_pointer(c.type)
        if c.kind == K.DECL_REF_EXPR and is_array(c.type) and is_scalar(c.type.get_canonical().get_array_element_type()):
            return None  # `__constant__ float Q[64]`: a plain array, indexed as one (Q[k], not Q[0 + k * 1])
        layout = self.record_layout(c.type.get_pointee() if arrow else c.type)
        if layout is None:
            return None
        if c.kind == K.DECL_REF_EXPR and not arrow and c.referenced is not None:
            alloc = self.global_array(c.referenced, ct.loc_of(c))  # `__constant__ float3x4 M;`
            return (alloc.name, Const(0, "int32"), layout) if alloc is not None else None
        access = (c, None) if arrow else self.element_access(c)
        if access is None:
            return None
        base = self.skip_implicit(access[0])
        if base.kind != K.DECL_REF_EXPR or base.referenced is None:
            return None
        if base.referenced.hash in scope.record_views:
            buf, off = scope.record_views[base.referenced.hash]
        elif is_array(base.referenced.type) and self.global_array(base.referenced, ct.loc_of(c)) is not None:
            buf, off = self.global_array(base.referenced, ct.loc_of(c)).name, None  # `__constant__ S d[N]`
        else:
            return None
        return buf, self.element_base(off, self.element_index(access[1], scope), layout[2]), layout

    def record_access(self, c, scope):
        """A struct in a buffer of them, or a field (`v[i].pos`, `M.m[k].x`, `p->rows[1]`) inside
        one -> (buffer, first element of the struct, layout, field path: "" for the whole
        struct), else None."""
        K = self.K
        c = self.skip_implicit(c)
        found = self.record_element(c, scope)
        if found is not None:
            return found + ("",)
        if c.kind == K.MEMBER_REF_EXPR:
            inner = self.record_access(self.first_child(c), scope)
            if inner is not None:
                path = f"{inner[3]}.{c.spelling}" if inner[3] else c.spelling
                if path in inner[2][1] or any(k.startswith(path + ".") for k in inner[2][1]):
                    return inner[:3] + (path,)
        if c.kind == K.ARRAY_SUBSCRIPT_EXPR:
            base_c, index_c = list(c.get_children())
            inner = self.record_access(base_c, scope)
            if inner is None or not is_array(self.skip_implicit(base_c).type):
                return None
            buf, first, (dtype, index, per), path = inner
            item = (lambda n: f"{path}.{n}") if path else str  # `pts[i][1]` of `float pt2[2]`: "1"
            starts = [min((i for k, i in index.items() if k == item(n) or k.startswith(item(n) + ".")),
                          default=None) for n in (0, 1)]
            if starts[0] is None:
                return None
            value = ct.evaluate(index_c)
            if value is not None:
                return buf, first, (dtype, index, per), item(int(value))
            if starts[1] is None:
                return buf, first, (dtype, index, per), item(0)
            # `m[k]`: k array elements of (starts[1] - starts[0]) buffer elements past m[0]
            k = self.coerce(self.expr(index_c, scope), first.dtype)
            step = fold(BinOp("*", k, Const(starts[1] - starts[0], first.dtype), first.dtype))
            return buf, self.add_index(first, step), (dtype, index, per), item(0)
        return None

    def record_field_load(self, c, scope):
        """`p[i].field`, `p->pos.x`, `M.m[k].y` on a buffer of structs: that element, else None."""
        found = self.record_access(c, scope)
        if found is None or found[3] not in found[2][1]:
            return None
        buf, first, (dtype, index, _), path = found
        return Load(buf, self.add_index(first, Const(index[path], first.dtype)), dtype)

    def record_slots(self, c, scope):
        """(buffer, [element index of each scalar]) of a struct, or of a struct or vector field,
        in a buffer of structs, else None."""
        found = self.record_access(c, scope)
        if found is None:
            return None
        buf, first, (dtype, index, _), path = found
        slots = [i for k, i in index.items() if not path or k.startswith(path + ".")]
        return buf, [self.add_index(first, Const(i, first.dtype)) for i in slots], dtype

    def record_loads(self, c, fields, scope):
        """`p[i]` (or `p[i].sub`) of a buffer of structs as the values of `fields`, else None."""
        found = self.record_slots(c, scope)
        if found is None:
            return None
        buf, slots, dtype = found
        return [Load(buf, i, dtype) for i in slots]

    def record_reduce(self, args, fields, scope, loc) -> list:
        """`cg::reduce(warp, partial, combine)` over a struct: the emulator's (and CUDA's) xor
        butterfly, each field shuffled on its own, `combine` (a __device__ function of two
        structs) inlined at every step. Every lane ends with the result."""
        group = self.group_arg(args[0], scope)
        if group[0] != "tile" or group[1] > 32 or group[1] & (group[1] - 1):
            raise TileportError("TP155", "cg::reduce is supported on tiles of up to 32 threads", loc)
        combine = self.function_reference(args[2]) if len(args) > 2 else None
        if combine is None:
            raise TileportError("TP155", "cg::reduce over a struct is supported with a __device__ "
                                "function as its operator", loc)
        acc = self.record_locals("cg_reduce", fields, scope)
        start = self.record_value(args[1], fields, scope) or [None] * len(fields)
        self.prelude.extend(Decl(v, self.coerce(e, v.dtype) if e is not None else None, loc)
                            for v, e in zip(acc.values(), start))
        mask = group[1] // 2
        while mask:
            other = [self.materialize(Call("shfl_xor", (v, Const(mask, "int32")), v.dtype),
                                      f"cg_other_{f}", scope, loc) for f, v in acc.items()]
            combined = self.inline(combine, [GivenValues(list(acc.values())), GivenValues(other)],
                                   scope, loc, want_value=True)[1]
            self.prelude.extend(Assign(v, combined[f], loc) for f, v in acc.items())
            mask //= 2
        return list(acc.values())

    def select_values(self, c, value_of, dtypes, scope, what) -> list:
        """`cond ? a : b` between two aggregates (struct fields, packed elements): a select
        per element."""
        cond_c, a, b = list(c.get_children())
        cond = self.as_bool(self.expr(cond_c, scope))
        va, vb = value_of(a), value_of(b)
        if va is None or vb is None:
            raise TileportError("TP122", f"a conditional between uninitialised {what}", ct.loc_of(c))
        return [Select(cond, self.coerce(x, dtype), self.coerce(y, dtype), dtype)
                for x, y, dtype in zip(va, vb, dtypes)]

    def record_assign(self, lhs, rhs, fields, scope, loc) -> list:
        target = self.skip_implicit(lhs)
        element = self.record_slots(target, scope)
        if element is not None:  # `out[i] = s`: a store per field
            buf, slots, dtype = element
            values = self.record_value(rhs, fields, scope) or []
            return [Store(buf, i, self.coerce(v, dtype), loc) for i, v in zip(slots, values)]
        part = self.record_part(target, scope)
        if part is None:
            raise TileportError("TP120", "a struct can be assigned only to a local struct variable", loc)
        values = self.record_value(rhs, fields, scope)
        if values is None:
            return []
        members = {k: v for k, v in part[0].items() if k.startswith(part[1])}
        own = set(members.values())
        if not any(isinstance(n, Var) and n in own for e in values for n in walk_expr(e)):
            return [Assign(v, self.coerce(e, v.dtype), loc) for v, e in zip(members.values(), values)]
        # through temporaries: `a = {a.y, a.x}` reads every field before it writes one
        temps = [Var(self.unique(f"{v.name}_new", scope), v.dtype) for v in members.values()]
        out = [Decl(t, self.coerce(e, t.dtype), loc) for t, e in zip(temps, values)]
        return out + [Assign(v, t, loc) for v, t in zip(members.values(), temps)]

    def record_member(self, c, scope):
        """`r.field`, `ray.o.x` on a struct local or parameter: its Var, else None."""
        part = self.record_part(self.first_child(c), scope)
        return part[0].get(part[1] + c.spelling) if part is not None else None

    def record_argument(self, param, arg, fields, name, written, scope, loc) -> dict:
        """A struct passed by value to an inlined function: its fields, as locals if the body
        changes them or they are not plain names."""
        values = self.record_value(arg, fields, scope)
        values = values or [None] * len(fields)
        out = {}
        for (f, dtype), value in zip(fields, values):
            value = self.coerce(value, dtype) if value is not None else None
            if isinstance(value, (Const, Var)) and param.hash not in written:
                out[f] = value
            else:
                var = Var(self.unique(f"{name}_{param.spelling}_{f}", scope), dtype)
                self.prelude.append(Decl(var, value, loc))
                out[f] = var
        return out
