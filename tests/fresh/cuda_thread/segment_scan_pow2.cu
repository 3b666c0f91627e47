// Inclusive scans of segments of `size` threads (like cuda-samples' scan1Inclusive): the
// position formula masks the thread index with size - 1, so the host keeps size a power of
// two no larger than the block.
__global__ void segment_scan(unsigned int *out, const unsigned int *in, unsigned int size)
{
    __shared__ unsigned int s[2 * 128];
    unsigned int gid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int pos = 2 * threadIdx.x - (threadIdx.x & (size - 1));
    s[pos] = 0;
    pos += size;
    s[pos] = in[gid];
    for (unsigned int offset = 1; offset < size; offset <<= 1) {
        __syncthreads();
        unsigned int t = s[pos] + s[pos - offset];
        __syncthreads();
        s[pos] = t;
    }
    out[gid] = s[pos];
}

void run(unsigned int *d_out, const unsigned int *d_in, unsigned int size, int blocks)
{
    segment_scan<<<blocks, 128>>>(d_out, d_in, size);
}
