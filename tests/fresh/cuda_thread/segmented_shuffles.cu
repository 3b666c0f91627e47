// Shuffles within segments of a warp: __shfl_*_sync's width argument and the tiles of
// cooperative groups smaller than a warp (an inclusive scan over 8 lanes, a 4-lane butterfly,
// a broadcast from each 16-lane segment, a tile-of-8 reduction).
#include <cuda_runtime.h>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void segment_scan(const int *in, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    int lane = threadIdx.x % 8;
    for (int d = 1; d < 8; d *= 2) {
        int up = __shfl_up_sync(0xffffffffu, v, d, 8);
        if (lane >= d) v += up;
    }
    if (i < n) out[i] = v;
}

__global__ void butterfly_and_broadcast(const float *in, float *sums, float *heads) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[i];
    float s = v;
    s += __shfl_xor_sync(0xffffffffu, s, 1, 4);
    s += __shfl_xor_sync(0xffffffffu, s, 2, 4);
    sums[i] = s;
    heads[i] = __shfl_sync(0xffffffffu, v, 3, 16);  // lane 3 of each 16-lane segment
}

__global__ void tile_sums(const float *in, float *out) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<8> tile = cg::tiled_partition<8>(block);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[i];
    for (int d = 4; d > 0; d /= 2) v += tile.shfl_down(v, d);
    if (tile.thread_rank() == 0) out[i / 8] = v;
}

void run(const int *a, int *b, const float *x, float *y, float *z, int n) {
    segment_scan<<<(n + 127) / 128, 128>>>(a, b, n);
    butterfly_and_broadcast<<<n / 64, 64>>>(x, y, z);
    tile_sums<<<n / 64, 64>>>(x, y);
}
