// A project header in the style of real repositories: library headers this machine does not
// have, host helpers that use them, and the device helpers the kernels share.
#pragma once
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cublasLt.h>
#include <nccl.h>
#include <cudnn.h>
#include <cub/cub.cuh>
#include <thrust/device_vector.h>
#include <torch/extension.h>
#include <mma.h>
#include <omp.h>

typedef float real_t;

static cublasHandle_t g_handle;  // a global of a type only the missing header declares

inline void check_blas(cublasStatus_t s) {
    if (s != CUBLAS_STATUS_SUCCESS) { printf("cublas failed\n"); exit(1); }
}

__device__ inline real_t warp_sum(real_t v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__device__ inline real_t unused_broken_helper(real_t v) {
    return v * not_declared_anywhere;  // never called by a kernel: must cost nothing
}
