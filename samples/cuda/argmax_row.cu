// Row-wise argmax of a [rows, cols] matrix: one block per row; each thread scans a strided
// slice, then (value, index) pairs are reduced together through two shared arrays.
// Ties go to the smallest index (like numpy / torch).
#include <cuda_runtime.h>
#include <float.h>
#include <stdio.h>
#include <stdlib.h>

#define ARGMAX_THREADS 256

__global__ void argmax_row(const float* __restrict__ x, int* __restrict__ out_idx,
                           float* __restrict__ out_val, int rows, int cols)
{
    __shared__ float s_val[ARGMAX_THREADS];
    __shared__ int s_idx[ARGMAX_THREADS];

    int row = blockIdx.x;
    if (row >= rows) {
        return;
    }
    int tid = threadIdx.x;
    const float* xr = x + (size_t)row * cols;

    float best = -FLT_MAX;
    int best_i = cols;  // sentinel larger than any valid index
    for (int c = tid; c < cols; c += blockDim.x) {
        float v = xr[c];
        if (v > best) {  // strided scan visits indices in increasing order: keep the first max
            best = v;
            best_i = c;
        }
    }
    s_val[tid] = best;
    s_idx[tid] = best_i;
    __syncthreads();

    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            float ov = s_val[tid + s];
            int oi = s_idx[tid + s];
            if (ov > s_val[tid] || (ov == s_val[tid] && oi < s_idx[tid])) {
                s_val[tid] = ov;
                s_idx[tid] = oi;
            }
        }
        __syncthreads();
    }

    if (tid == 0) {
        out_idx[row] = s_idx[0];
        out_val[row] = s_val[0];
    }
}

void launch_argmax_row(const float* h_x, int* h_idx, float* h_val, int rows, int cols)
{
    size_t bytes = (size_t)rows * cols * sizeof(float);
    float *d_x, *d_val;
    int* d_idx;
    cudaMalloc(&d_x, bytes);
    cudaMalloc(&d_idx, rows * sizeof(int));
    cudaMalloc(&d_val, rows * sizeof(float));
    cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice);

    int threads = ARGMAX_THREADS;
    int blocks = rows;
    argmax_row<<<blocks, threads>>>(d_x, d_idx, d_val, rows, cols);
    cudaDeviceSynchronize();

    cudaMemcpy(h_idx, d_idx, rows * sizeof(int), cudaMemcpyDeviceToHost);
    cudaMemcpy(h_val, d_val, rows * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d_x);
    cudaFree(d_idx);
    cudaFree(d_val);
}

int main(void)
{
    int rows = 64;
    int cols = 32000;
    float* x = (float*)malloc((size_t)rows * cols * sizeof(float));
    int* idx = (int*)malloc(rows * sizeof(int));
    float* val = (float*)malloc(rows * sizeof(float));
    for (int i = 0; i < rows * cols; i++) {
        x[i] = (float)((i * 7919) % 10007);
    }
    launch_argmax_row(x, idx, val, rows, cols);
    printf("argmax[0] = %d (%f)\n", idx[0], val[0]);
    free(x);
    free(idx);
    free(val);
    return 0;
}
