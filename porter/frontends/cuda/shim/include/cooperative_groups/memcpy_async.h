/* tileport parse stand-in for <cooperative_groups/memcpy_async.h>: a group's cooperative copy and
 * the waits that complete it, declared (porter/frontends/cuda/async_copies.py gives the meaning). */
#pragma once
#include "../cooperative_groups.h"
namespace cooperative_groups {
template <class Group> __device__ void memcpy_async(const Group &group, void *dst, const void *src, unsigned long size);
template <class Group> __device__ void wait(const Group &group);
template <unsigned N, class Group> __device__ void wait_prior(const Group &group);
}  // namespace cooperative_groups
