// A __device__ function taking a `thread_group`, called with the block and with a tile of 16:
// the same reduction over whichever group it is given.
#include <cuda_runtime.h>
#include <cooperative_groups.h>
using namespace cooperative_groups;

__device__ int group_sum(thread_group g, int *scratch, int v) {
    int lane = g.thread_rank();
    for (int i = g.size() / 2; i > 0; i /= 2) {
        scratch[lane] = v;
        g.sync();
        if (lane < i) v += scratch[lane + i];
        g.sync();
    }
    return v;
}

__global__ void block_and_tile_sums(const int *in, int *block_sums, int *tile_sums) {
    __shared__ int scratch[128];
    thread_block block = this_thread_block();
    int v = in[blockIdx.x * blockDim.x + threadIdx.x];
    int total = group_sum(block, scratch, v);
    if (block.thread_rank() == 0) block_sums[blockIdx.x] = total;
    block.sync();
    thread_block_tile<16> tile = tiled_partition<16>(block);
    thread_group g = tile;
    int part = group_sum(g, scratch + 16 * (threadIdx.x / 16), v);
    if (tile.thread_rank() == 0) tile_sums[(blockIdx.x * blockDim.x + threadIdx.x) / 16] = part;
}

void run(const int *x, int *b, int *t) { block_and_tile_sums<<<4, 128>>>(x, b, t); }
