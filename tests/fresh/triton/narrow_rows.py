# Rows narrower than the block: RMS norm of 24-column rows (BLOCK 32 on 4 warps) with the
# program id widened to int64 first, a per-row scale read by the row's index and the row's
# rstd stored beside it, and a per-row label that picks one column of the row (a gather at a
# per-row scalar index).
import torch
import triton
import triton.language as tl


@triton.jit
def rms_rows_kernel(x_ptr, w_ptr, s_ptr, y_ptr, rstd_ptr, stride, n_cols, eps,
                    BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    keep = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=keep, other=0.0)
    w = tl.load(w_ptr + cols, mask=keep, other=0.0)
    scale = tl.load(s_ptr + row)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / n_cols + eps)
    tl.store(rstd_ptr + row, rstd)
    tl.store(y_ptr + row * stride + cols, x * rstd * w * scale, mask=keep)


@triton.jit
def pick_label_kernel(logits_ptr, labels_ptr, out_ptr, stride, n_cols, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(logits_ptr + pid * stride + cols, mask=cols < n_cols, other=-float("inf"))
    label = tl.load(labels_ptr + pid)
    m = tl.max(x, axis=0)
    picked = tl.load(logits_ptr + pid * stride + label)
    tl.store(out_ptr + pid, picked - m)


def rms_rows(x, w, s, eps=1e-6):
    rows, cols = x.shape
    y = torch.empty_like(x)
    rstd = torch.empty(rows, dtype=x.dtype, device=x.device)
    rms_rows_kernel[(rows,)](x, w, s, y, rstd, x.stride(0), cols, eps,
                             BLOCK=triton.next_power_of_2(cols), num_warps=4)
    return y, rstd


def pick_label(logits, labels):
    rows, cols = logits.shape
    out = torch.empty(rows, dtype=logits.dtype, device=logits.device)
    pick_label_kernel[(rows,)](logits, labels, out, logits.stride(0), cols,
                               BLOCK=triton.next_power_of_2(cols))
    return out


@triton.jit
def row_means_kernel(x_ptr, mean_ptr, stride, mean_stride, n_cols, BLOCK: tl.constexpr):
    # the row's mean stored into a strided column of per-row statistics (Liger's
    # `RSTD_ptr + row_idx * RSTD_row_stride`)
    row_idx = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row_idx * stride + cols, mask=cols < n_cols, other=0.0)
    tl.store(mean_ptr + row_idx * mean_stride, tl.sum(x, axis=0) / n_cols)


def row_means(x, stats):
    """stats: (rows, 2) float32; the means go to its first column."""
    rows, cols = x.shape
    row_means_kernel[(rows,)](x, stats, x.stride(0), stats.stride(0), cols,
                              BLOCK=triton.next_power_of_2(cols))
    return stats
