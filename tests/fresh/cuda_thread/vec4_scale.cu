/*
 * vec4_scale.cu
 * y = a * x + b, loading/storing four floats at a time through float4.
 * The last n % 4 elements are handled by a scalar tail in the same kernel.
 */
#include <cuda_runtime.h>
#include <iostream>
#include <vector>
#include <cmath>

#define CHECK_CUDA(expr)                                                     \
    {                                                                        \
        cudaError_t status = (expr);                                         \
        if (status != cudaSuccess) {                                         \
            std::cerr << "CUDA failure " << cudaGetErrorString(status)       \
                      << " (" << #expr << ")" << std::endl;                  \
            std::exit(1);                                                    \
        }                                                                    \
    }

__global__ void scale_shift_vec4(const float* __restrict__ x,
                                 float* __restrict__ y,
                                 float a, float b, int n)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int n4 = n / 4;

    if (idx < n4) {
        float4 v = reinterpret_cast<const float4*>(x)[idx];
        float4 r = make_float4(a * v.x + b, a * v.y + b, a * v.z + b, a * v.w + b);
        reinterpret_cast<float4*>(y)[idx] = r;
    }

    // scalar tail: the first (n % 4) threads of the grid finish the leftovers
    int tail = n4 * 4 + idx;
    if (idx < n % 4 && tail < n) {
        y[tail] = a * x[tail] + b;
    }
}

int main()
{
    const int n = 1000003;
    const float a = 1.5f, b = -0.75f;
    std::vector<float> hx(n), hy(n, 0.f);
    for (int i = 0; i < n; i++) hx[i] = std::sin(0.001f * i);

    float *dx, *dy;
    CHECK_CUDA(cudaMalloc((void**)&dx, n * sizeof(float)));
    CHECK_CUDA(cudaMalloc((void**)&dy, n * sizeof(float)));
    CHECK_CUDA(cudaMemcpy(dx, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice));

    int threads = 256;
    int vec_n = (n + 3) / 4;
    int blocks = (vec_n + threads - 1) / threads;
    scale_shift_vec4<<<blocks, threads>>>(dx, dy, a, b, n);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaMemcpy(hy.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));

    int bad = 0;
    for (int i = 0; i < n; i++)
        if (std::fabs(hy[i] - (a * hx[i] + b)) > 1e-5f) bad++;
    std::cout << (bad ? "FAILED" : "PASSED") << " (" << bad << " mismatches)" << std::endl;

    cudaFree(dx);
    cudaFree(dy);
    return bad != 0;
}
