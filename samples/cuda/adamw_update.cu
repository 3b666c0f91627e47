// AdamW optimizer step (decoupled weight decay, as in torch.optim.AdamW), elementwise over
// n parameters with a grid-stride loop:
//   p -= lr * weight_decay * p
//   m  = beta1 * m + (1 - beta1) * g
//   v  = beta2 * v + (1 - beta2) * g^2
//   p -= lr * (m / (1 - beta1^step)) / (sqrt(v / (1 - beta2^step)) + eps)
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define ADAM_THREADS 256

__device__ float lerp_moment(float old_val, float new_val, float beta)
{
    return beta * old_val + (1.0f - beta) * new_val;
}

__global__ void adamw_update(float* __restrict__ param, const float* __restrict__ grad,
                             float* __restrict__ exp_avg, float* __restrict__ exp_avg_sq, int n,
                             float lr, float beta1, float beta2, float eps, float weight_decay, int step)
{
    float bias_correction1 = 1.0f - powf(beta1, (float)step);
    float bias_correction2 = 1.0f - powf(beta2, (float)step);
    float step_size = lr / bias_correction1;
    float bias_correction2_sqrt = sqrtf(bias_correction2);

    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        float g = grad[i];
        float p = param[i];
        p = p * (1.0f - lr * weight_decay);

        float m = lerp_moment(exp_avg[i], g, beta1);
        float v = lerp_moment(exp_avg_sq[i], g * g, beta2);
        exp_avg[i] = m;
        exp_avg_sq[i] = v;

        float denom = sqrtf(v) / bias_correction2_sqrt + eps;
        param[i] = p - step_size * m / denom;
    }
}

void launch_adamw(float* h_param, const float* h_grad, float* h_m, float* h_v, int n,
                  float lr, float beta1, float beta2, float eps, float weight_decay, int step)
{
    size_t bytes = n * sizeof(float);
    float *d_param, *d_grad, *d_m, *d_v;
    cudaMalloc(&d_param, bytes);
    cudaMalloc(&d_grad, bytes);
    cudaMalloc(&d_m, bytes);
    cudaMalloc(&d_v, bytes);
    cudaMemcpy(d_param, h_param, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_grad, h_grad, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_m, h_m, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_v, h_v, bytes, cudaMemcpyHostToDevice);

    int threads = ADAM_THREADS;
    int blocks = (n + threads - 1) / threads;
    adamw_update<<<blocks, threads>>>(d_param, d_grad, d_m, d_v, n, lr, beta1, beta2, eps, weight_decay, step);
    cudaDeviceSynchronize();

    cudaMemcpy(h_param, d_param, bytes, cudaMemcpyDeviceToHost);
    cudaMemcpy(h_m, d_m, bytes, cudaMemcpyDeviceToHost);
    cudaMemcpy(h_v, d_v, bytes, cudaMemcpyDeviceToHost);
    cudaFree(d_param);
    cudaFree(d_grad);
    cudaFree(d_m);
    cudaFree(d_v);
}

int main(void)
{
    int n = 1 << 20;
    float* p = (float*)malloc(n * sizeof(float));
    float* g = (float*)malloc(n * sizeof(float));
    float* m = (float*)malloc(n * sizeof(float));
    float* v = (float*)malloc(n * sizeof(float));
    for (int i = 0; i < n; i++) {
        p[i] = 1.0f;
        g[i] = 0.01f * (float)(i % 5);
        m[i] = 0.0f;
        v[i] = 0.0f;
    }
    launch_adamw(p, g, m, v, n, 1e-3f, 0.9f, 0.999f, 1e-8f, 0.01f, 1);
    printf("p[1] = %f\n", p[1]);
    free(p);
    free(g);
    free(m);
    free(v);
    return 0;
}
