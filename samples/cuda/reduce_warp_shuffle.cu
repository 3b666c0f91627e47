// Full-array sum with warp shuffles: each warp reduces with __shfl_down_sync, warp sums go
// through a small shared array, the first warp reduces those, and one thread per block
// atomically adds the block's total into a single float.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS_PER_BLOCK 256
#define WARP_SIZE 32
#define FULL_MASK 0xffffffffu

__device__ float warp_reduce_sum(float val)
{
#pragma unroll
    for (int offset = WARP_SIZE / 2; offset > 0; offset >>= 1) {
        val += __shfl_down_sync(FULL_MASK, val, offset);
    }
    return val;
}

__global__ void reduce_warp_atomic(const float* __restrict__ in, float* __restrict__ out, int n)
{
    __shared__ float warp_sums[THREADS_PER_BLOCK / WARP_SIZE];

    int tid = threadIdx.x;
    int lane = tid % WARP_SIZE;
    int warp = tid / WARP_SIZE;
    int num_warps = blockDim.x / WARP_SIZE;

    // grid-stride accumulation
    float sum = 0.0f;
    for (int i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x) {
        sum += in[i];
    }

    sum = warp_reduce_sum(sum);
    if (lane == 0) {
        warp_sums[warp] = sum;
    }
    __syncthreads();

    if (warp == 0) {
        float v = (lane < num_warps) ? warp_sums[lane] : 0.0f;
        v = warp_reduce_sum(v);
        if (lane == 0) {
            atomicAdd(out, v);
        }
    }
}

float launch_reduce_warp_atomic(const float* h_in, int n)
{
    int threads = THREADS_PER_BLOCK;
    int blocks = (n + threads - 1) / threads;

    float *d_in, *d_out;
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMalloc(&d_out, sizeof(float));
    cudaMemcpy(d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(d_out, 0, sizeof(float));

    reduce_warp_atomic<<<blocks, threads>>>(d_in, d_out, n);
    cudaDeviceSynchronize();

    float total = 0.0f;
    cudaMemcpy(&total, d_out, sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d_in);
    cudaFree(d_out);
    return total;
}

int main(void)
{
    int n = 1000000;
    float* x = (float*)malloc(n * sizeof(float));
    for (int i = 0; i < n; i++) {
        x[i] = 0.5f;
    }
    printf("sum = %f\n", launch_reduce_warp_atomic(x, n));
    free(x);
    return 0;
}
