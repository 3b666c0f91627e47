/* tileport parse stand-in: the parse shim already declares what cuda.h provides */
