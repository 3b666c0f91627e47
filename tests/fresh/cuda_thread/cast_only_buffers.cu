// buffers the kernel reads only through casts to another element type: the same bits
// (cudaNvSci's RGBA words as uchar4; a D3D surface's bytes as float rows `pitch` bytes apart)
__global__ void gray(unsigned int *rgba, int n) {
    uchar4 *pix = (uchar4 *)rgba;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        uchar4 p = pix[i];
        unsigned char g = (unsigned char)(p.x * 0.3f + p.y * 0.59f + p.z * 0.11f);
        pix[i] = make_uchar4(g, g, g, 0);
    }
}

__global__ void fade(unsigned char *surface, int width, int height, size_t pitch, float t) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    float *pixel;
    if (x >= width || y >= height) return;
    pixel = (float *)(surface + y * pitch) + x;
    pixel[0] = 0.5f * pixel[0] + t;
}

void run(unsigned int *w, unsigned char *s, int n, int width, int height, size_t pitch) {
    gray<<<(n + 255) / 256, 256>>>(w, n);
    fade<<<dim3(width / 16, height / 16), dim3(16, 16)>>>(s, width, height, pitch, 0.25f);
}
