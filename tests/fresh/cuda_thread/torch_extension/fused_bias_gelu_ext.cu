// A PyTorch C++/CUDA extension as people publish them: kernels, torch::Tensor host wrappers
// behind dispatch macros, and the pybind11 module that exposes them.
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <cuda.h>
#include <cuda_runtime.h>

#define CHECK_CUDA(x) TORCH_CHECK(x.device().is_cuda(), #x " must be a CUDA tensor")
#define CHECK_CONTIGUOUS(x) TORCH_CHECK(x.is_contiguous(), #x " must be contiguous")
#define CHECK_INPUT(x) CHECK_CUDA(x); CHECK_CONTIGUOUS(x)

template <typename scalar_t>
__global__ void bias_gelu_kernel(const scalar_t *__restrict__ x, const scalar_t *__restrict__ bias,
                                 scalar_t *__restrict__ y, int rows, int cols) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < rows * cols) {
        float v = static_cast<float>(x[i]) + static_cast<float>(bias[i % cols]);
        y[i] = static_cast<scalar_t>(0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v))));
    }
}

__global__ void row_l2_kernel(const float *__restrict__ x, float *__restrict__ out, int cols) {
    __shared__ float part[256];
    float s = 0.f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        float v = x[blockIdx.x * cols + c];
        s += v * v;
    }
    part[threadIdx.x] = s;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) part[threadIdx.x] += part[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = sqrtf(part[0]);
}

torch::Tensor bias_gelu(torch::Tensor x, torch::Tensor bias) {
    CHECK_INPUT(x);
    CHECK_INPUT(bias);
    const at::cuda::OptionalCUDAGuard device_guard(device_of(x));
    auto y = torch::empty_like(x);
    const int rows = x.size(0), cols = x.size(1);
    const int threads = 256;
    const int blocks = (rows * cols + threads - 1) / threads;
    AT_DISPATCH_FLOATING_TYPES_AND_HALF(x.scalar_type(), "bias_gelu", ([&] {
        bias_gelu_kernel<scalar_t><<<blocks, threads, 0, at::cuda::getCurrentCUDAStream()>>>(
            x.data_ptr<scalar_t>(), bias.data_ptr<scalar_t>(), y.data_ptr<scalar_t>(), rows, cols);
    }));
    return y;
}

torch::Tensor row_l2(torch::Tensor x) {
    CHECK_INPUT(x);
    auto out = torch::empty({x.size(0)}, x.options());
    row_l2_kernel<<<x.size(0), 256>>>(x.data_ptr<float>(), out.data_ptr<float>(), x.size(1));
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return out;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("bias_gelu", &bias_gelu, "bias + tanh GELU (CUDA)");
    m.def("row_l2", &row_l2, "L2 norm of each row (CUDA)");
}
