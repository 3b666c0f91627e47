/* tileport CPU emulation stand-in for <cooperative_groups.h>: thread blocks and warp tiles.
 *
 * Covered: this_thread_block(), tiled_partition<N>() / tiled_partition(g, n) for N <= 32,
 * group sync / thread_rank / size / meta_group_*, tile shuffles and votes, cg::sync(g), and
 * cg::reduce (cooperative_groups/reduce.h). Not covered: coalesced_threads() (the emulator cannot
 * tell which lanes are converged) and grid-wide sync (blocks run one after another), which fails
 * the launch with a clear message. Sync points keep the caller's source line so divergent-barrier
 * reports name user code.
 */
#ifndef TP_COOPERATIVE_GROUPS_H
#define TP_COOPERATIVE_GROUPS_H
#include "../tp_emu.h"

namespace cooperative_groups {

namespace details {
inline unsigned block_rank() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
inline unsigned block_size() { return blockDim.x * blockDim.y * blockDim.z; }
/* lanes of the calling thread's warp that belong to its tile of `n` threads */
inline unsigned tile_mask(unsigned n) {
  if (n >= 32) return 0xffffffffu;
  unsigned lane = block_rank() & 31u;
  return ((1u << n) - 1u) << (lane / n * n);
}
} // namespace details

/* A group of threads; the block or a warp tile (size <= 32, a power of two). */
class thread_group {
protected:
  unsigned size_;
  bool is_block_;
  thread_group(unsigned size, bool is_block) : size_(size), is_block_(is_block) {}

public:
  void sync(std::source_location l = std::source_location::current()) const {
    if (is_block_) tp_rt_barrier(TP_BAR_SYNC, 1, l.file_name(), l.line());
    else __syncwarp(details::tile_mask(size_), l);
  }
  unsigned long long thread_rank() const {
    return is_block_ ? details::block_rank() : details::block_rank() % size_;
  }
  unsigned long long size() const { return size_; }
  unsigned long long num_threads() const { return size_; }
  unsigned long long meta_group_rank() const { return is_block_ ? 0 : details::block_rank() / size_; }
  unsigned long long meta_group_size() const {
    return is_block_ ? 1 : (details::block_size() + size_ - 1) / size_;
  }
};

class thread_block : public thread_group {
public:
  thread_block() : thread_group(details::block_size(), true) {}
  dim3 group_index() const { return dim3(blockIdx); }
  dim3 thread_index() const { return dim3(threadIdx); }
  dim3 group_dim() const { return blockDim; }
  dim3 dim_threads() const { return blockDim; }
  static void barrier_wait(std::source_location l = std::source_location::current()) {
    tp_rt_barrier(TP_BAR_SYNC, 1, l.file_name(), l.line());
  }
};
inline thread_block this_thread_block() { return thread_block(); }

template <unsigned N, class Parent = void> class thread_block_tile : public thread_group {
  static_assert(N >= 1 && N <= 32 && (N & (N - 1)) == 0,
                "the CPU emulator supports warp tiles of 1..32 threads (powers of two)");

public:
  thread_block_tile() : thread_group(N, false) {}
  template <class P> thread_block_tile(const thread_block_tile<N, P> &) : thread_group(N, false) {}
  static constexpr unsigned long long num_threads() { return N; }
  static constexpr unsigned long long size() { return N; }
  unsigned mask_() const { return details::tile_mask(N); }
  template <class T>
  T shfl(T v, int src, std::source_location l = std::source_location::current()) const {
    return __shfl_sync(mask_(), v, src, (int)N, l);
  }
  template <class T>
  T shfl_down(T v, unsigned d, std::source_location l = std::source_location::current()) const {
    return __shfl_down_sync(mask_(), v, d, (int)N, l);
  }
  template <class T>
  T shfl_up(T v, unsigned d, std::source_location l = std::source_location::current()) const {
    return __shfl_up_sync(mask_(), v, d, (int)N, l);
  }
  template <class T>
  T shfl_xor(T v, int m, std::source_location l = std::source_location::current()) const {
    return __shfl_xor_sync(mask_(), v, m, (int)N, l);
  }
  int any(int p, std::source_location l = std::source_location::current()) const {
    return __any_sync(mask_(), p, l);
  }
  int all(int p, std::source_location l = std::source_location::current()) const {
    return __all_sync(mask_(), p, l);
  }
  unsigned ballot(int p, std::source_location l = std::source_location::current()) const {
    unsigned shift = N >= 32 ? 0u : (details::block_rank() & 31u) / N * N;
    return __ballot_sync(mask_(), p, l) >> shift;
  }
  template <class T>
  unsigned match_any(T v, std::source_location l = std::source_location::current()) const {
    unsigned shift = N >= 32 ? 0u : (details::block_rank() & 31u) / N * N;
    return __match_any_sync(mask_(), v, l) >> shift;
  }
};

template <unsigned N, class P> inline thread_block_tile<N, P> tiled_partition(const P &) {
  return thread_block_tile<N, P>();
}

/* tiled_partition(parent, n) with a runtime size */
class tp_dynamic_tile : public thread_group {
public:
  explicit tp_dynamic_tile(unsigned n) : thread_group(n, false) {}
};
inline thread_group tiled_partition(const thread_group &, unsigned n) {
  if (n == 0 || n > 32 || (n & (n - 1)) != 0)
    tp_rt_fail(TP_RT_UNSUPPORTED, "tiled_partition(g, n): the CPU emulator supports n = 1..32, a power of two",
               __FILE__, __LINE__);
  return tp_dynamic_tile(n);
}

class grid_group {
public:
  void sync(std::source_location l = std::source_location::current()) const {
    tp_rt_fail(TP_RT_UNSUPPORTED,
               "grid-wide sync (cooperative_groups::grid_group::sync) cannot be emulated: "
               "the CPU emulator runs blocks one after another",
               l.file_name(), l.line());
  }
  unsigned long long thread_rank() const {
    unsigned long long b = blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
    return b * details::block_size() + details::block_rank();
  }
  unsigned long long size() const {
    return (unsigned long long)gridDim.x * gridDim.y * gridDim.z * details::block_size();
  }
  unsigned long long num_threads() const { return size(); }
  bool is_valid() const { return true; }
};
inline grid_group this_grid() { return grid_group(); }

template <class G> inline void sync(const G &g, std::source_location l = std::source_location::current()) {
  g.sync(l);
}

} // namespace cooperative_groups

#endif
