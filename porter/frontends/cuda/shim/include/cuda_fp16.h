/* tileport parse stand-in: the parse shim already declares what cuda_fp16.h provides */
