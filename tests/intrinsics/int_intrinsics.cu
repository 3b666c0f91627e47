// CUDA's integer intrinsics, element-wise (tileport's own sample for issue 38): bit counts,
// bit scans, bit reversal, 24-bit multiplies of operands wider than 24 bits, and CUDA's
// unsigned / 64-bit min and max. Inputs are spread over all 32 / 64 bits by a multiplicative
// hash first, so every bit position (and the operands' bits above 24) takes part.
#include <cuda_runtime.h>

#define SPREAD32(x) ((unsigned int)(x) * 2654435761u)
#define SPREAD64(x) ((unsigned long long)(x) * 0x5851F42D4C957F2Dull)

__global__ void bit_ops(const unsigned int* words, const unsigned long long* wide, int* counts,
                        unsigned int* reversed, unsigned long long* reversed_wide, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int w = SPREAD32(words[i]);
    unsigned int low = w & 0xF0u;  // zero for one value in 16: __ffs(0) and __clz(0)
    unsigned long long v = SPREAD64(wide[i]);
    counts[4 * i + 0] = __popc(w) + 100 * __popcll(v);
    counts[4 * i + 1] = __clz((int)low) + 100 * __clzll((long long)(v >> (w & 63u)));
    counts[4 * i + 2] = __ffs((int)low) + 100 * __ffsll((long long)(v & 0xFF00000000ull));
    counts[4 * i + 3] = __ffs((int)w) - __clz((int)w);
    reversed[i] = __brev(w);
    reversed_wide[i] = __brevll(v);
}

__global__ void mul24_ops(const int* a, const int* b, const unsigned int* ua, int* prod,
                          unsigned int* uprod, int n)
{
    int i = __mul24(blockIdx.x, blockDim.x) + threadIdx.x;
    if (i < n) {
        // full 32-bit operands: only their low 24 bits (sign-extended for __mul24) multiply
        int x = (int)SPREAD32(a[i]), y = (int)SPREAD32(b[i] + 7);
        prod[2 * i] = __mul24(x, y);
        prod[2 * i + 1] = __mul24(x >> 7, 3 - b[i]);
        unsigned int u = SPREAD32(ua[i]);
        uprod[i] = __umul24(u, u >> 3) + __umul24(blockIdx.y, blockDim.x);
    }
}

__global__ void min_max_ops(const unsigned int* x, const int* y, const long long* z,
                            unsigned int* out, long long* out_wide, int n)
{
    unsigned int i = __umul24(blockIdx.x, blockDim.x) + threadIdx.x;
    if (i < n) {
        out[2 * i] = umin(x[i], 1000000u) + umax(x[i] & 255u, 128u);
        out[2 * i + 1] = min(y[i], 7u) + max(y[i], x[i] >> 20);  // (int, unsigned): unsigned
        out_wide[i] = llmin(z[i], 1ll << 40) + llmax(z[i] >> 3, -5ll) + (long long)ullmin(i, 9ull);
    }
}

int main()
{
    const int n = 1000;
    unsigned int *words, *reversed, *ua, *uprod, *x, *out;
    unsigned long long *wide, *reversed_wide;
    int *counts, *a, *b, *prod, *y;
    long long *z, *out_wide;
    cudaMalloc(&words, n * sizeof(unsigned int));
    cudaMalloc(&wide, n * sizeof(unsigned long long));
    cudaMalloc(&counts, 4 * n * sizeof(int));
    cudaMalloc(&reversed, n * sizeof(unsigned int));
    cudaMalloc(&reversed_wide, n * sizeof(unsigned long long));
    cudaMalloc(&a, n * sizeof(int));
    cudaMalloc(&b, n * sizeof(int));
    cudaMalloc(&ua, n * sizeof(unsigned int));
    cudaMalloc(&prod, 2 * n * sizeof(int));
    cudaMalloc(&uprod, n * sizeof(unsigned int));
    cudaMalloc(&x, n * sizeof(unsigned int));
    cudaMalloc(&y, n * sizeof(int));
    cudaMalloc(&z, n * sizeof(long long));
    cudaMalloc(&out, 2 * n * sizeof(unsigned int));
    cudaMalloc(&out_wide, n * sizeof(long long));
    bit_ops<<<(n + 127) / 128, 128>>>(words, wide, counts, reversed, reversed_wide, n);
    mul24_ops<<<(n + 255) / 256, 256>>>(a, b, ua, prod, uprod, n);
    min_max_ops<<<(n + 255) / 256, 256>>>(x, y, z, out, out_wide, n);
    cudaDeviceSynchronize();
    return 0;
}
