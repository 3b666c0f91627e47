// Half-precision GEMV y = A x with A [M, K] row-major, fp16 in and out, fp32 accumulation.
// One warp per output row: lanes stride over K, then a __shfl_down_sync tree reduction;
// lane 0 converts the sum back to half.
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <stdio.h>
#include <stdlib.h>

#define WARP_SIZE 32
#define WARPS_PER_BLOCK 4

__global__ void gemv_half(const __half* __restrict__ A, const __half* __restrict__ x,
                          __half* __restrict__ y, int M, int K)
{
    int lane = threadIdx.x % WARP_SIZE;
    int warp = threadIdx.x / WARP_SIZE;
    int row = blockIdx.x * WARPS_PER_BLOCK + warp;
    if (row >= M) {
        return;
    }
    const __half* a = A + (size_t)row * K;

    float sum = 0.0f;
    for (int k = lane; k < K; k += WARP_SIZE) {
        sum += __half2float(a[k]) * __half2float(x[k]);
    }
#pragma unroll
    for (int offset = WARP_SIZE / 2; offset > 0; offset >>= 1) {
        sum += __shfl_down_sync(0xffffffffu, sum, offset);
    }
    if (lane == 0) {
        y[row] = __float2half(sum);
    }
}

void launch_gemv_half(const __half* h_A, const __half* h_x, __half* h_y, int M, int K)
{
    __half *d_A, *d_x, *d_y;
    cudaMalloc(&d_A, (size_t)M * K * sizeof(__half));
    cudaMalloc(&d_x, K * sizeof(__half));
    cudaMalloc(&d_y, M * sizeof(__half));
    cudaMemcpy(d_A, h_A, (size_t)M * K * sizeof(__half), cudaMemcpyHostToDevice);
    cudaMemcpy(d_x, h_x, K * sizeof(__half), cudaMemcpyHostToDevice);

    int threads = WARPS_PER_BLOCK * WARP_SIZE;
    int blocks = (M + WARPS_PER_BLOCK - 1) / WARPS_PER_BLOCK;
    gemv_half<<<blocks, threads>>>(d_A, d_x, d_y, M, K);
    cudaDeviceSynchronize();

    cudaMemcpy(h_y, d_y, M * sizeof(__half), cudaMemcpyDeviceToHost);
    cudaFree(d_A);
    cudaFree(d_x);
    cudaFree(d_y);
}

int main(void)
{
    int M = 4096;
    int K = 4096;
    __half* A = (__half*)malloc((size_t)M * K * sizeof(__half));
    __half* x = (__half*)malloc(K * sizeof(__half));
    __half* y = (__half*)malloc(M * sizeof(__half));
    for (size_t i = 0; i < (size_t)M * K; i++) {
        A[i] = __float2half(0.01f);
    }
    for (int k = 0; k < K; k++) {
        x[k] = __float2half(1.0f);
    }
    launch_gemv_half(A, x, y, M, K);
    printf("y[0] = %f\n", __half2float(y[0]));
    free(A);
    free(x);
    free(y);
    return 0;
}
