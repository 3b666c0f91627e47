// Half-precision GEMM with a transposed A (stored K x M), float accumulation and a fused
// bias + ReLU epilogue: Y[m, n] = relu(sum_k A[k, m] * B[k, n] + bias[n]), Y in half.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#define BLOCK 16

__global__ void gemm_tn_bias_relu(const __half* __restrict__ At, const __half* __restrict__ B,
                                  const float* __restrict__ bias, __half* __restrict__ Y,
                                  int M, int N, int K)
{
    const int m = blockIdx.y * BLOCK + threadIdx.y;
    const int n = blockIdx.x * BLOCK + threadIdx.x;
    if (m >= M || n >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; k++) {
        acc += __half2float(At[k * M + m]) * __half2float(B[k * N + n]);
    }
    acc += bias[n];
    Y[m * N + n] = __float2half(acc > 0.0f ? acc : 0.0f);
}

void launch(const __half* At, const __half* B, const float* bias, __half* Y, int M, int N, int K)
{
    dim3 block(BLOCK, BLOCK);
    dim3 grid((N + BLOCK - 1) / BLOCK, (M + BLOCK - 1) / BLOCK);
    gemm_tn_bias_relu<<<grid, block>>>(At, B, bias, Y, M, N, K);
}
