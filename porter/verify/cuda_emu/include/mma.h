/* tileport CPU emulation stand-in for <mma.h>: the parse shim's declarations (nvcuda::wmma), which
 * the emulator needs only to build files holding wmma kernels; the front end reports those
 * kernels (TP156) and they are never run. */
#pragma once
#include "../../../frontends/cuda/shim/include/mma.h"
