// A 16-byte packed vector type as training codebases write one: an array member moved in and out
// of memory with memcpy through int4, indexed with operator[], built by static helpers, passed by
// value, and sized by a static constexpr member. bf16 and float instantiations.
#include <cuda_bf16.h>
#include <cstring>

template <typename T>
struct alignas(16) Pack16 {
    static constexpr int count = sizeof(int4) / sizeof(T);
    T lane[count];

    Pack16() = default;
    __device__ explicit Pack16(int4 raw) { memcpy(&lane, &raw, sizeof(raw)); }
    __device__ static Pack16 filled(T v) {
        Pack16 out;
        for (int i = 0; i < count; ++i) { out.lane[i] = v; }
        return out;
    }
    __device__ T& operator[](int i) { return lane[i]; }
    __device__ const T& operator[](int i) const { return lane[i]; }
    __device__ int4 raw() const {
        int4 r;
        memcpy(&r, &lane, sizeof(r));
        return r;
    }
};

template <typename T>
__device__ Pack16<T> read16(const T* p) { return Pack16<T>{*reinterpret_cast<const int4*>(p)}; }
template <typename T>
__device__ void write16(T* p, Pack16<T> v) { *reinterpret_cast<int4*>(p) = v.raw(); }
template <typename T>
__device__ void write16_streaming(T* p, Pack16<T> v) { __stcs(reinterpret_cast<int4*>(p), v.raw()); }

using bf16 = __nv_bfloat16;
using pack_bf16 = Pack16<bf16>;
using pack_f32 = Pack16<float>;

// y = a * x + y over bf16, 8 elements per thread (n is a multiple of 8)
__global__ void axpy_packed(bf16* y, const bf16* x, float a, int n) {
    int i = (blockIdx.x * blockDim.x + threadIdx.x) * pack_bf16::count;
    if (i < n) {
        pack_bf16 xs = read16(x + i);
        pack_bf16 ys = read16(y + i);
        pack_bf16 out;
        for (int k = 0; k < xs.count; ++k) {
            out[k] = (bf16)(a * (float)xs[k] + (float)ys[k]);
        }
        write16(y + i, out);
    }
}

// per-thread sums of 4 floats at a time, starting from a filled pack
__global__ void add_bias_packed(float* out, const float* inp, float bias, int n) {
    int i = (blockIdx.x * blockDim.x + threadIdx.x) * pack_f32::count;
    if (i < n) {
        pack_f32 acc = pack_f32::filled(bias);
        pack_f32 v = read16(inp + i);
        for (int k = 0; k < pack_f32::count; ++k) {
            acc[k] += v[k];
        }
        write16_streaming(out + i, acc);
    }
}

// element-wise over bf16 (a tile-level port: verify runs it on TileLang's C target)
__global__ void scale_bf16(bf16* y, const bf16* x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = (float)x[i];
        y[i] = (bf16)(v * a + (float)y[i]);
    }
}

void launch(bf16* y, const bf16* x, float* out, const float* inp, int n) {
    scale_bf16<<<(n + 255) / 256, 256>>>(y, x, 3.0f, n);
    axpy_packed<<<(n / 8 + 127) / 128, 128>>>(y, x, 2.0f, n);
    add_bias_packed<<<(n / 4 + 127) / 128, 128>>>(out, inp, 0.5f, n);
}
