/* tp_emu.h: run CUDA C++ kernels on the CPU with g++ (tileport's numerical reference).
 *
 * Pre-included (g++ -include) into a user's .cu file after porter/verify/cuda_build.py has
 * rewritten the few constructs a macro cannot express (kernel<<<...>>> launches, extern __shared__
 * arrays). Execution model, implemented in tp_emu_runtime.cpp:
 *   - one OS thread; blocks run one after another; each CUDA thread of a block is a fiber;
 *   - __syncthreads() / warp shuffles and votes switch fibers (cooperative, never preemptive),
 *     so every atomic is trivially atomic and results are deterministic;
 *   - __shared__ variables are plain statics: one copy, reused by each block in turn.
 * The builtin index variables (threadIdx, ...) and the scheduler live in a separate, tiny runtime
 * .so so that every kernel build shares one scheduler and one set of builtins.
 */
#ifndef TP_EMU_H
#define TP_EMU_H 1

/* Standard headers first: several libstdc++ headers spell __noinline__ etc. themselves, so they
 * must be parsed before those words become macros below. */
#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cassert>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <limits>
#include <math.h>
#include <memory>
#include <source_location>
#include <stdint.h>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

/* C++20's <math.h> puts std::lerp (and friends) in the global namespace, where CUDA code written
 * for nvcc's C++17 often defines its own: the user's gets another name instead. */
#define lerp tp_user_lerp

/* ======================================================================================
 * Part 1: the ABI shared with tp_emu_runtime.cpp
 * ====================================================================================== */

struct uint3 {
  unsigned int x, y, z;
};

struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
};

/* One lane's part in a warp collective (shuffle, vote, __syncwarp, match, reduce). */
struct tp_warp_req {
  int op;                   /* TP_W_* */
  unsigned mask;            /* member mask given by the caller */
  int arg;                  /* source lane, delta or lane mask */
  int width;                /* shuffle segment width */
  unsigned long long value; /* this lane's contribution (raw bytes, zero padded) */
  unsigned long long result;
  int pred_out; /* __match_all_sync's predicate */
  const char *file;
  unsigned line;
  const char *what; /* name shown in deadlock reports */
};

enum {
  TP_W_SYNC = 0,
  TP_W_SHFL_IDX,
  TP_W_SHFL_UP,
  TP_W_SHFL_DOWN,
  TP_W_SHFL_XOR,
  TP_W_BALLOT,
  TP_W_ANY,
  TP_W_ALL,
  TP_W_MATCH_ANY,
  TP_W_MATCH_ALL,
  TP_W_REDUCE_ADD,
  TP_W_REDUCE_MIN_U,
  TP_W_REDUCE_MIN_I,
  TP_W_REDUCE_MAX_U,
  TP_W_REDUCE_MAX_I,
  TP_W_REDUCE_AND,
  TP_W_REDUCE_OR,
  TP_W_REDUCE_XOR,
};

/* __syncthreads() flavours */
enum { TP_BAR_SYNC = 0, TP_BAR_COUNT, TP_BAR_AND, TP_BAR_OR };

/* tp_rt_launch() status codes (also used by the Python side) */
enum {
  TP_RT_OK = 0,
  TP_RT_BAD_CONFIG = 1, /* invalid grid/block/shared-memory size */
  TP_RT_DEADLOCK = 3,   /* barrier deadlock or divergent __syncthreads() */
  TP_RT_UNSUPPORTED = 4,
};

#define TP_MAX_DYN_SMEM (256 * 1024)

typedef void (*tp_body_fn)(void *ctx);

#pragma GCC visibility push(default)
extern "C" {
extern uint3 threadIdx;
extern uint3 blockIdx;
extern dim3 blockDim;
extern dim3 gridDim;
/* the dynamic shared memory of the running block (extern __shared__ arrays point here) */
extern unsigned char tp_dyn_smem[TP_MAX_DYN_SMEM];

/* Run body(ctx) once per CUDA thread over the grid; returns a TP_RT_* status. */
int tp_rt_launch(tp_body_fn body, void *ctx, dim3 grid, dim3 block, size_t dyn_smem_bytes);
const char *tp_rt_error_message(void);
const char *tp_rt_error_file(void);
unsigned tp_rt_error_line(void);
/* Block barrier; returns the count/and/or result for the TP_BAR_* flavour. */
int tp_rt_barrier(int kind, int pred, const char *file, unsigned line);
void tp_rt_warp_collective(tp_warp_req *req);
/* Let the other threads of the block run (used by __nanosleep and spin hints). */
void tp_rt_yield(void);
/* Lanes of the calling thread's warp that exist and have not exited. */
unsigned tp_rt_live_lanes(void);
/* Tell the crash handler about a guarded argument buffer so it can name it. */
void tp_rt_note_buffer(const void *begin, size_t nbytes, const char *label);
/* Abort the launch from device code with a TP_RT_* status (for features that cannot be emulated). */
[[noreturn]] void tp_rt_fail(int code, const char *msg, const char *file, unsigned line);
}
#pragma GCC visibility pop

#ifndef TP_EMU_BUILDING_RUNTIME

/* ======================================================================================
 * Part 2: CUDA language, device API and host runtime stubs
 * ====================================================================================== */

#define __CUDACC__ 1
#define __NVCC__ 1
#define __CUDACC_VER_MAJOR__ 12
#define __CUDACC_VER_MINOR__ 0
#define CUDART_VERSION 12000
#define CUDA_VERSION 12000
#define TILEPORT_CPU_EMULATION 1

#define __global__
#define __device__
#define __host__
#define __managed__
#define __constant__
#define __shared__ static /* one copy, reused by each block in turn (blocks run one at a time) */
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __inline_hint__ inline
#define __launch_bounds__(...)
#define __maxnreg__(...)
#define __cluster_dims__(...)
#define __grid_constant__
#define __align__(n) __attribute__((aligned(n)))
#define __device_builtin__
#define __cudart_builtin__
#define __builtin_align__(n) __attribute__((aligned(n)))
#define CUDARTAPI
#if !__has_builtin(__builtin_assume)
#define __builtin_assume(x) ((void)0)
#endif

constexpr int warpSize = 32;

/* ---------------------------------------------------------------- small helpers */
namespace tp {

template <class T> inline T bits_as(const void *p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

/* float -> bfloat16 bits, round to nearest even (what the GPU does), NaN stays NaN */
inline unsigned short f2bf(float f) {
  unsigned int u = std::bit_cast<unsigned int>(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return (unsigned short)(u >> 16);
}
inline float bf2f(unsigned short b) { return std::bit_cast<float>((unsigned int)b << 16); }

} // namespace tp

/* ---------------------------------------------------------------- vector types */
#define TP_VEC1(T, N, A)                                                                          \
  struct alignas(A) N##1 { T x; };                                                                 \
  inline constexpr N##1 make_##N##1(T x) { return N##1{x}; }
#define TP_VEC2(T, N, A)                                                                          \
  struct alignas(A) N##2 { T x, y; };                                                              \
  inline constexpr N##2 make_##N##2(T x, T y) { return N##2{x, y}; }
#define TP_VEC3(T, N)                                                                             \
  struct N##3 { T x, y, z; };                                                                      \
  inline constexpr N##3 make_##N##3(T x, T y, T z) { return N##3{x, y, z}; }
#define TP_VEC4(T, N, A)                                                                          \
  struct alignas(A) N##4 { T x, y, z, w; };                                                        \
  inline constexpr N##4 make_##N##4(T x, T y, T z, T w) { return N##4{x, y, z, w}; }
#define TP_VECS(T, N, A1, A2, A4) TP_VEC1(T, N, A1) TP_VEC2(T, N, A2) TP_VEC3(T, N) TP_VEC4(T, N, A4)

TP_VECS(signed char, char, 1, 2, 4)
TP_VECS(unsigned char, uchar, 1, 2, 4)
TP_VECS(short, short, 2, 4, 8)
TP_VECS(unsigned short, ushort, 2, 4, 8)
TP_VECS(int, int, 4, 8, 16)
TP_VEC1(unsigned int, uint, 4) TP_VEC2(unsigned int, uint, 8) TP_VEC4(unsigned int, uint, 16)
TP_VECS(long, long, 8, 16, 16)
TP_VECS(unsigned long, ulong, 8, 16, 16)
TP_VECS(long long, longlong, 8, 16, 16)
TP_VECS(unsigned long long, ulonglong, 8, 16, 16)
TP_VECS(float, float, 4, 8, 16)
TP_VECS(double, double, 8, 16, 16)
#undef TP_VECS
#undef TP_VEC1
#undef TP_VEC2
#undef TP_VEC3
#undef TP_VEC4
inline constexpr uint3 make_uint3(unsigned x, unsigned y, unsigned z) { return uint3{x, y, z}; }
inline constexpr dim3 make_dim3(unsigned x, unsigned y, unsigned z) { return dim3(x, y, z); }

/* ---------------------------------------------------------------- __half (IEEE binary16) */
/* _Float16: g++ rounds after every operation, like the GPU's half arithmetic. */
typedef _Float16 __half;
typedef _Float16 half;
struct __half_raw {
  unsigned short x;
};
/* the two-half constructor of cuda_fp16.hpp (`half2 v(0.f, 0.f)`); the parse shim declares the same */
struct alignas(4) __half2 {
  __half x, y;
  __half2() = default;
  constexpr __half2(__half a, __half b) : x(a), y(b) {}
};
typedef __half2 half2;
struct __half2_raw {
  unsigned short x, y;
};

inline __half __float2half(float f) { return (__half)f; }
inline __half __float2half_rn(float f) { return (__half)f; }
inline __half __float2half_rz(float f) {
  __half h = (__half)f;
  if (std::fabs((float)h) > std::fabs(f)) /* rounded away from zero: step back one ulp */
    h = std::bit_cast<__half>((unsigned short)(std::bit_cast<unsigned short>(h) - 1));
  return h;
}
inline __half __double2half(double d) { return (__half)d; }
inline float __half2float(__half h) { return (float)h; }
inline float __low2float(__half2 h) { return (float)h.x; }
inline float __high2float(__half2 h) { return (float)h.y; }
inline __half __int2half_rn(int i) { return (__half)i; }
inline __half __uint2half_rn(unsigned i) { return (__half)i; }
inline __half __short2half_rn(short i) { return (__half)i; }
inline int __half2int_rn(__half h) { return (int)std::nearbyint((float)h); }
inline int __half2int_rz(__half h) { return (int)(float)h; }
inline unsigned __half2uint_rn(__half h) { return (unsigned)std::nearbyint((float)h); }
inline short __half2short_rn(__half h) { return (short)std::nearbyint((float)h); }
inline unsigned short __half_as_ushort(__half h) { return std::bit_cast<unsigned short>(h); }
inline short __half_as_short(__half h) { return std::bit_cast<short>(h); }
inline __half __ushort_as_half(unsigned short u) { return std::bit_cast<__half>(u); }
inline __half __short_as_half(short u) { return std::bit_cast<__half>(u); }
inline __half __hadd(__half a, __half b) { return a + b; }
inline __half __hsub(__half a, __half b) { return a - b; }
inline __half __hmul(__half a, __half b) { return a * b; }
inline __half __hdiv(__half a, __half b) { return a / b; }
inline __half __hneg(__half a) { return -a; }
inline __half __habs(__half a) { return (__half)std::fabs((float)a); }
inline __half __hfma(__half a, __half b, __half c) {
  return (__half)std::fma((float)a, (float)b, (float)c);
}
inline __half __tp_sat(__half a) { return a < (__half)0 ? (__half)0 : a > (__half)1 ? (__half)1 : a; }
inline __half __hadd_sat(__half a, __half b) { return __tp_sat(a + b); }
inline __half __hsub_sat(__half a, __half b) { return __tp_sat(a - b); }
inline __half __hmul_sat(__half a, __half b) { return __tp_sat(a * b); }
inline __half __hfma_sat(__half a, __half b, __half c) { return __tp_sat(__hfma(a, b, c)); }
inline __half __hfma_relu(__half a, __half b, __half c) {
  __half r = __hfma(a, b, c);
  return r < (__half)0 ? (__half)0 : r;
}
inline __half __hmax(__half a, __half b) { return (__half)std::fmax((float)a, (float)b); }
inline __half __hmin(__half a, __half b) { return (__half)std::fmin((float)a, (float)b); }
inline __half __hmax_nan(__half a, __half b) { return (a != a || b != b) ? a + b : __hmax(a, b); }
inline __half __hmin_nan(__half a, __half b) { return (a != a || b != b) ? a + b : __hmin(a, b); }
inline bool __heq(__half a, __half b) { return a == b; }
inline bool __hne(__half a, __half b) { return a != b; }
inline bool __hlt(__half a, __half b) { return a < b; }
inline bool __hle(__half a, __half b) { return a <= b; }
inline bool __hgt(__half a, __half b) { return a > b; }
inline bool __hge(__half a, __half b) { return a >= b; }
inline bool __hisnan(__half a) { return a != a; }
inline int __hisinf(__half a) {
  float f = (float)a;
  return std::isinf(f) ? (f > 0 ? 1 : -1) : 0;
}
#define TP_HALF_FN(name, expr)                                                                    \
  inline __half name(__half h) {                                                                   \
    float x = (float)h;                                                                            \
    return (__half)(expr);                                                                         \
  }
TP_HALF_FN(hexp, std::exp(x))
TP_HALF_FN(hexp2, std::exp2(x))
TP_HALF_FN(hexp10, std::pow(10.0f, x))
TP_HALF_FN(hlog, std::log(x))
TP_HALF_FN(hlog2, std::log2(x))
TP_HALF_FN(hlog10, std::log10(x))
TP_HALF_FN(hsqrt, std::sqrt(x))
TP_HALF_FN(hrsqrt, 1.0f / std::sqrt(x))
TP_HALF_FN(hrcp, 1.0f / x)
TP_HALF_FN(hsin, std::sin(x))
TP_HALF_FN(hcos, std::cos(x))
TP_HALF_FN(htanh, std::tanh(x))
TP_HALF_FN(hfloor, std::floor(x))
TP_HALF_FN(hceil, std::ceil(x))
TP_HALF_FN(htrunc, std::trunc(x))
TP_HALF_FN(hrint, std::nearbyint(x))
TP_HALF_FN(habs, std::fabs(x))
#undef TP_HALF_FN

inline __half2 __halves2half2(__half a, __half b) { return __half2{a, b}; }
inline __half2 __half2half2(__half a) { return __half2{a, a}; }
inline __half2 __float2half2_rn(float a) { return __half2{(__half)a, (__half)a}; }
inline __half2 __floats2half2_rn(float a, float b) { return __half2{(__half)a, (__half)b}; }
inline __half2 __float22half2_rn(float2 v) { return __half2{(__half)v.x, (__half)v.y}; }
inline float2 __half22float2(__half2 h) { return float2{(float)h.x, (float)h.y}; }
inline __half __low2half(__half2 h) { return h.x; }
inline __half __high2half(__half2 h) { return h.y; }
inline __half2 __low2half2(__half2 h) { return __half2{h.x, h.x}; }
inline __half2 __high2half2(__half2 h) { return __half2{h.y, h.y}; }
inline __half2 __lows2half2(__half2 a, __half2 b) { return __half2{a.x, b.x}; }
inline __half2 __highs2half2(__half2 a, __half2 b) { return __half2{a.y, b.y}; }
inline __half2 __lowhigh2highlow(__half2 h) { return __half2{h.y, h.x}; }
inline __half2 __hadd2(__half2 a, __half2 b) { return __half2{a.x + b.x, a.y + b.y}; }
inline __half2 __hsub2(__half2 a, __half2 b) { return __half2{a.x - b.x, a.y - b.y}; }
inline __half2 __hmul2(__half2 a, __half2 b) { return __half2{a.x * b.x, a.y * b.y}; }
inline __half2 __h2div(__half2 a, __half2 b) { return __half2{a.x / b.x, a.y / b.y}; }
inline __half2 __hneg2(__half2 a) { return __half2{-a.x, -a.y}; }
inline __half2 __habs2(__half2 a) { return __half2{__habs(a.x), __habs(a.y)}; }
inline __half2 __hfma2(__half2 a, __half2 b, __half2 c) {
  return __half2{__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)};
}
inline __half2 __hmax2(__half2 a, __half2 b) { return __half2{__hmax(a.x, b.x), __hmax(a.y, b.y)}; }
inline __half2 __hmin2(__half2 a, __half2 b) { return __half2{__hmin(a.x, b.x), __hmin(a.y, b.y)}; }
inline __half2 h2exp(__half2 a) { return __half2{hexp(a.x), hexp(a.y)}; }
inline __half2 h2sqrt(__half2 a) { return __half2{hsqrt(a.x), hsqrt(a.y)}; }
inline __half2 h2rsqrt(__half2 a) { return __half2{hrsqrt(a.x), hrsqrt(a.y)}; }
inline __half2 operator+(__half2 a, __half2 b) { return __hadd2(a, b); }
inline __half2 operator-(__half2 a, __half2 b) { return __hsub2(a, b); }
inline __half2 operator*(__half2 a, __half2 b) { return __hmul2(a, b); }
inline __half2 operator/(__half2 a, __half2 b) { return __h2div(a, b); }
inline __half2 operator-(__half2 a) { return __hneg2(a); }
inline __half2 &operator+=(__half2 &a, __half2 b) { return a = a + b; }
inline __half2 &operator-=(__half2 &a, __half2 b) { return a = a - b; }
inline __half2 &operator*=(__half2 &a, __half2 b) { return a = a * b; }
inline __half2 &operator/=(__half2 &a, __half2 b) { return a = a / b; }
#define CUDART_ZERO_FP16 ((__half)0.0f)
#define CUDART_ONE_FP16 ((__half)1.0f)
#define CUDART_INF_FP16 __ushort_as_half((unsigned short)0x7C00U)
#define CUDART_NAN_FP16 __ushort_as_half((unsigned short)0x7FFFU)
#define CUDART_MAX_NORMAL_FP16 __ushort_as_half((unsigned short)0x7BFFU)

/* ---------------------------------------------------------------- __nv_bfloat16 */
/* 16-bit storage; arithmetic in float, rounded to nearest even after every operation.
 * Operators only match when both sides are bfloat16 (templates do not convert), so mixed
 * expressions such as b * 2.0f fall back to float arithmetic instead of being ambiguous. */
struct __nv_bfloat16_raw {
  unsigned short x;
};
struct alignas(2) __nv_bfloat16 {
  unsigned short __x;
  __nv_bfloat16() = default;
  __nv_bfloat16(float f) : __x(tp::f2bf(f)) {}
  __nv_bfloat16(double f) : __x(tp::f2bf((float)f)) {}
  __nv_bfloat16(int i) : __x(tp::f2bf((float)i)) {}
  __nv_bfloat16(unsigned i) : __x(tp::f2bf((float)i)) {}
  __nv_bfloat16(long long i) : __x(tp::f2bf((float)i)) {}
  __nv_bfloat16(unsigned long long i) : __x(tp::f2bf((float)i)) {}
  __nv_bfloat16(__half h) : __x(tp::f2bf((float)h)) {}
  __nv_bfloat16(__nv_bfloat16_raw r) : __x(r.x) {}
  operator float() const { return tp::bf2f(__x); }
  operator __nv_bfloat16_raw() const { return __nv_bfloat16_raw{__x}; }
  __nv_bfloat16 &operator+=(float v) { return *this = __nv_bfloat16(float(*this) + v); }
  __nv_bfloat16 &operator-=(float v) { return *this = __nv_bfloat16(float(*this) - v); }
  __nv_bfloat16 &operator*=(float v) { return *this = __nv_bfloat16(float(*this) * v); }
  __nv_bfloat16 &operator/=(float v) { return *this = __nv_bfloat16(float(*this) / v); }
  __nv_bfloat16 operator-() const {
    __nv_bfloat16 r;
    r.__x = (unsigned short)(__x ^ 0x8000u);
    return r;
  }
  __nv_bfloat16 operator+() const { return *this; }
};
typedef __nv_bfloat16 nv_bfloat16;
template <class T>
  requires std::is_same_v<T, __nv_bfloat16>
inline T operator+(T a, T b) { return T(float(a) + float(b)); }
template <class T>
  requires std::is_same_v<T, __nv_bfloat16>
inline T operator-(T a, T b) { return T(float(a) - float(b)); }
template <class T>
  requires std::is_same_v<T, __nv_bfloat16>
inline T operator*(T a, T b) { return T(float(a) * float(b)); }
template <class T>
  requires std::is_same_v<T, __nv_bfloat16>
inline T operator/(T a, T b) { return T(float(a) / float(b)); }

struct alignas(4) __nv_bfloat162 {
  __nv_bfloat16 x, y;
  __nv_bfloat162() = default;
  constexpr __nv_bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) : x(a), y(b) {}
};
typedef __nv_bfloat162 nv_bfloat162;

inline __nv_bfloat16 __float2bfloat16(float f) { return __nv_bfloat16(f); }
inline __nv_bfloat16 __float2bfloat16_rn(float f) { return __nv_bfloat16(f); }
inline __nv_bfloat16 __float2bfloat16_rz(float f) {
  __nv_bfloat16 r;
  r.__x = (unsigned short)(std::bit_cast<unsigned int>(f) >> 16);
  return r;
}
inline __nv_bfloat16 __double2bfloat16(double d) { return __nv_bfloat16((float)d); }
inline __nv_bfloat16 __int2bfloat16_rn(int i) { return __nv_bfloat16((float)i); }
inline float __bfloat162float(__nv_bfloat16 b) { return float(b); }
inline int __bfloat162int_rn(__nv_bfloat16 b) { return (int)std::nearbyint(float(b)); }
inline int __bfloat162int_rz(__nv_bfloat16 b) { return (int)float(b); }
inline unsigned short __bfloat16_as_ushort(__nv_bfloat16 b) { return b.__x; }
inline short __bfloat16_as_short(__nv_bfloat16 b) { return (short)b.__x; }
inline __nv_bfloat16 __ushort_as_bfloat16(unsigned short u) {
  __nv_bfloat16 r;
  r.__x = u;
  return r;
}
inline __nv_bfloat16 __short_as_bfloat16(short u) { return __ushort_as_bfloat16((unsigned short)u); }
inline __nv_bfloat16 __hadd(__nv_bfloat16 a, __nv_bfloat16 b) { return a + b; }
inline __nv_bfloat16 __hsub(__nv_bfloat16 a, __nv_bfloat16 b) { return a - b; }
inline __nv_bfloat16 __hmul(__nv_bfloat16 a, __nv_bfloat16 b) { return a * b; }
inline __nv_bfloat16 __hdiv(__nv_bfloat16 a, __nv_bfloat16 b) { return a / b; }
inline __nv_bfloat16 __hneg(__nv_bfloat16 a) { return -a; }
inline __nv_bfloat16 __habs(__nv_bfloat16 a) { return __ushort_as_bfloat16(a.__x & 0x7fffu); }
inline __nv_bfloat16 __hfma(__nv_bfloat16 a, __nv_bfloat16 b, __nv_bfloat16 c) {
  return __nv_bfloat16(std::fma(float(a), float(b), float(c)));
}
inline __nv_bfloat16 __hmax(__nv_bfloat16 a, __nv_bfloat16 b) { return std::fmax(float(a), float(b)); }
inline __nv_bfloat16 __hmin(__nv_bfloat16 a, __nv_bfloat16 b) { return std::fmin(float(a), float(b)); }
inline bool __heq(__nv_bfloat16 a, __nv_bfloat16 b) { return float(a) == float(b); }
inline bool __hne(__nv_bfloat16 a, __nv_bfloat16 b) { return float(a) != float(b); }
inline bool __hlt(__nv_bfloat16 a, __nv_bfloat16 b) { return float(a) < float(b); }
inline bool __hle(__nv_bfloat16 a, __nv_bfloat16 b) { return float(a) <= float(b); }
inline bool __hgt(__nv_bfloat16 a, __nv_bfloat16 b) { return float(a) > float(b); }
inline bool __hge(__nv_bfloat16 a, __nv_bfloat16 b) { return float(a) >= float(b); }
inline bool __hisnan(__nv_bfloat16 a) { return std::isnan(float(a)); }
#define TP_BF16_FN(name, expr)                                                                    \
  inline __nv_bfloat16 name(__nv_bfloat16 h) {                                                     \
    float x = float(h);                                                                            \
    return __nv_bfloat16((float)(expr));                                                           \
  }
TP_BF16_FN(hexp, std::exp(x))
TP_BF16_FN(hexp2, std::exp2(x))
TP_BF16_FN(hlog, std::log(x))
TP_BF16_FN(hlog2, std::log2(x))
TP_BF16_FN(hsqrt, std::sqrt(x))
TP_BF16_FN(hrsqrt, 1.0f / std::sqrt(x))
TP_BF16_FN(hrcp, 1.0f / x)
TP_BF16_FN(hsin, std::sin(x))
TP_BF16_FN(hcos, std::cos(x))
TP_BF16_FN(htanh, std::tanh(x))
TP_BF16_FN(hfloor, std::floor(x))
TP_BF16_FN(hceil, std::ceil(x))
TP_BF16_FN(htrunc, std::trunc(x))
TP_BF16_FN(hrint, std::nearbyint(x))
#undef TP_BF16_FN
inline __nv_bfloat162 __floats2bfloat162_rn(float a, float b) {
  return __nv_bfloat162{__nv_bfloat16(a), __nv_bfloat16(b)};
}
inline __nv_bfloat162 __float2bfloat162_rn(float a) {
  return __nv_bfloat162{__nv_bfloat16(a), __nv_bfloat16(a)};
}
inline __nv_bfloat162 __float22bfloat162_rn(float2 v) { return __floats2bfloat162_rn(v.x, v.y); }
inline __nv_bfloat162 __halves2bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) {
  return __nv_bfloat162{a, b};
}
inline __nv_bfloat162 __bfloat162bfloat162(__nv_bfloat16 a) { return __nv_bfloat162{a, a}; }
inline float2 __bfloat1622float2(__nv_bfloat162 h) { return float2{float(h.x), float(h.y)}; }
inline float __low2float(__nv_bfloat162 h) { return float(h.x); }
inline float __high2float(__nv_bfloat162 h) { return float(h.y); }
inline __nv_bfloat16 __low2bfloat16(__nv_bfloat162 h) { return h.x; }
inline __nv_bfloat16 __high2bfloat16(__nv_bfloat162 h) { return h.y; }
inline __nv_bfloat162 __hadd2(__nv_bfloat162 a, __nv_bfloat162 b) {
  return __nv_bfloat162{a.x + b.x, a.y + b.y};
}
inline __nv_bfloat162 __hsub2(__nv_bfloat162 a, __nv_bfloat162 b) {
  return __nv_bfloat162{a.x - b.x, a.y - b.y};
}
inline __nv_bfloat162 __hmul2(__nv_bfloat162 a, __nv_bfloat162 b) {
  return __nv_bfloat162{a.x * b.x, a.y * b.y};
}
inline __nv_bfloat162 __hfma2(__nv_bfloat162 a, __nv_bfloat162 b, __nv_bfloat162 c) {
  return __nv_bfloat162{__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)};
}
inline __nv_bfloat162 operator+(__nv_bfloat162 a, __nv_bfloat162 b) { return __hadd2(a, b); }
inline __nv_bfloat162 operator-(__nv_bfloat162 a, __nv_bfloat162 b) { return __hsub2(a, b); }
inline __nv_bfloat162 operator*(__nv_bfloat162 a, __nv_bfloat162 b) { return __hmul2(a, b); }

/* ---------------------------------------------------------------- math */
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
inline float rcbrtf(float x) { return 1.0f / std::cbrt(x); }
inline double rcbrt(double x) { return 1.0 / std::cbrt(x); }
inline float __expf(float x) { return std::exp(x); }
inline float __exp10f(float x) { return std::pow(10.0f, x); }
inline float __logf(float x) { return std::log(x); }
inline float __log2f(float x) { return std::log2(x); }
inline float __log10f(float x) { return std::log10(x); }
inline float __powf(float x, float y) { return std::pow(x, y); }
inline float __sinf(float x) { return std::sin(x); }
inline float __cosf(float x) { return std::cos(x); }
inline float __tanf(float x) { return std::tan(x); }
inline void __sincosf(float x, float *s, float *c) {
  *s = std::sin(x);
  *c = std::cos(x);
}
inline float __tanhf(float x) { return std::tanh(x); }
inline float __fdividef(float a, float b) { return a / b; }
inline float fdividef(float a, float b) { return a / b; }
inline float __frcp_rn(float x) { return 1.0f / x; }
inline float __frcp_rz(float x) { return 1.0f / x; }
inline float __frsqrt_rn(float x) { return 1.0f / std::sqrt(x); }
inline float __fsqrt_rn(float x) { return std::sqrt(x); }
inline float __fsqrt_rz(float x) { return std::sqrt(x); }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fadd_rz(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fmul_rz(float a, float b) { return a * b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }
inline float __fmaf_rz(float a, float b, float c) { return std::fma(a, b, c); }
inline float __fmaf_ieee_rn(float a, float b, float c) { return std::fma(a, b, c); }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dsub_rn(double a, double b) { return a - b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline double __ddiv_rn(double a, double b) { return a / b; }
inline double __drcp_rn(double x) { return 1.0 / x; }
inline double __dsqrt_rn(double x) { return std::sqrt(x); }
inline double __fma_rn(double a, double b, double c) { return std::fma(a, b, c); }
inline float __saturatef(float x) { return x >= 1.0f ? 1.0f : (x > 0.0f ? x : 0.0f); }
inline float normcdff(float x) { return 0.5f * std::erfc(-x * 0.70710678118654752f); }
inline double normcdf(double x) { return 0.5 * std::erfc(-x * 0.70710678118654752440); }
inline double erfinv(double y) {
  /* Newton iterations on erf from a rational first guess: plenty for a reference */
  if (y <= -1.0) return y == -1.0 ? -INFINITY : NAN;
  if (y >= 1.0) return y == 1.0 ? INFINITY : NAN;
  double w = -std::log((1.0 - y) * (1.0 + y)), x;
  x = (w < 5.0) ? y * (0.886226925 + w * 0.2) : (y > 0 ? 1.0 : -1.0) * std::sqrt(w - std::log(w));
  for (int i = 0; i < 60; ++i) {
    double err = std::erf(x) - y;
    double step = err / (1.1283791670955126 * std::exp(-x * x));
    x -= step;
    if (std::fabs(step) < 1e-16 * (1.0 + std::fabs(x))) break;
  }
  return x;
}
inline float erfinvf(float y) { return (float)erfinv((double)y); }
inline double erfcinv(double y) { return erfinv(1.0 - y); }
inline float erfcinvf(float y) { return (float)erfinv(1.0 - (double)y); }
inline double normcdfinv(double p) { return -1.4142135623730951 * erfcinv(2.0 * p); }
inline float normcdfinvf(float p) { return (float)normcdfinv((double)p); }
inline float rhypotf(float a, float b) { return 1.0f / std::hypot(a, b); }
inline double rhypot(double a, double b) { return 1.0 / std::hypot(a, b); }
inline float norm3df(float a, float b, float c) { return std::sqrt(a * a + b * b + c * c); }
inline float rnorm3df(float a, float b, float c) { return 1.0f / norm3df(a, b, c); }
inline float norm4df(float a, float b, float c, float d) {
  return std::sqrt(a * a + b * b + c * c + d * d);
}
inline float rnorm4df(float a, float b, float c, float d) { return 1.0f / norm4df(a, b, c, d); }
#if !defined(__GLIBC__) || !__GLIBC_PREREQ(2, 41) /* C23 sinpi & co. arrive in glibc 2.41 */
inline float sinpif(float x) { return (float)std::sin(M_PI * (double)x); }
inline float cospif(float x) { return (float)std::cos(M_PI * (double)x); }
inline double sinpi(double x) { return std::sin(M_PI * x); }
inline double cospi(double x) { return std::cos(M_PI * x); }
#endif
inline void sincospif(float x, float *s, float *c) {
  *s = (float)std::sin(M_PI * (double)x);
  *c = (float)std::cos(M_PI * (double)x);
}

/* conversions with an explicit rounding mode */
inline int __float2int_rn(float x) { return (int)std::nearbyint(x); }
inline int __float2int_rz(float x) { return (int)std::trunc(x); }
inline int __float2int_ru(float x) { return (int)std::ceil(x); }
inline int __float2int_rd(float x) { return (int)std::floor(x); }
inline unsigned __float2uint_rn(float x) { return (unsigned)std::nearbyint(x); }
inline unsigned __float2uint_rz(float x) { return (unsigned)std::trunc(x); }
inline unsigned __float2uint_ru(float x) { return (unsigned)std::ceil(x); }
inline unsigned __float2uint_rd(float x) { return (unsigned)std::floor(x); }
inline long long __float2ll_rn(float x) { return (long long)std::nearbyint(x); }
inline long long __float2ll_rz(float x) { return (long long)std::trunc(x); }
inline int __double2int_rn(double x) { return (int)std::nearbyint(x); }
inline int __double2int_rz(double x) { return (int)std::trunc(x); }
inline long long __double2ll_rn(double x) { return (long long)std::nearbyint(x); }
inline float __double2float_rn(double x) { return (float)x; }
inline float __int2float_rn(int x) { return (float)x; }
inline float __uint2float_rn(unsigned x) { return (float)x; }
inline float __ll2float_rn(long long x) { return (float)x; }
inline float __ull2float_rn(unsigned long long x) { return (float)x; }
inline double __int2double_rn(int x) { return (double)x; }
inline double __ll2double_rn(long long x) { return (double)x; }
inline int __float_as_int(float x) { return std::bit_cast<int>(x); }
inline unsigned __float_as_uint(float x) { return std::bit_cast<unsigned>(x); }
inline float __int_as_float(int x) { return std::bit_cast<float>(x); }
inline float __uint_as_float(unsigned x) { return std::bit_cast<float>(x); }
inline long long __double_as_longlong(double x) { return std::bit_cast<long long>(x); }
inline double __longlong_as_double(long long x) { return std::bit_cast<double>(x); }
inline int __double2hiint(double x) { return (int)(std::bit_cast<unsigned long long>(x) >> 32); }
inline int __double2loint(double x) { return (int)std::bit_cast<unsigned long long>(x); }
inline double __hiloint2double(int hi, int lo) {
  return std::bit_cast<double>(((unsigned long long)(unsigned)hi << 32) | (unsigned)lo);
}

/* integer intrinsics */
inline int __popc(unsigned x) { return std::popcount(x); }
inline int __popcll(unsigned long long x) { return std::popcount(x); }
inline int __clz(int x) { return std::countl_zero((unsigned)x); }
inline int __clzll(long long x) { return std::countl_zero((unsigned long long)x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned __brev(unsigned x) {
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0F0F0F0Fu) | ((x & 0x0F0F0F0Fu) << 4);
  return __builtin_bswap32(x);
}
inline unsigned long long __brevll(unsigned long long x) {
  return ((unsigned long long)__brev((unsigned)x) << 32) | __brev((unsigned)(x >> 32));
}
inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
  unsigned long long v = ((unsigned long long)y << 32) | x;
  unsigned r = 0;
  for (int i = 0; i < 4; ++i) r |= (unsigned)((v >> (8 * ((s >> (4 * i)) & 7))) & 0xffu) << (8 * i);
  return r;
}
inline int __mul24(int a, int b) { return (int)(((long long)(a << 8) >> 8) * ((long long)(b << 8) >> 8)); }
inline unsigned __umul24(unsigned a, unsigned b) { return (a & 0xffffffu) * (b & 0xffffffu); }
inline int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
inline unsigned __umulhi(unsigned a, unsigned b) {
  return (unsigned)(((unsigned long long)a * b) >> 32);
}
inline long long __mul64hi(long long a, long long b) { return (long long)(((__int128)a * b) >> 64); }
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
inline unsigned __sad(int x, int y, unsigned z) { return z + (unsigned)(x > y ? x - y : y - x); }
inline unsigned __usad(unsigned x, unsigned y, unsigned z) { return z + (x > y ? x - y : y - x); }
inline int __hadd(int a, int b) { return (int)(((long long)a + b) >> 1); }
inline int __rhadd(int a, int b) { return (int)(((long long)a + b + 1) >> 1); }
inline unsigned __uhadd(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a + b) >> 1); }
inline unsigned __urhadd(unsigned a, unsigned b) {
  return (unsigned)(((unsigned long long)a + b + 1) >> 1);
}
inline unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned s) {
  return (unsigned)(((((unsigned long long)hi << 32) | lo) << (s & 31)) >> 32);
}
inline unsigned __funnelshift_lc(unsigned lo, unsigned hi, unsigned s) {
  return s >= 32 ? lo : __funnelshift_l(lo, hi, s);
}
inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned s) {
  return (unsigned)((((unsigned long long)hi << 32) | lo) >> (s & 31));
}
inline unsigned __funnelshift_rc(unsigned lo, unsigned hi, unsigned s) {
  return s >= 32 ? hi : __funnelshift_r(lo, hi, s);
}

/* CUDA's global min/max overloads (std::min needs identical types; CUDA code does not) */
#define TP_MINMAX(R, A, B)                                                                        \
  inline R min(A a, B b) { return (R)a < (R)b ? (R)a : (R)b; }                                    \
  inline R max(A a, B b) { return (R)a > (R)b ? (R)a : (R)b; }
TP_MINMAX(int, int, int)
TP_MINMAX(unsigned, unsigned, unsigned)
TP_MINMAX(unsigned, int, unsigned)
TP_MINMAX(unsigned, unsigned, int)
TP_MINMAX(long, long, long)
TP_MINMAX(unsigned long, unsigned long, unsigned long)
TP_MINMAX(unsigned long, long, unsigned long)
TP_MINMAX(unsigned long, unsigned long, long)
TP_MINMAX(long long, long long, long long)
TP_MINMAX(unsigned long long, unsigned long long, unsigned long long)
TP_MINMAX(unsigned long long, long long, unsigned long long)
TP_MINMAX(unsigned long long, unsigned long long, long long)
#undef TP_MINMAX
inline float min(float a, float b) { return std::fmin(a, b); }
inline float max(float a, float b) { return std::fmax(a, b); }
inline double min(double a, double b) { return std::fmin(a, b); }
inline double max(double a, double b) { return std::fmax(a, b); }
inline double min(float a, double b) { return std::fmin((double)a, b); }
inline double max(float a, double b) { return std::fmax((double)a, b); }
inline double min(double a, float b) { return std::fmin(a, (double)b); }
inline double max(double a, float b) { return std::fmax(a, (double)b); }
inline unsigned umin(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned umax(unsigned a, unsigned b) { return a > b ? a : b; }
inline long long llmin(long long a, long long b) { return a < b ? a : b; }
inline long long llmax(long long a, long long b) { return a > b ? a : b; }
inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }

/* ---------------------------------------------------------------- memory access hints */
template <class T> inline T __ldg(const T *p) { return *p; }
template <class T> inline T __ldcg(const T *p) { return *p; }
template <class T> inline T __ldca(const T *p) { return *p; }
template <class T> inline T __ldcs(const T *p) { return *p; }
template <class T> inline T __ldlu(const T *p) { return *p; }
template <class T> inline T __ldcv(const T *p) { return *p; }
template <class T> inline void __stcg(T *p, T v) { *p = v; }
template <class T> inline void __stcs(T *p, T v) { *p = v; }
template <class T> inline void __stwb(T *p, T v) { *p = v; }
template <class T> inline void __stwt(T *p, T v) { *p = v; }
#define __prefetch_global_l1(p) ((void)(p))
#define __prefetch_global_l2(p) ((void)(p))

/* ---------------------------------------------------------------- synchronisation */
inline void __syncthreads(std::source_location l = std::source_location::current()) {
  tp_rt_barrier(TP_BAR_SYNC, 1, l.file_name(), l.line());
}
inline int __syncthreads_count(int p, std::source_location l = std::source_location::current()) {
  return tp_rt_barrier(TP_BAR_COUNT, p != 0, l.file_name(), l.line());
}
inline int __syncthreads_and(int p, std::source_location l = std::source_location::current()) {
  return tp_rt_barrier(TP_BAR_AND, p != 0, l.file_name(), l.line());
}
inline int __syncthreads_or(int p, std::source_location l = std::source_location::current()) {
  return tp_rt_barrier(TP_BAR_OR, p != 0, l.file_name(), l.line());
}
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_block() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_system() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __nanosleep(unsigned) { tp_rt_yield(); }
[[noreturn]] inline void __trap() { std::abort(); }
inline void __brkpt() {}
inline long long clock64() { return (long long)std::clock(); }
inline unsigned long long __globaltimer() { return (unsigned long long)std::clock() * 1000ull; }
inline unsigned __activemask() { return tp_rt_live_lanes(); }
inline unsigned __tp_lane() { return (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) & 31u; }
inline unsigned __lanemask_eq() { return 1u << __tp_lane(); }
inline unsigned __lanemask_lt() { return (1u << __tp_lane()) - 1u; }
inline unsigned __lanemask_le() { return (2u << __tp_lane()) - 1u; }
inline unsigned __lanemask_gt() { return ~__lanemask_le(); }
inline unsigned __lanemask_ge() { return ~__lanemask_lt(); }

namespace tp {
/* Every warp collective goes through here: pack the value, let the runtime wait for the
 * other lanes of the group and compute this lane's result, unpack it. */
template <class T>
inline T warp_op(int op, unsigned mask, T v, int arg, int width, const char *what,
                 const std::source_location &l) {
  static_assert(sizeof(T) <= 8 && std::is_trivially_copyable_v<T>,
                "warp shuffles move at most 8 bytes per lane");
  tp_warp_req r{};
  r.op = op;
  r.mask = mask;
  r.arg = arg;
  r.width = width;
  std::memcpy(&r.value, &v, sizeof(T));
  r.file = l.file_name();
  r.line = l.line();
  r.what = what;
  tp_rt_warp_collective(&r);
  T out;
  std::memcpy(&out, &r.result, sizeof(T));
  return out;
}
} // namespace tp

#define TP_LOC std::source_location l = std::source_location::current()
inline void __syncwarp(unsigned mask = 0xffffffffu, TP_LOC) {
  tp::warp_op<int>(TP_W_SYNC, mask, 0, 0, 32, "__syncwarp()", l);
}
template <class T> inline T __shfl_sync(unsigned mask, T v, int src, int width = warpSize, TP_LOC) {
  return tp::warp_op<T>(TP_W_SHFL_IDX, mask, v, src, width, "__shfl_sync()", l);
}
template <class T> inline T __shfl_up_sync(unsigned mask, T v, unsigned d, int width = warpSize, TP_LOC) {
  return tp::warp_op<T>(TP_W_SHFL_UP, mask, v, (int)d, width, "__shfl_up_sync()", l);
}
template <class T> inline T __shfl_down_sync(unsigned mask, T v, unsigned d, int width = warpSize, TP_LOC) {
  return tp::warp_op<T>(TP_W_SHFL_DOWN, mask, v, (int)d, width, "__shfl_down_sync()", l);
}
template <class T> inline T __shfl_xor_sync(unsigned mask, T v, int m, int width = warpSize, TP_LOC) {
  return tp::warp_op<T>(TP_W_SHFL_XOR, mask, v, m, width, "__shfl_xor_sync()", l);
}
/* pre-CUDA-9 spellings: whole warp */
template <class T> inline T __shfl(T v, int src, int width = warpSize, TP_LOC) {
  return tp::warp_op<T>(TP_W_SHFL_IDX, 0xffffffffu, v, src, width, "__shfl()", l);
}
template <class T> inline T __shfl_up(T v, unsigned d, int width = warpSize, TP_LOC) {
  return tp::warp_op<T>(TP_W_SHFL_UP, 0xffffffffu, v, (int)d, width, "__shfl_up()", l);
}
template <class T> inline T __shfl_down(T v, unsigned d, int width = warpSize, TP_LOC) {
  return tp::warp_op<T>(TP_W_SHFL_DOWN, 0xffffffffu, v, (int)d, width, "__shfl_down()", l);
}
template <class T> inline T __shfl_xor(T v, int m, int width = warpSize, TP_LOC) {
  return tp::warp_op<T>(TP_W_SHFL_XOR, 0xffffffffu, v, m, width, "__shfl_xor()", l);
}
inline unsigned __ballot_sync(unsigned mask, int pred, TP_LOC) {
  return (unsigned)tp::warp_op<unsigned>(TP_W_BALLOT, mask, pred != 0, 0, 32, "__ballot_sync()", l);
}
inline int __any_sync(unsigned mask, int pred, TP_LOC) {
  return (int)tp::warp_op<unsigned>(TP_W_ANY, mask, pred != 0, 0, 32, "__any_sync()", l);
}
inline int __all_sync(unsigned mask, int pred, TP_LOC) {
  return (int)tp::warp_op<unsigned>(TP_W_ALL, mask, pred != 0, 0, 32, "__all_sync()", l);
}
inline int __uni_sync(unsigned mask, int pred, TP_LOC) {
  unsigned b = tp::warp_op<unsigned>(TP_W_BALLOT, mask, pred != 0, 0, 32, "__uni_sync()", l);
  return b == 0 || b == (mask & tp_rt_live_lanes());
}
inline unsigned __ballot(int pred, TP_LOC) {
  return tp::warp_op<unsigned>(TP_W_BALLOT, 0xffffffffu, pred != 0, 0, 32, "__ballot()", l);
}
inline int __any(int pred, TP_LOC) {
  return (int)tp::warp_op<unsigned>(TP_W_ANY, 0xffffffffu, pred != 0, 0, 32, "__any()", l);
}
inline int __all(int pred, TP_LOC) {
  return (int)tp::warp_op<unsigned>(TP_W_ALL, 0xffffffffu, pred != 0, 0, 32, "__all()", l);
}
template <class T> inline unsigned __match_any_sync(unsigned mask, T v, TP_LOC) {
  unsigned long long r = tp::warp_op<unsigned long long>(
      TP_W_MATCH_ANY, mask, tp::bits_as<unsigned long long>(&v) & (~0ull >> (64 - 8 * sizeof(T))),
      0, 32, "__match_any_sync()", l);
  return (unsigned)r;
}
template <class T> inline unsigned __match_all_sync(unsigned mask, T v, int *pred, TP_LOC) {
  tp_warp_req r{};
  r.op = TP_W_MATCH_ALL;
  r.mask = mask;
  r.width = 32;
  std::memcpy(&r.value, &v, sizeof(T));
  r.file = l.file_name();
  r.line = l.line();
  r.what = "__match_all_sync()";
  tp_rt_warp_collective(&r);
  *pred = r.pred_out;
  return (unsigned)r.result;
}
#define TP_WREDUCE(name, T, op)                                                                   \
  inline T name(unsigned mask, T v, TP_LOC) {                                                      \
    return tp::warp_op<T>(op, mask, v, 0, 32, #name "()", l);                                      \
  }
TP_WREDUCE(__reduce_add_sync, unsigned, TP_W_REDUCE_ADD)
TP_WREDUCE(__reduce_add_sync, int, TP_W_REDUCE_ADD)
TP_WREDUCE(__reduce_min_sync, unsigned, TP_W_REDUCE_MIN_U)
TP_WREDUCE(__reduce_min_sync, int, TP_W_REDUCE_MIN_I)
TP_WREDUCE(__reduce_max_sync, unsigned, TP_W_REDUCE_MAX_U)
TP_WREDUCE(__reduce_max_sync, int, TP_W_REDUCE_MAX_I)
TP_WREDUCE(__reduce_and_sync, unsigned, TP_W_REDUCE_AND)
TP_WREDUCE(__reduce_or_sync, unsigned, TP_W_REDUCE_OR)
TP_WREDUCE(__reduce_xor_sync, unsigned, TP_W_REDUCE_XOR)
#undef TP_WREDUCE
#undef TP_LOC

/* ---------------------------------------------------------------- atomics */
/* Fibers never preempt each other, so any read-modify-write is already atomic; std::atomic_ref
 * keeps that true should blocks ever run on several OS threads. The value parameter is a
 * non-deduced context so atomicAdd(&unsigned_counter, 1) works as it does in CUDA. */
namespace tp {
template <class T> using nd = std::type_identity_t<T>;
template <class T> constexpr bool native_atomic =
    std::is_integral_v<T> || std::is_same_v<T, float> || std::is_same_v<T, double>;
template <class T, class F> inline T atomic_rmw(T *p, F f) {
  if constexpr (sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8) {
    using U = std::conditional_t<sizeof(T) == 2, uint16_t,
                                 std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>;
    std::atomic_ref<U> a(*reinterpret_cast<U *>(p));
    U old = a.load(std::memory_order_relaxed);
    for (;;) {
      T o = std::bit_cast<T>(old);
      U n = std::bit_cast<U>(static_cast<T>(f(o)));
      if (a.compare_exchange_weak(old, n, std::memory_order_relaxed)) return o;
    }
  } else { /* vectors etc.: cooperative scheduling makes a plain update atomic */
    T o = *p;
    *p = f(o);
    return o;
  }
}
} // namespace tp

template <class T> inline T atomicAdd(T *p, tp::nd<T> v) {
  if constexpr (tp::native_atomic<T>)
    return std::atomic_ref<T>(*p).fetch_add(v, std::memory_order_relaxed);
  else
    return tp::atomic_rmw(p, [&](T o) { return T(o + v); });
}
inline float2 atomicAdd(float2 *p, float2 v) {
  float2 o = *p;
  *p = float2{o.x + v.x, o.y + v.y};
  return o;
}
inline float4 atomicAdd(float4 *p, float4 v) {
  float4 o = *p;
  *p = float4{o.x + v.x, o.y + v.y, o.z + v.z, o.w + v.w};
  return o;
}
inline __half2 atomicAdd(__half2 *p, __half2 v) {
  return tp::atomic_rmw(p, [&](__half2 o) { return __hadd2(o, v); });
}
inline __nv_bfloat162 atomicAdd(__nv_bfloat162 *p, __nv_bfloat162 v) {
  return tp::atomic_rmw(p, [&](__nv_bfloat162 o) { return __hadd2(o, v); });
}
template <class T> inline T atomicSub(T *p, tp::nd<T> v) {
  if constexpr (tp::native_atomic<T>)
    return std::atomic_ref<T>(*p).fetch_sub(v, std::memory_order_relaxed);
  else
    return tp::atomic_rmw(p, [&](T o) { return T(o - v); });
}
template <class T> inline T atomicExch(T *p, tp::nd<T> v) {
  if constexpr (tp::native_atomic<T>)
    return std::atomic_ref<T>(*p).exchange(v, std::memory_order_relaxed);
  else
    return tp::atomic_rmw(p, [&](T) { return v; });
}
template <class T> inline T atomicMax(T *p, tp::nd<T> v) {
  return tp::atomic_rmw(p, [&](T o) { return o < v ? v : o; });
}
template <class T> inline T atomicMin(T *p, tp::nd<T> v) {
  return tp::atomic_rmw(p, [&](T o) { return v < o ? v : o; });
}
template <class T> inline T atomicAnd(T *p, tp::nd<T> v) {
  return std::atomic_ref<T>(*p).fetch_and(v, std::memory_order_relaxed);
}
template <class T> inline T atomicOr(T *p, tp::nd<T> v) {
  return std::atomic_ref<T>(*p).fetch_or(v, std::memory_order_relaxed);
}
template <class T> inline T atomicXor(T *p, tp::nd<T> v) {
  return std::atomic_ref<T>(*p).fetch_xor(v, std::memory_order_relaxed);
}
template <class T> inline T atomicCAS(T *p, tp::nd<T> compare, tp::nd<T> v) {
  if constexpr (tp::native_atomic<T>) {
    std::atomic_ref<T>(*p).compare_exchange_strong(compare, v, std::memory_order_relaxed);
    return compare;
  } else {
    return tp::atomic_rmw(p, [&](T o) { return std::memcmp(&o, &compare, sizeof(T)) == 0 ? v : o; });
  }
}
/* 4-way byte dot product with a 32-bit accumulator (signed and unsigned forms) */
inline int __dp4a(int a, int b, int c) {
  for (int k = 0; k < 4; k++) c += (int)(signed char)(a >> (8 * k)) * (int)(signed char)(b >> (8 * k));
  return c;
}
inline unsigned __dp4a(unsigned a, unsigned b, unsigned c) {
  for (int k = 0; k < 4; k++) c += ((a >> (8 * k)) & 0xffu) * ((b >> (8 * k)) & 0xffu);
  return c;
}
inline unsigned atomicInc(unsigned *p, unsigned v) {
  return tp::atomic_rmw(p, [&](unsigned o) { return o >= v ? 0u : o + 1u; });
}
inline unsigned atomicDec(unsigned *p, unsigned v) {
  return tp::atomic_rmw(p, [&](unsigned o) { return (o == 0u || o > v) ? v : o - 1u; });
}
/* scoped variants (_block, _system) behave the same here */
#define TP_SCOPED(name)                                                                           \
  template <class T, class... A> inline auto name##_block(T *p, A... a) { return name(p, a...); } \
  template <class T, class... A> inline auto name##_system(T *p, A... a) { return name(p, a...); }
TP_SCOPED(atomicAdd)
TP_SCOPED(atomicSub)
TP_SCOPED(atomicExch)
TP_SCOPED(atomicMax)
TP_SCOPED(atomicMin)
TP_SCOPED(atomicAnd)
TP_SCOPED(atomicOr)
TP_SCOPED(atomicXor)
TP_SCOPED(atomicCAS)
TP_SCOPED(atomicInc)
TP_SCOPED(atomicDec)
#undef TP_SCOPED

namespace tp {
/* stops the launch: what cannot be emulated (also cuRAND's device API, include/curand_kernel.h) */
[[noreturn]] inline void unemulated(const char *what) {
  std::string message = std::string(what) + " is not emulated";
  tp_rt_fail(TP_RT_UNSUPPORTED, message.c_str(), "", 0);
}
} // namespace tp

/* ---------------------------------------------------------------- host runtime API stubs */
/* Enough of the CUDA runtime API that whole sample files compile; "device" memory is host
 * memory. tileport never runs host code, but a launch written in it would work. */
enum cudaError {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInitializationError = 3,
  cudaErrorLaunchFailure = 4,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidDevice = 101,
  cudaErrorNotSupported = 801,
  cudaErrorUnknown = 999,
};
typedef cudaError cudaError_t;
typedef int CUresult;
#define CUDA_SUCCESS 0
enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};
enum cudaFuncAttribute {
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
  cudaFuncAttributePreferredSharedMemoryCarveout = 9,
};
enum cudaFuncCache { cudaFuncCachePreferNone, cudaFuncCachePreferShared, cudaFuncCachePreferL1 };
enum cudaSharedMemConfig { cudaSharedMemBankSizeDefault, cudaSharedMemBankSizeFourByte };
enum cudaDeviceAttr {
  cudaDevAttrMaxThreadsPerBlock = 1,
  cudaDevAttrMaxSharedMemoryPerBlock = 8,
  cudaDevAttrWarpSize = 10,
  cudaDevAttrMultiProcessorCount = 16,
  cudaDevAttrComputeCapabilityMajor = 75,
  cudaDevAttrComputeCapabilityMinor = 76,
  cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
};
struct CUstream_st;
struct CUevent_st;
typedef CUstream_st *cudaStream_t;
typedef CUevent_st *cudaEvent_t;
#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
#define cudaEventDefault 0x00
#define cudaEventDisableTiming 0x02
#define cudaHostAllocDefault 0x00
#define cudaMemAttachGlobal 0x01
/* CUDA graph conditional nodes: a kernel sets the handle's value; never emulated (TP156) */
typedef unsigned long long cudaGraphConditionalHandle;
inline void cudaGraphSetConditional(cudaGraphConditionalHandle, unsigned int) {
  tp::unemulated("cudaGraphSetConditional (a CUDA graph's conditional node)");
}
/* 3-D extents and pitched pointers (cudaMalloc3D & co.); kernels take them by value */
struct cudaExtent {
  size_t width, height, depth;
};
struct cudaPos {
  size_t x, y, z;
};
struct cudaPitchedPtr {
  void *ptr;
  size_t pitch, xsize, ysize;
};
inline cudaExtent make_cudaExtent(size_t w, size_t h, size_t d) { return cudaExtent{w, h, d}; }
inline cudaPos make_cudaPos(size_t x, size_t y, size_t z) { return cudaPos{x, y, z}; }
inline cudaPitchedPtr make_cudaPitchedPtr(void *d, size_t p, size_t xsz, size_t ysz) {
  return cudaPitchedPtr{d, p, xsz, ysz};
}
struct cudaDeviceProp {
  char name[256] = "tileport CPU emulator";
  size_t totalGlobalMem = size_t(16) << 30;
  size_t sharedMemPerBlock = 48 * 1024;
  int regsPerBlock = 65536;
  int warpSize = 32;
  size_t memPitch = 0;
  int maxThreadsPerBlock = 1024;
  int maxThreadsDim[3] = {1024, 1024, 64};
  int maxGridSize[3] = {2147483647, 65535, 65535};
  int clockRate = 1000000;
  size_t totalConstMem = 65536;
  int major = 9;
  int minor = 0;
  int multiProcessorCount = 1;
  int memoryClockRate = 1000000;
  int memoryBusWidth = 64;
  int l2CacheSize = 1 << 20;
  int maxThreadsPerMultiProcessor = 2048;
  size_t sharedMemPerMultiprocessor = 228 * 1024;
  size_t sharedMemPerBlockOptin = 227 * 1024;
  int regsPerMultiprocessor = 65536;
  int concurrentKernels = 0;
  int integrated = 0;
  int unifiedAddressing = 1;
  int managedMemory = 1;
  int pciBusID = 0;
  int pciDeviceID = 0;
};
struct cudaFuncAttributes {
  size_t sharedSizeBytes = 0, constSizeBytes = 0, localSizeBytes = 0;
  int maxThreadsPerBlock = 1024, numRegs = 32, ptxVersion = 90, binaryVersion = 90;
  int maxDynamicSharedSizeBytes = 48 * 1024;
};

namespace tp {
inline cudaError_t &last_error() {
  static cudaError_t e = cudaSuccess;
  return e;
}
} // namespace tp

inline cudaError_t cudaMalloc(void **p, size_t n) {
  *p = std::calloc(n ? n : 1, 1);
  return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
template <class T> inline cudaError_t cudaMalloc(T **p, size_t n) {
  return cudaMalloc(reinterpret_cast<void **>(p), n);
}
template <class T> inline cudaError_t cudaMallocManaged(T **p, size_t n, unsigned = 1) {
  return cudaMalloc(reinterpret_cast<void **>(p), n);
}
template <class T> inline cudaError_t cudaMallocHost(T **p, size_t n) {
  return cudaMalloc(reinterpret_cast<void **>(p), n);
}
template <class T> inline cudaError_t cudaHostAlloc(T **p, size_t n, unsigned = 0) {
  return cudaMalloc(reinterpret_cast<void **>(p), n);
}
template <class T> inline cudaError_t cudaMallocPitch(T **p, size_t *pitch, size_t w, size_t h) {
  *pitch = w;
  return cudaMalloc(reinterpret_cast<void **>(p), w * h);
}
inline cudaError_t cudaFree(void *p) {
  std::free(p);
  return cudaSuccess;
}
inline cudaError_t cudaFreeHost(void *p) { return cudaFree(p); }
inline cudaError_t cudaMemcpy(void *d, const void *s, size_t n, cudaMemcpyKind) {
  if (n) std::memmove(d, s, n);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, cudaMemcpyKind k,
                                   cudaStream_t = nullptr) {
  return cudaMemcpy(d, s, n, k);
}
inline cudaError_t cudaMemcpy2D(void *d, size_t dp, const void *s, size_t sp, size_t w, size_t h,
                                cudaMemcpyKind) {
  for (size_t r = 0; r < h; ++r) std::memmove((char *)d + r * dp, (const char *)s + r * sp, w);
  return cudaSuccess;
}
inline cudaError_t cudaMemset(void *d, int v, size_t n) {
  if (n) std::memset(d, v, n);
  return cudaSuccess;
}
inline cudaError_t cudaMemsetAsync(void *d, int v, size_t n, cudaStream_t = nullptr) {
  return cudaMemset(d, v, n);
}
template <class T>
inline cudaError_t cudaMemcpyToSymbol(T &symbol, const void *src, size_t n, size_t offset = 0,
                                      cudaMemcpyKind = cudaMemcpyHostToDevice) {
  std::memcpy(reinterpret_cast<char *>(const_cast<std::remove_const_t<T> *>(&symbol)) + offset, src, n);
  return cudaSuccess;
}
template <class T>
inline cudaError_t cudaMemcpyToSymbolAsync(T &symbol, const void *src, size_t n, size_t offset = 0,
                                           cudaMemcpyKind k = cudaMemcpyHostToDevice,
                                           cudaStream_t = nullptr) {
  return cudaMemcpyToSymbol(symbol, src, n, offset, k);
}
template <class T>
inline cudaError_t cudaMemcpyFromSymbol(void *dst, const T &symbol, size_t n, size_t offset = 0,
                                        cudaMemcpyKind = cudaMemcpyDeviceToHost) {
  std::memcpy(dst, reinterpret_cast<const char *>(&symbol) + offset, n);
  return cudaSuccess;
}
template <class T> inline cudaError_t cudaGetSymbolAddress(void **p, const T &symbol) {
  *p = const_cast<void *>(static_cast<const void *>(&symbol));
  return cudaSuccess;
}
inline cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }
inline cudaError_t cudaThreadSynchronize() { return cudaSuccess; }
inline cudaError_t cudaDeviceReset() { return cudaSuccess; }
inline cudaError_t cudaSetDevice(int) { return cudaSuccess; }
inline cudaError_t cudaGetDevice(int *d) {
  *d = 0;
  return cudaSuccess;
}
inline cudaError_t cudaGetDeviceCount(int *n) {
  *n = 1;
  return cudaSuccess;
}
inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int) {
  *p = cudaDeviceProp{};
  return cudaSuccess;
}
inline cudaError_t cudaDeviceGetAttribute(int *v, cudaDeviceAttr a, int) {
  cudaDeviceProp p;
  switch (a) {
  case cudaDevAttrMaxThreadsPerBlock: *v = p.maxThreadsPerBlock; break;
  case cudaDevAttrMaxSharedMemoryPerBlock: *v = (int)p.sharedMemPerBlock; break;
  case cudaDevAttrWarpSize: *v = 32; break;
  case cudaDevAttrMultiProcessorCount: *v = p.multiProcessorCount; break;
  case cudaDevAttrComputeCapabilityMajor: *v = p.major; break;
  case cudaDevAttrComputeCapabilityMinor: *v = p.minor; break;
  case cudaDevAttrMaxSharedMemoryPerBlockOptin: *v = (int)p.sharedMemPerBlockOptin; break;
  default: *v = 0;
  }
  return cudaSuccess;
}
inline cudaError_t cudaMemGetInfo(size_t *free_b, size_t *total) {
  *free_b = *total = size_t(16) << 30;
  return cudaSuccess;
}
inline cudaError_t cudaGetLastError() {
  cudaError_t e = tp::last_error();
  tp::last_error() = cudaSuccess;
  return e;
}
inline cudaError_t cudaPeekAtLastError() { return tp::last_error(); }
inline const char *cudaGetErrorString(cudaError_t e) {
  switch (e) {
  case cudaSuccess: return "no error";
  case cudaErrorMemoryAllocation: return "out of memory";
  case cudaErrorLaunchFailure: return "unspecified launch failure";
  case cudaErrorInvalidConfiguration: return "invalid configuration argument";
  case cudaErrorInvalidValue: return "invalid argument";
  default: return "unknown error";
  }
}
inline const char *cudaGetErrorName(cudaError_t e) {
  return e == cudaSuccess ? "cudaSuccess" : "cudaErrorUnknown";
}
inline cudaError_t cudaStreamCreate(cudaStream_t *s) {
  *s = nullptr;
  return cudaSuccess;
}
inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned) { return cudaStreamCreate(s); }
inline cudaError_t cudaStreamDestroy(cudaStream_t) { return cudaSuccess; }
inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
inline cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned = 0) { return cudaSuccess; }
inline cudaError_t cudaEventCreate(cudaEvent_t *e) {
  *e = nullptr;
  return cudaSuccess;
}
inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned) { return cudaEventCreate(e); }
inline cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t = nullptr) { return cudaSuccess; }
inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
inline cudaError_t cudaEventQuery(cudaEvent_t) { return cudaSuccess; }
inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t, cudaEvent_t) {
  *ms = 0.0f;
  return cudaSuccess;
}
inline cudaError_t cudaEventDestroy(cudaEvent_t) { return cudaSuccess; }
template <class F> inline cudaError_t cudaFuncSetAttribute(F *, cudaFuncAttribute, int) {
  return cudaSuccess;
}
template <class F> inline cudaError_t cudaFuncSetCacheConfig(F *, cudaFuncCache) { return cudaSuccess; }
template <class F> inline cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *a, F *) {
  *a = cudaFuncAttributes{};
  return cudaSuccess;
}
inline cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache) { return cudaSuccess; }
inline cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig) { return cudaSuccess; }
template <class F>
inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *n, F *, int, size_t) {
  *n = 1;
  return cudaSuccess;
}
template <class F>
inline cudaError_t cudaOccupancyMaxPotentialBlockSize(int *min_grid, int *block, F *, size_t = 0,
                                                      int = 0) {
  *min_grid = 1;
  *block = 256;
  return cudaSuccess;
}
template <class T> inline cudaError_t cudaMallocAsync(T **p, size_t n, cudaStream_t = nullptr) {
  return cudaMalloc(reinterpret_cast<void **>(p), n);
}
inline cudaError_t cudaFreeAsync(void *p, cudaStream_t = nullptr) { return cudaFree(p); }
inline cudaError_t cudaMemPrefetchAsync(const void *, size_t, int, cudaStream_t = nullptr) {
  return cudaSuccess;
}
inline cudaError_t cudaMemAdvise(const void *, size_t, int, int) { return cudaSuccess; }
inline cudaError_t cudaSetDeviceFlags(unsigned) { return cudaSuccess; }
inline cudaError_t cudaHostRegister(void *, size_t, unsigned) { return cudaSuccess; }
inline cudaError_t cudaHostUnregister(void *) { return cudaSuccess; }
inline cudaError_t cudaDriverGetVersion(int *v) {
  *v = CUDART_VERSION;
  return cudaSuccess;
}
inline cudaError_t cudaRuntimeGetVersion(int *v) {
  *v = CUDART_VERSION;
  return cudaSuccess;
}
/* Launch through the runtime API: compiles, but only <<<>>> launches run under the emulator. */
template <class F>
inline cudaError_t cudaLaunchKernel(F *, dim3, dim3, void **, size_t = 0, cudaStream_t = nullptr) {
  return cudaErrorNotSupported;
}
template <class F>
inline cudaError_t cudaLaunchCooperativeKernel(F *, dim3, dim3, void **, size_t = 0,
                                               cudaStream_t = nullptr) {
  return cudaErrorNotSupported;
}
inline cudaError_t cudaProfilerStart() { return cudaSuccess; }
inline cudaError_t cudaProfilerStop() { return cudaSuccess; }

/* ---------------------------------------------------------------- textures and surfaces */
/* texture and surface objects, their fetches and their host API (after the stubs it builds on) */
#include "include/tp_texture.h"

/* ---------------------------------------------------------------- launching */
namespace tp {

/* Argument unpacking for the generated extern "C" launchers: a pointer parameter receives the
 * buffer address itself, any other parameter a pointer to its value. */
template <class T> inline T arg_ptr(void *p) {
  static_assert(std::is_pointer_v<T>, "tileport: the signature says pointer, the kernel does not");
  return (T)p;
}
template <class T> inline std::remove_cv_t<T> arg_val(void *p) {
  static_assert(!std::is_reference_v<T>, "tileport: reference kernel parameters are not supported");
  using V = std::remove_cv_t<T>;
  if constexpr (std::is_trivially_copyable_v<V> && std::is_default_constructible_v<V>) {
    V v;
    std::memcpy(&v, p, sizeof(V));
    return v;
  } else {
    return *static_cast<V *>(p);
  }
}

/* Run f() once per CUDA thread of the grid (the generated extern "C" launchers use this). */
template <class F> inline int run_grid(dim3 grid, dim3 block, size_t smem, F &f) {
  return tp_rt_launch([](void *c) { (*static_cast<F *>(c))(); }, &f, grid, block, smem);
}

struct LaunchConfig {
  dim3 grid, block;
  size_t smem;
};
inline LaunchConfig cfg(dim3 grid, dim3 block, size_t smem = 0, cudaStream_t = nullptr) {
  return LaunchConfig{grid, block, smem};
}

/* What a rewritten `k<<<cfg>>>(args)` becomes: launcher(cfg(...), call-k)(args). The arguments
 * are evaluated once, copied like kernel parameters, and every CUDA thread gets the copies. */
template <class K> struct HostLaunch {
  LaunchConfig c;
  K k;
  template <class... A> void operator()(A &&...a) {
    std::tuple<std::decay_t<A>...> args(std::forward<A>(a)...);
    auto body = [&] { std::apply(k, args); };
    if (run_grid(c.grid, c.block, c.smem, body) != TP_RT_OK) {
      std::fprintf(stderr, "tileport-emu: launch failed: %s\n", tp_rt_error_message());
      last_error() = cudaErrorLaunchFailure;
    }
  }
};
template <class K> inline HostLaunch<K> launcher(LaunchConfig c, K k) { return HostLaunch<K>{c, k}; }

} // namespace tp

#endif /* !TP_EMU_BUILDING_RUNTIME */
#endif /* TP_EMU_H */
