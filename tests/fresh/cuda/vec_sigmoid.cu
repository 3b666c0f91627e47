/*
 * vec_sigmoid.cu
 *
 * Logistic sigmoid over a flat buffer.  Build: nvcc -O3 vec_sigmoid.cu -o vec_sigmoid
 */
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#include <math.h>

#define CUDA_CHECK(call)                                                      \
    do {                                                                      \
        cudaError_t err__ = (call);                                           \
        if (err__ != cudaSuccess) {                                           \
            fprintf(stderr, "CUDA error %s at %s:%d\n",                       \
                    cudaGetErrorString(err__), __FILE__, __LINE__);           \
            exit(EXIT_FAILURE);                                               \
        }                                                                     \
    } while (0)

#define BLOCK 512

__global__ void sigmoid_kernel(const float* __restrict__ in, float* __restrict__ out, size_t count)
{
    const size_t idx = threadIdx.x + (size_t)blockIdx.x * blockDim.x;
    if (idx >= count) return;
    out[idx] = 1.0f / (1.0f + expf(-in[idx]));
}

int main(int argc, char** argv)
{
    size_t count = (argc > 1) ? (size_t)atol(argv[1]) : (size_t)1000003;
    std::vector<float> host_in(count), host_out(count);
    for (size_t k = 0; k < count; ++k)
        host_in[k] = -8.0f + 16.0f * (float)(k % 1024) / 1023.0f;

    float* dev_in = nullptr;
    float* dev_out = nullptr;
    CUDA_CHECK(cudaMalloc((void**)&dev_in, count * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void**)&dev_out, count * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(dev_in, host_in.data(), count * sizeof(float), cudaMemcpyHostToDevice));

    const unsigned int nblocks = (unsigned int)((count + BLOCK - 1) / BLOCK);
    sigmoid_kernel<<<nblocks, BLOCK>>>(dev_in, dev_out, count);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());

    CUDA_CHECK(cudaMemcpy(host_out.data(), dev_out, count * sizeof(float), cudaMemcpyDeviceToHost));
    printf("sigmoid(%.3f) = %.6f\n", host_in[0], host_out[0]);

    CUDA_CHECK(cudaFree(dev_in));
    CUDA_CHECK(cudaFree(dev_out));
    return 0;
}
