// clamp_kernel.cu -- clamp a tensor into [lo, hi] and compute |x| scaled,
// written as a small library entry point rather than a standalone program.
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>

#define CUDA_CHECK(x)                                                          \
    do {                                                                       \
        cudaError_t e = (x);                                                   \
        if (e != cudaSuccess) {                                                \
            printf("%s failed: %s\n", #x, cudaGetErrorString(e));              \
            return e;                                                          \
        }                                                                      \
    } while (0)

static const int kThreadsPerBlock = 128;

__global__ void clamp_values(float* __restrict__ data, unsigned int len, float lo, float hi)
{
    const unsigned int idx = threadIdx.x + blockIdx.x * blockDim.x;
    if (idx >= len) return;
    data[idx] = fminf(fmaxf(data[idx], lo), hi);
}

__global__ void abs_scale(const float* __restrict__ src, float* __restrict__ dst,
                          unsigned int len, float gain)
{
    const unsigned int idx = threadIdx.x + blockIdx.x * blockDim.x;
    if (idx < len)
        dst[idx] = gain * fabsf(src[idx]);
}

// Host entry point: copies `values` in, clamps in place on device, writes
// gain*|clamped| into `magnitudes`.
extern "C" cudaError_t clamp_and_magnitude(float* values, float* magnitudes, unsigned int len,
                                           float lo, float hi, float gain)
{
    float* d_values;
    float* d_mag;
    const size_t nbytes = (size_t)len * sizeof(float);
    CUDA_CHECK(cudaMalloc(&d_values, nbytes));
    CUDA_CHECK(cudaMalloc(&d_mag, nbytes));
    CUDA_CHECK(cudaMemcpy(d_values, values, nbytes, cudaMemcpyHostToDevice));

    dim3 threads(kThreadsPerBlock);
    dim3 blocks((len + kThreadsPerBlock - 1) / kThreadsPerBlock);
    clamp_values<<<blocks, threads>>>(d_values, len, lo, hi);
    abs_scale<<<blocks, threads>>>(d_values, d_mag, len, gain);
    CUDA_CHECK(cudaGetLastError());

    CUDA_CHECK(cudaMemcpy(values, d_values, nbytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(magnitudes, d_mag, nbytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_values));
    CUDA_CHECK(cudaFree(d_mag));
    return cudaSuccess;
}
