"""`not`, `and` and `or` on block tensors in the Triton interpreter, as Triton compiles them.

On a GPU, Triton's code generator turns `not m` into an element-wise logical not and
`a and b` / `a or b` into element-wise logical and / or when an operand is a tensor. Triton
3.9's interpreter runs the kernel as Python, where `not m` asks `bool(m)`, which it answers
True for any block: `keep = not (tgt == ignore_index) and inside` was False everywhere, the
original masked every load (FlagGems' NLL loss forward), and verify reported a right port as
wrong. `install()` extends the interpreter's own AST rewrite (it already rewrites chained
comparisons) so these operators call helpers that do what the compiler does; on constants and
scalars they keep Python's meaning, short-circuit included."""

from __future__ import annotations

import ast


def _block(v) -> bool:
    import triton.language as tl

    return isinstance(v, tl.core.tensor) and v.type.is_block()


def _not(v):
    return v == 0 if _block(v) else not v


def _logic(is_and: bool, *operands):
    """Each operand is a thunk, evaluated only when Python or Triton would evaluate it."""
    value = operands[0]()
    for thunk in operands[1:]:
        if _block(value):
            other = thunk()
            value = (value != 0) & (other != 0) if is_and else (value != 0) | (other != 0)
        elif bool(value) != is_and:  # `False and ...`, `True or ...`: short-circuit
            return value
        else:
            value = thunk()
    return value


def _thunk(e: ast.expr) -> ast.Lambda:
    args = ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[])
    return ast.Lambda(args=args, body=e)


def install() -> None:
    from triton.runtime import interpreter as interp

    transformer = interp.ASTTransformer
    if getattr(transformer, "_tileport_logic", False):
        return
    interp._tileport_not, interp._tileport_logic = _not, _logic  # the rewritten code's globals

    def visit_UnaryOp(self, node):
        node = self.generic_visit(node)
        if not isinstance(node.op, ast.Not):
            return node
        call = ast.Call(func=ast.Name(id="_tileport_not", ctx=ast.Load()), args=[node.operand], keywords=[])
        return ast.copy_location(call, node)

    def visit_BoolOp(self, node):
        node = self.generic_visit(node)
        args = [ast.Constant(value=isinstance(node.op, ast.And))] + [_thunk(v) for v in node.values]
        call = ast.Call(func=ast.Name(id="_tileport_logic", ctx=ast.Load()), args=args, keywords=[])
        return ast.copy_location(call, node)

    transformer.visit_UnaryOp = visit_UnaryOp
    transformer.visit_BoolOp = visit_BoolOp
    transformer._tileport_logic = True
