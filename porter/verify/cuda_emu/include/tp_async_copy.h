/* tileport CPU emulation of asynchronous copies (<cuda/pipeline>, <cuda/barrier>,
 * <cuda_pipeline.h>, <cooperative_groups/memcpy_async.h>).
 *
 * A copy lands the moment it is issued: one of the times the hardware may pick, so a kernel
 * correct for all of them computes the same. Per-thread pipeline stages are then nothing to
 * wait for; the waits that order threads are the barriers they are (a block-scope
 * cuda::barrier's arrive_and_wait, cooperative_groups::wait). Block-scope pipelines that split
 * producers from consumers, and split arrive()/wait() on a barrier, fail the run with a message.
 */
#ifndef TP_ASYNC_COPY_H
#define TP_ASYNC_COPY_H
#include <cstring>
#include "cooperative_groups.h"

namespace cuda {
enum thread_scope { thread_scope_system, thread_scope_device, thread_scope_block, thread_scope_thread };
template <unsigned long long Align> struct aligned_size_t {
  unsigned long long value;
  constexpr explicit aligned_size_t(unsigned long long size) : value(size) {}
  constexpr operator unsigned long long() const { return value; }
};
enum class pipeline_role { producer, consumer };
template <thread_scope Scope, unsigned char Stages = 2> struct pipeline_shared_state {};

template <thread_scope Scope> struct pipeline {
  void producer_acquire() { refuse_(); }
  void producer_commit() {}
  void consumer_wait() {}
  void consumer_release() {}
  bool quit() { return true; }
  void refuse_() const {
    if (Scope != thread_scope_thread)
      tp_rt_fail(TP_RT_UNSUPPORTED, "a block-scope cuda::pipeline (producers and consumers ordered "
                 "through the pipeline) cannot be emulated yet", __FILE__, __LINE__);
  }
};
inline pipeline<thread_scope_thread> make_pipeline() { return {}; }
template <class Group, thread_scope Scope, unsigned char Stages, class Role>
inline pipeline<Scope> make_pipeline(const Group &, pipeline_shared_state<Scope, Stages> *, Role) {
  return {};
}
template <class Group, thread_scope Scope, unsigned char Stages>
inline pipeline<Scope> make_pipeline(const Group &, pipeline_shared_state<Scope, Stages> *) {
  return {};
}
template <class Shape, thread_scope Scope>
inline void memcpy_async(void *dst, const void *src, Shape size, pipeline<Scope> &) {
  std::memcpy(dst, src, (size_t)size);
}
template <class Group, class Shape, thread_scope Scope>
inline void memcpy_async(const Group &group, void *dst, const void *src, Shape size, pipeline<Scope> &) {
  if (group.thread_rank() == 0) std::memcpy(dst, src, (size_t)size);  /* once for the group */
}

template <thread_scope Scope> struct barrier {
  using arrival_token = unsigned long long;
  arrival_token arrive(unsigned = 1) {
    tp_rt_fail(TP_RT_UNSUPPORTED, "cuda::barrier arrive()/wait() split cannot be emulated yet; "
               "arrive_and_wait() can", __FILE__, __LINE__);
    return 0;
  }
  void wait(arrival_token &&) {}
  void arrive_and_wait(std::source_location l = std::source_location::current()) {
    tp_rt_barrier(TP_BAR_SYNC, 1, l.file_name(), l.line());
  }
};
template <thread_scope Scope> inline void init(barrier<Scope> *, long long) {}
template <class Shape, thread_scope Scope>
inline void memcpy_async(void *dst, const void *src, Shape size, barrier<Scope> &) {
  std::memcpy(dst, src, (size_t)size);
}
}  // namespace cuda

namespace cooperative_groups {
template <class Group> inline void memcpy_async(const Group &group, void *dst, const void *src, size_t size) {
  if (group.thread_rank() == 0) std::memcpy(dst, src, size);  /* once for the group */
}
template <class Group> inline void wait(const Group &group) { group.sync(); }
template <unsigned N, class Group> inline void wait_prior(const Group &group) { group.sync(); }
}  // namespace cooperative_groups

inline void __pipeline_memcpy_async(void *dst, const void *src, size_t size, size_t zfill = 0) {
  std::memcpy(dst, src, size - zfill);
  if (zfill) std::memset((char *)dst + size - zfill, 0, zfill);
}
inline void __pipeline_commit() {}
inline void __pipeline_wait_prior(size_t) {}
#endif
