// A file whose kernels fetch layered textures, write surfaces and draw cuRAND numbers, next to
// plain kernels, one of them on cuFFT's cufftComplex (tileport's own sample for issue 38): the
// layered fetch and cuRAND have no TileLang equivalent (TP156), and the file still builds in the
// CPU emulator so that the other kernels (the surface write too) are verified.
#include <cuda_runtime.h>
#include <curand_kernel.h>
#include <cufft.h>

__device__ float fetch_twice(cudaTextureObject_t tex, float u, float v)
{
    return tex2D<float>(tex, u, v) + tex2DLayered<float>(tex, u, v, 1);
}

__global__ void sample(float* out, cudaTextureObject_t tex, int width)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x < width) out[x] = fetch_twice(tex, (x + 0.5f) / width, 0.5f);
}

__global__ void store(cudaSurfaceObject_t surface, const float* in, int width)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x < width) surf2Dwrite(in[x], surface, x * (int)sizeof(float), 0);
}

__global__ void draw(curandState* states, float* out, unsigned long long seed, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        curand_init(seed, i, 0, &states[i]);
        out[i] = curand_uniform(&states[i]);
    }
}

__global__ void scale(float* out, const float* in, float s, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = s * in[i];
}

__global__ void scale_spectrum(cufftComplex* spectrum, float s, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        spectrum[i].x *= s;
        spectrum[i].y *= -s;
    }
}

int main()
{
    const int n = 1000;
    float *a, *b;
    curandState* states;
    cufftComplex* spectrum;
    cudaMalloc(&a, n * sizeof(float));
    cudaMalloc(&b, n * sizeof(float));
    cudaMalloc(&states, n * sizeof(curandState));
    cudaMalloc(&spectrum, n * sizeof(cufftComplex));
    cudaTextureObject_t tex = 0;
    cudaSurfaceObject_t surface = 0;
    sample<<<(n + 255) / 256, 256>>>(a, tex, n);
    store<<<(n + 255) / 256, 256>>>(surface, a, n);
    draw<<<(n + 255) / 256, 256>>>(states, a, 1234ull, n);
    scale<<<(n + 255) / 256, 256>>>(b, a, 2.0f, n);
    scale_spectrum<<<(n + 255) / 256, 256>>>(spectrum, 0.5f, n);
    cudaDeviceSynchronize();
    return 0;
}
