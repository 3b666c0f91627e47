// Elementwise matrix addition on a 2D grid of 2D blocks.
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

__global__ void matrix_add(const float* A, const float* B, float* C, int rows, int cols)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows && col < cols) {
        C[row * cols + col] = A[row * cols + col] + B[row * cols + col];
    }
}

void matrix_add_host(const float* h_A, const float* h_B, float* h_C, int rows, int cols)
{
    size_t bytes = (size_t)rows * cols * sizeof(float);
    float *d_A, *d_B, *d_C;
    cudaMalloc(&d_A, bytes);
    cudaMalloc(&d_B, bytes);
    cudaMalloc(&d_C, bytes);
    cudaMemcpy(d_A, h_A, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_B, h_B, bytes, cudaMemcpyHostToDevice);

    int w = cols;
    int h = rows;
    dim3 block(16, 16);
    dim3 grid((w + 15) / 16, (h + 15) / 16);
    matrix_add<<<grid, block>>>(d_A, d_B, d_C, rows, cols);
    cudaDeviceSynchronize();

    cudaMemcpy(h_C, d_C, bytes, cudaMemcpyDeviceToHost);
    cudaFree(d_A);
    cudaFree(d_B);
    cudaFree(d_C);
}

int main(void)
{
    int rows = 300;
    int cols = 500;
    size_t count = (size_t)rows * cols;
    float* A = (float*)malloc(count * sizeof(float));
    float* B = (float*)malloc(count * sizeof(float));
    float* C = (float*)malloc(count * sizeof(float));
    for (size_t i = 0; i < count; i++) {
        A[i] = (float)i;
        B[i] = 2.0f * (float)i;
    }

    matrix_add_host(A, B, C, rows, cols);
    printf("C[%d][%d] = %f\n", rows - 1, cols - 1, C[count - 1]);

    free(A);
    free(B);
    free(C);
    return 0;
}
