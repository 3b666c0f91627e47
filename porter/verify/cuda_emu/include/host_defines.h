/* tileport CPU emulation stand-in for <host_defines.h>: everything it would declare comes from tp_emu.h */
#include "../tp_emu.h"
