// GELU (tanh approximation) and SiLU activations.
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define SQRT_2_OVER_PI 0.7978845608028654f

__device__ float sigmoidf_(float x)
{
    return 1.0f / (1.0f + expf(-x));
}

__global__ void gelu_tanh(int n, const float* x, float* y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        float inner = SQRT_2_OVER_PI * (v + 0.044715f * v * v * v);
        y[i] = 0.5f * v * (1.0f + tanhf(inner));
    }
}

__global__ void silu(int n, const float* x, float* y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = v * sigmoidf_(v);
    }
}

void apply_activations(int n, const float* h_x, float* h_gelu, float* h_silu)
{
    size_t bytes = n * sizeof(float);
    float *d_x, *d_gelu, *d_silu;
    cudaMalloc(&d_x, bytes);
    cudaMalloc(&d_gelu, bytes);
    cudaMalloc(&d_silu, bytes);
    cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice);

    int threads = 256;
    int blocks = (n + threads - 1) / threads;
    gelu_tanh<<<blocks, threads>>>(n, d_x, d_gelu);
    silu<<<blocks, threads>>>(n, d_x, d_silu);
    cudaDeviceSynchronize();

    cudaMemcpy(h_gelu, d_gelu, bytes, cudaMemcpyDeviceToHost);
    cudaMemcpy(h_silu, d_silu, bytes, cudaMemcpyDeviceToHost);
    cudaFree(d_x);
    cudaFree(d_gelu);
    cudaFree(d_silu);
}

int main(void)
{
    int n = 10000;
    float* x = (float*)malloc(n * sizeof(float));
    float* g = (float*)malloc(n * sizeof(float));
    float* s = (float*)malloc(n * sizeof(float));
    for (int i = 0; i < n; i++) x[i] = -5.0f + 10.0f * (float)i / (float)n;

    apply_activations(n, x, g, s);
    printf("gelu(%f) = %f, silu(%f) = %f\n", x[n / 2], g[n / 2], x[n / 2], s[n / 2]);

    free(x);
    free(g);
    free(s);
    return 0;
}
