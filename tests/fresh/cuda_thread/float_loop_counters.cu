// loops counted in floats (imageDenoising's KNN window): TIR counts loops in integers only
#define R 2.0f
__global__ void window_mean(const float *img, float *out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float sum = 0.0f, count = 0.0f;
    for (float i = -R; i <= R; i++)
        for (float j = -R; j <= R; j += 1.0f) {
            int xx = min(max(x + (int)j, 0), w - 1), yy = min(max(y + (int)i, 0), h - 1);
            sum += img[yy * w + xx];
            count += 1.0f;
        }
    out[y * w + x] = sum / count;
}

void run(const float *img, float *out, int w, int h) {
    window_mean<<<dim3(w / 8, h / 8), dim3(8, 8)>>>(img, out, w, h);
}
