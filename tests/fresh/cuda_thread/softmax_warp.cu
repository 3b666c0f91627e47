// Row-wise softmax, one warp per row, using the "online softmax" trick:
// each lane keeps a running (max, sum-of-exp) pair over its strided columns,
// then the pairs are merged across the warp with butterfly shuffles.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <cfloat>

#define CUDA_CHECK(call)                                                        \
    do {                                                                        \
        cudaError_t err = call;                                                 \
        if (err != cudaSuccess) {                                               \
            fprintf(stderr, "CUDA error at %s:%d code=%d (%s)\n", __FILE__,     \
                    __LINE__, (int)err, cudaGetErrorString(err));               \
            exit(EXIT_FAILURE);                                                 \
        }                                                                       \
    } while (0)

constexpr int WARP_SIZE = 32;
constexpr int WARPS_PER_BLOCK = 4;

__global__ void softmax_online_warp(const float* __restrict__ input,
                                    float* __restrict__ output,
                                    int rows, int cols)
{
    const int lane = threadIdx.x % WARP_SIZE;
    const int warp_in_block = threadIdx.x / WARP_SIZE;
    const int row = blockIdx.x * WARPS_PER_BLOCK + warp_in_block;
    if (row >= rows) return;

    const float* x = input + (size_t)row * cols;
    float* y = output + (size_t)row * cols;

    float m = -FLT_MAX;
    float d = 0.0f;
    for (int c = lane; c < cols; c += WARP_SIZE) {
        float v = x[c];
        float m_new = fmaxf(m, v);
        d = d * __expf(m - m_new) + __expf(v - m_new);
        m = m_new;
    }

#pragma unroll
    for (int offset = WARP_SIZE / 2; offset > 0; offset >>= 1) {
        float m_other = __shfl_xor_sync(0xffffffff, m, offset);
        float d_other = __shfl_xor_sync(0xffffffff, d, offset);
        float m_new = fmaxf(m, m_other);
        d = d * __expf(m - m_new) + d_other * __expf(m_other - m_new);
        m = m_new;
    }

    const float inv_d = 1.0f / d;
    for (int c = lane; c < cols; c += WARP_SIZE)
        y[c] = __expf(x[c] - m) * inv_d;
}

int main(int argc, char** argv)
{
    int rows = 1000, cols = 777;
    if (argc > 2) { rows = atoi(argv[1]); cols = atoi(argv[2]); }
    size_t count = (size_t)rows * cols;

    std::vector<float> h_in(count), h_out(count);
    srand(42);
    for (size_t i = 0; i < count; ++i) h_in[i] = (rand() / (float)RAND_MAX) * 10.0f - 5.0f;

    float *d_in, *d_out;
    CUDA_CHECK(cudaMalloc(&d_in, count * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_out, count * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_in, h_in.data(), count * sizeof(float), cudaMemcpyHostToDevice));

    dim3 block(WARP_SIZE * WARPS_PER_BLOCK);
    dim3 grid((rows + WARPS_PER_BLOCK - 1) / WARPS_PER_BLOCK);
    softmax_online_warp<<<grid, block>>>(d_in, d_out, rows, cols);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(h_out.data(), d_out, count * sizeof(float), cudaMemcpyDeviceToHost));

    double row0 = 0.0;
    for (int c = 0; c < cols; ++c) row0 += h_out[c];
    printf("sum(row 0) = %f (expect 1)\n", row0);

    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    return 0;
}
