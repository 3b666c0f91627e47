/* tileport CPU emulation stand-in for <cufftXt.h>: cuFFT's types (cufft.h) */
#pragma once
#include "cufft.h"
