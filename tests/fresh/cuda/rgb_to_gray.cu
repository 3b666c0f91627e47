// rgb_to_gray.cu
// Converts an interleaved 8-bit RGB image to single-channel float luminance
// (ITU-R BT.601 weights).  One thread per pixel on a 2D launch.
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define CUDA_CHECK(x) do { cudaError_t rc_ = (x); if (rc_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(rc_)); exit(1); } } while (0)

#define TILE_X 32
#define TILE_Y 8

__global__ void rgbToGray(const unsigned char* __restrict__ rgb, float* __restrict__ gray,
                          int width, int height)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;

    const int pix = y * width + x;
    const float r = (float)rgb[3 * pix + 0];
    const float g = (float)rgb[3 * pix + 1];
    const float b = (float)rgb[3 * pix + 2];
    gray[pix] = (0.299f * r + 0.587f * g + 0.114f * b) * (1.0f / 255.0f);
}

int main()
{
    const int width = 1920, height = 1080;
    const size_t npix = (size_t)width * height;

    unsigned char* h_rgb = (unsigned char*)malloc(npix * 3);
    float* h_gray = (float*)malloc(npix * sizeof(float));
    for (size_t p = 0; p < npix * 3; ++p) h_rgb[p] = (unsigned char)(p * 37 % 256);

    unsigned char* d_rgb;
    float* d_gray;
    CUDA_CHECK(cudaMalloc(&d_rgb, npix * 3));
    CUDA_CHECK(cudaMalloc(&d_gray, npix * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_rgb, h_rgb, npix * 3, cudaMemcpyHostToDevice));

    dim3 threads(TILE_X, TILE_Y);
    dim3 blocks((width + TILE_X - 1) / TILE_X, (height + TILE_Y - 1) / TILE_Y);
    rgbToGray<<<blocks, threads>>>(d_rgb, d_gray, width, height);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());

    CUDA_CHECK(cudaMemcpy(h_gray, d_gray, npix * sizeof(float), cudaMemcpyDeviceToHost));
    printf("gray[0] = %f  gray[last] = %f\n", h_gray[0], h_gray[npix - 1]);

    cudaFree(d_rgb);
    cudaFree(d_gray);
    free(h_rgb);
    free(h_gray);
    return 0;
}
