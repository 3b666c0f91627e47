/* tileport CPU emulation stand-in for <device_launch_parameters.h>: everything it would declare comes from tp_emu.h */
#include "../tp_emu.h"
