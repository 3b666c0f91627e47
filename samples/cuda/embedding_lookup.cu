// Embedding table lookup (forward) and its gradient scatter (backward).
// Forward gathers row idx[r] of a [vocab, dim] table into out[r, :]; out-of-range ids
// (e.g. padding) give a zero row. Backward accumulates grad_out[r, :] into grad_table[idx[r], :]
// with atomics, since the same id can appear several times. 2D grid: x over dim, y over tokens.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define EMB_BLOCK_X 32
#define EMB_BLOCK_Y 8

__global__ void embedding_forward(const int* __restrict__ idx, const float* __restrict__ table,
                                  float* __restrict__ out, int num_tokens, int dim, int vocab)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= num_tokens || j >= dim) {
        return;
    }
    int token = idx[row];
    if (token < 0 || token >= vocab) {
        out[(size_t)row * dim + j] = 0.0f;
        return;
    }
    out[(size_t)row * dim + j] = table[(size_t)token * dim + j];
}

__global__ void embedding_backward(const int* __restrict__ idx, const float* __restrict__ grad_out,
                                   float* __restrict__ grad_table, int num_tokens, int dim, int vocab)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= num_tokens || j >= dim) {
        return;
    }
    int token = idx[row];
    if (token < 0 || token >= vocab) {
        return;
    }
    atomicAdd(&grad_table[(size_t)token * dim + j], grad_out[(size_t)row * dim + j]);
}

void launch_embedding(const int* h_idx, const float* h_table, float* h_out,
                      const float* h_grad_out, float* h_grad_table,
                      int num_tokens, int dim, int vocab)
{
    int* d_idx;
    float *d_table, *d_out, *d_grad_out, *d_grad_table;
    size_t table_bytes = (size_t)vocab * dim * sizeof(float);
    size_t out_bytes = (size_t)num_tokens * dim * sizeof(float);
    cudaMalloc(&d_idx, num_tokens * sizeof(int));
    cudaMalloc(&d_table, table_bytes);
    cudaMalloc(&d_out, out_bytes);
    cudaMalloc(&d_grad_out, out_bytes);
    cudaMalloc(&d_grad_table, table_bytes);
    cudaMemcpy(d_idx, h_idx, num_tokens * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_table, h_table, table_bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_grad_out, h_grad_out, out_bytes, cudaMemcpyHostToDevice);
    cudaMemset(d_grad_table, 0, table_bytes);

    dim3 block(EMB_BLOCK_X, EMB_BLOCK_Y);
    dim3 grid((dim + EMB_BLOCK_X - 1) / EMB_BLOCK_X, (num_tokens + EMB_BLOCK_Y - 1) / EMB_BLOCK_Y);
    embedding_forward<<<grid, block>>>(d_idx, d_table, d_out, num_tokens, dim, vocab);
    embedding_backward<<<grid, block>>>(d_idx, d_grad_out, d_grad_table, num_tokens, dim, vocab);
    cudaDeviceSynchronize();

    cudaMemcpy(h_out, d_out, out_bytes, cudaMemcpyDeviceToHost);
    cudaMemcpy(h_grad_table, d_grad_table, table_bytes, cudaMemcpyDeviceToHost);
    cudaFree(d_idx);
    cudaFree(d_table);
    cudaFree(d_out);
    cudaFree(d_grad_out);
    cudaFree(d_grad_table);
}

int main(void)
{
    int num_tokens = 2048;
    int dim = 768;
    int vocab = 32000;
    int* idx = (int*)malloc(num_tokens * sizeof(int));
    float* table = (float*)malloc((size_t)vocab * dim * sizeof(float));
    float* out = (float*)malloc((size_t)num_tokens * dim * sizeof(float));
    float* gout = (float*)malloc((size_t)num_tokens * dim * sizeof(float));
    float* gtable = (float*)malloc((size_t)vocab * dim * sizeof(float));
    for (int r = 0; r < num_tokens; r++) {
        idx[r] = (r * 37) % vocab;
    }
    for (size_t i = 0; i < (size_t)vocab * dim; i++) {
        table[i] = (float)(i % 101) * 0.01f;
    }
    for (size_t i = 0; i < (size_t)num_tokens * dim; i++) {
        gout[i] = 1.0f;
    }
    launch_embedding(idx, table, out, gout, gtable, num_tokens, dim, vocab);
    printf("out[dim] = %f\n", out[dim]);
    free(idx);
    free(table);
    free(out);
    free(gout);
    free(gtable);
    return 0;
}
