"""tileport: port CUDA C++ and Triton kernels to TileLang and prove the port numerically."""

__version__ = "0.1.0"
