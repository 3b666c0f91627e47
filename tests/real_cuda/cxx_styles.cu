// The C++ real kernels are written in: aliases as element types, overloads, constexpr helpers,
// pointers advanced in the kernel, static/const locals, pragma unroll N, array initialisers, the
// conditional operator as a statement, assert, and a benchmark driver whose block size is a
// runtime value.
#include <cassert>
#include <cstdio>

typedef float floatX;
using acc_t = float;

constexpr int cdiv(int a, int b) { return (a + b - 1) / b; }

// nvcc compiles C++17, where a user's own lerp clashes with nothing
__device__ inline float lerp(float a, float b, float t) { return a + t * (b - a); }

__device__ inline acc_t twice(acc_t v) { return v + v; }
__device__ inline acc_t twice(acc_t v, acc_t w) { return twice(v) + w; }  // an overload, not recursion

__global__ void row_scale(floatX* out, const floatX* inp, int rows, int C) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    inp += row * C;  // pointer parameters advanced to the row
    out += row * C;
    const float half_c = 0.5f;
    float weights[4] = {1.0f, 2.0f};
    #pragma unroll 4
    for (int j = 0; j < C; j++) {
        float v = lerp(twice(inp[j], half_c), 1.0f, 0.25f) * weights[j % 4];
        out[j] = v > 0.0f ? v : 0.0f;
    }
}

__global__ void clamp_count(floatX* x, int n, floatX lo) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    assert(blockDim.x % 32 == 0);
    if (i < n) {
        x[i] < lo ? (void)(x[i] = lo) : (void)0;
    }
}

void launch(floatX* out, const floatX* inp, int rows, int C, int block_size) {
    row_scale<<<cdiv(rows, block_size), block_size>>>(out, inp, rows, C);
    clamp_count<<<cdiv(rows * C, block_size), block_size>>>(out, rows * C, 0.25f);
}

int main() {
    int block_sizes[] = {64, 128, 256, 512};
    for (int b : block_sizes) launch(nullptr, nullptr, 100, 64, b);
    return 0;
}
