// Block-level sum reduction, templated on the block size so the shared buffer
// and the unrolled tree are sized at compile time.
// Each block reduces BLOCK_SIZE * 2 elements (first add during load) and
// writes one partial sum; the host finishes the (short) tail.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                       \
  do {                                                                         \
    cudaError_t err__ = (call);                                                \
    if (err__ != cudaSuccess) {                                                \
      fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(err__),   \
              __FILE__, __LINE__);                                             \
      exit(EXIT_FAILURE);                                                      \
    }                                                                          \
  } while (0)

template <int BLOCK_SIZE>
__global__ void reduce(const float *in, float *out, int n) {
  __shared__ float sdata[BLOCK_SIZE];

  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (BLOCK_SIZE * 2) + threadIdx.x;

  float sum = 0.0f;
  if (i < n) sum = in[i];
  if (i + BLOCK_SIZE < n) sum += in[i + BLOCK_SIZE];
  sdata[tid] = sum;
  __syncthreads();

#pragma unroll
  for (int s = BLOCK_SIZE / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }

  if (tid == 0) out[blockIdx.x] = sdata[0];
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : (1 << 20) + 123;
  const int threads = 256;
  int blocks = (n + threads * 2 - 1) / (threads * 2);

  std::vector<float> h_in(n);
  for (int i = 0; i < n; ++i) h_in[i] = (float)(i % 17) * 0.25f - 1.0f;

  float *d_in = nullptr, *d_out = nullptr;
  CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_out, blocks * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_in, h_in.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  reduce<256><<<blocks, 256>>>(d_in, d_out, n);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());

  std::vector<float> h_out(blocks);
  CUDA_CHECK(cudaMemcpy(h_out.data(), d_out, blocks * sizeof(float), cudaMemcpyDeviceToHost));

  double gpu = 0.0, cpu = 0.0;
  for (int b = 0; b < blocks; ++b) gpu += h_out[b];
  for (int i = 0; i < n; ++i) cpu += h_in[i];
  printf("n=%d blocks=%d gpu=%f cpu=%f\n", n, blocks, gpu, cpu);

  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaFree(d_out));
  return 0;
}
