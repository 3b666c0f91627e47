// cg::reduce over a struct with a __device__ combine function: a warp per row keeps a running
// (largest, count of the largest) pair and merges the lanes' pairs.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

struct TopCount {
    float top;
    float count;
};

__device__ TopCount merge_top(TopCount a, TopCount b) {
    TopCount r;
    if (a.top == b.top) {
        r.top = a.top;
        r.count = a.count + b.count;
    } else {
        r = a.top > b.top ? a : b;
    }
    return r;
}

__global__ void row_top_counts(float* tops, float* counts, const float* x, int rows, int cols) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int row = blockIdx.x * warp.meta_group_size() + warp.meta_group_rank();
    if (row >= rows) return;
    TopCount mine = {-INFINITY, 0.0f};
    for (int j = warp.thread_rank(); j < cols; j += warp.size()) {
        float v = floorf(x[row * cols + j] * 2.0f);  // few distinct values: ties happen
        mine = merge_top(mine, {v, 1.0f});
    }
    TopCount all = cg::reduce(warp, mine, merge_top);
    if (warp.thread_rank() == 0) {
        tops[row] = all.top;
        counts[row] = all.count;
    }
}

void launch(float* tops, float* counts, const float* x, int rows, int cols) {
    row_top_counts<<<(rows + 3) / 4, 128>>>(tops, counts, x, rows, cols);
}
