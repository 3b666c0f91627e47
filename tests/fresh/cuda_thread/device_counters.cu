// __device__ variables a kernel changes: a counter bumped atomically and a flag, read where they
// live (not as their initialisers), and a char parameter the launch gives a wider value.
#include <cuda_runtime.h>

__device__ unsigned int negatives = 0, seen = 0;

__global__ void count_negatives(const int *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && x[i] < 0) {
        atomicAdd(&negatives, 1u);
        if (!seen) seen = 1;
    }
}

__global__ void fill_low_byte(signed char *out, signed char value) {
    out[blockIdx.x * blockDim.x + threadIdx.x] = value;
}

void run(const int *x, signed char *o, int n, int w, int h) {
    count_negatives<<<(n + 127) / 128, 128>>>(x, n);
    fill_low_byte<<<4, 64>>>(o, w * h + 3);
}
