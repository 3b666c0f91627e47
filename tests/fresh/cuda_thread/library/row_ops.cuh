// A kernel library header: nothing here launches anything, the caller picks the grid
// (one row per blockIdx.y, a grid-stride loop over columns) and the block.
#pragma once

__global__ void axpy_rows(const float *x, float *y, float a, int rows, int cols) {
    int r = blockIdx.y;
    for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < cols; c += blockDim.x * gridDim.x)
        y[r * cols + c] += a * x[r * cols + c];
}

template <int BLOCK, typename T = float>
__global__ void block_max(const T *x, T *out, int n) {
    __shared__ T s[BLOCK];
    int i = blockIdx.x * BLOCK + threadIdx.x;
    s[threadIdx.x] = i < n ? x[i] : x[0];
    __syncthreads();
    for (int k = BLOCK / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) s[threadIdx.x] = max(s[threadIdx.x], s[threadIdx.x + k]);
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}
