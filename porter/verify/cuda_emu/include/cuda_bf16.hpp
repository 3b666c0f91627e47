/* tileport CPU emulation stand-in for <cuda_bf16.hpp>: everything it would declare comes from tp_emu.h */
#include "../tp_emu.h"
