// A 1-D convolution whose taps sit in constant memory and are read as taps[RADIUS - j] for
// j from -RADIUS to RADIUS (like cuda-samples' convolutionSeparable): the table has
// 2 * RADIUS + 1 entries.
#define RADIUS 4

__constant__ float taps[2 * RADIUS + 1];

__global__ void conv_row(float *dst, const float *src, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float sum = 0.0f;
    for (int j = -RADIUS; j <= RADIUS; j++) {
        int k = i + j;
        if (k >= 0 && k < n)
            sum += taps[RADIUS - j] * src[k];
    }
    dst[i] = sum;
}

void run(float *d_dst, const float *d_src, int n)
{
    conv_row<<<(n + 127) / 128, 128>>>(d_dst, d_src, n);
}
