// Lambdas in device code: a by-reference step helper called from two loops, and a by-value
// scale helper that returns a value.
#include <cuda_runtime.h>

__global__ void windowed_sums(float* out, const float* x, int rows, int cols, float bias) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    const float* xr = x + row * cols;
    float acc[2] = {0.0f, 0.0f};
    auto step = [&](int j) {
        float v = xr[j];
        acc[0] += v;
        acc[1] += v * v;
    };
    auto shifted = [=](float v) { return v + bias; };
    int j = 0;
    for (; j < cols / 2; ++j) step(j);
    acc[0] = shifted(acc[0]);
    for (; j < cols; ++j) step(j);
    out[row * 2] = acc[0];
    out[row * 2 + 1] = acc[1];
}

void launch(float* out, const float* x, int rows, int cols, float bias) {
    windowed_sums<<<(rows + 127) / 128, 128>>>(out, x, rows, cols, bias);
}
