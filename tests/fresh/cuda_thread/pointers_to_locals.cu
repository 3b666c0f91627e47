// Pointers to locals: out-parameters of __device__ functions (`&tnear`, as cuda-samples'
// volumeRender passes them to intersectBox), written through `*p`, `p[0]` and `p->field`, of
// scalar, vector and struct locals; a pointer handed on to another function; `&a[i]` of a local
// array; and local pointers bound to one local (`float *best = &lo`).
struct Span { float lo, hi; };
struct Ray { float3 o, d; };

__device__ int hit_slab(Ray r, float lo, float hi, float *tnear, float *tfar) {
    float a = (lo - r.o.x) / r.d.x, b = (hi - r.o.x) / r.d.x;
    *tnear = fminf(a, b);
    tfar[0] = fmaxf(a, b);
    return *tfar > *tnear;
}
__device__ void scale3(float3 *v, float s) { v->x *= s; (*v).y *= s; v[0].z = v->z * s; }
__device__ void set_span(Span *s, float a) { s->lo = a; (*s).hi = a + 1.0f; }
__device__ void add_one(float *p) { p[0] += 1.0f; }
__device__ void add_two(float *p) { add_one(p); add_one(p); }
__device__ void swap_if(float *a, float *b) {
    if (*a > *b) { float t = *a; *a = *b; *b = t; }
}

__global__ void out_params(const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Ray ray = {make_float3(x[i], 0.f, 0.f), make_float3(0.5f + i % 3, 1.f, 1.f)};
    float tnear, tfar;
    int hit = hit_slab(ray, -1.0f, 1.0f, &tnear, &tfar);
    float3 v = make_float3(x[i], 2.0f, 3.0f);
    scale3(&v, 0.5f);
    Span sp;
    set_span(&sp, x[i]);
    float lo = x[i], hi = 2.0f - x[i];
    swap_if(&lo, &hi);
    add_two(&lo);
    y[i] = hit + tnear + tfar + v.x + v.y + v.z + sp.lo + sp.hi + lo - hi;
}

__global__ void bound_pointers(const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc[4] = {0.f, 1.f, 2.f, 3.f};
    add_one(&acc[i % 4]);
    add_two(acc + 1);
    float a = x[i], b = 1.0f;
    float *best = &a;
    *best = *best * 2.0f;
    best[0] += b;
    Span s = {x[i], 0.f};
    Span *ps = &s;
    ps->hi = ps->lo * 3.0f;
    float4 q = make_float4(x[i], 1.f, 2.f, 3.f);
    float4 *pq = &q;
    pq->w = pq->x + pq->y;
    y[i] = a + s.hi + q.w + acc[0] + acc[1] + acc[2] + acc[3];
}

void run(const float *x, float *y, int n) {
    out_params<<<(n + 127) / 128, 128>>>(x, y, n);
    bound_pointers<<<(n + 127) / 128, 128>>>(x, y, n);
}
