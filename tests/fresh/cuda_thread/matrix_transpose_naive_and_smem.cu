// Matrix transpose, two ways (after the classic "efficient matrix transpose"
// write-up): a naive version with uncoalesced writes, and a shared-memory
// tiled version whose tile has one column of padding to avoid bank conflicts.
// Each thread block of TILE_DIM x BLOCK_ROWS threads handles a TILE_DIM x TILE_DIM tile.
#include <cstdio>
#include <cassert>
#include <vector>
#include <cuda_runtime.h>

inline cudaError_t checkCuda(cudaError_t result)
{
  if (result != cudaSuccess) {
    fprintf(stderr, "CUDA Runtime Error: %s\n", cudaGetErrorString(result));
    assert(result == cudaSuccess);
  }
  return result;
}

constexpr int TILE_DIM = 32, BLOCK_ROWS = 8;

// in: height x width (row-major), out: width x height
__global__ void transposeNaive(float *out, const float *in, int width, int height)
{
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;

  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < width && (y + j) < height)
      out[x * height + (y + j)] = in[(y + j) * width + x];
}

__global__ void transposeCoalesced(float *out, const float *in, int width, int height)
{
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];

  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;

  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < width && (y + j) < height)
      tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];

  __syncthreads();

  x = blockIdx.y * TILE_DIM + threadIdx.x;  // transposed block offset
  y = blockIdx.x * TILE_DIM + threadIdx.y;

  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < height && (y + j) < width)
      out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

int main(int argc, char **argv)
{
  const int width = 1000, height = 523;
  const size_t mem_size = (size_t)width * height * sizeof(float);

  dim3 dimGrid((width + TILE_DIM - 1) / TILE_DIM, (height + TILE_DIM - 1) / TILE_DIM, 1);
  dim3 dimBlock(TILE_DIM, BLOCK_ROWS, 1);

  std::vector<float> h_idata(width * height), h_ref(width * height), h_odata(width * height);
  for (int j = 0; j < height; j++)
    for (int i = 0; i < width; i++) {
      h_idata[j * width + i] = (float)(j * width + i);
      h_ref[i * height + j] = h_idata[j * width + i];
    }

  float *d_idata, *d_odata;
  checkCuda(cudaMalloc(&d_idata, mem_size));
  checkCuda(cudaMalloc(&d_odata, mem_size));
  checkCuda(cudaMemcpy(d_idata, h_idata.data(), mem_size, cudaMemcpyHostToDevice));

  transposeNaive<<<dimGrid, dimBlock>>>(d_odata, d_idata, width, height);
  checkCuda(cudaGetLastError());
  checkCuda(cudaMemcpy(h_odata.data(), d_odata, mem_size, cudaMemcpyDeviceToHost));
  bool ok_naive = h_odata == h_ref;

  checkCuda(cudaMemset(d_odata, 0, mem_size));
  transposeCoalesced<<<dimGrid, dimBlock>>>(d_odata, d_idata, width, height);
  checkCuda(cudaGetLastError());
  checkCuda(cudaMemcpy(h_odata.data(), d_odata, mem_size, cudaMemcpyDeviceToHost));
  bool ok_smem = h_odata == h_ref;

  printf("naive: %s, coalesced: %s\n", ok_naive ? "ok" : "FAIL", ok_smem ? "ok" : "FAIL");

  checkCuda(cudaFree(d_idata));
  checkCuda(cudaFree(d_odata));
  return !(ok_naive && ok_smem);
}
