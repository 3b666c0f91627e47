// ReLU and leaky ReLU using grid-stride loops, so a fixed-size grid
// covers any n.
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

__global__ void relu(int n, const float* x, float* y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        y[i] = x[i] > 0.0f ? x[i] : 0.0f;
    }
}

__global__ void leaky_relu(int n, float slope, const float* x, float* y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        float v = x[i];
        y[i] = v > 0.0f ? v : slope * v;
    }
}

void run_activations(int n, float slope, const float* h_x, float* h_relu, float* h_leaky)
{
    size_t bytes = n * sizeof(float);
    float* d_x;
    float* d_y;
    float* d_z;
    cudaMalloc(&d_x, bytes);
    cudaMalloc(&d_y, bytes);
    cudaMalloc(&d_z, bytes);
    cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice);

    relu<<<32, 128>>>(n, d_x, d_y);
    leaky_relu<<<32, 128>>>(n, slope, d_x, d_z);
    cudaDeviceSynchronize();

    cudaMemcpy(h_relu, d_y, bytes, cudaMemcpyDeviceToHost);
    cudaMemcpy(h_leaky, d_z, bytes, cudaMemcpyDeviceToHost);

    cudaFree(d_x);
    cudaFree(d_y);
    cudaFree(d_z);
}

int main(void)
{
    int n = 100000;
    float slope = 0.01f;
    float* x = (float*)malloc(n * sizeof(float));
    float* r = (float*)malloc(n * sizeof(float));
    float* l = (float*)malloc(n * sizeof(float));
    for (int i = 0; i < n; i++) x[i] = (float)(i % 200) - 100.0f;

    run_activations(n, slope, x, r, l);
    printf("relu(%f) = %f, leaky(%f) = %f\n", x[3], r[3], x[3], l[3]);

    free(x);
    free(r);
    free(l);
    return 0;
}
