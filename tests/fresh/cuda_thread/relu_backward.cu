// ReLU layer for a tiny hand-written NN framework (course assignment style).
// forward:  y = max(x, 0)
// backward: dx = dy * (x > 0)
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define BLOCK_DIM 512

#define CUDA_SAFE_CALL(call)                                                 \
    do {                                                                     \
        cudaError_t err = call;                                              \
        if (cudaSuccess != err) {                                            \
            fprintf(stderr, "Cuda error in file '%s' in line %i : %s.\n",    \
                    __FILE__, __LINE__, cudaGetErrorString(err));            \
            exit(EXIT_FAILURE);                                              \
        }                                                                    \
    } while (0)

__global__ void relu_forward_kernel(const float *x, float *y, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = x[i];
    y[i] = v > 0.0f ? v : 0.0f;
}

__global__ void relu_backward_kernel(const float *x, const float *dy, float *dx,
                                     unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    dx[i] = x[i] > 0.0f ? dy[i] : 0.0f;
}

/* Runs forward then backward on device buffers already allocated by the caller. */
void relu_layer_step(const float *d_x, float *d_y, const float *d_dy, float *d_dx,
                     unsigned int n)
{
    unsigned int num_blocks = (n + BLOCK_DIM - 1) / BLOCK_DIM;
    relu_forward_kernel<<<num_blocks, BLOCK_DIM>>>(d_x, d_y, n);
    CUDA_SAFE_CALL(cudaGetLastError());
    relu_backward_kernel<<<num_blocks, BLOCK_DIM>>>(d_x, d_dy, d_dx, n);
    CUDA_SAFE_CALL(cudaGetLastError());
}

int main(int argc, char *argv[])
{
    unsigned int n = (argc > 1) ? (unsigned int)strtoul(argv[1], NULL, 10) : 12345u;
    size_t size = n * sizeof(float);

    float *h_x = (float *)malloc(size);
    float *h_dy = (float *)malloc(size);
    float *h_y = (float *)malloc(size);
    float *h_dx = (float *)malloc(size);
    for (unsigned int i = 0; i < n; i++) {
        h_x[i] = (float)((int)(i % 9) - 4);
        h_dy[i] = 0.5f + (float)(i % 5);
    }

    float *d_x, *d_y, *d_dy, *d_dx;
    CUDA_SAFE_CALL(cudaMalloc((void **)&d_x, size));
    CUDA_SAFE_CALL(cudaMalloc((void **)&d_y, size));
    CUDA_SAFE_CALL(cudaMalloc((void **)&d_dy, size));
    CUDA_SAFE_CALL(cudaMalloc((void **)&d_dx, size));
    CUDA_SAFE_CALL(cudaMemcpy(d_x, h_x, size, cudaMemcpyHostToDevice));
    CUDA_SAFE_CALL(cudaMemcpy(d_dy, h_dy, size, cudaMemcpyHostToDevice));

    relu_layer_step(d_x, d_y, d_dy, d_dx, n);
    CUDA_SAFE_CALL(cudaDeviceSynchronize());

    CUDA_SAFE_CALL(cudaMemcpy(h_y, d_y, size, cudaMemcpyDeviceToHost));
    CUDA_SAFE_CALL(cudaMemcpy(h_dx, d_dx, size, cudaMemcpyDeviceToHost));
    printf("y[3]=%f dx[5]=%f\n", h_y[3], h_dx[5]);

    cudaFree(d_x); cudaFree(d_y); cudaFree(d_dy); cudaFree(d_dx);
    free(h_x); free(h_dy); free(h_y); free(h_dx);
    return 0;
}
