// Cross-entropy loss forward: one block per row of logits [rows, classes].
//   loss[r] = logsumexp(logits[r, :]) - logits[r, target[r]]
// computed through a numerically stable log-softmax (row max and sum of exponentials reduced
// in shared memory). Rows whose target is IGNORE_INDEX get loss 0.
#include <cuda_runtime.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define CE_THREADS 256
#define IGNORE_INDEX -100

__device__ float block_reduce_max(float v, float* sbuf)
{
    int tid = threadIdx.x;
    sbuf[tid] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sbuf[tid] = fmaxf(sbuf[tid], sbuf[tid + s]);
        }
        __syncthreads();
    }
    float r = sbuf[0];
    __syncthreads();
    return r;
}

__device__ float block_reduce_sum(float v, float* sbuf)
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
    float r = sbuf[0];
    __syncthreads();
    return r;
}

__global__ void cross_entropy_forward(const float* __restrict__ logits, const int* __restrict__ targets,
                                      float* __restrict__ losses, int rows, int classes)
{
    __shared__ float sbuf[CE_THREADS];

    int row = blockIdx.x;
    if (row >= rows) {
        return;
    }
    int tid = threadIdx.x;
    const float* x = logits + (size_t)row * classes;

    float m = -FLT_MAX;
    for (int c = tid; c < classes; c += blockDim.x) {
        m = fmaxf(m, x[c]);
    }
    float row_max = block_reduce_max(m, sbuf);

    float s = 0.0f;
    for (int c = tid; c < classes; c += blockDim.x) {
        s += expf(x[c] - row_max);
    }
    float row_sum = block_reduce_sum(s, sbuf);

    if (tid == 0) {
        int t = targets[row];
        if (t == IGNORE_INDEX || t < 0 || t >= classes) {
            losses[row] = 0.0f;
        } else {
            float log_prob = x[t] - row_max - logf(row_sum);
            losses[row] = -log_prob;
        }
    }
}

void launch_cross_entropy(const float* h_logits, const int* h_targets, float* h_losses,
                          int rows, int classes)
{
    size_t bytes = (size_t)rows * classes * sizeof(float);
    float *d_logits, *d_losses;
    int* d_targets;
    cudaMalloc(&d_logits, bytes);
    cudaMalloc(&d_targets, rows * sizeof(int));
    cudaMalloc(&d_losses, rows * sizeof(float));
    cudaMemcpy(d_logits, h_logits, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_targets, h_targets, rows * sizeof(int), cudaMemcpyHostToDevice);

    int threads = CE_THREADS;
    int blocks = rows;
    cross_entropy_forward<<<blocks, threads>>>(d_logits, d_targets, d_losses, rows, classes);
    cudaDeviceSynchronize();

    cudaMemcpy(h_losses, d_losses, rows * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d_logits);
    cudaFree(d_targets);
    cudaFree(d_losses);
}

int main(void)
{
    int rows = 256;
    int classes = 50257;
    float* logits = (float*)malloc((size_t)rows * classes * sizeof(float));
    int* targets = (int*)malloc(rows * sizeof(int));
    float* losses = (float*)malloc(rows * sizeof(float));
    for (size_t i = 0; i < (size_t)rows * classes; i++) {
        logits[i] = (float)(i % 17) * 0.1f;
    }
    for (int r = 0; r < rows; r++) {
        targets[r] = (r * 131) % classes;
    }
    launch_cross_entropy(logits, targets, losses, rows, classes);
    printf("loss[0] = %f\n", losses[0]);
    free(logits);
    free(targets);
    free(losses);
    return 0;
}
