/* tileport parse stand-in: the parse shim already declares what cuda_runtime_api.h provides */
