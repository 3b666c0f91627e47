// Quantize 8x8 blocks of coefficients by a table in constant memory (like cuda-samples'
// dct8x8): the kernel divides by the table's entries, which the host fills with nonzero steps.
#define BS 8

__constant__ short steps[BS * BS];

__global__ void quantize(short *coef, int stride)
{
    int x = blockIdx.x * BS + threadIdx.x;
    int y = blockIdx.y * BS + threadIdx.y;
    short c = coef[y * stride + x];
    short q = steps[threadIdx.y * BS + threadIdx.x];
    if (c < 0) {
        c = -c;
        c += q >> 1;
        c /= q;
        c = -c;
    } else {
        c += q >> 1;
        c /= q;
    }
    coef[y * stride + x] = c * q;
}

void run(short *d_coef, int width, int height)
{
    dim3 grid(width / BS, height / BS), threads(BS, BS);
    quantize<<<grid, threads>>>(d_coef, width);
}
