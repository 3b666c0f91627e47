// The SharedMemory<T> idiom with a vector T: dynamic shared storage viewed as float4s (each
// block stages its points, then every thread sums its distance to all of them).
#include <cuda_runtime.h>

template <class T> struct SharedMemory {
    __device__ inline operator T *() {
        extern __shared__ int __smem[];
        return (T *)__smem;
    }
};

__global__ void spread(const float4 *points, float *out, int n) {
    float4 *staged = SharedMemory<float4>();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 me = points[i % n];
    staged[threadIdx.x] = points[(blockIdx.x * blockDim.x + threadIdx.x) % n];
    __syncthreads();
    float total = 0.0f;
    for (int j = 0; j < blockDim.x; ++j) {
        float4 p = staged[j];
        total += fabsf(p.x - me.x) + fabsf(p.y - me.y) + fabsf(p.z - me.z) * p.w;
    }
    out[i] = total;
}

void run(const float4 *p, float *o, int n) { spread<<<4, 64, 64 * sizeof(float4)>>>(p, o, n); }
