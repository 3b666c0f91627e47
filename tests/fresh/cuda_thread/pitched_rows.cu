// Pitched 2-D allocations (cudaMallocPitch): rows reached through byte arithmetic,
// (T *)((char *)p + y * pitch), on a byte image and on a field of float2 vectors.
#include <cuda_runtime.h>
typedef float2 cData;
__global__ void sobel_rows(const unsigned char *src, unsigned char *dst, unsigned int pitch, int w, int h, float scale) {
    unsigned char *row = (unsigned char *)(((char *)dst) + blockIdx.x * pitch);
    const unsigned char *in = (const unsigned char *)((const char *)src + blockIdx.x * pitch);
    for (int i = threadIdx.x; i < w; i += blockDim.x) row[i] = (unsigned char)min(255.f, in[i] * scale);
}
__global__ void advect(cData *v, int dx, int dy, size_t pitch, float dt) {
    int gx = blockIdx.x * blockDim.x + threadIdx.x, gy = blockIdx.y;
    if (gx >= dx || gy >= dy) return;
    cData *fj = (cData *)((char *)v + gy * pitch) + gx;
    cData p = *fj;
    p.x += dt * p.y;
    *fj = p;
    float *f = (float *)((char *)v + gy * pitch);
    f[2 * gx + 1] *= 0.5f;
}
// The pitched row and the vector along it in one expression, read where a value points.
__global__ void sample_field(const cData *v, cData *out, int dx, int dy, size_t pitch) {
    int gx = blockIdx.x * blockDim.x + threadIdx.x, gy = blockIdx.y;
    if (gx >= dx || gy >= dy) return;
    int sx = (gx * 7 + gy) % dx;
    cData s = *((const cData *)((const char *)v + gy * pitch) + sx);
    out[gy * dx + gx] = s;
}
int main() { unsigned char *a, *b; sobel_rows<<<50, 64>>>(a, b, 128, 100, 50, 1.5f); cData *v; advect<<<dim3(4, 64), 64>>>(v, 200, 64, 256 * 8, 0.1f); sample_field<<<dim3(4, 64), 64>>>(v, v, 200, 64, 256 * 8); }
