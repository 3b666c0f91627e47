// sqrt_abs_double.cu: double-precision signed square root,
//   out[i] = copysign(sqrt(|in[i]|), in[i]) * scale
// processed with a grid-stride loop over size_t indices.
#include <cuda_runtime.h>
#include <math.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(expr)                                                   \
    {                                                                      \
        cudaError_t status = (expr);                                       \
        if (status != cudaSuccess) {                                       \
            std::fprintf(stderr, "CUDA: %s (%s)\n", cudaGetErrorString(status), #expr); \
            std::abort();                                                  \
        }                                                                  \
    }

constexpr int THREADS = 256;
constexpr int MAX_BLOCKS = 1024;

__device__ __forceinline__ double signed_sqrt(double v)
{
    double m = sqrt(fabs(v));
    return v < 0.0 ? -m : m;
}

__global__ void signedSqrtKernel(const double* __restrict__ in, double* __restrict__ out,
                                 size_t n, double scale)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)blockDim.x * gridDim.x) {
        out[i] = signed_sqrt(in[i]) * scale;
    }
}

void signed_sqrt_gpu(const double* host_in, double* host_out, size_t n, double scale)
{
    double *d_in = nullptr, *d_out = nullptr;
    CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(double)));
    CUDA_CHECK(cudaMalloc(&d_out, n * sizeof(double)));
    CUDA_CHECK(cudaMemcpy(d_in, host_in, n * sizeof(double), cudaMemcpyHostToDevice));

    size_t wanted = (n + THREADS - 1) / THREADS;
    int blocks = wanted < (size_t)MAX_BLOCKS ? (int)wanted : MAX_BLOCKS;
    if (blocks < 1) blocks = 1;
    signedSqrtKernel<<<blocks, THREADS>>>(d_in, d_out, n, scale);
    CUDA_CHECK(cudaGetLastError());

    CUDA_CHECK(cudaMemcpy(host_out, d_out, n * sizeof(double), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
}

int main()
{
    const size_t n = 3000001;
    const double scale = 0.5;
    double* in = static_cast<double*>(std::malloc(n * sizeof(double)));
    double* out = static_cast<double*>(std::malloc(n * sizeof(double)));
    for (size_t i = 0; i < n; ++i) in[i] = (i % 2 ? -1.0 : 1.0) * (double)(i % 1000);

    signed_sqrt_gpu(in, out, n, scale);
    std::printf("out[3] = %.12f (expect %.12f)\n", out[3], -std::sqrt(3.0) * scale);

    std::free(in);
    std::free(out);
    return 0;
}
