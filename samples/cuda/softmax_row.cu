// Row-wise softmax: one block per row, block-wide max and sum through shared memory.
#include <cuda_runtime.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define SOFTMAX_THREADS 256

__global__ void softmax_row(const float* __restrict__ in, float* __restrict__ out, int rows, int cols)
{
    __shared__ float red[SOFTMAX_THREADS];

    int row = blockIdx.x;
    if (row >= rows) {
        return;
    }
    int tid = threadIdx.x;
    const float* x = in + (size_t)row * cols;
    float* y = out + (size_t)row * cols;

    // 1. row max
    float local_max = -FLT_MAX;
    for (int c = tid; c < cols; c += blockDim.x) {
        local_max = fmaxf(local_max, x[c]);
    }
    red[tid] = local_max;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] = fmaxf(red[tid], red[tid + s]);
        }
        __syncthreads();
    }
    float row_max = red[0];
    __syncthreads();

    // 2. sum of exponentials
    float local_sum = 0.0f;
    for (int c = tid; c < cols; c += blockDim.x) {
        local_sum += expf(x[c] - row_max);
    }
    red[tid] = local_sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] += red[tid + s];
        }
        __syncthreads();
    }
    float inv_sum = 1.0f / red[0];

    // 3. normalize
    for (int c = tid; c < cols; c += blockDim.x) {
        y[c] = expf(x[c] - row_max) * inv_sum;
    }
}

void launch_softmax_row(const float* h_in, float* h_out, int rows, int cols)
{
    size_t bytes = (size_t)rows * cols * sizeof(float);
    float *d_in, *d_out;
    cudaMalloc(&d_in, bytes);
    cudaMalloc(&d_out, bytes);
    cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice);

    int threads = SOFTMAX_THREADS;
    int blocks = rows;
    softmax_row<<<blocks, threads>>>(d_in, d_out, rows, cols);
    cudaDeviceSynchronize();

    cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost);
    cudaFree(d_in);
    cudaFree(d_out);
}

int main(void)
{
    int rows = 128;
    int cols = 1000;
    float* x = (float*)malloc((size_t)rows * cols * sizeof(float));
    float* y = (float*)malloc((size_t)rows * cols * sizeof(float));
    for (int i = 0; i < rows * cols; i++) {
        x[i] = (float)(i % 13) * 0.1f;
    }
    launch_softmax_row(x, y, rows, cols);
    printf("y[0] = %f\n", y[0]);
    free(x);
    free(y);
    return 0;
}
