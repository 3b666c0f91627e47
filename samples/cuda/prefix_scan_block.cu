// Inclusive prefix sum. scan_block_inclusive scans each block of SCAN_BLOCK elements with a
// Hillis-Steele scan double-buffered in shared memory and (optionally) records each block's
// total; the host scans the block totals with the same kernel, and add_block_offsets adds the
// scanned total of all preceding blocks to every element.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define SCAN_BLOCK 256

__global__ void scan_block_inclusive(const float* __restrict__ in, float* __restrict__ out,
                                     float* __restrict__ block_sums, int n)
{
    __shared__ float temp[2][SCAN_BLOCK];

    int tid = threadIdx.x;
    int gid = blockIdx.x * blockDim.x + tid;

    int pout = 0;
    int pin = 1;
    temp[pout][tid] = (gid < n) ? in[gid] : 0.0f;
    __syncthreads();

    for (int offset = 1; offset < blockDim.x; offset <<= 1) {
        pout = 1 - pout;  // swap the double buffers
        pin = 1 - pout;
        if (tid >= offset) {
            temp[pout][tid] = temp[pin][tid] + temp[pin][tid - offset];
        } else {
            temp[pout][tid] = temp[pin][tid];
        }
        __syncthreads();
    }

    if (gid < n) {
        out[gid] = temp[pout][tid];
    }
    if (block_sums != NULL && tid == blockDim.x - 1) {
        block_sums[blockIdx.x] = temp[pout][tid];
    }
}

__global__ void add_block_offsets(float* __restrict__ out, const float* __restrict__ scanned_sums, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (blockIdx.x == 0 || gid >= n) {
        return;
    }
    out[gid] += scanned_sums[blockIdx.x - 1];
}

// Two-level scan: supports n up to SCAN_BLOCK * SCAN_BLOCK elements.
void launch_prefix_scan(const float* h_in, float* h_out, int n)
{
    int threads = SCAN_BLOCK;
    int blocks = (n + threads - 1) / threads;

    float *d_in, *d_out, *d_sums, *d_scanned_sums;
    float* d_no_sums = NULL;
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMalloc(&d_out, n * sizeof(float));
    cudaMalloc(&d_sums, blocks * sizeof(float));
    cudaMalloc(&d_scanned_sums, blocks * sizeof(float));
    cudaMemcpy(d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice);

    scan_block_inclusive<<<blocks, threads>>>(d_in, d_out, d_sums, n);
    scan_block_inclusive<<<1, threads>>>(d_sums, d_scanned_sums, d_no_sums, blocks);
    add_block_offsets<<<blocks, threads>>>(d_out, d_scanned_sums, n);
    cudaDeviceSynchronize();

    cudaMemcpy(h_out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d_in);
    cudaFree(d_out);
    cudaFree(d_sums);
    cudaFree(d_scanned_sums);
}

int main(void)
{
    int n = 50000;
    float* x = (float*)malloc(n * sizeof(float));
    float* y = (float*)malloc(n * sizeof(float));
    for (int i = 0; i < n; i++) {
        x[i] = 1.0f;
    }
    launch_prefix_scan(x, y, n);
    printf("y[n-1] = %f (expected %d)\n", y[n - 1], n);
    free(x);
    free(y);
    return 0;
}
