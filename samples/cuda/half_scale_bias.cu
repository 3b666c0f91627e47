// Half-precision elementwise kernels: scale + bias computed in float,
// and a fused multiply-add done directly with half intrinsics.
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

__global__ void half_scale_bias(int n, float scale, const __half* x, const __half* b, __half* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = __float2half(__half2float(x[i]) * scale + __half2float(b[i]));
    }
}

__global__ void half_mul_add(int n, const __half* x, const __half* w, const __half* b, __half* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = __hadd(__hmul(x[i], w[i]), b[i]);
    }
}

void scale_bias_half(int n, float scale, const __half* h_x, const __half* h_w,
                     const __half* h_b, __half* h_out, __half* h_out2)
{
    size_t bytes = n * sizeof(__half);
    __half *d_x, *d_w, *d_b, *d_out, *d_out2;
    cudaMalloc(&d_x, bytes);
    cudaMalloc(&d_w, bytes);
    cudaMalloc(&d_b, bytes);
    cudaMalloc(&d_out, bytes);
    cudaMalloc(&d_out2, bytes);
    cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_w, h_w, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_b, h_b, bytes, cudaMemcpyHostToDevice);

    int threads = 256;
    int blocks = (n + threads - 1) / threads;
    half_scale_bias<<<blocks, threads>>>(n, scale, d_x, d_b, d_out);
    half_mul_add<<<blocks, threads>>>(n, d_x, d_w, d_b, d_out2);
    cudaDeviceSynchronize();

    cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost);
    cudaMemcpy(h_out2, d_out2, bytes, cudaMemcpyDeviceToHost);

    cudaFree(d_x);
    cudaFree(d_w);
    cudaFree(d_b);
    cudaFree(d_out);
    cudaFree(d_out2);
}

int main(void)
{
    int n = 4096;
    float scale = 0.5f;
    __half* x = (__half*)malloc(n * sizeof(__half));
    __half* w = (__half*)malloc(n * sizeof(__half));
    __half* b = (__half*)malloc(n * sizeof(__half));
    __half* out = (__half*)malloc(n * sizeof(__half));
    __half* out2 = (__half*)malloc(n * sizeof(__half));
    for (int i = 0; i < n; i++) {
        x[i] = __float2half((float)(i % 17) * 0.25f);
        w[i] = __float2half(1.5f);
        b[i] = __float2half(-1.0f);
    }

    scale_bias_half(n, scale, x, w, b, out, out2);
    printf("out[5] = %f, out2[5] = %f\n", __half2float(out[5]), __half2float(out2[5]));

    free(x);
    free(w);
    free(b);
    free(out);
    free(out2);
    return 0;
}
