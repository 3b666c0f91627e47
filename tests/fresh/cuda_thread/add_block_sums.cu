// The second pass of a two-level scan (like cuda-samples' shfl_scan uniform_add): block b + 1
// adds the sum of blocks 0..b. The launch has one block fewer than the data, so a length
// below two blocks launches nothing.
__global__ void add_block_sums(int *data, const int *partial, int len)
{
    __shared__ int add;
    int id = (blockIdx.x + 1) * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0)
        add = partial[blockIdx.x];
    __syncthreads();
    if (id < len)
        data[id] += add;
}

void second_pass(int *d_data, const int *d_partial, int len)
{
    add_block_sums<<<len / 256 - 1, 256>>>(d_data, d_partial, len);
}
