// Matrix transpose through a padded shared-memory tile (the classic 32x33 tile, 32x8 threads,
// each thread moving TILE_DIM / BLOCK_ROWS elements). The +1 column of padding removes shared
// memory bank conflicts on the column-wise reads. in is height x width, out is width x height.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define TILE_DIM 32
#define BLOCK_ROWS 8

__global__ void transpose_padded(float* __restrict__ out, const float* __restrict__ in, int width, int height)
{
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];

    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;

    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        if (x < width && (y + j) < height) {
            tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
        }
    }
    __syncthreads();

    // swap the block offsets: block (bx, by) writes tile (by, bx) of the output
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;

    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        if (x < height && (y + j) < width) {
            out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
        }
    }
}

void launch_transpose(const float* h_in, float* h_out, int width, int height)
{
    size_t bytes = (size_t)width * height * sizeof(float);
    float *d_in, *d_out;
    cudaMalloc(&d_in, bytes);
    cudaMalloc(&d_out, bytes);
    cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice);

    dim3 block(TILE_DIM, BLOCK_ROWS);
    dim3 grid((width + TILE_DIM - 1) / TILE_DIM, (height + TILE_DIM - 1) / TILE_DIM);
    transpose_padded<<<grid, block>>>(d_out, d_in, width, height);
    cudaDeviceSynchronize();

    cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost);
    cudaFree(d_in);
    cudaFree(d_out);
}

int main(void)
{
    int width = 1000;
    int height = 700;
    float* a = (float*)malloc((size_t)width * height * sizeof(float));
    float* t = (float*)malloc((size_t)width * height * sizeof(float));
    for (int i = 0; i < width * height; i++) {
        a[i] = (float)i;
    }
    launch_transpose(a, t, width, height);
    printf("t[1] = %f (expected %f)\n", t[1], a[width]);
    free(a);
    free(t);
    return 0;
}
