"""Front ends: CUDA (libclang) and Triton (Python ast) -> porter.ir."""
