// Host code uses cuBLAS and the CUDA samples helper_cuda.h, neither installed here: the kernel still ports and verifies.
#include <cublas_v2.h>
#include "helper_cuda.h"
#include <cuda_runtime.h>
__global__ void scale(float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}
int main() {
  cublasHandle_t h; cublasCreate(&h);
  float* d; int n = 1000;
  checkCudaErrors(cudaMalloc(&d, n * sizeof(float)));
  scale<<<(n + 255) / 256, 256>>>(d, 2.0f, n);
  return 0;
}
