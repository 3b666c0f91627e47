// fp16 kernels as they are written: half2 views of a half buffer, half2 intrinsics and operators,
// half2 buffers, and 128-bit packs of 8 halves copied through float4 (the LDST128BITS idiom).
#include <cuda_fp16.h>
#define LDST128BITS(value) (reinterpret_cast<float4 *>(&(value))[0])
__global__ void h2_axpy(const half *x, half *y, float a, int n) {
    int i = 2 * (blockIdx.x * blockDim.x + threadIdx.x);
    if (i + 1 < n) {
        half2 xv = reinterpret_cast<const half2 *>(&x[i])[0];
        half2 yv = reinterpret_cast<half2 *>(&y[i])[0];
        half2 av = __float2half2_rn(a);
        half2 r = __hfma2(av, xv, yv);
        r = __hadd2(r, __halves2half2(__low2half(xv), __high2half(yv)));
        reinterpret_cast<half2 *>(&y[i])[0] = r;
    }
}
__global__ void h2_dot(const half2 *a, const half2 *b, float *out, int n2) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n2) {
        float2 p = __half22float2(__hmul2(a[i], b[i]));
        out[i] = p.x + p.y + __low2float(a[i]) * __high2float(b[i]);
    }
}
__global__ void add_pack8(half *a, half *b, half *c, int n) {
    int idx = 8 * (blockIdx.x * blockDim.x + threadIdx.x);
    if (idx + 7 < n) {
        half pa[8], pb[8], pc[8];
        LDST128BITS(pa[0]) = LDST128BITS(a[idx]);
        LDST128BITS(pb[0]) = LDST128BITS(b[idx]);
        for (int k = 0; k < 8; ++k) pc[k] = __hadd(pa[k], pb[k]);
        LDST128BITS(c[idx]) = LDST128BITS(pc[0]);
    }
}
int main() { half *x, *y; h2_axpy<<<4, 128>>>(x, y, 2.f, 1000); h2_dot<<<4, 128>>>((half2*)x, (half2*)y, (float*)x, 500);
  add_pack8<<<4, 128>>>(x, y, x, 4000); }
