// Naive SGEMM with the BLAS epilogue: C = alpha * A * B + beta * C, row-major, one thread per
// element of C and a plain loop over k. 2-D grid of 16x16 blocks.
#include <cuda_runtime.h>
#include <stdio.h>

__global__ void sgemm_naive(int M, int N, int K, float alpha, const float* A, int lda,
                            const float* B, int ldb, float beta, float* C, int ldc)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float sum = 0.0f;
        for (int k = 0; k < K; ++k) {
            sum += A[row * lda + k] * B[k * ldb + col];
        }
        C[row * ldc + col] = alpha * sum + beta * C[row * ldc + col];
    }
}

int main()
{
    const int M = 100, N = 70, K = 45;
    float *A, *B, *C;
    cudaMallocManaged(&A, M * K * sizeof(float));
    cudaMallocManaged(&B, K * N * sizeof(float));
    cudaMallocManaged(&C, M * N * sizeof(float));
    for (int i = 0; i < M * K; ++i) A[i] = (i % 7) * 0.25f;
    for (int i = 0; i < K * N; ++i) B[i] = (i % 5) * 0.5f;
    for (int i = 0; i < M * N; ++i) C[i] = 1.0f;
    dim3 block(16, 16);
    dim3 grid((N + block.x - 1) / block.x, (M + block.y - 1) / block.y);
    sgemm_naive<<<grid, block>>>(M, N, K, 2.0f, A, K, B, N, 0.5f, C, N);
    cudaDeviceSynchronize();
    printf("C[0] = %f\n", C[0]);
    return 0;
}
