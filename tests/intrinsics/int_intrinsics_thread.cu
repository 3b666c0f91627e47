// Integer intrinsics in a block-cooperative kernel (tileport's own sample for issue 38): each
// block counts the set bits of its words in shared memory, then every thread combines its
// word with a neighbour's through the bit scans, a bit reversal and 24-bit multiplies.
#include <cuda_runtime.h>

#define THREADS 128

__global__ void block_bits(const unsigned int* words, unsigned int* out, int* counts, int n)
{
    __shared__ unsigned int spread[THREADS];
    __shared__ int bits[THREADS];
    const int tid = threadIdx.x;
    const int i = __mul24(blockIdx.x, blockDim.x) + tid;
    unsigned int w = i < n ? words[i] * 2654435761u : 0u;
    spread[tid] = w;
    bits[tid] = __popc(w);
    __syncthreads();
    for (int stride = THREADS / 2; stride > 0; stride >>= 1) {
        if (tid < stride) bits[tid] += bits[tid + stride];
        __syncthreads();
    }
    if (i < n) {
        unsigned int other = spread[(tid + 1) % THREADS];
        int shift = __ffs((int)(w & 0xF00u)) + __clz((int)(other >> (w & 31u)));
        out[i] = __brev(w ^ other) + __umul24(other, w) + umin(w, other) + (unsigned int)__mul24((int)w, shift - 9);
    }
    if (tid == 0) counts[blockIdx.x] = bits[0];
}

int main()
{
    const int n = 1000;
    const int blocks = (n + THREADS - 1) / THREADS;
    unsigned int *words, *out;
    int* counts;
    cudaMalloc(&words, n * sizeof(unsigned int));
    cudaMalloc(&out, n * sizeof(unsigned int));
    cudaMalloc(&counts, blocks * sizeof(int));
    block_bits<<<blocks, THREADS>>>(words, out, counts, n);
    cudaDeviceSynchronize();
    return 0;
}
