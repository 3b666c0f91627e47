// Buffers whose elements are CUDA vector types (float4, uchar4, a typedef'd float2), a shared
// array of uchar4, a __shared__ scalar, and a __device__ helper that takes scalars by reference.
#include <cuda_runtime.h>

typedef float2 Cplx;
typedef unsigned int uint;

__device__ Cplx cmul(Cplx a, Cplx b) {
    return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

__device__ void order_pair(uint &a, uint &b, bool ascending) {
    if ((a > b) == ascending) {
        uint t = a;
        a = b;
        b = t;
    }
}

// rows of four: scale xyz, keep w, and write the squared length into w of the output
__global__ void scale_points(const float4 *in, float4 *out, float s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 p = in[i];
    p.x *= s;
    p.y *= s;
    p.z = p.z * s;
    out[i] = p;
    out[i].w = p.x * p.x + p.y * p.y + in[i].z * in[i].z * s * s;
}

// RGBA to gray through a shared staging tile of uchar4
__global__ void rgba_to_gray(const uchar4 *img, unsigned char *gray, int n) {
    __shared__ uchar4 tile[128];
    int i = blockIdx.x * 128 + threadIdx.x;
    if (i < n) tile[threadIdx.x] = img[i];
    __syncthreads();
    if (i < n) {
        uchar4 px = tile[threadIdx.x];
        float g = 0.299f * px.x + 0.587f * px.y + 0.114f * tile[threadIdx.x].z;
        gray[i] = (unsigned char)(g + 0.5f);
    }
}

// complex pointwise multiply and scale, through a __device__ function on the typedef
__global__ void complex_mul_scale(Cplx *a, const Cplx *b, int n, float scale) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        Cplx c = cmul(a[i], b[i]);
        a[i] = make_float2(c.x * scale, c.y * scale);
    }
}

// sort each pair of keys; count in a __shared__ scalar how many pairs of the block swapped
__global__ void sort_pairs(uint *keys, uint *swaps, int pairs) {
    __shared__ uint swapped;
    if (threadIdx.x == 0) swapped = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < pairs) {
        uint a = keys[2 * i], b = keys[2 * i + 1];
        uint before = a;
        order_pair(a, b, (i & 1) == 0);
        order_pair(keys[2 * i], keys[2 * i + 1], (i & 1) == 0);
        if (a != before) atomicAdd(&swapped, 1u);
    }
    __syncthreads();
    if (threadIdx.x == 0) swaps[blockIdx.x] = swapped;
}

// a color and a 3-D size passed by value as CUDA vector types
__global__ void paint_voxels(uchar4 *out, uint3 size, const uchar4 base, float shade) {
    unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int y = blockIdx.y, z = blockIdx.z;
    if (x >= size.x || y >= size.y || z >= size.z) return;
    unsigned int i = (z * size.y + y) * size.x + x;
    uchar4 c = base;
    c.x = (unsigned char)(base.x * shade);
    c.w = (unsigned char)((x + y + z) & 255);
    out[i] = c;
}

// one value into two float4 buffers through a chained assignment
__global__ void fill_both(float4 *x, float4 *y, const float v, const size_t n) {
    const float4 v4 = make_float4(v, 2.0f * v, 3.0f * v, v * v);
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        x[i] = y[i] = v4;
}

int main() {
    int n = 1000;
    float4 *in, *out;
    cudaMalloc(&in, n * sizeof(float4));
    cudaMalloc(&out, n * sizeof(float4));
    scale_points<<<(n + 127) / 128, 128>>>(in, out, 2.0f, n);
    uchar4 *img;
    unsigned char *gray;
    cudaMalloc(&img, n * sizeof(uchar4));
    cudaMalloc(&gray, n);
    rgba_to_gray<<<(n + 127) / 128, 128>>>(img, gray, n);
    Cplx *a, *b;
    cudaMalloc(&a, n * sizeof(Cplx));
    cudaMalloc(&b, n * sizeof(Cplx));
    complex_mul_scale<<<8, 128>>>(a, b, n, 1.0f / n);
    uint *keys, *swaps;
    cudaMalloc(&keys, 2 * n * sizeof(uint));
    cudaMalloc(&swaps, 64 * sizeof(uint));
    sort_pairs<<<(n + 127) / 128, 128>>>(keys, swaps, n);
    uchar4 *vox;
    cudaMalloc(&vox, 40 * 12 * 3 * sizeof(uchar4));
    paint_voxels<<<dim3(1, 12, 3), 64>>>(vox, make_uint3(40, 12, 3), make_uchar4(10, 20, 30, 40), 0.5f);
    fill_both<<<4, 64>>>(in, out, 1.5f, n);
    return 0;
}
