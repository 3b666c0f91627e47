// Sum reduction using cooperative groups: each warp reduces with shfl_down,
// warp leaders publish to shared memory, and warp 0 reduces the partials.
// One partial sum per block is written to `block_sums`.
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

namespace cg = cooperative_groups;

#define CUDA_CHECK(x)                                                        \
  do {                                                                       \
    cudaError_t e_ = (x);                                                    \
    if (e_ != cudaSuccess) {                                                 \
      std::printf("%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));\
      return 1;                                                              \
    }                                                                        \
  } while (0)

constexpr int kBlock = 256;
constexpr int kWarps = kBlock / 32;

__device__ float warp_reduce_sum(cg::thread_block_tile<32> warp, float v) {
  for (int offset = warp.size() / 2; offset > 0; offset /= 2)
    v += warp.shfl_down(v, offset);
  return v;
}

__global__ void cg_block_sum(const float* __restrict__ data, float* __restrict__ block_sums,
                             int n) {
  cg::thread_block block = cg::this_thread_block();
  auto warp = cg::tiled_partition<32>(block);
  __shared__ float warp_partials[kWarps];

  float acc = 0.0f;
  // grid-stride accumulation so any grid size covers the input
  for (int i = blockIdx.x * blockDim.x + block.thread_rank(); i < n;
       i += blockDim.x * gridDim.x)
    acc += data[i];

  acc = warp_reduce_sum(warp, acc);
  const int warp_id = block.thread_rank() / 32;
  if (warp.thread_rank() == 0) warp_partials[warp_id] = acc;
  block.sync();

  if (warp_id == 0) {
    float v = warp.thread_rank() < kWarps ? warp_partials[warp.thread_rank()] : 0.0f;
    v = warp_reduce_sum(warp, v);
    if (warp.thread_rank() == 0) block_sums[blockIdx.x] = v;
  }
}

int main() {
  const int n = 333333;
  int num_blocks = (n + kBlock - 1) / kBlock;
  if (num_blocks > 1024) num_blocks = 1024;

  std::vector<float> h(n);
  for (int i = 0; i < n; ++i) h[i] = 1.0f / (1 + i % 7);

  float *d_data, *d_sums;
  CUDA_CHECK(cudaMalloc(&d_data, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_sums, num_blocks * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_data, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  cg_block_sum<<<num_blocks, kBlock>>>(d_data, d_sums, n);
  CUDA_CHECK(cudaGetLastError());

  std::vector<float> sums(num_blocks);
  CUDA_CHECK(cudaMemcpy(sums.data(), d_sums, num_blocks * sizeof(float), cudaMemcpyDeviceToHost));
  double total = 0;
  for (float s : sums) total += s;
  std::printf("sum = %.4f\n", total);

  cudaFree(d_data);
  cudaFree(d_sums);
  return 0;
}
