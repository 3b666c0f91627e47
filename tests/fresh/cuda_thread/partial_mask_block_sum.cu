// A block sum whose second stage shuffles under a partial mask (like cuda-samples' reduction
// reduce7): only the lanes that hold a warp's sum take part, named by a ballot.
__device__ __forceinline__ float warp_sum(unsigned int mask, float v)
{
    for (int offset = warpSize / 2; offset > 0; offset /= 2)
        v += __shfl_down_sync(mask, v, offset);
    return v;
}

template <unsigned int blockSize> __global__ void block_sum(const float *in, float *out, unsigned int n)
{
    extern __shared__ float sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int gridSize = blockSize * gridDim.x;
    unsigned int maskLength = (blockSize & 31);
    maskLength = (maskLength > 0) ? (32 - maskLength) : maskLength;
    const unsigned int mask = (0xffffffff) >> maskLength;
    float sum = 0;
    for (unsigned int i = blockIdx.x * blockSize + threadIdx.x; i < n; i += gridSize)
        sum += in[i];
    sum = warp_sum(mask, sum);
    if ((tid % warpSize) == 0)
        sdata[tid / warpSize] = sum;
    __syncthreads();
    const unsigned int extent = (blockSize / warpSize) > 0 ? (blockSize / warpSize) : 1;
    const unsigned int lanes = __ballot_sync(mask, tid < extent);
    if (tid < extent) {
        sum = sdata[tid];
        sum = warp_sum(lanes, sum);
    }
    if (tid == 0)
        out[blockIdx.x] = sum;
}

void run(const float *d_in, float *d_out, unsigned int n, int blocks)
{
    block_sum<512><<<blocks, 512, 16 * sizeof(float)>>>(d_in, d_out, n);
}
