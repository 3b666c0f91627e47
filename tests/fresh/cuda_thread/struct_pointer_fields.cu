// By-value struct parameters that hold device pointers and fixed arrays: each pointer field
// is a buffer of the port, each array field's elements travel in the struct's bytes.
#include <cuda_runtime.h>
struct Arrays { const float *in; float *out; int count; };
struct Bytes { unsigned char *flags; const int *keys; };
#define TAPS 8
struct Taps { float weight[TAPS]; int width; };
struct Table { int lut[64]; };

__global__ void scale_arrays(Arrays a, float s) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < a.count) a.out[i] = a.in[i] * s;
}

__global__ void mark_keys(Bytes b, int n, int threshold) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b.flags[i] = b.keys[i] > threshold ? 1 : 0;
}

__global__ void fir(const float *x, float *y, int n, Taps t) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.0f;
    for (int k = 0; k < t.width && k < TAPS; ++k)
        acc += t.weight[k] * x[(i + k) % n];
    y[i] = acc;
}

__global__ void lookup(const int *idx, int *out, int n, Table tab) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tab.lut[idx[i] & 63] + tab.lut[0];
}

int main() {
    float *x, *y; int *k; unsigned char *f;
    Arrays a = {x, y, 1000};
    scale_arrays<<<8, 128>>>(a, 2.0f);
    Bytes b = {f, k};
    mark_keys<<<8, 128>>>(b, 1000, 5);
    Taps t; t.width = 5;
    fir<<<8, 128>>>(x, y, 1000, t);
    Table tab;
    lookup<<<8, 128>>>(k, k, 1000, tab);
}
