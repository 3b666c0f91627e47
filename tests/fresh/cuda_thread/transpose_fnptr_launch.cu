// A benchmark driver that picks its kernel through a function pointer (like cuda-samples'
// transpose): the launch site names the pointer, not the kernel. Width and height are whole
// tiles; nothing in the kernels guards them.
#define TILE 16
#define ROWS 4

__global__ void transposeTiled(float *out, const float *in, int width, int height)
{
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
    __syncthreads();
    int ox = blockIdx.y * TILE + threadIdx.x;
    int oy = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        out[(oy + j) * height + ox] = tile[threadIdx.x][threadIdx.y + j];
}

__global__ void copyTiled(float *out, const float *in, int width, int height)
{
    __shared__ float tile[TILE * TILE];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        tile[(threadIdx.y + j) * TILE + threadIdx.x] = in[(y + j) * width + x];
    __syncthreads();
    for (int j = 0; j < TILE; j += ROWS)
        out[(y + j) * width + x] = 2.0f * tile[(threadIdx.y + j) * TILE + threadIdx.x];
}

void run(float *d_out, const float *d_in, int size_x, int size_y, int which)
{
    void (*kernel)(float *, const float *, int, int) = &copyTiled;
    if (which == 1)
        kernel = &transposeTiled;
    dim3 grid(size_x / TILE, size_y / TILE), threads(TILE, ROWS);
    kernel<<<grid, threads>>>(d_out, d_in, size_x, size_y);
}
