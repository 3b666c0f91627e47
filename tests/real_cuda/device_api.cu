// The device API as kernels use it: each call must parse with full types (tests check that the
// parse reports no error at all in this file).
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cassert>
#include <cstdio>
#include <math_constants.h>
namespace cg = cooperative_groups;

#define LOAD4(v) (reinterpret_cast<float4*>(&(v))[0])
#define LDST128BITS(v) (reinterpret_cast<int4*>(&(v))[0])

__global__ void halves(half2* h, __nv_bfloat162* b, nv_bfloat16* s, __half* out, int n) {
    int i = threadIdx.x;
    half2 a = __hadd2(h[i], __hmul2(h[i], __float2half2_rn(0.5f)));
    a = __hfma2(a, a, __halves2half2(__low2half(a), __high2half(a)));
    a = __h2div(a, __hmax2(a, h2exp(a)));
    float2 f = __half22float2(a);
    out[i] = hrsqrt(__float2half(f.x + f.y)) + __low2half(a + a * a);
    __nv_bfloat162 c = __hadd2(b[i], __floats2bfloat162_rn(1.0f, 2.0f));
    c = __hfma2(c, c, __float2bfloat162_rn(0.25f));
    s[i] = __float2bfloat16(__bfloat162float(__low2bfloat16(c)) + __bfloat162float(s[i]));
}

__global__ void atomics(int* i, unsigned* u, unsigned long long* ull, float* f, double* d,
                        __half* h, __half2* h2, __nv_bfloat16* bf) {
    atomicAdd(i, 1); atomicAdd(u, 1); atomicAdd(ull, 1ull); atomicAdd(f, 1.0f);
    atomicAdd(d, 1.0); atomicAdd(h, __float2half(1.0f)); atomicAdd(h2, __float2half2_rn(1.0f));
    atomicAdd(bf, __float2bfloat16(1.0f));
    atomicExch(i, 3); atomicCAS(u, 1u, 2u); atomicCAS(ull, 1ull, 2ull);
    atomicAnd(i, 7); atomicOr(u, 8u); atomicXor(i, 1); atomicInc(u, 10u); atomicDec(u, 10u);
    atomicMax(i, 4); atomicMin(u, 2u); atomicAdd_block(f, 1.0f); atomicAdd_system(i, 2);
    atomicSub(i, 1);
}

__global__ void groups(float* out, const float* in) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    cg::thread_block_tile<8> eight = cg::tiled_partition<8>(block);
    float v = in[block.thread_rank()];
    float s = cg::reduce(warp, v, cg::plus<float>());
    float m = cg::reduce(eight, v, cg::greater<float>());
    cg::sync(block);
    cg::coalesced_group active = cg::coalesced_threads();
    out[block.thread_rank()] = s + m + warp.meta_group_rank() + warp.meta_group_size() + active.size();
}

__global__ void intrinsics(float* x, unsigned* u, int* i, int4* v4, float4* f4) {
    int t = threadIdx.x;
    float a = __ldg(&x[t]) + __ldcs(&x[t]) + __ldca(&x[t]) + __ldcg(&x[t]) + __ldlu(&x[t]);
    __stcs(&x[t], a); __stcg(&x[t], a); __stwt(&x[t], a);
    u[t] = __popc(u[t]) + __clz(i[t]) + __ffs(i[t]) + __brev(u[t]) + __byte_perm(u[t], 0u, 0x3210u) +
           __funnelshift_l(u[t], u[t], 3u) + __mul24(i[t], 2) + __umulhi(u[t], 3u) + __dp4a(i[t], i[t], 0);
    x[t] = __expf(a) + __fdividef(a, 3.0f) + __saturatef(a) + __frcp_rn(a) + __fsqrt_rn(a) + __logf(a) +
           (a > 0.0f ? INFINITY : -INFINITY) + __builtin_inff() + CUDART_INF_F;
    float4 w = LOAD4(x[4 * t]);
    LDST128BITS(v4[t]) = make_int4(1, 2, 3, 4);
    f4[t] = make_float4(w.x, w.y, w.z, w.w);
    assert(t < 1024);
    if (t == 0) printf("t=%d\n", t);
    __threadfence(); __threadfence_block(); __threadfence_system();
    long long c = clock64(); __nanosleep(10);
    if (c < 0) __trap();
}
