// float4 as kernels use it: a float4* view of a row made with reinterpret_cast, components read
// by index through a helper, a streaming-hint load of a view element, helpers that return and
// take float4 by value, a loop continuing a variable declared before it, one warp per row with
// an early return and no launch site, and a host launch passing NULL.
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cstddef>
namespace cg = cooperative_groups;

__device__ float lane_of(const float4& v, int k) { return reinterpret_cast<const float*>(&v)[k]; }
__device__ float4 load4(const float* p) { return *reinterpret_cast<const float4*>(p); }
__device__ void store4(float* p, float4 v) { *reinterpret_cast<float4*>(p) = v; }

// one warp per row of `cols` (a multiple of 4) out of `pitch` floats: row maxima
__global__ void row_max_warps(float* out, const float* inp, int rows, int cols, int pitch) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int row = blockIdx.x * warp.meta_group_size() + warp.meta_group_rank();
    if (row >= rows) return;
    const float4* v4 = reinterpret_cast<const float4*>(inp + row * pitch);
    float best = -INFINITY;
    for (int i = warp.thread_rank(); i < cols / 4; i += warp.size()) {
        float4 v = __ldcs(&v4[i]);
        for (int k = 0; k < 4; ++k) {
            best = fmaxf(best, lane_of(v, k));
        }
    }
    best = cg::reduce(warp, best, cg::greater<float>());
    if (warp.thread_rank() == 0) out[row] = best;
}

// out = 2 * inp + bias, four at a time; an optional bias (NULL: none)
__global__ void twice_plus(float* out, const float* inp, const float* bias, int n) {
    int i = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
    for (; i < n; i += gridDim.x * blockDim.x * 4) {
        float4 v = load4(inp + i);
        v.x *= 2.0f; v.y *= 2.0f; v.z *= 2.0f; v.w *= 2.0f;
        if (bias != NULL) {
            float4 b = load4(bias + i);
            v.x += b.x; v.y += b.y; v.z += b.z; v.w += b.w;
        }
        store4(out + i, v);
    }
}

// a streaming copy, four floats at a time, with cache-hint loads and stores
__global__ void copy_streaming(float* out, const float* inp, int n) {
    int i = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
    if (i < n) {
        float4 v = __ldcs(reinterpret_cast<const float4*>(inp + i));
        __stcs(reinterpret_cast<float4*>(out + i), v);
    }
}

void launch(float* out, const float* inp, int n) {
    copy_streaming<<<(n / 4 + 255) / 256, 256>>>(out, inp, n);
    twice_plus<<<(n / 4 + 255) / 256, 256>>>(out, inp, NULL, n);
}
