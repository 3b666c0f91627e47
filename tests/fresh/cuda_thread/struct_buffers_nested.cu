// Structs in memory whose fields flatten to one scalar type: a buffer of vertices with vector
// fields, a buffer of fixed-size points (`typedef float pt2[2]`), a __constant__ struct with
// an array-of-vectors field indexed by a loop, and a __constant__ array of structs.
#include <cuda_runtime.h>
struct Vert { float3 pos; float4 rgba; };
typedef float pt2[2];
struct Mat3x4 { float4 row[3]; };
struct Coeffs { float a, b, c; };
__constant__ Mat3x4 c_xform;
__constant__ Coeffs c_table[4];

__global__ void paint(Vert *v, int n, float t) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float3 p = v[i].pos;
    v[i].rgba = make_float4(p.x * t, p.y, p.z - t, 1.0f);
    v[i].pos.y = p.x + p.z;
}

__global__ void radius(const pt2 *pts, float *r, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) r[i] = sqrtf(pts[i][0] * pts[i][0] + pts[i][1] * pts[i][1]);
}

__global__ void transform(const float4 *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 q = in[i];
    float acc = 0.0f;
    for (int k = 0; k < 3; ++k) {
        float4 r = c_xform.row[k];
        acc += r.x * q.x + r.y * q.y + r.z * q.z + r.w * q.w;
    }
    Mat3x4 m = c_xform;
    out[i] = acc + m.row[1].w;
}

__global__ void poly(const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        Coeffs k = c_table[i & 3];
        y[i] = (k.a * x[i] + k.b) * x[i] + k.c + c_table[0].a;
    }
}

int main() {
    Vert *v; pt2 *p; float *f, *g; float4 *q;
    paint<<<8, 128>>>(v, 1000, 0.5f);
    radius<<<8, 128>>>(p, f, 1000);
    transform<<<8, 128>>>(q, f, 1000);
    poly<<<8, 128>>>(f, g, 1000);
}
