// sincos writes both values through pointers: locals, and elements of the output buffers
__global__ void rotate_points(const float *angle, float2 *xy, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float s, c;
    __sincosf(angle[i], &s, &c);
    float2 p = xy[i];
    xy[i] = make_float2(c * p.x - s * p.y, s * p.x + c * p.y);
}

__global__ void unit_circle(const float *turns, float *sines, float *cosines, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) sincospif(2.0f * turns[i], &sines[i], cosines + i);
}

void run(const float *a, float2 *xy, float *s, float *c, int n) {
    rotate_points<<<(n + 127) / 128, 128>>>(a, xy, n);
    unit_circle<<<(n + 127) / 128, 128>>>(a, s, c, n);
}
