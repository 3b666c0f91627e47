"""The parse shim: headers that let libclang read CUDA with no CUDA install."""
