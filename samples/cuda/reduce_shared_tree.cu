// Block-level sum reduction with a shared-memory tree.
// Each block reduces BLOCK_SIZE consecutive elements and writes one partial sum to
// out[blockIdx.x]; the host adds up the per-block partials.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define BLOCK_SIZE 256

__global__ void reduce_sum(const float* __restrict__ in, float* __restrict__ out, int n)
{
    __shared__ float sdata[BLOCK_SIZE];

    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;

    sdata[tid] = (i < n) ? in[i] : 0.0f;
    __syncthreads();

    // tree reduction in shared memory: halve the number of active threads every step
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }

    if (tid == 0) {
        out[blockIdx.x] = sdata[0];
    }
}

float launch_reduce_sum(const float* h_in, int n)
{
    int threads = BLOCK_SIZE;
    int blocks = (n + threads - 1) / threads;

    float *d_in, *d_out;
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMalloc(&d_out, blocks * sizeof(float));
    cudaMemcpy(d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice);

    reduce_sum<<<blocks, threads>>>(d_in, d_out, n);
    cudaDeviceSynchronize();

    float* h_partial = (float*)malloc(blocks * sizeof(float));
    cudaMemcpy(h_partial, d_out, blocks * sizeof(float), cudaMemcpyDeviceToHost);
    float total = 0.0f;
    for (int b = 0; b < blocks; b++) {
        total += h_partial[b];
    }

    free(h_partial);
    cudaFree(d_in);
    cudaFree(d_out);
    return total;
}

int main(void)
{
    int n = 1 << 20;
    float* x = (float*)malloc(n * sizeof(float));
    for (int i = 0; i < n; i++) {
        x[i] = 1.0f;
    }
    float s = launch_reduce_sum(x, n);
    printf("sum = %f (expected %d)\n", s, n);
    free(x);
    return 0;
}
