// `__shared__` arrays declared at namespace scope (dct8x8's style): each block's own storage,
// used by the kernel and by a device function it calls
#define TILE 64
__shared__ float tile[TILE];

__device__ float neighbour_sum(int t) {
    return tile[t] + tile[(t + 1) % TILE];
}

__global__ void pair_sums(const float *x, float *y, int n) {
    int i = blockIdx.x * TILE + threadIdx.x;
    tile[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    if (i < n) y[i] = neighbour_sum(threadIdx.x);
}

void run(const float *x, float *y, int n) { pair_sums<<<(n + TILE - 1) / TILE, TILE>>>(x, y, n); }
