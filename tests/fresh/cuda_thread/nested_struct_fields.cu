// Structs whose fields are CUDA vectors or other structs: locals built by aggregate
// initialisation, by a __device__ function returning one, copied and assigned whole or by
// sub-field; and a by-value parameter of such a struct (a segment of two float3 ends).
#include <cuda_runtime.h>
struct Segment { float3 a; float3 b; };
struct Span { float lo, hi; };
struct Probe { Segment seg; Span range; int steps; };
struct Frame { float4 origin; uchar4 tint; };

__device__ float3 lerp3(float3 p, float3 q, float t) {
    return make_float3(p.x + (q.x - p.x) * t, p.y + (q.y - p.y) * t, p.z + (q.z - p.z) * t);
}
__device__ Segment flip(const Segment &s) { Segment r = {s.b, s.a}; return r; }
__device__ float span_len(Span s) { return s.hi - s.lo; }

__global__ void march(const float *t, float *out, int n, Segment where) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Probe p;
    p.seg = where;
    p.range = Span{0.25f, 0.75f};
    p.steps = 3;
    if (t[i] > 0.5f) p.seg = flip(p.seg);
    float acc = 0.0f;
    for (int k = 0; k < p.steps; ++k) {
        float3 x = lerp3(p.seg.a, p.seg.b, p.range.lo + span_len(p.range) * k / p.steps);
        acc += x.x * t[i] + x.y - x.z;
    }
    p.seg.b.z = acc;
    Probe q = p;
    out[i] = q.seg.b.z + q.seg.a.y * q.range.hi;
}

__global__ void shade(const float *w, float *out, int n, Frame f) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        Frame g = {make_float4(w[i], f.origin.y, f.origin.z, 1.0f), f.tint};
        float4 o = g.origin;
        out[i] = o.x * f.origin.x + o.y * (float)g.tint.y - o.z + (float)f.tint.w;
    }
}

int main() {
    float *t, *out;
    Segment s = {make_float3(0.f, 1.f, 2.f), make_float3(3.f, -1.f, 0.5f)};
    march<<<8, 128>>>(t, out, 1000, s);
    Frame f = {make_float4(0.5f, 2.f, -1.f, 0.f), make_uchar4(1, 2, 3, 4)};
    shade<<<8, 128>>>(t, out, 1000, f);
}
