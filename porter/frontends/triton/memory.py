"""Memory in a Triton kernel body: pointers, masks, `tl.load` and `tl.store` (a mixin of
KernelConverter, kernels.py)."""

from __future__ import annotations

from porter.frontends.triton.retry import _NeedPointer
from porter.frontends.triton.tables import _MISSING
from porter.frontends.triton.tiles import ShapedStmt
from porter.frontends.triton.values import (
    BlockPointerValue, PointerValue, StaticValue, SlotRef, RuntimeValue, TupleV, broadcast_shapes, const_of,
)
from porter.frontends.triton.values import _is_number
from porter.ir.nodes import BinOp, Cast, Const, If, Load, Select, Store, Var


class TritonMemory:
    """Pointer, load and store handling of KernelConverter."""

    # ------------------------------------------------------------------ memory

    def _pointer(self, p, node, what):
        if isinstance(p, PointerValue):
            return p
        if isinstance(p, RuntimeValue):
            cands = self._pointer_candidates(p.expr)
            if cands:
                raise _NeedPointer(cands[0])
        raise self.err("TP224", f"could not resolve the pointer of this {what} to a kernel "
                       "parameter", node)

    def _pointer_candidates(self, e, depth: int = 0) -> list:
        if depth > 50:
            return []
        if isinstance(e, Var):
            return [e.name] if e.name in self.unknown else []
        if isinstance(e, BinOp) and e.op == "+":
            return self._pointer_candidates(e.a, depth + 1) + self._pointer_candidates(e.b, depth + 1)
        if isinstance(e, BinOp) and e.op == "-":
            return self._pointer_candidates(e.a, depth + 1)
        if isinstance(e, Cast):
            return self._pointer_candidates(e.a, depth + 1)
        if isinstance(e, Select):
            return self._pointer_candidates(e.a, depth + 1) + self._pointer_candidates(e.b, depth + 1)
        if isinstance(e, SlotRef) and self.slots[e.slot].expr is not None:
            return self._pointer_candidates(self.slots[e.slot].expr, depth + 1)
        if isinstance(e, SlotRef) and e.slot in self.phi_init:  # loop-carried: its value before
            return self._pointer_candidates(self.phi_init[e.slot], depth + 1)
        return []

    def _mask(self, mask, shape, node, what):
        """None (no mask), False (all off) or a bool expression broadcastable to shape."""
        if mask is _MISSING or (isinstance(mask, StaticValue) and mask.value is None):
            return None
        if isinstance(mask, StaticValue):
            return None if mask.value else False
        if not isinstance(mask, RuntimeValue):
            raise self.err("TP217", f"unsupported mask in {what}", node)
        if mask.dtype != "bool":
            raise self.err("TP225", f"the mask of {what} must be boolean (got {mask.dtype})", node)
        if broadcast_shapes(mask.shape, shape) != shape:
            raise self.err("TP222", f"the mask's block shape {mask.shape} does not fit the "
                           f"pointer's {shape}", node)
        return mask.expr

    def load(self, args, kwargs, node):
        p = self._need(args, kwargs, 0, "pointer", node, "tl.load")
        if isinstance(p, BlockPointerValue) and p.offsets is None:  # descriptor.load(offsets)
            window, check = self._descriptor_window(p, self._need(args, kwargs, 1, "offsets", node,
                                                                  "load"), node)
            ptr, mask = self._block_window(window, check, node, "load")
            return self.load([ptr], {"mask": mask, "other": StaticValue(0)}, node)
        if isinstance(p, BlockPointerValue):
            ptr, mask = self._block_window(p, self._arg(args, kwargs, 3, "boundary_check", None),
                                           node, "tl.load")
            padding = self._arg(args, kwargs, 4, "padding_option", StaticValue(""))
            other = StaticValue(float("nan")) if isinstance(padding, StaticValue) and padding.value == "nan" else StaticValue(0)
            return self.load([ptr], {"mask": mask if mask is not None else StaticValue(None), "other": other},
                             node)
        ptr = self._pointer(p, node, "tl.load")
        bc = self._arg(args, kwargs, 3, "boundary_check", None)
        if isinstance(bc, TupleV) and bc.items or isinstance(bc, StaticValue) and bc.value:
            raise self.err("TP218", "boundary_check (block pointers) is not supported yet", node)
        shape, elem = ptr.shape, ptr.elem
        offset = ptr.offset if ptr.offset is not None else Const(0, "int32")
        loaded = Load(ptr.buffer, offset, elem)
        mask = self._mask(self._arg(args, kwargs, 1, "mask"), shape, node, "tl.load")
        other = self._arg(args, kwargs, 2, "other", None)
        if other is None or (isinstance(other, StaticValue) and other.value is None):
            other_e = const_of(0, elem)
        elif isinstance(other, RuntimeValue) or _is_number(other):
            if broadcast_shapes(self._shape(other), shape) != shape:
                raise self.err("TP222", "the 'other' block shape does not fit the pointer's", node)
            other_e = self._as_expr(other, elem)
        else:
            raise self.err("TP217", "unsupported 'other' value of tl.load", node)
        if mask is None:
            return RuntimeValue(loaded, shape)
        if mask is False:
            return RuntimeValue(other_e, shape)
        return RuntimeValue(Select(mask, loaded, other_e, elem), shape)

    def store(self, args, kwargs, node):
        p = self._need(args, kwargs, 0, "pointer", node, "tl.store")
        if isinstance(p, BlockPointerValue) and p.offsets is None:  # descriptor.store(offsets, value)
            window, check = self._descriptor_window(p, self._need(args, kwargs, 1, "offsets", node,
                                                                  "store"), node)
            ptr, mask = self._block_window(window, check, node, "store")
            value = self._need(args, kwargs, 2, "value", node, "store")
            return self.store([ptr, value], {"mask": mask}, node)
        if isinstance(p, BlockPointerValue):
            ptr, mask = self._block_window(p, self._arg(args, kwargs, 3, "boundary_check", None),
                                           node, "tl.store")
            value = self._need(args, kwargs, 1, "value", node, "tl.store")
            return self.store([ptr, value], {"mask": mask if mask is not None else StaticValue(None)}, node)
        ptr = self._pointer(p, node, "tl.store")
        value = self._need(args, kwargs, 1, "value", node, "tl.store")
        shape, elem = ptr.shape, ptr.elem
        if not (isinstance(value, RuntimeValue) or _is_number(value)):
            raise self.err("TP217", "unsupported value for tl.store", node)
        if broadcast_shapes(self._shape(value), shape) != shape:
            raise self.err("TP222", f"stored block shape {self._shape(value)} does not fit the "
                           f"pointer's {shape}", node)
        explicit = self._explicit_cast(value.expr) if isinstance(value, RuntimeValue) else None
        if explicit is not None and explicit.dtype in ("float16", "bfloat16") and \
                explicit.a.dtype == "float32":
            self.evidence.buffer_hints.setdefault(ptr.buffer, explicit.dtype)
        mask = self._mask(self._arg(args, kwargs, 2, "mask"), shape, node, "tl.store")
        if mask is False:
            return StaticValue(None)
        loc = self.loc(node)
        offset = ptr.offset if ptr.offset is not None else Const(0, "int32")
        stmt = Store(ptr.buffer, offset, self._as_expr(value, elem), loc)
        self.stores.append((shape, loc))
        self.out.append(ShapedStmt(shape, If(mask, [stmt], [], loc) if mask is not None else stmt))
        return StaticValue(None)
