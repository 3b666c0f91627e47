// Fused bias-add + GELU (tanh approximation) on fp16 activations.
// x is [rows, hidden], bias is [hidden]; the math is done in fp32.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#define SQRT_2_OVER_PI 0.7978845608028654f
#define GELU_COEF 0.044715f
#define THREADS_PER_BLOCK 256

#define cudaCheck(ans) { gpuAssert((ans), __FILE__, __LINE__); }
inline void gpuAssert(cudaError_t code, const char* file, int line)
{
    if (code != cudaSuccess) {
        fprintf(stderr, "GPUassert: %s %s %d\n", cudaGetErrorString(code), file, line);
        exit(code);
    }
}

__device__ __forceinline__ float gelu_tanh(float x)
{
    float inner = SQRT_2_OVER_PI * (x + GELU_COEF * x * x * x);
    return 0.5f * x * (1.0f + tanhf(inner));
}

__global__ void bias_gelu_fp16(__half* out, const __half* x, const __half* bias,
                               size_t total, int hidden)
{
    for (size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x; idx < total;
         idx += (size_t)blockDim.x * gridDim.x) {
        int col = (int)(idx % hidden);
        __half h = __hadd(x[idx], bias[col]);
        out[idx] = __float2half(gelu_tanh(__half2float(h)));
    }
}

int main()
{
    const int rows = 37;
    const int hidden = 1030;
    size_t total = (size_t)rows * hidden;

    __half* h_x = (__half*)malloc(total * sizeof(__half));
    __half* h_b = (__half*)malloc(hidden * sizeof(__half));
    __half* h_o = (__half*)malloc(total * sizeof(__half));
    for (size_t i = 0; i < total; i++) h_x[i] = __float2half(((int)(i % 41) - 20) * 0.1f);
    for (int j = 0; j < hidden; j++) h_b[j] = __float2half(0.01f * (j % 13));

    __half *d_x, *d_b, *d_o;
    cudaCheck(cudaMalloc(&d_x, total * sizeof(__half)));
    cudaCheck(cudaMalloc(&d_b, hidden * sizeof(__half)));
    cudaCheck(cudaMalloc(&d_o, total * sizeof(__half)));
    cudaCheck(cudaMemcpy(d_x, h_x, total * sizeof(__half), cudaMemcpyHostToDevice));
    cudaCheck(cudaMemcpy(d_b, h_b, hidden * sizeof(__half), cudaMemcpyHostToDevice));

    int blocks = (int)((total + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK);
    if (blocks > 4096) blocks = 4096;
    bias_gelu_fp16<<<blocks, THREADS_PER_BLOCK>>>(d_o, d_x, d_b, total, hidden);
    cudaCheck(cudaPeekAtLastError());
    cudaCheck(cudaMemcpy(h_o, d_o, total * sizeof(__half), cudaMemcpyDeviceToHost));

    printf("out[0] = %f\n", __half2float(h_o[0]));
    cudaFree(d_x); cudaFree(d_b); cudaFree(d_o);
    free(h_x); free(h_b); free(h_o);
    return 0;
}
