// A block reduction templated on the warp reduction it applies, as a function pointer template
// argument (`block_combine<warp_max>(v)`), forwarded through an overload with defaults.
#include <cuda_runtime.h>

__device__ float warp_add(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}
__device__ float warp_max(float v) {
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

template <float (*combine)(float)>
__device__ float block_combine(float v, float idle) {
    __shared__ float partial[32];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    float w = combine(v);
    if (lane == 0) partial[warp] = w;
    __syncthreads();
    float mine = lane < blockDim.x / 32 ? partial[lane] : idle;
    return combine(mine);
}
template <float (*combine)(float)>
__device__ float block_combine(float v) { return block_combine<combine>(v, 0.0f); }

// one block per row: out[row] = max of the row, sums[row] = its sum (when asked for)
template <bool WITH_SUMS>
__global__ void row_stats(float* maxes, float* sums, const float* x, int rows, int cols) {
    if (blockIdx.x >= rows) return;
    const float* row = x + blockIdx.x * cols;
    float m = -1e30f, s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) { m = fmaxf(m, row[c]); s += row[c]; }
    m = block_combine<warp_max>(m, -1e30f);
    s = block_combine<warp_add>(s);
    if (threadIdx.x == 0) {
        maxes[blockIdx.x] = m;
        if (WITH_SUMS) sums[blockIdx.x] = s;
    }
}

void launch(float* maxes, float* sums, const float* x, int rows, int cols) {
    row_stats<true><<<rows, 256>>>(maxes, sums, x, rows, cols);
    row_stats<false><<<rows, 256>>>(maxes, nullptr, x, rows, cols);  // sums unused: dropped when lowered
}
