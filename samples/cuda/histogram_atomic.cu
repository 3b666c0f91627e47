// 256-bin histogram: every block builds a private histogram in shared memory with shared
// atomics, then merges its non-zero bins into the global histogram with global atomics.
// Input values are ints in [0, NUM_BINS).
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define NUM_BINS 256
#define HIST_THREADS 256

__global__ void histogram_256(const int* __restrict__ data, unsigned int* __restrict__ bins, int n)
{
    __shared__ unsigned int s_hist[NUM_BINS];

    int tid = threadIdx.x;
    for (int b = tid; b < NUM_BINS; b += blockDim.x) {
        s_hist[b] = 0;
    }
    __syncthreads();

    int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + tid; i < n; i += stride) {
        int v = data[i];
        if (v < 0 || v >= NUM_BINS) {
            continue;  // ignore out-of-range values
        }
        atomicAdd(&s_hist[v], 1u);
    }
    __syncthreads();

    for (int b = tid; b < NUM_BINS; b += blockDim.x) {
        unsigned int count = s_hist[b];
        if (count > 0) {
            atomicAdd(&bins[b], count);
        }
    }
}

void launch_histogram(const int* h_data, unsigned int* h_bins, int n)
{
    int *d_data;
    unsigned int* d_bins;
    cudaMalloc(&d_data, n * sizeof(int));
    cudaMalloc(&d_bins, NUM_BINS * sizeof(unsigned int));
    cudaMemcpy(d_data, h_data, n * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemset(d_bins, 0, NUM_BINS * sizeof(unsigned int));

    int threads = HIST_THREADS;
    int blocks = (n + threads - 1) / threads;
    histogram_256<<<blocks, threads>>>(d_data, d_bins, n);
    cudaDeviceSynchronize();

    cudaMemcpy(h_bins, d_bins, NUM_BINS * sizeof(unsigned int), cudaMemcpyDeviceToHost);
    cudaFree(d_data);
    cudaFree(d_bins);
}

int main(void)
{
    int n = 1 << 22;
    int* data = (int*)malloc(n * sizeof(int));
    unsigned int bins[NUM_BINS];
    for (int i = 0; i < n; i++) {
        data[i] = (i * 7919) % NUM_BINS;
    }
    launch_histogram(data, bins, n);
    printf("bins[0] = %u\n", bins[0]);
    free(data);
    return 0;
}
