// 1D "same" convolution (cross-correlation, as in deep-learning frameworks) with zero padding:
//   out[i] = sum_{j<k} filter[j] * in[i + j - k/2],  k odd.
// The filter and the block's input tile (blockDim.x + k - 1 elements, halo included) are
// staged in dynamic shared memory sized at launch.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CONV_THREADS 128

__global__ void conv1d_same(const float* __restrict__ in, const float* __restrict__ filter,
                            float* __restrict__ out, int n, int k)
{
    extern __shared__ float smem[];
    float* s_filter = smem;       // k floats
    float* s_tile = smem + k;     // blockDim.x + k - 1 floats

    int tid = threadIdx.x;
    int radius = k / 2;
    int block_start = blockIdx.x * blockDim.x;
    int tile_len = blockDim.x + k - 1;

    for (int j = tid; j < k; j += blockDim.x) {
        s_filter[j] = filter[j];
    }
    for (int t = tid; t < tile_len; t += blockDim.x) {
        int g = block_start - radius + t;
        s_tile[t] = (g >= 0 && g < n) ? in[g] : 0.0f;
    }
    __syncthreads();

    int i = block_start + tid;
    if (i >= n) {
        return;
    }
    float acc = 0.0f;
    for (int j = 0; j < k; j++) {
        acc += s_filter[j] * s_tile[tid + j];
    }
    out[i] = acc;
}

void launch_conv1d(const float* h_in, const float* h_filter, float* h_out, int n, int k)
{
    float *d_in, *d_filter, *d_out;
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMalloc(&d_filter, k * sizeof(float));
    cudaMalloc(&d_out, n * sizeof(float));
    cudaMemcpy(d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_filter, h_filter, k * sizeof(float), cudaMemcpyHostToDevice);

    int threads = CONV_THREADS;
    int blocks = (n + threads - 1) / threads;
    size_t smem_bytes = (k + threads + k - 1) * sizeof(float);
    conv1d_same<<<blocks, threads, smem_bytes>>>(d_in, d_filter, d_out, n, k);
    cudaDeviceSynchronize();

    cudaMemcpy(h_out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d_in);
    cudaFree(d_filter);
    cudaFree(d_out);
}

int main(void)
{
    int n = 1 << 16;
    int k = 9;
    float* x = (float*)malloc(n * sizeof(float));
    float* y = (float*)malloc(n * sizeof(float));
    float* f = (float*)malloc(k * sizeof(float));
    for (int i = 0; i < n; i++) {
        x[i] = 1.0f;
    }
    for (int j = 0; j < k; j++) {
        f[j] = 1.0f / k;
    }
    launch_conv1d(x, f, y, n, k);
    printf("y[0] = %f, y[100] = %f\n", y[0], y[100]);
    free(x);
    free(y);
    free(f);
    return 0;
}
