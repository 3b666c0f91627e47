// Kernels loaded through the driver API (cuModuleGetFunction + cuLaunchKernel): no launch site
// in the file. Each instance's shared tiles, stored at [threadIdx.y][threadIdx.x], say the
// block it is written for (8 x 8 and 32 x 32), like cuda-samples' matrixMulDrv.
template <int BS>
__device__ void tiledMatMul(float *C, const float *A, const float *B, size_t wA, size_t wB)
{
    size_t bx = blockIdx.x, by = blockIdx.y;
    size_t tx = threadIdx.x, ty = threadIdx.y;
    size_t aBegin = wA * BS * by;
    size_t aEnd = aBegin + wA - 1;
    size_t bBegin = BS * bx;
    float sum = 0;
    for (size_t a = aBegin, b = bBegin; a <= aEnd; a += BS, b += BS * wB) {
        __shared__ float As[BS][BS];
        __shared__ float Bs[BS][BS];
        As[ty][tx] = A[a + wA * ty + tx];
        Bs[ty][tx] = B[b + wB * ty + tx];
        __syncthreads();
        for (int k = 0; k < BS; ++k)
            sum += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[wB * BS * by + BS * bx + wB * ty + tx] = sum;
}

extern "C" __global__ void matmul_bs8(float *C, const float *A, const float *B, size_t wA, size_t wB)
{
    tiledMatMul<8>(C, A, B, wA, wB);
}

extern "C" __global__ void matmul_bs32(float *C, const float *A, const float *B, size_t wA, size_t wB)
{
    tiledMatMul<32>(C, A, B, wA, wB);
}
