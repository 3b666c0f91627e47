// Each thread pairs an element with the one before it through `g + i + threadIdx.x - 1`
// (unsigned i, like cuda-samples' eigenvalues bisect_large), staged in shared memory; the
// launch gives its block through the fields of a dim3 (`threads.x = 64`).
__global__ void prev_products(float *out, const float *g, unsigned int n)
{
    __shared__ float cur[64], prev[64];
    float acc = 0.0f;
    for (unsigned int i = 0; i < n; i += blockDim.x) {
        __syncthreads();
        if (i + threadIdx.x < n && i + threadIdx.x > 0) {
            cur[threadIdx.x] = *(g + i + threadIdx.x);
            prev[threadIdx.x] = *(g + i + threadIdx.x - 1);
        } else {
            cur[threadIdx.x] = 0.0f;
            prev[threadIdx.x] = 0.0f;
        }
        __syncthreads();
        acc += cur[threadIdx.x] * prev[threadIdx.x];
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

void run(float *d_out, const float *d_g, unsigned int n)
{
    dim3 grid;
    grid.x = 2;
    dim3 threads;
    threads.x = 64;
    prev_products<<<grid, threads>>>(d_out, d_g, n);
}
