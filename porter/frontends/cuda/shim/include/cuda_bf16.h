/* tileport parse stand-in: the parse shim already declares what cuda_bf16.h provides */
