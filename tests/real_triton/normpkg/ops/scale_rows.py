"""Rows scaled by a gain, with helpers from sibling modules; the top level must never run."""
import torch
import triton
import triton.language as tl

import normpkg.language as nl
from .utils import calculate_settings, gained

import a_package_nobody_installed  # noqa: F401


@triton.jit
def scale_rows_kernel(x_ptr, y_ptr, n_cols, stride, BLOCK_SIZE: tl.constexpr):
    row = nl.row_index(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask)
    tl.store(y_ptr + row * stride + cols, gained(x), mask=mask)


def scale_rows(x: torch.Tensor):
    y = torch.empty_like(x)
    BLOCK_SIZE, num_warps = calculate_settings(x.shape[1])
    scale_rows_kernel[(x.shape[0],)](x, y, x.shape[1], x.stride(0), BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)
    return y


raise RuntimeError("this module's top level must not run under tileport")
