// The last element of each CSR segment: `offsets[tid + 1] - 1` (like cuda-samples'
// segmentationTreeThrust getSuccessors); the host's offsets past the first are at least 1.
__global__ void segment_last(const unsigned int *offsets, const unsigned int *values, unsigned int *last,
                             unsigned int segments, unsigned int total)
{
    unsigned int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid < segments) {
        unsigned int pos = (tid < segments - 1) ? (offsets[tid + 1] - 1) : (total - 1);
        last[tid] = values[pos];
    }
}

void run(const unsigned int *d_offsets, const unsigned int *d_values, unsigned int *d_last,
         unsigned int segments, unsigned int total)
{
    segment_last<<<(segments + 127) / 128, 128>>>(d_offsets, d_values, d_last, segments, total);
}
