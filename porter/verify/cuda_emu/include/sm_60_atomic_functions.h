/* tileport CPU emulation stand-in for <sm_60_atomic_functions.h>: everything it would declare comes from tp_emu.h */
#include "../tp_emu.h"
