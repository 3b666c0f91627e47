/* tileport parse stand-in: the parse shim already declares what device_functions.h provides */
