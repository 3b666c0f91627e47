/* tileport stand-in for TileLang's CUDA runtime templates, so lowered TileLang CUDA runs on the
 * CPU emulator. Only what thread-level ports use; each helper maps to the emulated CUDA API. */
#pragma once
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <math.h>
typedef unsigned int uint;
typedef unsigned char uchar;
typedef unsigned short ushort;
typedef __half half_t;
typedef __nv_bfloat16 bfloat16_t;
template <class T, class V> __device__ T AtomicAdd(T* address, V value, int = 0) { return atomicAdd(address, (T)value); }
template <class T, class V> __device__ T AtomicMax(T* address, V value, int = 0) { return atomicMax(address, (T)value); }
template <class T, class V> __device__ T AtomicMin(T* address, V value, int = 0) { return atomicMin(address, (T)value); }
template <class T, class V> __device__ T AtomicAddRet(T* address, V value, int = 0) { return atomicAdd(address, (T)value); }
/* T.atomic_store / T.atomic_load / T.atomic_or (memory_order: every emulated atomic is sequential) */
template <class T, class V> __device__ void AtomicStore(T* address, V value, int = 0) { atomicExch(address, (T)value); }
template <class T> __device__ T AtomicLoad(T* address, int = 0) { return *address; }
template <class T, class V> __device__ void AtomicOr(T* address, V value, int = 0) { atomicOr(address, (T)value); }
