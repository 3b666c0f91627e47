"""Names for locals: pointers to a local (`&tnear` passed to an out-parameter, `float *best = &a`)
and local references (`uint &e = edges[i]`, `auto &v = local`).

A pointer to a scalar, vector or struct local is bound to that local for its whole life: the
pointer's declaration is entered in the scope as the local itself (scope.values, .vectors or
.structs), so `p->x` reads it, and `*p` / `p[0]` are read as `p` (through_local_pointer). A
reference is the same alias without the pointer: its name is the object. A reference to a buffer
or array element is that element, its index computed once, at the binding.
"""

from __future__ import annotations

from porter.diagnostics import TileportError
from porter.frontends.cuda import parse as ct
from porter.frontends.cuda.types import dtype_of, is_pointer, vector_info
from porter.ir.nodes import Builtin, Const, Decl, Load, Var

#: The scope table that holds each kind of local an alias may name.
_TABLES = {"value": "values", "vector": "vectors", "struct": "structs"}


class LocalsMixin:
    """Methods of CudaFrontend for pointers to locals and for local references."""

    def local_object(self, c, scope):
        """The local an lvalue names, as (kind, what the scope holds for it): ("vector", [Var])
        for a vector local or a vector field of a struct local, ("struct", {path: Var}) for a
        struct local or struct field, ("value", Var) for a scalar local or field; else None."""
        c = self.through_local_pointer(self.skip_implicit(c), scope)
        if c is None:
            return None
        if c.kind == self.K.DECL_REF_EXPR and c.referenced is not None and c.referenced.hash in scope.vectors:
            return "vector", list(scope.vectors[c.referenced.hash])
        part = self.record_part(c, scope)
        if part is not None:
            members, prefix = part
            inside = {k[len(prefix):]: v for k, v in members.items() if k.startswith(prefix)}
            if vector_info(c.type) is not None:
                return "vector", list(inside.values())
            return "struct", inside
        var = self.target_var(c, scope)
        return ("value", var) if var is not None else None

    def local_binding(self, c, scope):
        """What a pointer expression points to when that is a local: `&x` (x as local_object
        reads it) or a pointer already bound to one; else None."""
        c = self.skip_implicit(c)
        if c is None:
            return None
        if c.kind == self.K.DECL_REF_EXPR and c.referenced is not None:
            return scope.local_pointers.get(c.referenced.hash)
        if c.kind == self.K.UNARY_OPERATOR and ct.unary_operator(c) == "&":
            return self.local_object(self.first_child(c), scope)
        return None

    def bind_local(self, decl, binding, scope, pointer: bool) -> None:
        """Enter `decl` (a pointer or a reference) in the scope as the local it names."""
        kind, value = binding
        getattr(scope, _TABLES[kind])[decl.hash] = value
        if pointer:
            scope.local_pointers[decl.hash] = binding

    def pointer_to_local(self, decl, arg, scope, loc, into=None) -> bool:
        """Bind pointer `decl` (a local, or a parameter of a function inlined with scope `into`)
        to the local `arg` points to, if it does; the pointee types must agree (a pointer cast
        would read the local's bits)."""
        binding = self.local_binding(arg, scope)
        if binding is None:
            return False
        pointee = decl.type.get_pointee()
        kind, value = binding
        agrees = {"value": lambda: vector_info(pointee) is None and
                  dtype_of(pointee, loc, what=f"'{decl.spelling}'") == value.dtype,
                  "vector": lambda: vector_info(pointee) is not None and vector_info(pointee)[1] == len(value),
                  "struct": lambda: self.record_fields(pointee, loc) is not None and
                  [f for f, _ in self.record_fields(pointee, loc)] == list(value)}[kind]
        if not agrees():
            raise TileportError("TP135", f"'{decl.spelling}' points to a local of another type (its bits "
                                "read as another type are not supported)", loc)
        self.bind_local(decl, binding, scope if into is None else into, pointer=True)
        return True

    def through_local_pointer(self, c, scope):
        """`*p`, `p[0]` (also `(*p)`) of a pointer bound to a local -> the cursor of `p`, which
        the scope holds as that local; any other cursor as it is."""
        K = self.K
        target = self.skip_parens(c)
        if target is None:
            return c
        if target.kind == K.UNARY_OPERATOR and ct.unary_operator(target) == "*":
            base, index = self.skip_implicit(self.first_child(target)), None
        elif target.kind == K.ARRAY_SUBSCRIPT_EXPR:
            base, index = list(target.get_children())
            base = self.skip_implicit(base)
        else:
            return c
        if base is None or base.kind != K.DECL_REF_EXPR or base.referenced is None or \
                base.referenced.hash not in scope.local_pointers:
            return c
        if index is not None and ct.evaluate(index) != 0:
            raise TileportError("TP133", f"'{base.spelling}' points to one local variable; only "
                                f"'*{base.spelling}', '{base.spelling}[0]' and '{base.spelling}->field' "
                                "reach it", ct.loc_of(target))
        return base

    def reference_declaration(self, d, init_cursor, scope, loc) -> list:
        """`T &r = x;` (also `auto &`, `const T &`): r names what x is. A local (or a field of
        one) is aliased; a buffer or array element is that element, its index evaluated once
        here; a const reference to a temporary holds its value."""
        pointee = d.type.get_pointee()
        if init_cursor is None:
            raise TileportError("TP141", f"reference '{d.spelling}' is not bound to anything", loc)
        if is_pointer(pointee):
            raise TileportError("TP122", f"reference to a pointer ('{d.spelling}') is not supported yet",
                                loc)
        binding = self.local_object(init_cursor, scope)
        if binding is not None and binding[0] != "value":
            self.bind_local(d, binding, scope, pointer=False)
            return []
        if vector_info(pointee) is not None or self.record_fields(pointee, loc) is not None:
            if pointee.is_const_qualified():
                return self.declaration_copy(d, pointee, init_cursor, scope, loc)
            raise TileportError("TP122", f"reference '{d.spelling}' to a vector or struct in memory is "
                                "not supported yet; bind a pointer to it", loc)
        dtype = dtype_of(pointee, loc, what=f"reference '{d.spelling}'")
        if binding is not None and binding[1].dtype == dtype:
            scope.values[d.hash] = binding[1]
            return []
        element = self.lvalue_load(init_cursor, scope) if binding is None else None
        if element is not None and element.dtype == dtype:
            index = element.index
            if not isinstance(self.strip_cast(index), (Const, Builtin)):
                index = self.materialize(index, f"{d.spelling}_index", scope, loc)
            scope.values[d.hash] = Load(element.buffer, index, element.dtype)
            return []
        if not pointee.is_const_qualified():
            raise TileportError("TP120", f"'{d.spelling}' is a reference to something that is not a "
                                "variable or buffer element", loc)
        return self.declaration_copy(d, pointee, init_cursor, scope, loc)

    def declaration_copy(self, d, ctype, init_cursor, scope, loc) -> list:
        """A const reference bound to a value nothing changes while it lives: a local holding it."""
        vector = vector_info(ctype)
        if vector is not None:
            parts = [Var(self.unique(f"{d.spelling}_{k}", scope), vector[0]) for k in "xyzw"[:vector[1]]]
            scope.vectors[d.hash] = parts
            values = self.vector_expr(init_cursor, scope, vector[1])
            return [Decl(v, self.coerce(e, v.dtype), loc) for v, e in zip(parts, values)]
        fields = self.record_fields(ctype, loc)
        if fields is not None:
            return self.record_declaration(d, fields, init_cursor, scope, loc)
        var = Var(self.unique(d.spelling, scope), dtype_of(ctype, loc, what=f"reference '{d.spelling}'"))
        scope.values[d.hash] = var
        return [Decl(var, self.coerce(self.expr(init_cursor, scope), var.dtype), loc)]
