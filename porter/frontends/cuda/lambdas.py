"""C++ lambdas in device code (`auto step = [&](int j) { acc += x[j]; };`), inlined at each call
the way `__device__` functions are, but inside the scope that declared them: the body sees the
enclosing locals, pointers and arrays directly. By-reference captures then write the enclosing
locals, which is what C++ does; by-value captures cannot be written (the call operator is const
unless the lambda is `mutable`, which is refused), so reading the enclosing value is the same.
"""

from __future__ import annotations

import dataclasses

from porter.diagnostics import TileportError
from porter.frontends.cuda import parse as ct


def is_lambda(ctype) -> bool:
    return "(lambda at " in ctype.get_canonical().spelling


class _LambdaBody:
    """A LAMBDA_EXPR seen through the interface `inline` reads of a function definition."""

    def __init__(self, expr, name: str, result_type):
        self.expr, self.spelling, self.result_type = expr, name, result_type
        self.hash = expr.hash

    def get_definition(self):
        return self

    def get_arguments(self):
        return [k for k in self.expr.get_children() if k.kind == ct.cindex().CursorKind.PARM_DECL]

    def get_children(self):
        return self.expr.get_children()

    def walk_preorder(self):
        return self.expr.walk_preorder()


class LambdasMixin:
    """Methods of CudaFrontend for lambda locals and their calls."""

    def lambda_declaration(self, d, init_cursor, scope, loc) -> list:
        expr = init_cursor
        while expr is not None and expr.kind != self.K.LAMBDA_EXPR:
            kids = [k for k in expr.get_children() if k.kind.is_expression()]
            expr = kids[0] if len(kids) == 1 else None
        if expr is None:
            raise TileportError("TP122", f"lambda variable '{d.spelling}' must be initialised with "
                                "a lambda expression", loc)
        if any(t.spelling == "mutable" for t in expr.get_tokens()):
            raise TileportError("TP122", "a 'mutable' lambda (it changes its own copies of what it "
                                "captured) is not supported yet", loc)
        scope.lambdas[d.hash] = expr
        return []  # the declaration is code only where it is called

    def lambda_callee(self, c, scope):
        """The lambda a call `step(j)` invokes, as (body, its arguments), else None."""
        if c.referenced is None or c.referenced.spelling != "operator()":
            return None
        node = self.first_child(c)  # the object called: the lambda variable, under implicit casts
        while node is not None and node.kind != self.K.DECL_REF_EXPR:
            kids = list(node.get_children())
            node = kids[0] if len(kids) == 1 else None
        if node is None or node.referenced is None or node.referenced.hash not in scope.lambdas:
            return None
        args = [a for a in c.get_arguments() if not is_lambda(a.type)]
        return _LambdaBody(scope.lambdas[node.referenced.hash], node.spelling, c.type), args

    def call_lambda(self, c, scope, loc, want_value: bool):
        found = self.lambda_callee(c, scope)
        if found is None:
            return None
        body, args = found
        captured = dataclasses.replace(
            scope, **{f.name: dict(getattr(scope, f.name)) for f in dataclasses.fields(scope)
                      if isinstance(getattr(scope, f.name), dict)})
        return self.inline(body, args, scope, loc, want_value=want_value, captured=captured)
