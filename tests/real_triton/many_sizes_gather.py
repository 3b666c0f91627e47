"""A gather over a flattened 5-D index split by `//` and `%` (FlagGems' nearest upsampling, a
volume read at every other depth, row and column): tileport cannot bound the input's index,
so verify sizes it by every size multiplied. Written for tileport's tests."""
import triton
import triton.language as tl


@triton.jit
def strided_volume_gather(out_ptr, in_ptr, N, C, OD, OH, OW, ID, IH, IW, BLOCK: tl.constexpr):
    nc = tl.program_id(1)
    idx = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    total = OD * OH * OW
    mask = (idx < total) & (nc < N * C)
    ow = idx % OW
    oh = (idx // OW) % OH
    od = idx // (OW * OH)
    src = nc * ID * IH * IW + tl.minimum(od * 2, ID - 1) * IH * IW + tl.minimum(oh * 2, IH - 1) * IW \
        + tl.minimum(ow * 2, IW - 1)
    x = tl.load(in_ptr + src, mask=mask, other=0.0)
    tl.store(out_ptr + nc * total + idx, x, mask=mask)
