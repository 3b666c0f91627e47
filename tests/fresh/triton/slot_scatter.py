# Scatter token rows into a paged cache: each token's slot number (from a table whose dtype the
# file never names) splits into a page (slot // page_size) and a row in it (slot % page_size).
import triton
import triton.language as tl


@triton.jit
def scatter_rows(src_ptr, slots_ptr, cache_ptr, page_size, page_stride, row_stride, width,
                 BLOCK: tl.constexpr):
    token = tl.program_id(0)
    slot = tl.load(slots_ptr + token)
    page = slot // page_size
    row = slot % page_size
    cols = tl.arange(0, BLOCK)
    live = cols < width
    vals = tl.load(src_ptr + token * width + cols, mask=live)
    tl.store(cache_ptr + page * page_stride + row * row_stride + cols, vals, mask=live)


def scatter(src, slots, cache):
    tokens, width = src.shape
    scatter_rows[(tokens,)](src, slots, cache, cache.shape[1], cache.stride(0), cache.stride(1),
                            width, BLOCK=triton.next_power_of_2(width))
