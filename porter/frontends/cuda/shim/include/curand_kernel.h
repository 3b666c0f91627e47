/* tileport parse stand-in: the parse shim already declares what curand_kernel.h provides */
