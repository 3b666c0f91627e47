// dot_product_atomic.cu -- dot(a, b) with a shared-memory tree reduction per
// block and a single atomicAdd per block into the global result.
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(stmt)                                                       \
    do {                                                                       \
        cudaError_t _e = (stmt);                                               \
        if (_e != cudaSuccess) {                                               \
            std::fprintf(stderr, "[%s:%d] %s -> %s\n", __FILE__, __LINE__,     \
                         #stmt, cudaGetErrorString(_e));                       \
            std::abort();                                                      \
        }                                                                      \
    } while (0)

#define THREADS 256

__global__ void __launch_bounds__(256)
dot_kernel(const float* __restrict__ a, const float* __restrict__ b,
           float* __restrict__ result, int n)
{
    __shared__ float cache[THREADS];

    const int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + threadIdx.x;

    float temp = 0.0f;
    while (i < n) {
        temp += a[i] * b[i];
        i += blockDim.x * gridDim.x;
    }
    cache[tid] = temp;
    __syncthreads();

    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (tid < stride)
            cache[tid] += cache[tid + stride];
        __syncthreads();
    }

    if (tid == 0)
        atomicAdd(result, cache[0]);
}

int main()
{
    const int N = 100000;
    const int blocksPerGrid = std::min(64, (N + THREADS - 1) / THREADS);

    std::vector<float> a(N), b(N);
    for (int i = 0; i < N; ++i) {
        a[i] = static_cast<float>(i % 10) * 0.1f;
        b[i] = 2.0f - static_cast<float>(i % 3);
    }

    float *dev_a, *dev_b, *dev_c;
    CUDA_CHECK(cudaMalloc(&dev_a, N * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&dev_b, N * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&dev_c, sizeof(float)));
    CUDA_CHECK(cudaMemcpy(dev_a, a.data(), N * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dev_b, b.data(), N * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(dev_c, 0, sizeof(float)));

    dot_kernel<<<blocksPerGrid, THREADS>>>(dev_a, dev_b, dev_c, N);
    CUDA_CHECK(cudaGetLastError());

    float c = 0.0f;
    CUDA_CHECK(cudaMemcpy(&c, dev_c, sizeof(float), cudaMemcpyDeviceToHost));

    double ref = 0.0;
    for (int i = 0; i < N; ++i) ref += (double)a[i] * b[i];
    std::printf("GPU dot = %.6f, CPU dot = %.6f\n", c, ref);

    cudaFree(dev_a);
    cudaFree(dev_b);
    cudaFree(dev_c);
    return 0;
}
