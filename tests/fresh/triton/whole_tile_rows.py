# Kernels whose launchers pass whole tiles only, so their loads and stores carry no mask (or
# mask=True), in FlagGems' style: an int64 program id, a row minimum over column tiles, and
# a blockwise scale of a flat buffer, and the attention tutorial's row dots whose columns
# pass the row stride they are addressed through.
import torch
import triton
import triton.language as tl

ROWS_PER_PROGRAM, COLS_PER_STEP, SCALE_BLOCK = 16, 32, 256


@triton.jit
def row_min_kernel(inp, out_min, n_rows, n_cols, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0).to(tl.int64)
    m_offset = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    best = tl.full([BLOCK_M], value=float("inf"), dtype=tl.float32)
    for start_n in range(0, n_cols, BLOCK_N):
        n_offset = start_n + tl.arange(0, BLOCK_N)
        offset = m_offset[:, None] * n_cols + n_offset[None, :]
        vals = tl.load(inp + offset, mask=True)
        best = tl.minimum(best, tl.min(vals, 1))
    tl.store(out_min + m_offset, best, mask=True)


@triton.jit
def scale_shift_kernel(x, y, alpha, beta, BLOCK: tl.constexpr):
    start = tl.program_id(0) * BLOCK
    offs = start + tl.arange(0, BLOCK)
    v = tl.load(x + offs)
    tl.store(y + offs, v * alpha + beta)


@triton.jit
def head_dots_kernel(O, DO, Delta, N_CTX, BLOCK_M: tl.constexpr, HEAD_DIM: tl.constexpr):
    # the fused-attention tutorial's backward preprocess: (heads, N_CTX, HEAD_DIM) rows of O
    # and DO addressed through N_CTX, dotted into Delta (heads, N_CTX)
    off_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    off_hz = tl.program_id(1)
    off_n = tl.arange(0, HEAD_DIM)
    o = tl.load(O + off_hz * HEAD_DIM * N_CTX + off_m[:, None] * HEAD_DIM + off_n[None, :])
    do = tl.load(DO + off_hz * HEAD_DIM * N_CTX + off_m[:, None] * HEAD_DIM + off_n[None, :])
    tl.store(Delta + off_hz * N_CTX + off_m, tl.sum(o * do, axis=1))


def row_min(x):
    n_rows, n_cols = x.shape
    assert n_rows % ROWS_PER_PROGRAM == 0 and n_cols % COLS_PER_STEP == 0, "whole tiles only"
    out = torch.empty(n_rows, device=x.device, dtype=torch.float32)
    row_min_kernel[(n_rows // ROWS_PER_PROGRAM,)](x, out, n_rows, n_cols,
                                                  BLOCK_M=ROWS_PER_PROGRAM, BLOCK_N=COLS_PER_STEP)
    return out


def scale_shift(x, alpha, beta):
    assert x.numel() % SCALE_BLOCK == 0, "whole tiles only"
    y = torch.empty_like(x)
    scale_shift_kernel[(x.numel() // SCALE_BLOCK,)](x, y, alpha, beta, BLOCK=SCALE_BLOCK)
    return y


def head_dots(o, do):
    heads, n_ctx, head_dim = o.shape
    assert n_ctx % ROWS_PER_PROGRAM == 0, "whole tiles only"
    delta = torch.empty((heads, n_ctx), device=o.device, dtype=torch.float32)
    head_dots_kernel[(n_ctx // ROWS_PER_PROGRAM, heads)](o, do, delta, n_ctx,
                                                         BLOCK_M=ROWS_PER_PROGRAM, HEAD_DIM=head_dim)
    return delta
