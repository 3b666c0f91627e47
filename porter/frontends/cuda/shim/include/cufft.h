/* tileport stand-in for <cufft.h>: cuFFT's data types, which kernels take as buffer elements
 * (cufftComplex is float2), and its enums; the host API is never needed (host code is not
 * ported, and the CPU emulator cuts host bodies). The emulator includes this file too
 * (porter/verify/cuda_emu/include/cufft.h). */
#pragma once
typedef float cufftReal;
typedef double cufftDoubleReal;
typedef float2 cufftComplex;
typedef double2 cufftDoubleComplex;
typedef int cufftHandle;
enum cufftResult_t { CUFFT_SUCCESS = 0, CUFFT_INVALID_PLAN = 1, CUFFT_ALLOC_FAILED = 2, CUFFT_INVALID_VALUE = 4,
                     CUFFT_INTERNAL_ERROR = 5, CUFFT_EXEC_FAILED = 6, CUFFT_SETUP_FAILED = 7 };
typedef enum cufftResult_t cufftResult;
enum cufftType_t { CUFFT_R2C = 0x2a, CUFFT_C2R = 0x2c, CUFFT_C2C = 0x29, CUFFT_D2Z = 0x6a, CUFFT_Z2D = 0x6c,
                   CUFFT_Z2Z = 0x69 };
typedef enum cufftType_t cufftType;
#define CUFFT_FORWARD -1
#define CUFFT_INVERSE 1
