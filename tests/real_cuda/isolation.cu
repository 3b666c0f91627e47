// Per-kernel isolation: broken host code, a broken unused helper, a wmma kernel and an inline-PTX
// kernel beside plain kernels. Only the two bad kernels fail, each at its own line.
#include "proj/proj_common.h"
#include <cuda_fp16.h>
using namespace nvcuda;

__global__ void scale_rows(real_t* out, const real_t* in, real_t alpha, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = alpha * __ldcs(&in[i]);
}

__global__ void wmma_tile(half* a, half* b, float* c) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::load_matrix_sync(fa, a, 16);
}

__global__ void ptx_lane(int* out) {
    int lane;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    out[threadIdx.x] = lane;
}

__global__ void row_sums(real_t* sums, const real_t* x, int rows, int cols) {
    if (blockIdx.x >= rows) return;
    real_t acc = 0.0f;
    for (int j = threadIdx.x; j < cols; j += 32) acc += x[blockIdx.x * cols + j];
    acc = warp_sum(acc);
    if (threadIdx.x == 0) __stcs(&sums[blockIdx.x], acc);
}

void run_with_blas(real_t* out, const real_t* in, int n, int rows, int cols) {
    check_blas(cublasCreate(&g_handle));
    undeclared_host_call(out);  // broken host code: costs the kernels nothing
    scale_rows<<<(n + 255) / 256, 256>>>(out, in, 2.0f, n);
    row_sums<<<rows, 32>>>(out, in, rows, cols);
}
