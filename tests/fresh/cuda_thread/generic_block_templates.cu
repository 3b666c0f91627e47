// Template kernels whose block size is a template value: one port each, generic over the
// value (its program takes BLOCK), with two element types launched.
template <typename T, int BLOCK>
__global__ void scale_pairs(const T *x, T *y, T a, int n) {
    // each block covers 2 * BLOCK elements: BLOCK * 2 is spelled after BLOCK in the port
    int i = blockIdx.x * (BLOCK * 2) + threadIdx.x;
    if (i < n) y[i] = a * x[i];
    if (i + BLOCK < n) y[i + BLOCK] = a * x[i + BLOCK];
}

template <int BLOCK>
__global__ void block_sums(const float *x, float *out, int n) {
    __shared__ float s[BLOCK];
    int i = blockIdx.x * BLOCK + threadIdx.x;
    s[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int k = BLOCK / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

// BLOCK decides a branch at compile time: the port keeps one program per instance
template <int BLOCK>
__global__ void wide_or_narrow(const float *x, float *y, int n) {
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (BLOCK >= 256) {
        if (i < n) y[i] = 2.0f * x[i];
    } else {
        if (i < n) y[i] = x[i] + 1.0f;
    }
}

void run(const float *x, float *y, const double *xd, double *yd, float *sums, int n) {
    scale_pairs<float, 128><<<(n + 255) / 256, 128>>>(x, y, 2.0f, n);
    scale_pairs<double, 64><<<(n + 127) / 128, 64>>>(xd, yd, 2.0, n);
    block_sums<256><<<(n + 255) / 256, 256>>>(x, sums, n);
    block_sums<64><<<(n + 63) / 64, 64>>>(x, sums, n);
    wide_or_narrow<256><<<(n + 255) / 256, 256>>>(x, y, n);
    wide_or_narrow<64><<<(n + 63) / 64, 64>>>(x, y, n);
}
