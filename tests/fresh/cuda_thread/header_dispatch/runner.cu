// Launches the header's kernels: the block size is picked at run time and dispatched to
// the template instance through a switch, inside a host template instantiated below.
#include <cstdio>
#include <cuda_runtime.h>
#include "block_reduce.cuh"

template <typename T>
void launch_partial_sums(const T *in, T *partial, unsigned int n, int threads) {
    unsigned int blocks = (n + threads * 2 - 1) / (threads * 2);
    size_t smem = threads * sizeof(T);
    switch (threads) {
    case 256:
        partial_sums<T, 256><<<blocks, 256, smem>>>(in, partial, n);
        break;
    case 128:
        partial_sums<T, 128><<<blocks, 128, smem>>>(in, partial, n);
        break;
    case 64:
        partial_sums<T, 64><<<blocks, 64, smem>>>(in, partial, n);
        break;
    }
}

template void launch_partial_sums<float>(const float *, float *, unsigned int, int);
template void launch_partial_sums<int>(const int *, int *, unsigned int, int);

int main() {
    const unsigned int n = 1 << 20;
    float *x, *p;
    cudaMalloc(&x, n * sizeof(float));
    cudaMalloc(&p, n * sizeof(float));
    launch_partial_sums<float>(x, p, n, 128);
    row_max<float><<<64, 128, 128 * sizeof(float)>>>(x, p, 1000);
    cudaDeviceSynchronize();
    return 0;
}
