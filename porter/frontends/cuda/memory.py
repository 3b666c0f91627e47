"""CUDA memory as the IR sees it: kernel buffers and pointers into them, shared and local
arrays (multi-dimensional, flattened row-major), CUDA vector types (float4 & co., one scalar
per component) and structs passed by value (one scalar per field)."""

from __future__ import annotations

from porter.builtins import CUDA_BUILTINS
from porter.diagnostics import TileportError
from porter.frontends.cuda import parse as ct
from porter.frontends.cuda.calls import _no_tilelang_equivalent
from porter.frontends.cuda.records import Component, is_union, leaf_dtype, leaf_spelling, record_leaves
from porter.frontends.cuda.types import dtype_of, is_array, is_pointer, pointee_dtype, vector_info
from porter.ir.fold import fold
from porter.ir.walk import walk_expr
from porter.ir.nodes import (
    Alloc, Assign, BinOp, BufferParam, Cast, Const, Load, ScalarParam, Select, Store, StructMember, UnaryOp, Var,
    dtype_bits, is_float, is_int,
)


def _is_byte_pointer(ctype) -> bool:
    """char *, unsigned char *, void *: pointers whose arithmetic counts bytes."""
    pointee = ctype.get_canonical().get_pointee().spelling.replace("const ", "").replace("volatile ", "").strip()
    return pointee in ("char", "signed char", "unsigned char", "void")


#: `__ldg`, `__ldcs` & co.: loads with a cache hint, which ports do not keep.
_CACHE_HINT_LOADS = {name for name, (kind, _) in CUDA_BUILTINS.items() if kind == "ldg"}


class MemoryMixin:
    """Methods of CudaFrontend that resolve where a load or store goes."""

    def struct_params(self, p, c_type: str, loc) -> list:
        """A struct passed by value: one parameter per field (`t.scale` -> `t_scale`), nested
        structs and vectors taken apart (`ray.o.x` -> `ray_o_x`). A pointer field is a buffer
        parameter; so is a fixed array field (`int v[1024]`), whose elements the struct's bytes
        hold."""
        size = p.type.get_canonical().get_size()
        if is_union(p.type):
            raise TileportError("TP122", f"union parameter '{p.spelling}' is not supported yet (its "
                                "fields share bytes)", loc)
        out = []
        for path, ftype, offset in record_leaves(p.type):
            name, what = f"{p.spelling}_{path.replace('.', '_')}", f"field '{p.spelling}.{path}'"
            member = StructMember(p.spelling, c_type, path, offset, size)
            spelled = leaf_spelling(ftype)
            if isinstance(ftype, Component):
                out.append(ScalarParam(name, ftype.dtype, spelled, loc, member))
            elif is_pointer(ftype):
                out.append(BufferParam(name, pointee_dtype(ftype, loc), c_type=spelled, loc=loc, member=member))
            elif is_array(ftype) and ftype.get_canonical().get_array_size() > 0:
                count = ftype.get_canonical().get_array_size()
                element = dtype_of(ftype.get_canonical().get_array_element_type(), loc, what=what + " element")
                member = StructMember(p.spelling, c_type, path, offset, size, count)
                out.append(BufferParam(name, element, extent=Const(count, "int64"), c_type=spelled, loc=loc,
                                       member=member))
            else:
                out.append(ScalarParam(name, leaf_dtype(ftype, loc, what), spelled, loc, member))
        if not out:
            raise TileportError("TP122", f"struct parameter '{p.spelling}' has no fields", loc)
        return out

    def vector_expr(self, c, scope, lanes: int) -> list:
        """The components of a vector-typed expression."""
        c = self.through_local_pointer(self.skip_implicit(c), scope)
        loc = ct.loc_of(c)
        K = self.K
        if c.kind == K.DECL_REF_EXPR and c.referenced is not None and c.referenced.hash in scope.vectors:
            return list(scope.vectors[c.referenced.hash])
        field = c.kind in (K.MEMBER_REF_EXPR, K.ARRAY_SUBSCRIPT_EXPR)
        parts = self.record_parts(c, scope) if field else None
        if parts is not None:  # `ray.o`, `M.m[1]`: a vector field of a struct local or parameter
            return parts
        slots = self.record_slots(c, scope) if field else None
        if slots is not None:  # `v[i].position`: a vector field of a struct in a buffer
            return [Load(slots[0], i, slots[2]) for i in slots[1]]
        if c.kind == K.CALL_EXPR and c.spelling.startswith("make_") and not \
                (c.referenced is not None and self.is_device_function(c.referenced)):
            # CUDA's own make_float4(x, y, z, w) (its components; a vector argument's own, as
            # helper_math.h's forms take them); a user's overload (helper_math.h's make_float4(s),
            # make_float4(float3, w)) is inlined below like any device function
            values = [v for a in c.get_arguments() for v in self.aggregate_items(a, scope)]
            return values * lanes if len(values) == 1 else values[:lanes]
        if (c.kind == K.CALL_EXPR and c.spelling == "operator=") or \
                (c.kind == K.BINARY_OPERATOR and ct.binary_operator(c) == "="):
            # `x[i] = y[i] = v4`: the inner assignment runs first; its target is the value
            self.prelude.extend(self.expression_statement(c, scope))
            target = self.operator_operands(c)[0] if c.kind == K.CALL_EXPR else self.first_child(c)
            return self.vector_expr(target, scope, lanes)
        built = self.vector_builtin(c, scope, lanes) if c.kind == K.CALL_EXPR else None
        if built is not None:  # half2 builtins and operators
            return built
        if c.kind == K.INIT_LIST_EXPR:  # `float3 v = {a, b, c}`, `{}`: missing components are zero
            values = [self.expr(a, scope) for a in c.get_children()]
            zero = Const(0, values[0].dtype if values else "int32")
            return (values + [zero] * lanes)[:lanes]
        if c.kind == K.CALL_EXPR and c.spelling in _CACHE_HINT_LOADS and len(list(c.get_arguments())) == 1:
            # `__ldcs(&v4[i])`, `__ldg(p4)`: a load with a cache hint, which the port does not keep
            address = self.skip_implicit(list(c.get_arguments())[0])
            if address.kind == K.UNARY_OPERATOR and ct.unary_operator(address) == "&":
                return self.vector_expr(self.first_child(address), scope, lanes)
            return self.lane_loads(*self.vector_address_of(address, scope, lanes), lanes)
        fetched = self.texture_fetch(c, scope, lanes)
        if fetched is not None:  # `tex2D<float4>(tex, x, y)`: a texel's components
            return fetched
        callee = c.referenced if c.kind == K.CALL_EXPR else None
        if callee is not None and self.is_device_function(callee) and callee.kind != K.CONSTRUCTOR:
            return list(self.inline(callee, list(c.get_arguments()), scope, loc, want_value=True)[1])
        if c.kind == K.CXX_FUNCTIONAL_CAST_EXPR:  # `float4{a, b, c, d}`, `float4(v)`, `half2(x, y)`
            return self.vector_expr([k for k in c.get_children() if k.kind.is_expression()][-1], scope, lanes)
        if c.kind == K.CALL_EXPR and callee is not None and callee.kind == K.CONSTRUCTOR and \
                len(list(c.get_arguments())) == lanes > 1:  # `half2 v(x, y)`: one value a lane
            return [self.expr(a, scope) for a in c.get_arguments()]
        if c.kind == K.CALL_EXPR and len(list(c.get_arguments())) == 1:  # copy construction
            return self.vector_expr(list(c.get_arguments())[0], scope, lanes)
        if c.kind == K.CALL_EXPR and not list(c.get_arguments()):  # `float4 r;`: uninitialised
            return [None] * lanes
        if c.kind == K.ARRAY_SUBSCRIPT_EXPR or (c.kind == K.UNARY_OPERATOR and ct.unary_operator(c) == "*"):
            return self.lane_loads(*self.vector_address(c, scope, lanes), lanes)
        if c.kind == K.CALL_EXPR and _no_tilelang_equivalent(c.spelling, c) is not None:
            raise TileportError("TP156", _no_tilelang_equivalent(c.spelling, c), loc)  # `tex2D<float4>(...)`
        raise TileportError("TP135", "unsupported vector-typed expression", loc)

    def lane_loads(self, buf, base, n: int, dtype=None) -> list:
        """Elements base .. base + n - 1 of buf: what one vector (or 16-byte) load reads."""
        return [Load(buf, self.add_index(base, Const(k, base.dtype)), dtype or self.buffer_dtype(buf), n)
                for k in range(n)]

    def lane_stores(self, buf, base, values, loc) -> list:
        """values into elements base, base + 1, ... of buf: one vector (or 16-byte) store."""
        return [Store(buf, self.add_index(base, Const(k, base.dtype)), v, loc, len(values))
                for k, v in enumerate(values)]

    def element_base(self, off, index, lanes: int):
        """The first element of vector number `index` (of `lanes` elements) past offset `off`."""
        dtype = "int64" if index.dtype == "int64" else "int32"
        first = fold(BinOp("*", index if dtype == "int64" else self.coerce(index, "int32"),
                           Const(lanes, dtype), dtype))
        return self.add_index(off, first) if off is not None else first

    def element_access(self, c):
        """`p[i]` -> (p, i), `*p` -> (p, None): the pointer and index of an element access, as
        cursors (the index is converted only once the access is known to be wanted), else None."""
        if c.kind == self.K.ARRAY_SUBSCRIPT_EXPR:
            base, index = list(c.get_children())
            return base, index
        if c.kind == self.K.UNARY_OPERATOR and ct.unary_operator(c) == "*":
            return self.first_child(c), None
        return None

    def pointer_arithmetic(self, c):
        """`p + n`, `n + p`, `p - n` -> (p, n, whether n is subtracted), as cursors, else None."""
        if c.kind != self.K.BINARY_OPERATOR or ct.binary_operator(c) not in ("+", "-"):
            return None
        a, b = list(c.get_children())
        if not is_pointer(a.type):
            a, b = b, a
        return a, b, ct.binary_operator(c) == "-"

    def offset_value(self, n_c, subtracted: bool, scope):
        """The offset of pointer_arithmetic as IR, negated when subtracted: an unsigned one in
        int64 first, as C moves `p - n` back by n elements (dct8x8's `... - threadIdx.x`);
        negated as uint32 it was 2**32 - n, which TVM refuses to fold."""
        n = self.expr(n_c, scope)
        if subtracted and n.dtype.startswith("uint"):
            n = Cast("int64", n)
        return UnaryOp("-", n, n.dtype) if subtracted else n

    def element_index(self, index_c, scope):
        return self.expr(index_c, scope) if index_c is not None else Const(0, "int32")

    def vector_address(self, c, scope, lanes: int):
        """`reinterpret_cast<float4*>(p)[i]` -> (buffer, index of its first element)."""
        base_c, index_c = self.element_access(c) or (self.first_child(c), None)
        return self.vector_address_of(base_c, scope, lanes, self.element_index(index_c, scope))

    def vector_address_of(self, base_c, scope, lanes: int, index=None):
        """The element `index` (in vectors) of a pointer to vectors -> (buffer, first element)."""
        K = self.K
        c = base_c
        index = Const(0, "int32") if index is None else index
        base_c = self.skip_implicit(base_c)
        moved = self.pointer_arithmetic(base_c)
        if moved is not None:  # `(float2 *)((char *)v + y * pitch) + x`: x more vectors along
            inner_c, n_c, subtracted = moved
            n = self.offset_value(n_c, subtracted, scope)
            common = "int64" if "int64" in (n.dtype, index.dtype) else "int32"
            return self.vector_address_of(inner_c, scope, lanes, fold(BinOp(
                "+", self.coerce(index, common), self.coerce(n, common), common)))
        if base_c.kind == K.DECL_REF_EXPR and base_c.referenced is not None and \
                base_c.referenced.hash in scope.vector_views:
            buf, off = scope.vector_views[base_c.referenced.hash]
        elif base_c.kind == K.DECL_REF_EXPR and base_c.referenced is not None and is_array(base_c.referenced.type) \
                and vector_info(base_c.referenced.type.get_array_element_type()) is not None and \
                self.global_array(base_c.referenced, ct.loc_of(c)) is not None:
            buf, off = self._globals[base_c.referenced.spelling][0].name, None  # `__constant__ float4 c[N]`
        elif base_c.kind != K.CXX_REINTERPRET_CAST_EXPR and base_c.kind != K.CSTYLE_CAST_EXPR:
            raise TileportError("TP135", "vector loads and stores must go through "
                                "reinterpret_cast<float4*>(buffer)", ct.loc_of(c))
        else:
            buf, off = self.vector_cast(base_c, scope, ct.loc_of(c))
        return buf, self.element_base(off, index, lanes)

    def pitched(self, c, scope, element_bytes: int, lanes: int = 1):
        """`(char *)p + y * pitch` (a row of a pitched allocation, in bytes) cast back to a type of
        `element_bytes` -> (buffer, offset in elements) of p; the byte offsets must be whole
        elements, which verify draws (a pitch is a multiple of the element size). None: c is
        not a byte pointer's arithmetic."""
        K = self.K
        c = self.skip_parens(c)
        delta = None
        moved = self.pointer_arithmetic(c)
        if moved is not None:
            delta = self.offset_value(moved[1], moved[2], scope)
            c = self.skip_parens(moved[0])
        if self.skip_implicit(c).kind == K.DECL_REF_EXPR and delta is not None and _is_byte_pointer(c.type):
            inner = self.skip_implicit(c)  # `surface + y * pitch` of a `unsigned char *surface` viewed as floats
        elif c.kind not in (K.CSTYLE_CAST_EXPR, K.CXX_REINTERPRET_CAST_EXPR, K.CXX_STATIC_CAST_EXPR) or \
                not _is_byte_pointer(c.type):
            return None
        else:
            inner = self.skip_implicit([k for k in c.get_children() if k.kind.is_expression()][-1])
        views = {**scope.vector_views, **scope.record_views}  # vectors or structs: only bytes matter
        if inner.kind == K.DECL_REF_EXPR and inner.referenced is not None and inner.referenced.hash in views:
            buf, off = views[inner.referenced.hash]
        else:
            buf, off = self.pointer(inner, scope)
        if dtype_bits(self.buffer_dtype(buf)) // 8 != element_bytes:
            raise TileportError("TP135", f"a byte offset into a {self.buffer_dtype(buf)} buffer read as "
                                f"{element_bytes}-byte elements reinterprets its bits", ct.loc_of(c))
        if delta is None:
            return buf, off
        self.aligned(delta, element_bytes)
        for e in walk_expr(delta):  # a pitch counts bytes: verify scales its row stride by them
            if isinstance(e, Var):
                self._byte_strides[e.name] = max(self._byte_strides.get(e.name, 1), element_bytes * lanes)
        step = fold(BinOp("/", delta, Const(element_bytes, delta.dtype), delta.dtype)) if element_bytes > 1 else delta
        return buf, self.add_index(off, step) if off is not None else step

    def cast_only_params(self, kernel) -> dict:
        """Pointer parameters the kernel reads only through casts to one other element type
        (cudaNvSci's `(uchar4 *)rgbaImage` of an `unsigned int *`, a D3D surface's `(float
        *)(surface + y * pitch)` of an `unsigned char *`): decl hash -> that type's component
        dtype. The port takes such a buffer as those elements, the same bits (its wrapper views
        the caller's tensor so)."""
        K = self.K
        casts = (K.CSTYLE_CAST_EXPR, K.CXX_REINTERPRET_CAST_EXPR, K.CXX_STATIC_CAST_EXPR)
        params = {p.hash: p for p in kernel.get_arguments() if is_pointer(p.type)}
        uses = {h: 0 for h in params}
        viewed: dict = {}
        body = [c for c in kernel.get_children() if c.kind == K.COMPOUND_STMT]
        for c in (body[0].walk_preorder() if body else ()):
            if c.kind == K.DECL_REF_EXPR and c.referenced is not None and c.referenced.hash in uses:
                uses[c.referenced.hash] += 1
            if c.kind not in casts or not is_pointer(c.type):
                continue
            operand = self.skip_parens(self.skip_implicit([k for k in c.get_children() if k.kind.is_expression()][-1]))
            moved = self.pointer_arithmetic(operand)
            base = self.skip_parens(self.skip_implicit(moved[0])) if moved is not None else operand
            if base.kind != K.DECL_REF_EXPR or base.referenced is None or base.referenced.hash not in params:
                continue
            if moved is not None and not _is_byte_pointer(base.type):
                continue  # offsets in elements of the old type: not whole new ones
            pointee = c.type.get_pointee()
            vector = vector_info(pointee)
            try:
                dtype = vector[0] if vector else dtype_of(pointee, ct.loc_of(c))
            except TileportError:
                continue
            viewed.setdefault(base.referenced.hash, []).append(dtype)
        out = {}
        for h, dtypes in viewed.items():
            try:
                own = pointee_dtype(params[h].type)
            except TileportError:
                continue
            wider_integer = is_int(own) and is_int(dtypes[0]) and dtype_bits(dtypes[0]) > dtype_bits(own)
            if len(dtypes) == uses[h] and len(set(dtypes)) == 1 and dtypes[0] != own and not wider_integer:
                out[h] = dtypes[0]  # (stores through wider integer views keep the bytes: view_store)
        return out

    def vector_cast(self, cast, scope, loc):
        """`reinterpret_cast<const float4*>(p)` -> (buffer, offset) of p, whose elements must be
        the vector's (a float4 view of a float buffer); other views reinterpret bits (TP135)."""
        inner = [k for k in cast.get_children() if k.kind.is_expression()][-1]
        vector = vector_info(cast.type.get_pointee())
        if vector is not None:
            pitched = self.pitched(inner, scope, dtype_bits(vector[0]) // 8, vector[1])
            if pitched is not None:
                self.aligned(pitched[1], vector[1])
                return pitched
        buf, off = self.pointer(inner, scope)
        if vector is not None and vector[0] != self.buffer_dtype(buf):
            raise TileportError("TP135", f"'{cast.type.get_pointee().spelling}' accesses to a "
                                f"{self.buffer_dtype(buf)} buffer reinterpret its bits; only views "
                                "of the vector's own element type are supported yet", loc)
        if vector is not None:
            self.aligned(off, vector[1])
        return buf, off

    def aligned(self, offset, lanes: int) -> None:
        """A vector access at `offset`: the scalars in it must keep it a multiple of `lanes`
        (the original needs aligned addresses; verify draws such values)."""
        if offset is None:
            return
        names = [e.name for e in walk_expr(offset) if isinstance(e, Var)]
        seen = set()
        while names:  # through moving pointers' offsets to what their moves add
            name = names.pop()
            if name in seen:
                continue
            seen.add(name)
            self._alignments[name] = max(self._alignments.get(name, 1), lanes)
            names += list(self._offset_terms.get(name, ()))

    def vector_view(self, d, init_cursor, scope) -> bool:
        """`const float4* v = reinterpret_cast<const float4*>(x)` (or another view plus an
        offset in vectors): x seen four elements at a time through `v[i]`
        (scope.vector_views). False: d is not a pointer to a vector type."""
        vector = vector_info(d.type.get_pointee())
        if vector is None:
            return False
        loc = ct.loc_of(d)
        if init_cursor is None:
            raise TileportError("TP141", f"uninitialised pointer '{d.spelling}'", loc)
        scope.vector_views[d.hash] = self.vector_pointer(init_cursor, scope, vector[1], loc)
        return True

    def vector_pointer(self, c, scope, lanes: int, loc):
        """A pointer to vectors -> (buffer, offset in elements): a cast of a buffer pointer,
        another such view, either plus or minus a count of vectors."""
        K = self.K
        c = self.skip_implicit(c)
        if c.kind in (K.CXX_REINTERPRET_CAST_EXPR, K.CSTYLE_CAST_EXPR):
            return self.vector_cast(c, scope, loc)
        if c.kind == K.DECL_REF_EXPR and c.referenced is not None and c.referenced.hash in scope.vector_views:
            return scope.vector_views[c.referenced.hash]
        if c.kind == K.CALL_EXPR and c.referenced is not None and self.is_device_function(c.referenced):
            return self.pointer_call(c, scope, loc)  # `SharedMemory<float4>()`: the storage it returns
        moved = self.pointer_arithmetic(c)
        if moved is not None:
            buf, off = self.vector_pointer(moved[0], scope, lanes, loc)
            return buf, self.element_base(off, self.offset_value(moved[1], moved[2], scope), lanes)
        raise TileportError("TP135", "a pointer to a vector type must be made with "
                            "reinterpret_cast<float4*>(buffer)", loc)

    def vector_element(self, c, scope):
        """`reinterpret_cast<float*>(&v)[k]` on a scalarised vector v: its component k (a select
        on k when k is not a constant), else None."""
        K = self.K
        if c.kind != K.ARRAY_SUBSCRIPT_EXPR:
            return None
        base_c, index_c = list(c.get_children())
        base_c = self.skip_implicit(base_c)
        if base_c.kind not in (K.CXX_REINTERPRET_CAST_EXPR, K.CSTYLE_CAST_EXPR):
            return None
        inner = self.skip_implicit([k for k in base_c.get_children() if k.kind.is_expression()][-1])
        if not (inner.kind == K.UNARY_OPERATOR and ct.unary_operator(inner) == "&"):
            return None
        target = self.skip_implicit(self.first_child(inner))
        if target.kind != K.DECL_REF_EXPR or target.referenced is None or \
                target.referenced.hash not in scope.vectors:
            return None
        parts = scope.vectors[target.referenced.hash]
        if dtype_of(base_c.type.get_pointee(), ct.loc_of(c), what="vector element") != parts[0].dtype:
            raise TileportError("TP135", "reading a vector's bits as another type is not supported",
                                ct.loc_of(c))
        index = self.coerce(self.expr(index_c, scope), "int32")
        if isinstance(index, Const):
            if not 0 <= index.value < len(parts):
                raise TileportError("TP135", f"component {index.value} of a {len(parts)}-lane vector",
                                    ct.loc_of(c))
            return parts[index.value]
        value = parts[-1]
        for k in range(len(parts) - 2, -1, -1):
            value = Select(BinOp("==", index, Const(k, "int32"), "bool"), parts[k], value, parts[k].dtype)
        return value

    def vector_member(self, c, scope):
        """`v.x` on a scalarised vector (`p->x`, `(*p).x` of a pointer to one): its component
        Var, else None."""
        base = self.through_local_pointer(self.skip_implicit(self.first_child(c)), scope)
        if base is not None and base.kind == self.K.DECL_REF_EXPR and base.referenced is not None:
            parts = scope.vectors.get(base.referenced.hash)
            if parts is not None and c.spelling in "xyzw" and "xyzw".index(c.spelling) < len(parts):
                return parts["xyzw".index(c.spelling)]
        return None

    def vector_lane(self, c, scope):
        """`v4[i].x`, `tile[t].z`, `p->w`: component of a vector in a buffer or array, as a
        Load of that element (a store target too), else None."""
        if c.spelling not in ("x", "y", "z", "w"):
            return None
        base = self.skip_implicit(self.first_child(c))
        if base is None:
            return None
        arrow = is_pointer(base.type)
        vector = vector_info(base.type.get_pointee() if arrow else base.type)
        if vector is None or "xyzw".index(c.spelling) >= vector[1]:
            return None
        if arrow:
            buf, first = self.vector_address_of(base, scope, vector[1])
        elif base.kind == self.K.ARRAY_SUBSCRIPT_EXPR or \
                (base.kind == self.K.UNARY_OPERATOR and ct.unary_operator(base) == "*"):
            buf, first = self.vector_address(base, scope, vector[1])
        else:
            return None
        lane = self.add_index(first, Const("xyzw".index(c.spelling), first.dtype))
        return Load(buf, lane, self.buffer_dtype(buf))

    def bits_copy(self, lhs, rhs, scope, loc) -> list | None:
        """`*reinterpret_cast<float4*>(&dst[i]) = *reinterpret_cast<float4*>(&src[j])` (the
        LDST128BITS idiom; also half2, int4, int2 ... and `[k]` indexing) between buffers or
        arrays of one element type: the same bytes copied, as the elements they hold (8 halves
        through a float4). None: not such a copy."""
        sides = [self.bits_view(side, scope) for side in (lhs, rhs)]
        if None in sides:
            return None
        (dst, dst_first, dst_n), (src, src_first, src_n) = sides
        if dst_n != src_n or self.buffer_dtype(dst) != self.buffer_dtype(src):
            return None
        dtype = self.buffer_dtype(src)
        return self.lane_stores(dst, dst_first, self.lane_loads(src, src_first, src_n, dtype), loc)

    def bits_view(self, c, scope):
        """`*reinterpret_cast<V*>(p)` or `reinterpret_cast<V*>(p)[k]` with p into a buffer or
        array whose element size divides V's -> (buffer, first element, elements of V)."""
        K = self.K
        access = self.element_access(self.skip_implicit(c))
        if access is None:
            return None
        base, index_c = access
        cast = self.skip_implicit(base)
        if cast.kind not in (K.CXX_REINTERPRET_CAST_EXPR, K.CSTYLE_CAST_EXPR):
            return None
        inner = [k for k in cast.get_children() if k.kind.is_expression()][-1]
        if not is_pointer(inner.type):
            return None
        buf, off = self.pointer(inner, scope)
        size = cast.type.get_pointee().get_canonical().get_size()
        element = dtype_bits(self.buffer_dtype(buf)) // 8
        if size <= 0 or element <= 0 or size % element:
            return None
        n = size // element
        self.aligned(off, n)
        return buf, self.element_base(off, self.element_index(index_c, scope), n), n

    def view_store(self, lhs, rhs, scope, loc) -> list | None:
        """A store through a view of several elements of a buffer (`((uint *)bytes)[k] = 0`,
        `((int *)shorts)[k] = ((int *)others)[j]`): a copy between two such views is the
        elements copied; an integer constant is its bytes, little-endian, one part an element.
        None: no such store."""
        view = self.bits_view(lhs, scope)
        if view is None or view[2] == 1:
            return None  # a cast to the buffer's own element type (or one as wide) is no view here
        copied = self.bits_copy(lhs, rhs, scope, loc)
        if copied is not None:
            return copied
        buf, first, n = view
        dtype = self.buffer_dtype(buf)
        value = ct.evaluate(self.skip_implicit(rhs))
        if not isinstance(value, int) or is_float(dtype):
            return None
        bits = dtype_bits(dtype)
        parts = [(value >> (j * bits)) & ((1 << bits) - 1) for j in range(n)]
        if not dtype.startswith("uint"):  # two's complement of a signed element
            parts = [p - (1 << bits) if p >= 1 << (bits - 1) else p for p in parts]
        return [Store(buf, self.add_index(first, Const(j, first.dtype)), Const(p, dtype), loc)
                for j, p in enumerate(parts)]

    def vector_assign(self, lhs, rhs, vector, scope, loc) -> list:
        return self.vector_assign_values(lhs, self.vector_expr(rhs, scope, vector[1]), vector, scope, loc)

    def vector_assign_values(self, lhs, values, vector, scope, loc) -> list:
        """A vector lvalue (local, struct field, buffer element) given its components."""
        dtype, lanes = vector
        values = [self.coerce(v, dtype) for v in values]
        target = self.through_local_pointer(self.skip_implicit(lhs), scope)
        if target.kind == self.K.DECL_REF_EXPR and target.referenced is not None and \
                target.referenced.hash in scope.vectors:
            return [Assign(v, e, loc) for v, e in zip(scope.vectors[target.referenced.hash], values)]
        field = target.kind in (self.K.MEMBER_REF_EXPR, self.K.ARRAY_SUBSCRIPT_EXPR)
        parts = self.record_parts(target, scope) if field else None
        if parts is not None:  # `ray.o = ...`
            return [Assign(v, e, loc) for v, e in zip(parts, values)]
        slots = self.record_slots(target, scope) if field else None
        if slots is not None:  # `v[i].position = ...`
            return [Store(slots[0], i, self.coerce(e, slots[2]), loc) for i, e in zip(slots[1], values)]
        buf, base = self.vector_address(target, scope, lanes)
        return self.lane_stores(buf, base, values, loc)

    def array_declaration(self, d, scope, shared: bool, init) -> list:
        """`__shared__ T a[N][M]`, `extern __shared__ T a[]`, `T a[N]` -> an Alloc."""
        loc = ct.loc_of(d)
        values = None
        if any(t.spelling == "=" for t in d.get_tokens()):
            values = self.constant_initialiser(d, shared, loc)
        shape, t = [], d.type
        while is_array(t):
            size = t.get_array_size()
            if size < 0:
                if shape or not shared:
                    raise TileportError("TP142", f"array '{d.spelling}' needs a constant size", loc)
                shape.append(0)
            else:
                shape.append(size)
            t = t.get_array_element_type()
        if not shape:
            return self.shared_scalar(d, scope, loc)
        vector = vector_info(t)
        dtype = vector[0] if vector else dtype_of(t, loc, what=f"array '{d.spelling}'")
        name = self.unique(d.spelling, scope)
        dynamic = shape == [0]
        if vector is not None:
            # `__shared__ uchar4 tile[128]`: the components, flat, seen `lanes` at a time
            if len(shape) > 1 or values is not None:
                raise TileportError("TP143", f"array '{d.spelling}' of {t.spelling} must be one-dimensional "
                                    "and uninitialised", loc)
            shape = [shape[0] * vector[1]]
        if dynamic and d.spelling in self._dynamic_shared:
            # every `extern __shared__` array of a kernel is the same launch-sized storage
            scope.arrays[d.hash] = self._dynamic_shared[d.spelling]
            return []
        alloc = Alloc(name, dtype, tuple(shape), "shared" if shared else "local", dynamic, loc)
        if dynamic:
            self._dynamic_shared[d.spelling] = self._dynamic_shared[name] = alloc
        self._buffer_dtypes[name] = dtype
        if vector is not None:
            scope.vector_views[d.hash] = (name, None)
            return [alloc]
        scope.arrays[d.hash] = alloc
        if values is None:
            return [alloc]
        count = 1
        for n in shape:
            count *= n
        if len(values) > count or count > 4096:
            raise TileportError("TP142", f"initialiser of array '{d.spelling}' is too large", loc)
        zero = 0.0 if dtype.startswith(("float", "bfloat")) else 0
        values = values + [zero] * (count - len(values))
        return [alloc] + [Store(name, Const(i, "int32"), Const(v, dtype), loc) for i, v in enumerate(values)]

    def shared_scalar(self, d, scope, loc) -> list:
        """`__shared__ int count;`: a one-element shared array, read and written as element 0
        (and its address taken by atomics)."""
        dtype = dtype_of(d.type, loc, what=f"__shared__ variable '{d.spelling}'")
        name = self.unique(d.spelling, scope)
        self._buffer_dtypes[name] = dtype
        scope.values[d.hash] = Load(name, Const(0, "int32"), dtype)
        return [Alloc(name, dtype, (1,), "shared", False, loc)]

    def constant_initialiser(self, d, shared: bool, loc) -> list:
        """`T a[N] = {}`, `= {0}`, `= {1, 2, 3}` (nested too): the listed constants, row-major."""
        init = next((k for k in d.get_children() if k.kind == self.K.INIT_LIST_EXPR), None)
        if init is None or shared:
            raise TileportError("TP142", f"array initialisers ('{d.spelling}') must be a constant "
                                "list", loc)
        out = []

        def flatten(node):
            for k in node.get_children():
                k = self.skip_implicit(k)
                if k.kind == self.K.INIT_LIST_EXPR:
                    flatten(k)
                    continue
                value = ct.evaluate(k)
                if value is None:
                    raise TileportError("TP142", f"array initialiser of '{d.spelling}' is not constant",
                                        ct.loc_of(k))
                out.append(value)

        flatten(init)
        return out

    def subscript(self, c, scope):
        """`a[i]`, `tile[ty][tx]` -> (buffer, flat row-major index)."""
        indices = []
        root = c
        while True:
            root = self.skip_implicit(root)
            if root.kind != self.K.ARRAY_SUBSCRIPT_EXPR:
                break
            base, index = list(root.get_children())
            indices.insert(0, index)
            root = base
            inner = self.skip_implicit(root)
            if not (inner.kind == self.K.ARRAY_SUBSCRIPT_EXPR or self.array_of(inner, scope)):
                break
        alloc = self.array_of(self.skip_implicit(root), scope)
        if alloc is not None and len(indices) > 1:
            if len(indices) != len(alloc.shape):
                raise TileportError("TP143", f"partial indexing of array '{alloc.name}' is not supported",
                                    ct.loc_of(c))
            flat = None
            for dim, index_c in zip(alloc.shape, indices):
                idx = self.coerce(self.expr(index_c, scope), "int32")
                flat = idx if flat is None else self.add_index(
                    fold(BinOp("*", flat, Const(dim, "int32"), "int32")), idx)
            return alloc.name, flat
        if len(indices) > 1:
            raise TileportError("TP143", "multi-level indexing through pointers is not supported",
                                ct.loc_of(c))
        buf, off = self.pointer(root, scope)
        idx = self.expr(indices[0], scope)
        if dtype_bits(idx.dtype) < 32:  # C promotes a char or short index to int (TVM would
            idx = self.coerce(idx, "int32")  # check a uint8 index against a 256 it cannot hold)
        return buf, self.add_index(off, idx) if off is not None else idx

    def array_of(self, c, scope):
        if c is not None and c.kind == self.K.DECL_REF_EXPR and c.referenced is not None:
            if c.referenced.hash in scope.arrays:
                return scope.arrays[c.referenced.hash]
            if is_array(c.referenced.type):
                return self.shared_global(c.referenced, scope) or self.global_array(c.referenced, ct.loc_of(c))
            return None
        return self.packed_field(c, scope)  # `v.payload` of a packed record

    def shared_global(self, ref, scope):
        """A `__shared__` array at namespace scope (dct8x8's `__shared__ float CurBlockLocal1[64]`,
        SobelFilter's `extern __shared__ unsigned char LocalBlock[]`): each block's own storage,
        as if the kernel declared it; its Alloc heads the kernel's body. None: not one."""
        if ref.kind != self.K.VAR_DECL or ref.semantic_parent is None or \
                ref.semantic_parent.kind not in (self.K.TRANSLATION_UNIT, self.K.NAMESPACE) or \
                self.K.CUDASHARED_ATTR not in {ch.kind for ch in ref.get_children()}:
            return None
        if ref.hash not in self._shared_globals:
            self._hoisted += self.array_declaration(ref, scope, True, None)
            self._shared_globals[ref.hash] = scope.arrays.get(ref.hash)
        scope.arrays[ref.hash] = self._shared_globals[ref.hash]
        return self._shared_globals[ref.hash]

    def global_array(self, ref, loc):
        """A `__constant__` or `__device__` variable at namespace scope (`__constant__ float
        c_Kernel[17]`, `__device__ unsigned int count`), read or written by the kernel: a buffer
        parameter of the port named after it, which the original reads from the variable
        itself (the host fills it with cudaMemcpyToSymbol). Returns the Alloc that shapes its
        indexing (never emitted), else None: not such a variable."""
        if ref.kind != self.K.VAR_DECL or ref.semantic_parent is None or \
                ref.semantic_parent.kind not in (self.K.TRANSLATION_UNIT, self.K.NAMESPACE):
            return None
        attrs = {ch.kind for ch in ref.get_children()}
        if self.K.CUDACONSTANT_ATTR not in attrs and self.K.CUDADEVICE_ATTR not in attrs:
            return None
        if ref.spelling in self._globals:
            return self._globals[ref.spelling][1]
        shape, t = [], ref.type
        while is_array(t):
            shape.append(t.get_array_size())
            t = t.get_array_element_type()
        if any(n <= 0 for n in shape):
            raise TileportError("TP142", f"'{ref.spelling}' needs a constant size", loc)
        layout = self.record_layout(t)
        vector = vector_info(t)
        if layout is not None:  # `__constant__ Params c[N]`: a flat buffer of the fields' type
            shape.append(layout[2])
            dtype = layout[0]
        elif vector is not None and shape:  # `__constant__ float4 c[N]`: its components, flat
            shape.append(vector[1])
            dtype = vector[0]
        else:
            dtype = dtype_of(t, loc, what=f"variable '{ref.spelling}'")
        name = ref.spelling if ref.spelling not in self._buffer_dtypes else f"{ref.spelling}_symbol"
        count = 1
        for n in shape:
            count *= n
        initial = ct.evaluate(ref) if not shape else None
        param = BufferParam(name, dtype, c_type=f"{t.spelling} *", loc=ct.loc_of(ref), symbol=ref.spelling,
                            symbol_count=count, symbol_initial=initial)
        alloc = Alloc(name, dtype, tuple(shape) or (1,), "global", False, loc)
        self._globals[ref.spelling] = (param, alloc)
        self._buffer_dtypes[name] = dtype
        return alloc

    def pointer(self, c, scope):
        """Resolve a pointer expression to (buffer name, element offset or None)."""
        c = self.skip_parens(c)
        loc = ct.loc_of(c)
        K = self.K
        if c.kind in (K.UNEXPOSED_EXPR, K.CSTYLE_CAST_EXPR, K.CXX_STATIC_CAST_EXPR, K.CXX_REINTERPRET_CAST_EXPR) and \
                len(list(c.get_children())) >= 1:
            inner = [k for k in c.get_children() if k.kind.is_expression()]
            if inner and c.kind != K.UNEXPOSED_EXPR and not c.type.get_canonical().get_pointee().spelling.endswith("void") \
                    and vector_info(c.type.get_pointee()) is None:  # vectors: vector_cast's own pitched rows
                pitched = self.pitched(inner[-1], scope, dtype_bits(pointee_dtype(c.type, loc)) // 8)
                if pitched is not None:
                    return pitched
            if inner:
                vector = vector_info(c.type.get_pointee()) if c.kind != K.UNEXPOSED_EXPR else None
                # a cast to vectors (`(float4 *)__smem`) is a view of their components' type
                target = vector[0] if vector else pointee_dtype(c.type, loc) if c.kind != K.UNEXPOSED_EXPR else None
                buf, off = self.pointer(inner[-1], scope)
                if target is not None and target != self.buffer_dtype(buf) and off is None and \
                        buf in self._dynamic_shared:
                    # `(T*)smem` of `extern __shared__ int smem[]`: untyped launch-sized storage,
                    # whose elements are what the kernel casts it to
                    self._dynamic_shared[buf].dtype = self._buffer_dtypes[buf] = target
                if target is not None and target != self.buffer_dtype(buf):
                    raise TileportError("TP135", "pointer casts between element types are not "
                                        "supported yet", loc)
                return buf, off
        if c.kind == K.DECL_REF_EXPR and c.referenced is not None and c.referenced.hash in scope.pointers:
            if scope.pointers[c.referenced.hash][0] is None:
                raise TileportError("TP141", f"pointer '{c.spelling}' is used before it points into a buffer",
                                    ct.loc_of(c))
            return scope.pointers[c.referenced.hash]
        if c.kind == K.DECL_REF_EXPR and c.referenced is not None and c.referenced.hash in scope.local_pointers:
            raise TileportError("TP133", f"'{c.spelling}' points to one local variable; only '*{c.spelling}', "
                                f"'{c.spelling}[0]' and '{c.spelling}->field' reach it", loc)
        field = self.record_member(c, scope) if c.kind == K.MEMBER_REF_EXPR else None
        if field is not None and field.dtype == "pointer":  # `params.data`: a buffer the struct holds
            return field.name, None
        if c.kind == K.CALL_EXPR and c.referenced is not None and self.is_device_function(c.referenced):
            return self.pointer_call(c, scope, loc)
        if self.array_of(c, scope) is not None:
            alloc = self.array_of(c, scope)
            if len(alloc.shape) > 1:
                raise TileportError("TP143", f"pointers into 2-D array '{alloc.name}' are not supported",
                                    loc)
            return alloc.name, None
        moved = self.pointer_arithmetic(c)
        if moved is not None:
            buf, off = self.pointer(moved[0], scope)
            delta = self.offset_value(moved[1], moved[2], scope)
            return buf, self.add_index(off, delta) if off is not None else delta
        if c.kind == K.UNARY_OPERATOR and ct.unary_operator(c) == "&":
            target = self.expr(self.first_child(c), scope)
            if isinstance(target, Load):
                return target.buffer, target.index
            if self.local_object(self.first_child(c), scope) is not None:
                raise TileportError("TP133", "the address of a local variable is supported as the argument of "
                                    "a __device__ function's pointer parameter or the initialiser of a local "
                                    "pointer, of the local's own type", loc)
        raise TileportError("TP133", "could not resolve this pointer to a kernel buffer parameter", loc)

    def buffer_dtype(self, name: str) -> str:
        return self._buffer_dtypes.get(name, "float32")

    @staticmethod
    def add_index(a, b):
        # each pointer step is its own: `g_s + i + threadIdx.x - 1` (unsigned i, int 1) moves
        # back one element, so offsets of mixed signedness add in int64, not as uint32 (where
        # -1 became 4294967295 and TVM refused to fold `0u - 1u`: cuda-samples bisect_large)
        mixed = a.dtype.startswith("uint") != b.dtype.startswith("uint")
        wide = "int64" in (a.dtype, b.dtype) or "uint64" in (a.dtype, b.dtype)
        dtype = "int64" if wide or mixed else a.dtype
        a = a if a.dtype == dtype else Cast(dtype, a)
        b = b if b.dtype == dtype else Cast(dtype, b)
        return fold(BinOp("+", a, b, dtype))

    def is_null(self, c) -> bool:
        c = self.skip_implicit(c)
        if c.kind in (self.K.GNU_NULL_EXPR, self.K.CXX_NULL_PTR_LITERAL_EXPR):
            return True
        return c.kind == self.K.INTEGER_LITERAL and ct.evaluate(c) == 0
