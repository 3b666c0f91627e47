// Shared-memory tiled SGEMM: C[M,N] = A[M,K] * B[K,N], all row-major.
// 16x16 thread blocks, one output element per thread; tile loads are bounds-checked
// (zero-filled) so M, N and K need not be multiples of the tile size.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define TILE 16

__global__ void sgemm_tiled(const float* __restrict__ A, const float* __restrict__ B,
                            float* __restrict__ C, int M, int N, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;

    float acc = 0.0f;
    int num_tiles = (K + TILE - 1) / TILE;
    for (int t = 0; t < num_tiles; t++) {
        int a_col = t * TILE + tx;
        int b_row = t * TILE + ty;
        As[ty][tx] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f;
        Bs[ty][tx] = (b_row < K && col < N) ? B[b_row * N + col] : 0.0f;
        __syncthreads();

#pragma unroll
        for (int k = 0; k < TILE; k++) {
            acc += As[ty][k] * Bs[k][tx];
        }
        __syncthreads();
    }

    if (row < M && col < N) {
        C[row * N + col] = acc;
    }
}

void launch_sgemm_tiled(const float* h_A, const float* h_B, float* h_C, int M, int N, int K)
{
    float *d_A, *d_B, *d_C;
    cudaMalloc(&d_A, (size_t)M * K * sizeof(float));
    cudaMalloc(&d_B, (size_t)K * N * sizeof(float));
    cudaMalloc(&d_C, (size_t)M * N * sizeof(float));
    cudaMemcpy(d_A, h_A, (size_t)M * K * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_B, h_B, (size_t)K * N * sizeof(float), cudaMemcpyHostToDevice);

    dim3 block(TILE, TILE);
    dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
    sgemm_tiled<<<grid, block>>>(d_A, d_B, d_C, M, N, K);
    cudaDeviceSynchronize();

    cudaMemcpy(h_C, d_C, (size_t)M * N * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d_A);
    cudaFree(d_B);
    cudaFree(d_C);
}

int main(void)
{
    int M = 1000, N = 500, K = 300;
    float* A = (float*)malloc((size_t)M * K * sizeof(float));
    float* B = (float*)malloc((size_t)K * N * sizeof(float));
    float* C = (float*)malloc((size_t)M * N * sizeof(float));
    for (int i = 0; i < M * K; i++) {
        A[i] = 1.0f;
    }
    for (int i = 0; i < K * N; i++) {
        B[i] = 2.0f;
    }
    launch_sgemm_tiled(A, B, C, M, N, K);
    printf("C[0] = %f (expected %f)\n", C[0], 2.0f * K);
    free(A);
    free(B);
    free(C);
    return 0;
}
