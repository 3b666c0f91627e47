"""A persistent row kernel launched as the fused-softmax style does: warmup, then a launch of
the compiled handle with positional constexprs (tileport test sample)."""
import torch
import triton
import triton.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.jit
def row_max_kernel(out_ptr, in_ptr, stride, n_rows, n_cols, BLOCK: tl.constexpr, STAGES: tl.constexpr):
    start = tl.program_id(0)
    step = tl.num_programs(0)
    for row in tl.range(start, n_rows, step, num_stages=STAGES):
        cols = tl.arange(0, BLOCK)
        x = tl.load(in_ptr + row * stride + cols, mask=cols < n_cols, other=-float("inf"))
        tl.store(out_ptr + row, tl.max(x, axis=0))


def row_max(x):
    n_rows, n_cols = x.shape
    out = torch.empty(n_rows, device=x.device, dtype=x.dtype)
    BLOCK = triton.next_power_of_2(n_cols)
    handle = row_max_kernel.warmup(out, x, x.stride(0), n_rows, n_cols, BLOCK=BLOCK, STAGES=2, grid=(1,))
    programs = min(n_rows, 4 * torch.cuda.get_device_properties(0).multi_processor_count)
    handle[(programs, 1, 1)](out, x, x.stride(0), n_rows, n_cols, BLOCK, 2)
    return out
