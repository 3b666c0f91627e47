// 1D stencil of radius 3: out[i] = sum_{j=-R..R} w[j+R] * in[i+j], zero outside [0, n).
// Each block stages its BLOCK_SIZE inputs plus a RADIUS-wide halo on each side in shared memory.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define RADIUS 3
#define BLOCK_SIZE 256

__global__ void stencil_1d(const float* __restrict__ in, const float* __restrict__ weights,
                           float* __restrict__ out, int n)
{
    __shared__ float temp[BLOCK_SIZE + 2 * RADIUS];

    int gindex = blockIdx.x * blockDim.x + threadIdx.x;
    int lindex = threadIdx.x + RADIUS;

    temp[lindex] = (gindex < n) ? in[gindex] : 0.0f;
    if (threadIdx.x < RADIUS) {
        int left = gindex - RADIUS;
        int right = gindex + BLOCK_SIZE;
        temp[lindex - RADIUS] = (left >= 0) ? in[left] : 0.0f;
        temp[lindex + BLOCK_SIZE] = (right < n) ? in[right] : 0.0f;
    }
    __syncthreads();

    if (gindex >= n) {
        return;
    }

    float result = 0.0f;
#pragma unroll
    for (int offset = -RADIUS; offset <= RADIUS; offset++) {
        result += weights[offset + RADIUS] * temp[lindex + offset];
    }
    out[gindex] = result;
}

void launch_stencil_1d(const float* h_in, const float* h_weights, float* h_out, int n)
{
    float *d_in, *d_w, *d_out;
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMalloc(&d_w, (2 * RADIUS + 1) * sizeof(float));
    cudaMalloc(&d_out, n * sizeof(float));
    cudaMemcpy(d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_w, h_weights, (2 * RADIUS + 1) * sizeof(float), cudaMemcpyHostToDevice);

    int threads = BLOCK_SIZE;
    int blocks = (n + threads - 1) / threads;
    stencil_1d<<<blocks, threads>>>(d_in, d_w, d_out, n);
    cudaDeviceSynchronize();

    cudaMemcpy(h_out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d_in);
    cudaFree(d_w);
    cudaFree(d_out);
}

int main(void)
{
    int n = 100000;
    float w[2 * RADIUS + 1];
    for (int j = 0; j < 2 * RADIUS + 1; j++) {
        w[j] = 1.0f;
    }
    float* x = (float*)malloc(n * sizeof(float));
    float* y = (float*)malloc(n * sizeof(float));
    for (int i = 0; i < n; i++) {
        x[i] = 1.0f;
    }
    launch_stencil_1d(x, w, y, n);
    printf("y[0] = %f, y[10] = %f\n", y[0], y[10]);
    free(x);
    free(y);
    return 0;
}
