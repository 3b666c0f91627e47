/* tileport stand-in for <cufftXt.h>: cuFFT's types (cufft.h); the multi-GPU host API is never needed */
#pragma once
#include "cufft.h"
