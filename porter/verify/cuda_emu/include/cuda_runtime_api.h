/* tileport CPU emulation stand-in for <cuda_runtime_api.h>: everything it would declare comes from tp_emu.h */
#include "../tp_emu.h"
