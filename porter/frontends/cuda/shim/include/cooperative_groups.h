/* tileport parse stand-in for CUDA cooperative groups: declarations only, so kernels that use
 * the common forms (this_thread_block, tiled_partition<N>, sync, thread_rank, shfl*, reduce)
 * parse with types; porter/frontends/cuda_groups.py gives them their meaning. */
#pragma once
namespace cooperative_groups {
/* the base every group converts to (a function taking `thread_group g` is given a block or a tile) */
struct thread_group {
  __device__ void sync() const;
  __device__ unsigned thread_rank() const;
  __device__ unsigned size() const;
  __device__ unsigned num_threads() const;
};
struct thread_block : thread_group {
  __device__ dim3 group_index() const;
  __device__ dim3 thread_index() const;
};
template <unsigned N> struct thread_block_tile : thread_group {
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
struct coalesced_group : thread_block_tile<32> {};
struct grid_group {
  __device__ void sync() const;
  __device__ unsigned long long thread_rank() const;
  __device__ unsigned long long size() const;
  __device__ unsigned long long num_threads() const;
  __device__ bool is_valid() const;
};
__device__ thread_block this_thread_block();
__device__ coalesced_group coalesced_threads();
__device__ grid_group this_grid();
template <class G> __device__ void sync(const G &g);
template <unsigned N, class P> __device__ thread_block_tile<N> tiled_partition(const P &g);
template <unsigned N> __device__ thread_block_tile<N> tiled_partition(const thread_block &g);
/* a tile whose size is a run-time value (a thread_group), and partitions by a value: declared so
 * kernels using them parse and get their diagnostic (TP155 / TP156) */
__device__ thread_group tiled_partition(const thread_group &parent, unsigned tilesz);
__device__ coalesced_group binary_partition(const coalesced_group &g, bool pred);
template <unsigned N> __device__ thread_block_tile<N> binary_partition(const thread_block_tile<N> &g, bool pred);
__device__ coalesced_group labeled_partition(const coalesced_group &g, int label);
template <unsigned N> __device__ coalesced_group labeled_partition(const thread_block_tile<N> &g, int label);
/* shared scratch for tiles of more than 32 threads: no state the port keeps */
template <unsigned N, unsigned TileCommunicationSize = 8> struct block_tile_memory {};
template <unsigned N, unsigned S> __device__ thread_block this_thread_block(block_tile_memory<N, S> &scratch);
template <class T> struct plus { __device__ T operator()(T a, T b) const; };
template <class T> struct greater { __device__ T operator()(T a, T b) const; };
template <class T> struct less { __device__ T operator()(T a, T b) const; };
template <unsigned N, class T, class Op> __device__ T reduce(const thread_block_tile<N> &g, T v, Op op);
template <class T, class Op> __device__ T inclusive_scan(const thread_block_tile<32> &g, T v, Op op);
template <class T, class Op> __device__ T exclusive_scan(const thread_block_tile<32> &g, T v, Op op);
}  // namespace cooperative_groups
