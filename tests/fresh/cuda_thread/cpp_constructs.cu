// Plain C++ the CUDA front end must take: a two-variable for loop with a comma increment,
// return inside loops (in the kernel and in a __device__ function), chained and compound
// assignments used as values, and brace-initialised vector locals.
#include <cuda_runtime.h>

typedef float2 Pair;

__device__ int find_key(const int *v, int n, int key) {
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < 2; ++j)
            if (v[i] == key + j) return i;
    return -1;
}

__global__ void first_match(const int *rows, int *where, int n, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= n) return;
    for (int c = 0; c < cols; ++c) {
        if (rows[r * cols + c] < 0) {
            where[r] = -2 - c;
            return;
        }
    }
    where[r] = find_key(rows + r * cols, cols, 3);
}

// pairs (x[i], x[i + half]) walked by two indices stepping together
__global__ void paired_sums(const float *x, float *out, int half, int per_thread) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float s = 0.f, last;
    int k = 0;
    for (int i = t * per_thread, j = t * per_thread + half; k < per_thread && i < half; ++i, j += 1, ++k)
        s += x[i] * x[j];
    if (t * per_thread < half) out[t] = last = s;
    if (t * per_thread < half) out[t] += (last *= 0.5f);
}

__global__ void scaled_pairs(Pair *p, float *norms, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.f, sq;
    Pair a = p[i];
    Pair scaled = {a.x * 2.0f, a.y * 0.5f};
    float3 zero = {0, 0};
    norms[i] = sq = scaled.x * scaled.x + scaled.y * scaled.y + zero.z;
    acc = (sq += 1.0f);
    p[i] = scaled;
    norms[i] += acc;
}

// ++ and -- inside expressions and conditions, a do-while, a shift-and-count comma loop
__global__ void countdown(const int *start, int *out, int *steps, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int k = start[i] & 31, s = 0, acc = 0;
    while (k--) {
        acc += k;
        s++;
    }
    int m = start[i] & 7;
    do {
        acc ^= m;
    } while (--m > 0);
    int j = 0;
    out[i] = acc;
    steps[2 * i + j++] = s;
    steps[2 * i + j] = j;
    for (int p = 1, q = 0; p < 64; p <<= 1, ++q) acc += p * q;
    out[i] += acc;
}

int main() {
    int *rows, *where;
    first_match<<<(300 + 127) / 128, 128>>>(rows, where, 300, 17);
    float *x, *out;
    paired_sums<<<4, 64>>>(x, out, 1000, 4);
    Pair *p;
    float *norms;
    scaled_pairs<<<8, 128>>>(p, norms, 1000);
    int *start, *counts, *steps;
    countdown<<<4, 128>>>(start, counts, steps, 500);
    return 0;
}

// A function called in its own argument list: the inner call is the caller's, not recursion.
template <typename T>
__device__ T lerp3(float t, T a, T b) {
    return a + t * (b - a);
}

__global__ void nested_lerp(const float *x, float *out, float t, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i + 2 < n) {
        out[i] = lerp3<float>(t, lerp3<float>(t, x[i], x[i + 1]), lerp3<float>(t, x[i + 1], x[i + 2]));
    }
}
