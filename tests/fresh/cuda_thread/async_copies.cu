// Asynchronous copies into shared memory, in the API's three spellings: a per-thread
// cuda::pipeline (16-byte chunks, a float4 view through a block-scope cuda::barrier), the
// __pipeline_* primitives, and a cooperative group's cuda-less memcpy_async + wait.
#include <cuda_runtime.h>
#include <cuda/pipeline>
#include <cuda/barrier>
#include <cuda_pipeline.h>
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
namespace cg = cooperative_groups;

constexpr int kTile = 128;

__global__ void reverse_tiles(const float *in, float *out, int n) {
    __shared__ alignas(16) float tile[kTile];
    const auto chunk = cuda::aligned_size_t<16>(sizeof(float4));
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
    int base = blockIdx.x * kTile;
    if (threadIdx.x < kTile / 4) {
        pipe.producer_acquire();
        cuda::memcpy_async(&tile[threadIdx.x * 4], &in[base + threadIdx.x * 4], chunk, pipe);
        pipe.producer_commit();
        pipe.consumer_wait();
    }
    __syncthreads();
    if (base + threadIdx.x < n)
        out[base + threadIdx.x] = tile[kTile - 1 - threadIdx.x] * 2.0f;
    pipe.consumer_release();
}

__global__ void neighbour_diff(const float *in, float *out) {
    __shared__ float tile[kTile];
    __pipeline_memcpy_async(&tile[threadIdx.x], &in[blockIdx.x * kTile + threadIdx.x], sizeof(float));
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    out[blockIdx.x * kTile + threadIdx.x] = tile[(threadIdx.x + 1) % kTile] - tile[threadIdx.x];
}

__global__ void rotate_block(const int *in, int *out) {
    __shared__ int tile[kTile];
    cg::thread_block block = cg::this_thread_block();
    cg::memcpy_async(block, tile, in + blockIdx.x * kTile, sizeof(int) * kTile);
    cg::wait(block);
    out[blockIdx.x * kTile + threadIdx.x] = tile[(threadIdx.x + 5) % kTile];
}

__global__ void scale_through_barrier(const float *in, float *out, float s) {
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    __shared__ alignas(16) float tile[kTile];
    if (threadIdx.x == 0)
        init(&bar, blockDim.x);
    __syncthreads();
    if (threadIdx.x < kTile / 4) {
        float4 *dst = reinterpret_cast<float4 *>(&tile[threadIdx.x * 4]);
        const float4 *src = reinterpret_cast<const float4 *>(&in[blockIdx.x * kTile + threadIdx.x * 4]);
        cuda::memcpy_async(dst, src, sizeof(float4), bar);
    }
    bar.arrive_and_wait();
    out[blockIdx.x * kTile + threadIdx.x] = s * tile[kTile - 1 - threadIdx.x];
}

void run(const float *x, float *y, const int *a, int *b, int n) {
    reverse_tiles<<<n / kTile, kTile>>>(x, y, n);
    neighbour_diff<<<n / kTile, kTile>>>(x, y);
    rotate_block<<<n / kTile, kTile>>>(a, b);
    scale_through_barrier<<<n / kTile, kTile>>>(x, y, 0.5f);
}
