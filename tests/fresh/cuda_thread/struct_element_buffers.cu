// Buffers of structs whose fields share one scalar type (an __align__(16) RGBA of uint32, a
// luminance/alpha pair, a vertex): whole-struct copies, field reads and writes.
#include <cuda_runtime.h>
struct __align__(16) RGBA32 { unsigned int r, g, b, a; };
struct LA32 { float l, a; };
struct Vertex { float x, y, z, w; };
template <class TData> __global__ void copy_kernel(TData *d_odata, const TData *d_idata, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) d_odata[i] = d_idata[i];
}
__global__ void wave(Vertex *v, unsigned int width, unsigned int height, float t) {
    unsigned int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    float u = x / (float)width * 2.0f - 1.0f, w = y / (float)height * 2.0f - 1.0f;
    v[y * width + x].x = u;
    v[y * width + x].y = sinf(u * 4.0f + t) * cosf(w * 4.0f + t) * 0.5f;
    v[y * width + x].z = w;
    v[y * width + x].w = 1.0f;
}
__global__ void la_scale(LA32 *p, int n, float s) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { LA32 q = p[i]; q.l *= s; p[i] = q; p[i].a += q.l; }
}
int main() { RGBA32 *a, *b; copy_kernel<RGBA32><<<4, 128>>>(a, b, 500); copy_kernel<LA32><<<4, 128>>>((LA32*)a, (LA32*)b, 500);
  Vertex *v; wave<<<dim3(4, 4), dim3(16, 16)>>>(v, 60, 50, 0.5f); la_scale<<<4, 128>>>((LA32*)a, 300, 2.f); }
