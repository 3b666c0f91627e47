// Single-precision A*X + Y, one thread per element.
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

__global__ void saxpy(int n, float a, const float* x, float* y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

int main(void)
{
    int n = 1 << 20;
    float a = 2.0f;
    size_t bytes = n * sizeof(float);

    float* x = (float*)malloc(bytes);
    float* y = (float*)malloc(bytes);
    for (int i = 0; i < n; i++) {
        x[i] = 1.0f;
        y[i] = 2.0f;
    }

    float* d_x;
    float* d_y;
    cudaMalloc(&d_x, bytes);
    cudaMalloc(&d_y, bytes);
    cudaMemcpy(d_x, x, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_y, y, bytes, cudaMemcpyHostToDevice);

    saxpy<<<(n + 255) / 256, 256>>>(n, a, d_x, d_y);
    cudaDeviceSynchronize();

    cudaMemcpy(y, d_y, bytes, cudaMemcpyDeviceToHost);

    float maxError = 0.0f;
    for (int i = 0; i < n; i++) maxError = fmaxf(maxError, fabsf(y[i] - 4.0f));
    printf("Max error: %f\n", maxError);

    cudaFree(d_x);
    cudaFree(d_y);
    free(x);
    free(y);
    return 0;
}
