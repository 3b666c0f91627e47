// Plain structs in device code: a result struct returned by a __device__ helper and built with
// an initializer list, a running (max, sum) pair merged through a conditional copy, a struct
// passed by value and changed inside the helper, field assignment, and aggregate zero-fill.
#include <cuda_runtime.h>
#include <math.h>

struct RowStats {
    float inv_sum;
    float peak;
};

struct Running {
    float top;
    float total;
};

__device__ Running merge(Running a, Running b) {
    bool a_first = a.top >= b.top;
    Running hi = a_first ? a : b;
    Running lo = a_first ? b : a;
    hi.total = hi.total + lo.total * expf(lo.top - hi.top);
    return hi;
}

__device__ RowStats row_stats(const float* row, int cols) {
    Running acc = {-INFINITY};  // total starts at zero
    for (int j = 0; j < cols; j++) {
        acc = merge(acc, {row[j], 1.0f});
    }
    return RowStats{1.0f / acc.total, acc.top};
}

// one thread per row: out = softmax(inp) row by row
__global__ void softmax_rows(float* out, const float* inp, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    RowStats st = row_stats(inp + r * cols, cols);
    RowStats copy;
    copy = st;
    for (int j = 0; j < cols; j++) {
        out[r * cols + j] = expf(inp[r * cols + j] - copy.peak) * copy.inv_sum;
    }
}

void launch(float* out, const float* inp, int rows, int cols) {
    softmax_rows<<<(rows + 127) / 128, 128>>>(out, inp, rows, cols);
}
