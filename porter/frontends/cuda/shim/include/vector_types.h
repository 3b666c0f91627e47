/* tileport parse stand-in: the parse shim already declares what vector_types.h provides */
