// The application: defines what the header needs, then includes it and launches its kernels.
#include <cuda_runtime.h>

typedef float Pixel;
#define GAIN 1.5f
#define OFFSET (-0.25f)

#include "image_ops.cuh"

void process(const Pixel *d_in, Pixel *d_out, int width, int height) {
    int n = width * height;
    scale_pixels<<<(n + 255) / 256, 256>>>(d_in, d_out, n);
    blur_rows<2><<<height, 128>>>(d_out, d_out + n, width, height);
}

int main() {
    Pixel *d_in, *d_out;
    cudaMalloc(&d_in, 640 * 480 * sizeof(Pixel));
    cudaMalloc(&d_out, 2 * 640 * 480 * sizeof(Pixel));
    process(d_in, d_out, 640, 480);
    cudaDeviceSynchronize();
    return 0;
}
