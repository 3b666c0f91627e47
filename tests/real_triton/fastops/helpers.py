"""A helper module that picks its math by an environment switch, as libraries do."""
import os

import triton.language as tl
import triton.language.extra.libdevice as tldevice


def get_exp():
    """The fast exponential when FASTOPS_FAST=1, the accurate one by default."""
    return tldevice.fast_expf if os.getenv("FASTOPS_FAST", "0") == "1" else tl.exp


def get_log():
    return tl.log if os.environ.get("FASTOPS_FAST", "0") != "1" else tldevice.fast_logf


exp = get_exp()
log = get_log()
