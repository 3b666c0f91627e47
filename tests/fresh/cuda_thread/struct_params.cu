// struct_params.cu: apply an affine transform + clamp, passing the parameters
// as a small POD struct by value (it lands in the kernel's param space).
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

struct Affine {
    float scale;
    float shift;
};

struct ClampRange {
    float lo;
    float hi;
};

static void check(cudaError_t e, const char* what)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
        exit(1);
    }
}

__global__ void affine_clamp(const float* in, float* out, Affine t, ClampRange r, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = in[i] * t.scale + t.shift;
        out[i] = fminf(fmaxf(v, r.lo), r.hi);
    }
}

int main(void)
{
    int n = 50000;
    size_t bytes = n * sizeof(float);
    float* h_in = (float*)malloc(bytes);
    float* h_out = (float*)malloc(bytes);
    for (int i = 0; i < n; ++i) h_in[i] = (float)rand() / RAND_MAX * 4.0f - 2.0f;

    Affine t;
    t.scale = 2.0f;
    t.shift = 0.5f;
    ClampRange r = {-1.0f, 3.0f};

    float *d_in, *d_out;
    check(cudaMalloc(&d_in, bytes), "cudaMalloc in");
    check(cudaMalloc(&d_out, bytes), "cudaMalloc out");
    check(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice), "H2D");

    int blockSize = 128;
    int gridSize = (n + blockSize - 1) / blockSize;
    affine_clamp<<<gridSize, blockSize>>>(d_in, d_out, t, r, n);
    check(cudaGetLastError(), "launch");
    check(cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost), "D2H");

    printf("out[0]=%f out[n-1]=%f\n", h_out[0], h_out[n - 1]);
    cudaFree(d_in);
    cudaFree(d_out);
    free(h_in);
    free(h_out);
    return 0;
}
