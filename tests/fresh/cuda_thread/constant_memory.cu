// Kernels that read __constant__ arrays the host fills with cudaMemcpyToSymbol (a 1-D filter,
// a 2-D table) and count into a __device__ variable at namespace scope.
#include <cuda_runtime.h>

#define RADIUS 4
__constant__ float c_taps[2 * RADIUS + 1];
__constant__ int c_remap[4][4];
__device__ unsigned int d_hits;

__global__ void filter_row(const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float s = 0.f;
    for (int k = -RADIUS; k <= RADIUS; ++k) {
        int j = min(max(i + k, 0), n - 1);
        s += c_taps[RADIUS + k] * in[j];
    }
    out[i] = s;
}

__global__ void remap_count(const int *codes, int *mapped, int n, int key) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int c = codes[i] % 16;
        int m = c_remap[c / 4][c % 4];
        mapped[i] = m;
        if (m == key) atomicAdd(&d_hits, 1u);
    }
}

int main() {
    float taps[2 * RADIUS + 1] = {1, 2, 3, 4, 5, 4, 3, 2, 1};
    cudaMemcpyToSymbol(c_taps, taps, sizeof(taps));
    float *in, *out;
    int n = 1 << 16;
    cudaMalloc(&in, n * sizeof(float));
    cudaMalloc(&out, n * sizeof(float));
    filter_row<<<(n + 255) / 256, 256>>>(in, out, n);
    int *codes, *mapped;
    cudaMalloc(&codes, n * sizeof(int));
    cudaMalloc(&mapped, n * sizeof(int));
    remap_count<<<(n + 255) / 256, 256>>>(codes, mapped, n, 3);
    return 0;
}
