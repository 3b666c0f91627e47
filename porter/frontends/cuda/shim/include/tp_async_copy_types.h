/* tileport parse stand-in: what <cuda/pipeline> and <cuda/barrier> share. */
#pragma once
namespace cuda {
enum thread_scope { thread_scope_system, thread_scope_device, thread_scope_block, thread_scope_thread };
template <unsigned long long Align> struct aligned_size_t {
  unsigned long long value;
  __host__ __device__ constexpr explicit aligned_size_t(unsigned long long size) : value(size) {}
  __host__ __device__ constexpr operator unsigned long long() const { return value; }
};
}  // namespace cuda
