// LayerNorm forward: one block per row, mean and variance reduced through dynamic shared
// memory (sized at launch), then y = (x - mean) * rstd * gamma + beta.
// Also stores the per-row mean and rstd for the backward pass.
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define LN_THREADS 128

__device__ float block_sum(float v, float* sbuf)
{
    int tid = threadIdx.x;
    sbuf[tid] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sbuf[tid] += sbuf[tid + s];
        }
        __syncthreads();
    }
    float total = sbuf[0];
    __syncthreads();  // sbuf is reused by the next reduction
    return total;
}

__global__ void layernorm_forward(const float* __restrict__ x, const float* __restrict__ gamma,
                                  const float* __restrict__ beta, float* __restrict__ y,
                                  float* __restrict__ mean_out, float* __restrict__ rstd_out,
                                  int rows, int cols, float eps)
{
    extern __shared__ float smem[];

    int row = blockIdx.x;
    if (row >= rows) {
        return;
    }
    int tid = threadIdx.x;
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;

    float local = 0.0f;
    for (int c = tid; c < cols; c += blockDim.x) {
        local += xr[c];
    }
    float mean = block_sum(local, smem) / cols;

    float local_var = 0.0f;
    for (int c = tid; c < cols; c += blockDim.x) {
        float d = xr[c] - mean;
        local_var += d * d;
    }
    float var = block_sum(local_var, smem) / cols;
    float rstd = rsqrtf(var + eps);

    for (int c = tid; c < cols; c += blockDim.x) {
        float n = (xr[c] - mean) * rstd;
        yr[c] = n * gamma[c] + beta[c];
    }
    if (tid == 0) {
        mean_out[row] = mean;
        rstd_out[row] = rstd;
    }
}

void launch_layernorm_forward(const float* h_x, const float* h_gamma, const float* h_beta,
                              float* h_y, int rows, int cols, float eps)
{
    size_t bytes = (size_t)rows * cols * sizeof(float);
    float *d_x, *d_gamma, *d_beta, *d_y, *d_mean, *d_rstd;
    cudaMalloc(&d_x, bytes);
    cudaMalloc(&d_gamma, cols * sizeof(float));
    cudaMalloc(&d_beta, cols * sizeof(float));
    cudaMalloc(&d_y, bytes);
    cudaMalloc(&d_mean, rows * sizeof(float));
    cudaMalloc(&d_rstd, rows * sizeof(float));
    cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_gamma, h_gamma, cols * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_beta, h_beta, cols * sizeof(float), cudaMemcpyHostToDevice);

    int threads = LN_THREADS;
    int blocks = rows;
    size_t smem = threads * sizeof(float);
    layernorm_forward<<<blocks, threads, smem>>>(d_x, d_gamma, d_beta, d_y, d_mean, d_rstd, rows, cols, eps);
    cudaDeviceSynchronize();

    cudaMemcpy(h_y, d_y, bytes, cudaMemcpyDeviceToHost);
    cudaFree(d_x);
    cudaFree(d_gamma);
    cudaFree(d_beta);
    cudaFree(d_y);
    cudaFree(d_mean);
    cudaFree(d_rstd);
}

int main(void)
{
    int rows = 64;
    int cols = 768;
    float* x = (float*)malloc((size_t)rows * cols * sizeof(float));
    float* y = (float*)malloc((size_t)rows * cols * sizeof(float));
    float* g = (float*)malloc(cols * sizeof(float));
    float* b = (float*)malloc(cols * sizeof(float));
    for (int i = 0; i < rows * cols; i++) {
        x[i] = (float)(i % 31) * 0.05f;
    }
    for (int c = 0; c < cols; c++) {
        g[c] = 1.0f;
        b[c] = 0.0f;
    }
    launch_layernorm_forward(x, g, b, y, rows, cols, 1e-5f);
    printf("y[0] = %f\n", y[0]);
    free(x);
    free(y);
    free(g);
    free(b);
    return 0;
}
