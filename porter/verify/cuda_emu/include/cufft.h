/* tileport CPU emulation stand-in for <cufft.h>: the parse shim's cuFFT data types and enums, which
 * kernels take as buffer elements (cufftComplex is float2); host code is cut for the emulator. */
#pragma once
#include "../../../frontends/cuda/shim/include/cufft.h"
