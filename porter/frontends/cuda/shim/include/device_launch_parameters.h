/* tileport parse stand-in: the parse shim already declares what device_launch_parameters.h provides */
