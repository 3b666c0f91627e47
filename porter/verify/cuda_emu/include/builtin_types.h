/* tileport CPU emulation stand-in for <builtin_types.h>: everything it would declare comes from tp_emu.h */
#include "../tp_emu.h"
