// Rounding at halfway cases: rintf goes to even, roundf away from zero.
__global__ void round_both(const float* x, float* even, float* away, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        even[i] = rintf(x[i] * 2.0f);
        away[i] = roundf(x[i] * 2.0f);
    }
}

void launch(const float* x, float* even, float* away, int n)
{
    round_both<<<(n + 127) / 128, 128>>>(x, even, away, n);
}
