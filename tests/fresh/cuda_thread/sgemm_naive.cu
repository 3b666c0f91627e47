// Naive SGEMM: C = alpha * A * B + beta * C
// A is M x K, B is K x N, C is M x N, all row-major.
// One thread per output element, 16x16 thread blocks on a 2D grid.
#include <cuda_runtime.h>
#include <iostream>
#include <vector>
#include <random>

#define CUDA_CHECK(call)                                                     \
  do {                                                                       \
    cudaError_t e = (call);                                                  \
    if (e != cudaSuccess) {                                                  \
      std::cerr << "CUDA error " << cudaGetErrorString(e) << " at "          \
                << __FILE__ << ":" << __LINE__ << std::endl;                 \
      std::exit(EXIT_FAILURE);                                               \
    }                                                                        \
  } while (0)

__global__ void sgemm_naive(int M, int N, int K, float alpha, const float *A,
                            const float *B, float beta, float *C) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;

  if (row < M && col < N) {
    float tmp = 0.0f;
    for (int k = 0; k < K; ++k) {
      tmp += A[row * K + k] * B[k * N + col];
    }
    C[row * N + col] = alpha * tmp + beta * C[row * N + col];
  }
}

int main() {
  int M = 500, N = 300, K = 129;
  float alpha = 1.25f, beta = 0.5f;

  std::mt19937 gen(0);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> hA(M * K), hB(K * N), hC(M * N);
  for (auto &v : hA) v = dist(gen);
  for (auto &v : hB) v = dist(gen);
  for (auto &v : hC) v = dist(gen);

  float *dA, *dB, *dC;
  CUDA_CHECK(cudaMalloc(&dA, sizeof(float) * M * K));
  CUDA_CHECK(cudaMalloc(&dB, sizeof(float) * K * N));
  CUDA_CHECK(cudaMalloc(&dC, sizeof(float) * M * N));
  CUDA_CHECK(cudaMemcpy(dA, hA.data(), sizeof(float) * M * K, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dB, hB.data(), sizeof(float) * K * N, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dC, hC.data(), sizeof(float) * M * N, cudaMemcpyHostToDevice));

  dim3 threads(16, 16);
  dim3 grid((N + threads.x - 1) / threads.x, (M + threads.y - 1) / threads.y);
  sgemm_naive<<<grid, threads>>>(M, N, K, alpha, dA, dB, beta, dC);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());

  CUDA_CHECK(cudaMemcpy(hC.data(), dC, sizeof(float) * M * N, cudaMemcpyDeviceToHost));
  std::cout << "C[0] = " << hC[0] << ", C[last] = " << hC[M * N - 1] << std::endl;

  CUDA_CHECK(cudaFree(dA));
  CUDA_CHECK(cudaFree(dB));
  CUDA_CHECK(cudaFree(dC));
  return 0;
}
