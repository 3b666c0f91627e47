/* tileport parse stand-in for CUDA cooperative groups: declarations only, so kernels that use
 * the common forms (this_thread_block, tiled_partition<N>, sync, thread_rank, shfl*, reduce)
 * parse with types; porter/frontends/cuda_groups.py gives them their meaning. */
#pragma once
namespace cooperative_groups {
struct thread_block {
  __device__ void sync() const;
  __device__ unsigned thread_rank() const;
  __device__ unsigned size() const;
  __device__ unsigned num_threads() const;
  __device__ dim3 group_index() const;
  __device__ dim3 thread_index() const;
};
template <unsigned N> struct thread_block_tile {
  __device__ void sync() const;
  __device__ unsigned thread_rank() const;
  __device__ unsigned size() const;
  __device__ unsigned num_threads() const;
  __device__ unsigned meta_group_rank() const;
  __device__ unsigned meta_group_size() const;
  template <class T> __device__ T shfl(T v, int src) const;
  template <class T> __device__ T shfl_down(T v, unsigned d) const;
  template <class T> __device__ T shfl_up(T v, unsigned d) const;
  template <class T> __device__ T shfl_xor(T v, unsigned m) const;
  __device__ int any(int p) const;
  __device__ int all(int p) const;
  __device__ unsigned ballot(int p) const;
};
__device__ thread_block this_thread_block();
template <unsigned N> __device__ thread_block_tile<N> tiled_partition(const thread_block &g);
template <class T> struct plus { __device__ T operator()(T a, T b) const; };
template <class T> struct greater { __device__ T operator()(T a, T b) const; };
template <class T> struct less { __device__ T operator()(T a, T b) const; };
template <unsigned N, class T, class Op> __device__ T reduce(const thread_block_tile<N> &g, T v, Op op);
}  // namespace cooperative_groups
