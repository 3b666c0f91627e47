// A reduction library header: the launch-sized shared buffer comes from a typed helper,
// and the block size is a template parameter. Nothing here launches anything.
#pragma once

template <class T>
struct DynamicShared {
    __device__ inline operator T *() {
        extern __shared__ unsigned char raw_bytes[];
        return reinterpret_cast<T *>(raw_bytes);
    }
};

template <class T>
struct TypedScratch {
    __device__ T *get() {
        extern __shared__ unsigned char raw_bytes[];
        return (T *)raw_bytes;
    }
};

// one partial sum per block of 2 * THREADS inputs
template <typename T, unsigned int THREADS>
__global__ void partial_sums(const T *in, T *partial, unsigned int n) {
    T *acc = DynamicShared<T>();
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (THREADS * 2) + tid;
    T v = (i < n) ? in[i] : T(0);
    if (i + THREADS < n) v += in[i + THREADS];
    acc[tid] = v;
    __syncthreads();
    for (unsigned int s = THREADS / 2; s > 0; s >>= 1) {
        if (tid < s) acc[tid] = acc[tid] + acc[tid + s];
        __syncthreads();
    }
    if (tid == 0) partial[blockIdx.x] = acc[0];
}

// the largest element of each row, one block per row
template <typename T>
__global__ void row_max(const T *x, T *out, int cols) {
    TypedScratch<T> scratch;
    T *best = scratch.get();
    T m = x[blockIdx.x * cols];
    for (int c = threadIdx.x; c < cols; c += blockDim.x) m = max(m, x[blockIdx.x * cols + c]);
    best[threadIdx.x] = m;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) best[threadIdx.x] = max(best[threadIdx.x], best[threadIdx.x + s]);
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = best[0];
}
