// A double-precision axpby and an integer mixing kernel in one file.
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

__global__ void daxpby(int n, double alpha, const double* x, double beta, double* y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = alpha * x[i] + beta * y[i];
    }
}

__global__ void int_mix(int n, const int* a, const int* b, int* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int v = (a[i] * 3 + b[i]) % 7;
        out[i] = v + ((a[i] >> 2) & 15);
    }
}

int main(void)
{
    int n = 50000;
    double alpha = 1.5;
    double beta = -0.25;

    double* x = (double*)malloc(n * sizeof(double));
    double* y = (double*)malloc(n * sizeof(double));
    int* a = (int*)malloc(n * sizeof(int));
    int* b = (int*)malloc(n * sizeof(int));
    int* out = (int*)malloc(n * sizeof(int));
    for (int i = 0; i < n; i++) {
        x[i] = sqrt((double)i);
        y[i] = 1.0;
        a[i] = i;
        b[i] = 2 * i + 1;
    }

    double *d_x, *d_y;
    int *d_a, *d_b, *d_out;
    cudaMalloc(&d_x, n * sizeof(double));
    cudaMalloc(&d_y, n * sizeof(double));
    cudaMalloc(&d_a, n * sizeof(int));
    cudaMalloc(&d_b, n * sizeof(int));
    cudaMalloc(&d_out, n * sizeof(int));
    cudaMemcpy(d_x, x, n * sizeof(double), cudaMemcpyHostToDevice);
    cudaMemcpy(d_y, y, n * sizeof(double), cudaMemcpyHostToDevice);
    cudaMemcpy(d_a, a, n * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_b, b, n * sizeof(int), cudaMemcpyHostToDevice);

    int threads = 256;
    int blocks = (n + threads - 1) / threads;
    daxpby<<<blocks, threads>>>(n, alpha, d_x, beta, d_y);
    int_mix<<<blocks, threads>>>(n, d_a, d_b, d_out);
    cudaDeviceSynchronize();

    cudaMemcpy(y, d_y, n * sizeof(double), cudaMemcpyDeviceToHost);
    cudaMemcpy(out, d_out, n * sizeof(int), cudaMemcpyDeviceToHost);
    printf("y[100] = %f, out[100] = %d\n", y[100], out[100]);

    cudaFree(d_x);
    cudaFree(d_y);
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_out);
    free(x);
    free(y);
    free(a);
    free(b);
    free(out);
    return 0;
}
