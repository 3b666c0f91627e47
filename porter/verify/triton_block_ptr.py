"""Block pointers for the Triton interpreter, which no longer has them (Triton 3.9).

`tl.make_block_ptr` / `tl.advance` and `tl.load` / `tl.store` of a block pointer raise
NotImplementedError in Triton 3.9 ("removed in favor of the tensor descriptor API"), yet
published kernels (the fused-attention tutorial among them) still use them. Verify runs such
originals with this emulation, installed in the interpreter child only: a block pointer is its
base, shape, strides, offsets and block shape; a load or store of it is the ordinary pointer
block `base + sum_d (offsets[d] + arange(block_shape[d])) * strides[d]` with the mask
`0 <= index < shape` on the dimensions `boundary_check` names, padding with zeros (or NaN for
`padding_option="nan"`), which is what block pointers meant. `order` only described layout.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class EmulatedBlockPtr:
    base: object
    shape: tuple
    strides: tuple
    offsets: tuple
    block_shape: tuple

    @property
    def dtype(self):
        """`p.dtype.element_ty` (and `p.type.element_ty`): the base pointer's, as Triton's."""
        return self.base.dtype

    type = dtype

    def advanced(self, deltas) -> EmulatedBlockPtr:
        return EmulatedBlockPtr(self.base, self.shape, self.strides,
                                tuple(o + d for o, d in zip(self.offsets, deltas)), self.block_shape)


def install() -> None:
    """Replace the removed functions on `triton.language` (call before the kernel runs)."""
    import triton.language as tl
    from triton.language.core import TRITON_BUILTIN

    raw_load, raw_store = tl.load, tl.store

    def builtin(fn):
        setattr(fn, TRITON_BUILTIN, True)  # the interpreter wraps it and passes _semantic
        return fn

    @builtin
    def make_block_ptr(base, shape, strides, offsets, block_shape, order=None, _semantic=None):
        return EmulatedBlockPtr(base, tuple(shape), tuple(strides), tuple(offsets),
                                tuple(int(getattr(b, "value", b)) for b in block_shape))

    @builtin
    def advance(base, offsets, _semantic=None):
        return base.advanced(tuple(offsets))

    def pointers(bp, boundary_check):
        rank = len(bp.block_shape)
        ptrs, mask = bp.base, None
        for d in range(rank):
            index = bp.offsets[d] + tl.arange(0, bp.block_shape[d])
            for axis in range(rank):
                if axis < d:
                    index = tl.expand_dims(index, 0)
                elif axis > d:
                    index = tl.expand_dims(index, index.type.shape.__len__())
            ptrs = ptrs + index * bp.strides[d]
            if d in tuple(boundary_check or ()):
                inside = (index >= 0) & (index < bp.shape[d])
                mask = inside if mask is None else mask & inside
        return ptrs, mask

    @builtin
    def load(pointer, mask=None, other=None, _semantic=None, **rest):
        if isinstance(pointer, EmulatedBlockPtr):
            ptrs, inside = pointers(pointer, rest.get("boundary_check", ()))
            fill = float("nan") if rest.get("padding_option") == "nan" else 0
            return raw_load(ptrs, mask=inside, other=fill if inside is not None else None, _semantic=_semantic)
        return raw_load(pointer, mask=mask, other=other, _semantic=_semantic, **rest)

    @builtin
    def store(pointer, value, mask=None, _semantic=None, **rest):
        if isinstance(pointer, EmulatedBlockPtr):
            ptrs, inside = pointers(pointer, rest.get("boundary_check", ()))
            return raw_store(ptrs, value, mask=inside, _semantic=_semantic)
        return raw_store(pointer, value, mask=mask, _semantic=_semantic, **rest)

    tl.make_block_ptr, tl.advance, tl.load, tl.store = make_block_ptr, advance, load, store
