/* tileport's parse shim: lets libclang read CUDA C++ with no CUDA install.
 * Pre-included with -include; defines the CUDA keywords as clang attributes and declares
 * the device runtime API, so kernels parse with full types and zero diagnostics. */
#pragma once
#include <new>
#include <cassert>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <climits>
#include <cfloat>
#include <ctime>

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __restrict__ __restrict
#define __align__(n) __attribute__((aligned(n)))
#define __grid_constant__
#define __CUDACC__ 1
#define __NVCC__ 1
#define CUDART_VERSION 12000

struct uint3 { unsigned int x, y, z; };
struct dim3 {
  unsigned int x, y, z;
  __host__ __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  __host__ __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
};
extern const __device__ uint3 threadIdx;
extern const __device__ uint3 blockIdx;
extern const __device__ dim3 blockDim;
extern const __device__ dim3 gridDim;
extern const __device__ int warpSize;

typedef int cudaError_t;
typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
enum cudaMemcpyKind { cudaMemcpyHostToHost, cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost,
                      cudaMemcpyDeviceToDevice, cudaMemcpyDefault };
#define cudaSuccess 0
extern "C" int cudaConfigureCall(dim3 gridSize, dim3 blockSize, size_t sharedMem = 0,
                                 cudaStream_t stream = 0);
extern "C" unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem = 0,
                                                void *stream = 0);
cudaError_t cudaMalloc(void **p, size_t n);
template <class T> cudaError_t cudaMalloc(T **p, size_t n);
cudaError_t cudaMallocManaged(void **p, size_t n, unsigned flags = 1);
template <class T> cudaError_t cudaMallocManaged(T **p, size_t n, unsigned flags = 1);
cudaError_t cudaMallocHost(void **p, size_t n);
cudaError_t cudaFree(void *p);
cudaError_t cudaFreeHost(void *p);
cudaError_t cudaMemcpy(void *d, const void *s, size_t n, cudaMemcpyKind k);
cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, cudaMemcpyKind k, cudaStream_t st = 0);
cudaError_t cudaMemset(void *d, int v, size_t n);
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();
const char *cudaGetErrorString(cudaError_t e);
cudaError_t cudaStreamCreate(cudaStream_t *s);
cudaError_t cudaStreamDestroy(cudaStream_t s);
cudaError_t cudaStreamSynchronize(cudaStream_t s);
cudaError_t cudaEventCreate(cudaEvent_t *e);
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s = 0);
cudaError_t cudaEventSynchronize(cudaEvent_t e);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b);
cudaError_t cudaEventDestroy(cudaEvent_t e);
cudaError_t cudaSetDevice(int d);
cudaError_t cudaGetDevice(int *d);
cudaError_t cudaDeviceReset();

/* the CUDA device runtime (dynamic parallelism, graph conditionals), callable from kernels; the
 * front end refuses it there (TP156) */
#define cudaStreamNonBlocking 0x01
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags);
__device__ cudaError_t cudaMalloc(void **p, size_t n);
__device__ cudaError_t cudaFree(void *p);
__device__ cudaError_t cudaDeviceSynchronize();
__device__ cudaError_t cudaGetLastError();
__device__ cudaError_t cudaPeekAtLastError();
__device__ const char *cudaGetErrorString(cudaError_t e);
__device__ cudaError_t cudaGetDevice(int *d);
__device__ cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags);
__device__ cudaError_t cudaStreamDestroy(cudaStream_t s);
__device__ cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, cudaMemcpyKind k, cudaStream_t st = 0);
__device__ cudaError_t cudaMemsetAsync(void *d, int v, size_t n, cudaStream_t st = 0);
typedef unsigned long long cudaGraphConditionalHandle;
__device__ void cudaGraphSetConditional(cudaGraphConditionalHandle handle, unsigned int value);
struct cudaExtent { size_t width, height, depth; };
struct cudaPos { size_t x, y, z; };
struct cudaPitchedPtr { void *ptr; size_t pitch, xsize, ysize; };
__host__ __device__ cudaExtent make_cudaExtent(size_t w, size_t h, size_t d);
__host__ __device__ cudaPos make_cudaPos(size_t x, size_t y, size_t z);
__host__ __device__ cudaPitchedPtr make_cudaPitchedPtr(void *d, size_t p, size_t xsz, size_t ysz);

/* half / bfloat16 as clang's native arithmetic types */
typedef _Float16 __half;
typedef __bf16 __nv_bfloat16;
typedef _Float16 half;
/* with cuda_fp16.hpp's two-lane constructors (`half2 v(0.f, 0.f)`), as the emulator's tp_emu.h */
struct __align__(4) __half2 {
  __half x, y;
  __half2() = default;
  __host__ __device__ constexpr __half2(__half a, __half b) : x(a), y(b) {}
};
struct __align__(4) __nv_bfloat162 {
  __nv_bfloat16 x, y;
  __nv_bfloat162() = default;
  __host__ __device__ constexpr __nv_bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) : x(a), y(b) {}
};
typedef __half2 half2;
typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;
struct __half_raw { unsigned short x; };
struct __half2_raw { unsigned short x, y; };
struct __nv_bfloat16_raw { unsigned short x; };
struct __nv_bfloat162_raw { unsigned short x, y; };
__host__ __device__ __half __float2half(float);
__host__ __device__ __half __float2half_rn(float);
__host__ __device__ float __half2float(__half);
__host__ __device__ __half __int2half_rn(int);
__host__ __device__ int __half2int_rn(__half);
__host__ __device__ __nv_bfloat16 __float2bfloat16(float);
__host__ __device__ __nv_bfloat16 __float2bfloat16_rn(float);
__host__ __device__ float __bfloat162float(__nv_bfloat16);

/* Device overloads of the C math library: host declarations come from <cmath>; CUDA code calls
 * the device ones, which clang accepts as overloads on the __device__ target. */
#define TP_DEV static __inline__ __attribute__((device))
#define TP_UNARY(n) TP_DEV float n##f(float); TP_DEV double n(double); TP_DEV float n(float);
#define TP_BINARY(n) TP_DEV float n##f(float, float); TP_DEV double n(double, double); \
  TP_DEV float n(float, float);
TP_UNARY(exp) TP_UNARY(exp2) TP_UNARY(expm1) TP_UNARY(log) TP_UNARY(log2) TP_UNARY(log10)
TP_UNARY(log1p) TP_UNARY(sqrt) TP_UNARY(cbrt) TP_UNARY(sin) TP_UNARY(cos) TP_UNARY(tan)
TP_UNARY(asin) TP_UNARY(acos) TP_UNARY(atan) TP_UNARY(sinh) TP_UNARY(cosh) TP_UNARY(tanh)
TP_UNARY(asinh) TP_UNARY(acosh) TP_UNARY(atanh) TP_UNARY(erf) TP_UNARY(erfc) TP_UNARY(fabs)
TP_UNARY(floor) TP_UNARY(ceil) TP_UNARY(round) TP_UNARY(trunc) TP_UNARY(rint)
TP_UNARY(nearbyint) TP_UNARY(lgamma) TP_UNARY(tgamma) TP_UNARY(exp10)
TP_BINARY(pow) TP_BINARY(fmax) TP_BINARY(fmin) TP_BINARY(fmod) TP_BINARY(atan2) TP_BINARY(hypot)
TP_BINARY(copysign) TP_BINARY(fdim) TP_BINARY(remainder)
#undef TP_UNARY
#undef TP_BINARY
TP_DEV float frexpf(float, int *);
TP_DEV double frexp(double, int *);
TP_DEV float frexp(float, int *);
TP_DEV float ldexpf(float, int);
TP_DEV double ldexp(double, int);
TP_DEV float ldexp(float, int);
TP_DEV float fmaf(float, float, float);
TP_DEV double fma(double, double, double);
TP_DEV int abs(int);
TP_DEV long long llabs(long long);
TP_DEV float abs(float);
TP_DEV double abs(double);
TP_DEV bool isnan(float);
TP_DEV bool isnan(double);
TP_DEV bool isinf(float);
TP_DEV bool isinf(double);
TP_DEV bool isfinite(float);
TP_DEV bool isfinite(double);
TP_DEV int signbit(float);
TP_DEV int signbit(double);
/* CUDA-only math, integer intrinsics, atomics and cache hints: tp_device_api.h (below) */

/* synchronisation, warp primitives, atomics */
__device__ void __syncthreads();
__device__ int __syncthreads_count(int);
__device__ int __syncthreads_and(int);
__device__ int __syncthreads_or(int);
__device__ void __syncwarp(unsigned mask = 0xffffffffu);
template <class T> __device__ T __shfl_sync(unsigned mask, T v, int src, int width = 32);
template <class T> __device__ T __shfl_up_sync(unsigned mask, T v, unsigned d, int width = 32);
template <class T> __device__ T __shfl_down_sync(unsigned mask, T v, unsigned d, int width = 32);
template <class T> __device__ T __shfl_xor_sync(unsigned mask, T v, int m, int width = 32);
__device__ unsigned __ballot_sync(unsigned mask, int pred);
__device__ int __any_sync(unsigned mask, int pred);
/* directed-rounding arithmetic (the front end refuses it: TileLang has no rounding modes) */
#define TP_ROUNDED(M)                                                                          \
  __device__ float __fadd_##M(float, float); __device__ float __fsub_##M(float, float);        \
  __device__ float __fmul_##M(float, float); __device__ float __fdiv_##M(float, float);        \
  __device__ float __fsqrt_##M(float); __device__ float __frcp_##M(float);                       \
  __device__ float __fmaf_##M(float, float, float);                                              \
  __device__ double __dadd_##M(double, double); __device__ double __dsub_##M(double, double);  \
  __device__ double __dmul_##M(double, double); __device__ double __ddiv_##M(double, double);  \
  __device__ double __dsqrt_##M(double); __device__ double __drcp_##M(double);                   \
  __device__ double __fma_##M(double, double, double);
TP_ROUNDED(rd) TP_ROUNDED(ru) TP_ROUNDED(rz)
#undef TP_ROUNDED
/* sm_80 warp reductions (the emulator defines them through a macro, which the generated
 * tp_device_api.h does not see) */
__device__ unsigned __reduce_add_sync(unsigned mask, unsigned v);
__device__ int __reduce_add_sync(unsigned mask, int v);
__device__ unsigned __reduce_min_sync(unsigned mask, unsigned v);
__device__ int __reduce_min_sync(unsigned mask, int v);
__device__ unsigned __reduce_max_sync(unsigned mask, unsigned v);
__device__ int __reduce_max_sync(unsigned mask, int v);
__device__ unsigned __reduce_and_sync(unsigned mask, unsigned v);
__device__ unsigned __reduce_or_sync(unsigned mask, unsigned v);
__device__ unsigned __reduce_xor_sync(unsigned mask, unsigned v);
__device__ int __all_sync(unsigned mask, int pred);

/* vector types: CUDA's whole family, with the sizes and alignments vector_types.h gives them
 * (the emulator's tp_emu.h declares the same table; record layouts read sizes from here) */
#define TP_VEC1(T, N, A) struct __align__(A) N##1 { T x; }; __host__ __device__ N##1 make_##N##1(T);
#define TP_VEC2(T, N, A) struct __align__(A) N##2 { T x, y; }; __host__ __device__ N##2 make_##N##2(T, T);
#define TP_VEC3(T, N) struct N##3 { T x, y, z; }; __host__ __device__ N##3 make_##N##3(T, T, T);
#define TP_VEC4(T, N, A) struct __align__(A) N##4 { T x, y, z, w; }; \
  __host__ __device__ N##4 make_##N##4(T, T, T, T);
#define TP_VECS(T, N, A1, A2, A4) TP_VEC1(T, N, A1) TP_VEC2(T, N, A2) TP_VEC3(T, N) TP_VEC4(T, N, A4)
TP_VEC1(signed char, char, 1) TP_VEC2(signed char, char, 2) TP_VEC3(signed char, char)
struct __align__(4) char4 { signed char x, y, z, w; };  /* make_char4: tp_device_api.h */
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

/* textures and surfaces: handles here (the emulator's are the objects themselves, structs in
 * cuda_emu/include/tp_texture.h); the fetch and read/write functions are declared in
 * tp_device_api.h. The front end refuses them (TP156). */
typedef unsigned long long cudaTextureObject_t;
typedef unsigned long long cudaSurfaceObject_t;
typedef unsigned long long CUtexObject;
typedef unsigned long long CUsurfObject;
enum cudaSurfaceBoundaryMode { cudaBoundaryModeZero = 0, cudaBoundaryModeClamp = 1, cudaBoundaryModeTrap = 2 };
enum cudaTextureReadMode { cudaReadModeElementType = 0, cudaReadModeNormalizedFloat = 1 };
template <class T, int dim = 1, int mode = cudaReadModeElementType> struct texture {
  int normalized, filterMode, addressMode[3];
};

/* Everything the CPU emulator implements (half2/bf16 intrinsics, atomics, cache hints, integer
 * and fast-math intrinsics ...), declared: generated from tp_emu.h by shim/generate.py. */
template <class T> struct __cuda_nondeduced_s { typedef T type; };
template <class T> using __cuda_nondeduced = typename __cuda_nondeduced_s<T>::type;
#ifndef TP_NO_DEVICE_API
#include "tp_device_api.h"
#endif
/* scoped atomics behave as the plain ones */
#define TP_SCOPED(name) \
  template <class T, class... A> __device__ T name##_block(T *p, A... a); \
  template <class T, class... A> __device__ T name##_system(T *p, A... a);
TP_SCOPED(atomicAdd) TP_SCOPED(atomicSub) TP_SCOPED(atomicExch) TP_SCOPED(atomicMax)
TP_SCOPED(atomicMin) TP_SCOPED(atomicAnd) TP_SCOPED(atomicOr) TP_SCOPED(atomicXor)
TP_SCOPED(atomicCAS) TP_SCOPED(atomicInc) TP_SCOPED(atomicDec)
#undef TP_SCOPED
/* device placement new (nvcc provides it; <new>'s is a host function) */
__device__ inline void *operator new(size_t, void *p) noexcept { return p; }
__device__ inline void *operator new[](size_t, void *p) noexcept { return p; }
/* device memcpy/memset (nvcc provides them; the C library's are host functions) */
__device__ void *memcpy(void *, const void *, size_t) __attribute__((overloadable));
__device__ void *memset(void *, int, size_t) __attribute__((overloadable));
/* device clock(): the C library's is a host function (clock64 and __globaltimer: tp_device_api.h) */
__device__ clock_t clock() __attribute__((overloadable));
/* device printf and assert: the C library's are host functions */
extern "C" __device__ int vprintf(const char *, void *);
__device__ int printf(const char *, ...) __attribute__((overloadable));
extern "C" __device__ void __assertfail(const char *, const char *, unsigned, const char *, size_t);
__device__ void __assert_fail(const char *, const char *, unsigned int, const char *) __attribute__((overloadable));
