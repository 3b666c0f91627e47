// Bias + GELU over a [rows, cols] activation, vectorised with float4 loads and stores.
// cols must be a multiple of 4 (the usual hidden sizes are); each thread handles 4 columns.
#include <cuda_runtime.h>
#include <math.h>

#define THREADS 256
#define GELU_K0 0.7978845608028654f  // sqrt(2 / pi)
#define GELU_K1 0.044715f

__device__ __forceinline__ float gelu(float v)
{
    return 0.5f * v * (1.0f + tanhf(GELU_K0 * (v + GELU_K1 * v * v * v)));
}

__global__ void bias_gelu_vec4(const float* __restrict__ x, const float* __restrict__ bias,
                               float* __restrict__ y, int rows, int cols)
{
    int quads_per_row = cols / 4;
    int q = blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= rows * quads_per_row) {
        return;
    }
    int col = (q % quads_per_row) * 4;
    float4 v = reinterpret_cast<const float4*>(x)[q];
    float4 b = reinterpret_cast<const float4*>(bias)[col / 4];
    float4 r;
    r.x = gelu(v.x + b.x);
    r.y = gelu(v.y + b.y);
    r.z = gelu(v.z + b.z);
    r.w = gelu(v.w + b.w);
    reinterpret_cast<float4*>(y)[q] = r;
}

void bias_gelu(const float* d_x, const float* d_bias, float* d_y, int rows, int cols)
{
    int quads = rows * (cols / 4);
    int blocks = (quads + THREADS - 1) / THREADS;
    bias_gelu_vec4<<<blocks, THREADS>>>(d_x, d_bias, d_y, rows, cols);
}
