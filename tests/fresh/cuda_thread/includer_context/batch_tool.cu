// A second program of the same project that includes the header with the same definitions.
#include <cuda_runtime.h>

typedef float Pixel;
#define GAIN 1.5f
#define OFFSET (-0.25f)
#include "image_ops.cuh"

int main() {
    Pixel *d;
    cudaMalloc(&d, 1024 * sizeof(Pixel));
    scale_pixels<<<4, 256>>>(d, d, 1024);
    cudaDeviceSynchronize();
    return 0;
}
