// Kernels of an image library kept in a header. The header names a pixel type and a gain that
// only its includer defines (typedef Pixel, GAIN): alone it is not valid C++.
#pragma once

__global__ void scale_pixels(const Pixel *in, Pixel *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i] * GAIN + OFFSET;
    }
}

// A box filter along each row: radius R comes from the includer's launches.
template <int R>
__global__ void blur_rows(const Pixel *in, Pixel *out, int width, int height) {
    int row = blockIdx.x;
    for (int x = threadIdx.x; x < width; x += blockDim.x) {
        Pixel acc = 0;
        for (int d = -R; d <= R; ++d) {
            int xx = min(max(x + d, 0), width - 1);
            acc += in[row * width + xx];
        }
        if (row < height) {
            out[row * width + x] = acc / (2 * R + 1);
        }
    }
}
