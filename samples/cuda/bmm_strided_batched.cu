// Strided batched SGEMM, one batch per blockIdx.z: C[b] = A[b] * B[b] with per-matrix strides,
// the shape cuBLAS's gemmStridedBatched takes. Naive inner loop, 16x16 threads.
#include <cuda_runtime.h>

__global__ void bmm_strided(const float* A, const float* B, float* C, int batch, int M, int N, int K,
                            long long strideA, long long strideB, long long strideC)
{
    int b = blockIdx.z;
    int row = blockIdx.y * 16 + threadIdx.y;
    int col = blockIdx.x * 16 + threadIdx.x;
    if (row >= M || col >= N) return;
    const float* a = A + b * strideA;
    const float* bb = B + b * strideB;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += a[row * K + k] * bb[k * N + col];
    C[b * strideC + row * N + col] = acc;
}

void launch(const float* A, const float* B, float* C, int batch, int M, int N, int K)
{
    dim3 block(16, 16);
    dim3 grid((N + 15) / 16, (M + 15) / 16, batch);
    bmm_strided<<<grid, block>>>(A, B, C, batch, M, N, K, (long long)M * K, (long long)K * N, (long long)M * N);
}
