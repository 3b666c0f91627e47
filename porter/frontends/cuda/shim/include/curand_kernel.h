/* tileport stand-in for <curand_kernel.h>: cuRAND's device API (generator states, curand_init,
 * curand, curand_uniform, curand_normal, ...) declared far enough that a kernel using it parses
 * and gets its diagnostic (TP156: no TileLang equivalent) at its line. The CPU emulator includes
 * this file too (porter/verify/cuda_emu/include/curand_kernel.h), so files using cuRAND still build
 * for their other kernels; there each function stops the launch (never called: the kernels that
 * call them are never ported). */
#pragma once
#ifdef TILEPORT_CPU_EMULATION
#define TP_CURAND(name) { tp::unemulated("cuRAND device API '" #name "'"); }
#else
#define TP_CURAND(name) ;
#endif

/* generator states: the fields are cuRAND's (XORWOW, Philox4x32-10, MRG32k3a, Sobol, MTGP32) */
struct curandStateXORWOW {
  unsigned int d, v[5];
  int boxmuller_flag, boxmuller_flag_double;
  float boxmuller_extra;
  double boxmuller_extra_double;
};
struct curandStatePhilox4_32_10 {
  uint4 ctr, output;
  uint2 key;
  unsigned int STATE;
  int boxmuller_flag, boxmuller_flag_double;
  float boxmuller_extra;
  double boxmuller_extra_double;
};
struct curandStateMRG32k3a {
  unsigned int s1[3], s2[3];
  int boxmuller_flag, boxmuller_flag_double;
  float boxmuller_extra;
  double boxmuller_extra_double;
};
struct curandStateSobol32 { unsigned int i, x, c, direction_vectors[32]; };
struct curandStateScrambledSobol32 { unsigned int i, x, c, direction_vectors[32]; };
struct curandStateSobol64 { unsigned long long i, x, c, direction_vectors[64]; };
struct curandStateScrambledSobol64 { unsigned long long i, x, c, direction_vectors[64]; };
struct curandStateMtgp32 { int offset, pIdx; unsigned int s[1024]; void *k; };
typedef struct curandStateXORWOW curandStateXORWOW_t;
typedef struct curandStatePhilox4_32_10 curandStatePhilox4_32_10_t;
typedef struct curandStateMRG32k3a curandStateMRG32k3a_t;
typedef struct curandStateSobol32 curandStateSobol32_t;
typedef struct curandStateScrambledSobol32 curandStateScrambledSobol32_t;
typedef struct curandStateSobol64 curandStateSobol64_t;
typedef struct curandStateScrambledSobol64 curandStateScrambledSobol64_t;
typedef struct curandStateMtgp32 curandStateMtgp32_t;
typedef curandStateXORWOW_t curandState_t;
typedef curandState_t curandState;
typedef unsigned int curandDirectionVectors32_t[32];
typedef unsigned long long curandDirectionVectors64_t[64];

/* curand_init(seed, subsequence, offset, &state), and the Sobol forms (direction vectors, ...) */
template <class... A> __device__ void curand_init(A... a) TP_CURAND(curand_init)
template <class S> __device__ unsigned int curand(S *state) TP_CURAND(curand)
template <class S> __device__ float curand_uniform(S *state) TP_CURAND(curand_uniform)
template <class S> __device__ double curand_uniform_double(S *state) TP_CURAND(curand_uniform_double)
template <class S> __device__ double2 curand_uniform2_double(S *state) TP_CURAND(curand_uniform2_double)
template <class S> __device__ float4 curand_uniform4(S *state) TP_CURAND(curand_uniform4)
template <class S> __device__ float curand_normal(S *state) TP_CURAND(curand_normal)
template <class S> __device__ double curand_normal_double(S *state) TP_CURAND(curand_normal_double)
template <class S> __device__ float2 curand_normal2(S *state) TP_CURAND(curand_normal2)
template <class S> __device__ double2 curand_normal2_double(S *state) TP_CURAND(curand_normal2_double)
template <class S> __device__ float4 curand_normal4(S *state) TP_CURAND(curand_normal4)
template <class S> __device__ float curand_log_normal(S *state, float mean, float stddev) TP_CURAND(curand_log_normal)
template <class S> __device__ double curand_log_normal_double(S *state, double mean, double stddev)
    TP_CURAND(curand_log_normal_double)
template <class S> __device__ float2 curand_log_normal2(S *state, float mean, float stddev) TP_CURAND(curand_log_normal2)
template <class S> __device__ float4 curand_log_normal4(S *state, float mean, float stddev) TP_CURAND(curand_log_normal4)
template <class S> __device__ unsigned int curand_poisson(S *state, double lambda) TP_CURAND(curand_poisson)
template <class S> __device__ uint4 curand4(S *state) TP_CURAND(curand4)
template <class S> __device__ void skipahead(unsigned long long n, S *state) TP_CURAND(skipahead)
template <class S> __device__ void skipahead_sequence(unsigned long long n, S *state) TP_CURAND(skipahead_sequence)
template <class S> __device__ void skipahead_subsequence(unsigned long long n, S *state) TP_CURAND(skipahead_subsequence)
#undef TP_CURAND
