"""Packed records in device code: llm.c's Packed128<T> and its kin, a struct whose one field
is an array of scalars (`T payload[16 / sizeof(T)]`), read and written through `operator[]`, filled from memory by a
constructor that memcpy's a 16-byte vector (`Packed128{*reinterpret_cast<const int4*>(p)}`)
and written back through a method that memcpy's it out (`*reinterpret_cast<int4*>(p) =
v.get_bits()`). A local is a local array; those byte copies are the element loads and stores
they amount to (n elements of T at p), never a reinterpretation of other bits.
"""

from __future__ import annotations

from porter.diagnostics import TileportError
from porter.frontends.cuda import parse as ct
from porter.frontends.cuda.memory import _CACHE_HINT_LOADS
from porter.frontends.cuda.types import dtype_of, is_array, is_reference, is_struct, vector_info
from porter.ir.nodes import Alloc, Const, Load, Store
from porter.ir.walk import walk_expr

_BYTES = {"float32": 4, "float64": 8, "float16": 2, "bfloat16": 2, "int32": 4, "uint32": 4,
          "int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "int64": 8, "uint64": 8, "bool": 1}


class PackedMixin:
    """Methods of CudaFrontend for packed records (one array field) in device code."""

    def packed_info(self, ctype):
        """(element dtype, elements, field name) of a struct with one scalar-array field, else None."""
        if not is_struct(ctype):
            return None
        fields = list(ctype.get_canonical().get_fields())
        if len(fields) != 1 or not is_array(fields[0].type):
            return None
        t = fields[0].type.get_canonical()
        n, elem = t.get_array_size(), t.get_array_element_type()
        if n <= 0 or is_array(elem):
            return None
        try:
            dtype = dtype_of(elem)
        except TileportError:
            return None
        return dtype, n, fields[0].spelling

    def packed_local(self, name, info, scope, loc) -> Alloc:
        alloc = Alloc(self.unique(name, scope), info[0], (info[1],), "local", False, loc)
        self._buffer_dtypes[alloc.name] = info[0]
        return alloc

    def packed_of(self, c, scope):
        """The local array of a packed-record expression that names one, else None."""
        c = self.skip_implicit(c)
        while c.kind == self.K.CALL_EXPR and c.referenced is not None and \
                c.referenced.kind == self.K.CONSTRUCTOR and len(list(c.get_arguments())) == 1 and \
                self.packed_info(list(c.get_arguments())[0].type) is not None:
            c = self.skip_implicit(list(c.get_arguments())[0])  # a copy of it
        if c.kind == self.K.DECL_REF_EXPR and c.referenced is not None:
            return scope.packed.get(c.referenced.hash)
        return None

    def packed_declaration(self, d, info, init_cursor, scope, loc) -> list:
        if init_cursor is not None:
            init = self.skip_implicit(init_cursor)
            callee = init.referenced if init.kind == self.K.CALL_EXPR else None
            if callee is not None and callee.kind != self.K.CONSTRUCTOR and self.is_device_function(callee):
                # `x128 a = load128(p)`: the inlined function's result array is the local itself
                alloc = self.inline(callee, list(init.get_arguments()), scope, loc, want_value=True)[1]
                scope.packed[d.hash] = scope.arrays[d.hash] = alloc
                return []
        alloc = self.packed_local(d.spelling, info, scope, loc)
        scope.packed[d.hash] = scope.arrays[d.hash] = alloc
        values = self.packed_value(init_cursor, info, scope) if init_cursor is not None else None
        return [alloc] + self.packed_stores(alloc, values, loc)

    def packed_assign(self, lhs, rhs, info, scope, loc) -> list:
        """`a = load128(p)`, `a = b` on a packed local: its elements, through a temporary when
        the value reads the local itself."""
        alloc = self.packed_of(lhs, scope)
        if alloc is None:
            raise TileportError("TP120", "a packed value can be assigned only to a local variable", loc)
        values = self.packed_value(rhs, info, scope)
        if values is None:
            return []
        if any(isinstance(n, Load) and n.buffer == alloc.name for v in values for n in walk_expr(v)):
            temp = self.packed_local(f"{alloc.name}_new", info, scope, loc)
            self.prelude.append(temp)
            return self.packed_stores(temp, values, loc) + self.packed_stores(
                alloc, [Load(temp.name, Const(k, "int32"), info[0]) for k in range(info[1])], loc)
        return self.packed_stores(alloc, values, loc)

    def packed_stores(self, alloc, values, loc) -> list:
        if values is None:
            return []
        return [Store(alloc.name, Const(k, "int32"), self.coerce(v, alloc.dtype), loc)
                for k, v in enumerate(values)]

    def packed_value(self, c, info, scope) -> list | None:
        """The n element expressions of a packed-record expression; None: uninitialised."""
        K = self.K
        loc = ct.loc_of(c)
        c = self.skip_implicit(c)
        while c.kind in (K.PAREN_EXPR, K.CXX_FUNCTIONAL_CAST_EXPR) or \
                (c.kind == K.UNEXPOSED_EXPR and len(list(c.get_children())) == 1):
            c = self.skip_implicit([k for k in c.get_children() if k.kind.is_expression()][-1])
        dtype, n, _ = info
        alloc = self.packed_of(c, scope)
        if alloc is not None:
            return [Load(alloc.name, Const(k, "int32"), dtype) for k in range(n)]
        if c.kind == K.CONDITIONAL_OPERATOR:
            return self.select_values(c, lambda x: self.packed_value(x, info, scope), [dtype] * n,
                                      scope, "packed values")
        if c.kind == K.CALL_EXPR:
            callee = c.referenced
            args = list(c.get_arguments())
            if callee is not None and callee.kind == K.CONSTRUCTOR:
                if not args:
                    return None
                if len(args) == 1 and vector_info(args[0].type) is not None and _copies_bytes(callee):
                    return self.bytes_loaded(args[0], info, scope)
            elif callee is not None and self.is_device_function(callee):
                alloc = self.inline(callee, args, scope, loc, want_value=True)[1]
                return [Load(alloc.name, Const(k, "int32"), dtype) for k in range(n)]
        raise TileportError("TP135", f"unsupported expression of packed type '{c.type.spelling}' "
                            f"({c.kind.name.lower()})", loc)

    def bytes_loaded(self, c, info, scope) -> list:
        """A 16-byte vector read from a T pointer (`*reinterpret_cast<const int4*>(p)`, `__ldcs(...)`,
        `reinterpret_cast<const int4*>(p)[i]`), as the n elements of T it holds."""
        K = self.K
        loc = ct.loc_of(c)
        dtype, n, _ = info
        c = self.skip_implicit(c)
        while (c.kind == K.UNEXPOSED_EXPR and len(list(c.get_children())) == 1) or \
                (c.kind == K.CALL_EXPR and c.referenced is not None and c.referenced.kind == K.CONSTRUCTOR
                 and len(list(c.get_arguments())) == 1):
            c = self.skip_implicit([k for k in c.get_children() if k.kind.is_expression()][-1])  # a copy
        index = Const(0, "int32")
        if c.kind == K.CALL_EXPR and c.spelling in _CACHE_HINT_LOADS:
            pointer_c = list(c.get_arguments())[0]
        elif c.kind == K.UNARY_OPERATOR and ct.unary_operator(c) == "*":
            pointer_c = self.first_child(c)
        elif c.kind == K.ARRAY_SUBSCRIPT_EXPR:
            pointer_c, index_c = list(c.get_children())
            index = self.expr(index_c, scope)
        else:
            raise TileportError("TP135", "a packed value must be built from a vector loaded from "
                                "memory (`*reinterpret_cast<const int4*>(p)`)", loc)
        buf, off = self.bytes_address(pointer_c, info, scope, loc)
        return self.lane_loads(buf, self.element_base(off, index, n), n, dtype)

    def bytes_address(self, pointer_c, info, scope, loc):
        """`reinterpret_cast<const int4*>(p)` with p a pointer to n elements of the packed type's
        element type -> (buffer, offset); anything else would reinterpret other bits (TP135)."""
        dtype, n, _ = info
        cast = self.skip_implicit(pointer_c)
        if cast.kind not in (self.K.CXX_REINTERPRET_CAST_EXPR, self.K.CSTYLE_CAST_EXPR):
            raise TileportError("TP135", "128-bit accesses must go through reinterpret_cast<int4*>(p)", loc)
        inner = [k for k in cast.get_children() if k.kind.is_expression()][-1]
        buf, off = self.pointer(inner, scope)
        size = cast.type.get_pointee().get_canonical().get_size()
        if self.buffer_dtype(buf) != dtype or size != n * _BYTES.get(dtype, 0):
            raise TileportError("TP135", f"a {size}-byte access to a {self.buffer_dtype(buf)} buffer "
                                f"does not hold the {n} {dtype} elements of this packed value", loc)
        self.aligned(off, n)
        return buf, off

    def bytes_store(self, lhs, rhs, scope, loc, address=None) -> list | None:
        """`*reinterpret_cast<int4*>(p) = v.get_bits();` with v packed (or lhs None and `address`
        the pointer of a cache-hint store): n element stores at p. None: not this statement."""
        rhs = self.skip_implicit(rhs)
        while rhs.kind == self.K.UNEXPOSED_EXPR and len(list(rhs.get_children())) == 1:
            rhs = self.skip_implicit(self.first_child(rhs))
        if rhs.kind != self.K.CALL_EXPR or rhs.referenced is None or \
                rhs.referenced.kind != self.K.CXX_METHOD or list(rhs.get_arguments()):
            return None
        member = self.first_child(rhs)
        if member is None or member.kind != self.K.MEMBER_REF_EXPR:
            return None
        obj = self.first_child(member)
        info = self.packed_info(obj.type) if obj is not None else None
        alloc = self.packed_of(obj, scope) if info is not None else None
        if alloc is None or not _copies_bytes(rhs.referenced):
            return None
        target = self.skip_implicit(lhs) if lhs is not None else None
        index = Const(0, "int32")
        if target is None:
            pointer_c = address  # `__stcs(reinterpret_cast<int4*>(p), v.get_bits())`
        elif target.kind == self.K.UNARY_OPERATOR and ct.unary_operator(target) == "*":
            pointer_c = self.first_child(target)
        elif target.kind == self.K.ARRAY_SUBSCRIPT_EXPR:
            pointer_c, index_c = list(target.get_children())
            index = self.expr(index_c, scope)
        else:
            return None
        buf, off = self.bytes_address(pointer_c, info, scope, loc)
        dtype, n, _ = info
        return self.lane_stores(buf, self.element_base(off, index, n),
                                [Load(alloc.name, Const(k, "int32"), dtype) for k in range(n)], loc)

    def packed_element(self, c, scope):
        """`v[k]` (operator[]) on a packed local: its element, else None (`v.payload[k]` goes
        through packed_field and the array subscript)."""
        K = self.K
        if c.kind == K.CALL_EXPR and c.spelling == "operator[]":
            kids = [k for k in c.get_children() if k.kind.is_expression()]
            obj = kids[0]
            alloc = self.packed_of(obj, scope)
            if alloc is None:
                return None
            index = self.coerce(self.expr(kids[-1], scope), "int32")
            return Load(alloc.name, index, alloc.dtype)
        return None

    def packed_field(self, c, scope):
        """`v.payload` of a packed local: its local array (for `v.payload[k]`), else None."""
        if c is None or c.kind != self.K.MEMBER_REF_EXPR:
            return None
        obj = self.first_child(c)
        info = self.packed_info(obj.type) if obj is not None else None
        if info is None or c.spelling != info[2]:
            return None
        return self.packed_of(obj, scope)

    def packed_size(self, c):
        """`x128::size` / `v.size`: a static member of a packed record that its array is sized
        by (clang cannot evaluate it in the template): the element count, else None."""
        ref = c.referenced
        if ref is None or ref.kind != self.K.VAR_DECL:
            return None
        owner = None
        for k in c.get_children():
            if k.kind == self.K.TYPE_REF:
                owner = k.type
            elif k.kind.is_expression():
                owner = k.type
        if owner is None and ref.semantic_parent is not None:
            owner = ref.semantic_parent.type  # `size` inside the record's own methods
        info = self.packed_info(owner) if owner is not None else None
        if info is None:
            return None
        field = list(owner.get_canonical().get_fields())[0]
        pattern = field.get_definition() or field
        sized_by = {k.spelling for k in pattern.walk_preorder() if k.kind == self.K.DECL_REF_EXPR}
        return Const(info[1], "int32") if ref.spelling in sized_by else None

    def packed_argument(self, param, arg, info, name, written, scope, loc):
        """A packed value passed to an inlined function: the caller's array when the body does
        not change it (or takes a reference), else a copy."""
        alloc = self.packed_of(arg, scope)
        if alloc is not None and (param.hash not in written or is_reference(param.type)):
            return alloc
        copy = self.packed_local(f"{name}_{param.spelling}", info, scope, loc)
        self.prelude.append(copy)
        self.prelude.extend(self.packed_stores(copy, self.packed_value(arg, info, scope), loc))
        return copy


def _copies_bytes(function) -> bool:
    """Whether a constructor/method body memcpy's (how Packed128 moves its 16 bytes)."""
    definition = function.get_definition() or function
    # in a template's body the call is dependent: an overloaded name, not yet a CALL_EXPR
    return any(k.spelling in ("memcpy", "__builtin_memcpy") for k in definition.walk_preorder()
               if k.kind.name in ("CALL_EXPR", "DECL_REF_EXPR", "OVERLOADED_DECL_REF"))
