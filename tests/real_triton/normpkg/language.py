"""Thin @triton.jit wrappers, imported by kernels under an alias (`import normpkg.language as nl`)."""
import triton
import triton.language as tl


@triton.jit
def row_index(axis):
    return tl.program_id(axis)
