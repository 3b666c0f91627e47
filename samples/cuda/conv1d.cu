// 1D "same" convolution (cross-correlation, as in deep-learning frameworks) with zero padding:
//   out[i] = sum_{j<k} filter[j] * in[i + j - k/2],  k odd, k <= MAX_K.
// The filter and the block's input tile (halo included) are staged in shared memory.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CONV_THREADS 128
#define MAX_K 15

__global__ void conv1d_same(const float* __restrict__ in, const float* __restrict__ filter,
                            float* __restrict__ out, int n, int k)
{
    __shared__ float s_filter[MAX_K];
    __shared__ float s_tile[CONV_THREADS + MAX_K - 1];

    int tid = threadIdx.x;
    int radius = k / 2;
    int block_start = blockIdx.x * blockDim.x;
    int tile_len = blockDim.x + k - 1;

    for (int j = tid; j < k; j += blockDim.x) {
        s_filter[j] = filter[j];
    }
    for (int t = tid; t < tile_len; t += blockDim.x) {
        int g = block_start - radius + t;
        s_tile[t] = (g >= 0 && g < n) ? in[g] : 0.0f;
    }
    __syncthreads();

    int i = block_start + tid;
    if (i >= n) {
        return;
    }
    float acc = 0.0f;
    for (int j = 0; j < k; j++) {
        acc += s_filter[j] * s_tile[tid + j];
    }
    out[i] = acc;
}

void launch_conv1d(const float* h_in, const float* h_filter, float* h_out, int n, int k)
{
    if (k > MAX_K || k % 2 == 0) {
        fprintf(stderr, "filter length must be odd and at most %d\n", MAX_K);
        return;
    }
    float *d_in, *d_filter, *d_out;
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMalloc(&d_filter, k * sizeof(float));
    cudaMalloc(&d_out, n * sizeof(float));
    cudaMemcpy(d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_filter, h_filter, k * sizeof(float), cudaMemcpyHostToDevice);

    int threads = CONV_THREADS;
    int blocks = (n + threads - 1) / threads;
    conv1d_same<<<blocks, threads>>>(d_in, d_filter, d_out, n, k);
    cudaDeviceSynchronize();

    cudaMemcpy(h_out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d_in);
    cudaFree(d_filter);
    cudaFree(d_out);
}
