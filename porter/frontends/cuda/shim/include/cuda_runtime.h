/* tileport parse stand-in: the parse shim already declares what cuda_runtime.h provides */
