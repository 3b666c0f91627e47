// Stores through wider integer views of narrower elements: a byte histogram cleared four bytes
// at a time, pairs of shorts moved as ints between global and shared memory, and a constant
// whose bytes land one per element (little-endian).
#include <cuda_runtime.h>

__global__ void byte_histogram(const unsigned char *data, unsigned int *hist, int n) {
    __shared__ unsigned char counts[256];
    if (threadIdx.x < 64) ((unsigned int *)counts)[threadIdx.x] = 0;
    __syncthreads();
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        if (data[i] % 64 == threadIdx.x) counts[data[i]]++;
    }
    __syncthreads();
    hist[blockIdx.x * 256 + threadIdx.x] = counts[threadIdx.x];
}

__global__ void swap_halves(short *rows, int width) {
    __shared__ short tile[2 * 64];
    short *row = rows + blockIdx.x * width;
    ((int *)tile)[threadIdx.x] = ((int *)row)[threadIdx.x];
    __syncthreads();
    ((int *)row)[threadIdx.x] = ((int *)tile)[63 - threadIdx.x];
}

__global__ void stamp(signed char *out) {
    ((int *)out)[blockIdx.x * blockDim.x + threadIdx.x] = 0x7f80ff01;
}

void run(const unsigned char *d, unsigned int *h, short *r, signed char *o) {
    byte_histogram<<<1, 256>>>(d, h, 1000);
    swap_halves<<<8, 64>>>(r, 128);
    stamp<<<4, 64>>>(o);
}
