// sm_80's warp reductions over the whole warp: __reduce_add_sync, __reduce_min_sync, __reduce_xor_sync.
#include <cuda_runtime.h>

__global__ void warp_totals(const int *in, int *sums, unsigned *mins, unsigned *bits, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    int s = __reduce_add_sync(0xffffffffu, v);
    unsigned m = __reduce_min_sync(0xffffffffu, (unsigned)v);
    unsigned x = __reduce_xor_sync(0xffffffffu, (unsigned)v);
    if (threadIdx.x % 32 == 0) {
        sums[i / 32] = s;
        mins[i / 32] = m;
        bits[i / 32] = x;
    }
}

void run(const int *a, int *b, unsigned *c, unsigned *d, int n) {
    warp_totals<<<(n + 127) / 128, 128>>>(a, b, c, d, n);
}
