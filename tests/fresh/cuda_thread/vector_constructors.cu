// Vector values spelled as constructors: `float4{...}`, `float3{...}`, `float4(v)`, `half2(x, y)`,
// `__half2(x, y)`, `half2 v(x, y)` (cuda-samples' fp16ScalarProduct), and a half2 shared array
// handed to a `half2 *` parameter (its reduceInShared_intrinsics).
#include <cuda_fp16.h>

__global__ void build(const float *x, float4 *o, half2 *h, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a = x[i];
    float4 v = float4{a, 2.f, 3.f, 4.f};
    float4 v2 = float4(v);
    float3 w = float3{a, 2.f * a, 3.f};
    o[i] = float4{w.x, w.y, w.z, v2.x + v.w};
    half2 q(0.f, a);
    half2 r = half2(__float2half(a), __float2half(2.f));
    h[i] = __hadd2(q, r) + __half2(__float2half(1.f), __float2half(a));
}

__device__ void reduce_shared(half2 *const v) {
    for (int s = 32; s > 0; s >>= 1) {
        if (threadIdx.x < s) v[threadIdx.x] = __hadd2(v[threadIdx.x], v[threadIdx.x + s]);
        __syncthreads();
    }
}

__global__ void dot_half2(const half2 *a, const half2 *b, float *results, int n) {
    __shared__ half2 sh[64];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    half2 value(0.f, 0.f);
    if (i < n) value = a[i] * b[i] + value;
    sh[threadIdx.x] = value;
    __syncthreads();
    reduce_shared(sh);
    if (threadIdx.x == 0) results[blockIdx.x] = __low2float(sh[0]) + __high2float(sh[0]);
}

void run(const float *x, float4 *o, half2 *h, const half2 *a, const half2 *b, float *r, int n) {
    build<<<(n + 127) / 128, 128>>>(x, o, h, n);
    dot_half2<<<(n + 63) / 64, 64>>>(a, b, r, n);
}
