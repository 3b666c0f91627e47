/* tileport CPU emulation stand-in for <curand_kernel.h>: the parse shim's declarations of cuRAND's
 * device API, each function stopping the launch, which the emulator needs only to build files
 * holding cuRAND kernels; the front end reports those kernels (TP156) and they are never run. */
#pragma once
#include "../../../frontends/cuda/shim/include/curand_kernel.h"
