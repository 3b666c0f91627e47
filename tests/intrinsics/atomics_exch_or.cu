// Atomics the CUDA front end ports beyond add/max/min/sub (tileport's own sample for issue 38):
// atomicExch with its old value unused (an atomic store), atomicOr, and the scoped forms, which
// a device-wide atomic serves (every guarantee _block or _system gives, it gives).
#include <cuda_runtime.h>

__global__ void flag_and_mask(const int* in, int* flags, float* last, unsigned int* mask, int* total, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = in[i];
    if (v > 40) atomicExch(&flags[v % 8 + 8], 1);  // every writer stores the same value
    atomicExch_system(&last[i], 0.5f * v);
    atomicOr(&mask[v & 3], 1u << (v & 31));
    atomicOr_block(&flags[i % 8], v & 0x70);
    atomicAdd_system(total, v);
    atomicMax_block(&flags[16], v);
}

int main()
{
    const int n = 1000;
    int *in, *flags, *total;
    float* last;
    unsigned int* mask;
    cudaMalloc(&in, n * sizeof(int));
    cudaMalloc(&flags, 17 * sizeof(int));
    cudaMalloc(&last, n * sizeof(float));
    cudaMalloc(&mask, 4 * sizeof(unsigned int));
    cudaMalloc(&total, sizeof(int));
    flag_and_mask<<<(n + 255) / 256, 256>>>(in, flags, last, mask, total, n);
    cudaDeviceSynchronize();
    return 0;
}
