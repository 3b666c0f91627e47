// pointers declared without a buffer (NULL, or nothing) and set later, in a loop and straight on
__global__ void planes(const float *src, float *dst, int width, int plane, int n) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= width) return;
    float *p = NULL;
    for (int c = 0; c < n; c++) {
        p = dst + c * plane + x;
        *p = src[x] * (c + 1);
    }
}

__global__ void halves(float *data, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float *q;
    q = data + 2 * i;
    if (2 * i + 1 < n) q[1] = 0.5f * q[0];
}

void run(const float *s, float *d, int w, int n) {
    planes<<<(w + 127) / 128, 128>>>(s, d, w, w + 3, 3);
    halves<<<(n + 255) / 256, 128>>>(d, n);
}
