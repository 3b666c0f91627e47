/* tileport CPU emulation stand-in for <cooperative_groups/reduce.h>: cg::reduce over warp tiles. */
#ifndef TP_COOPERATIVE_GROUPS_REDUCE_H
#define TP_COOPERATIVE_GROUPS_REDUCE_H
#include "../cooperative_groups.h"

namespace cooperative_groups {

template <class T = void> struct plus {
  template <class A, class B> constexpr auto operator()(const A &a, const B &b) const { return a + b; }
};
template <class T = void> struct less { /* cg::less selects the smaller value (a min-reduction) */
  template <class A, class B> constexpr auto operator()(const A &a, const B &b) const { return b < a ? b : a; }
};
template <class T = void> struct greater { /* selects the larger value (a max-reduction) */
  template <class A, class B> constexpr auto operator()(const A &a, const B &b) const { return a < b ? b : a; }
};
template <class T = void> struct bit_and {
  template <class A, class B> constexpr auto operator()(const A &a, const B &b) const { return a & b; }
};
template <class T = void> struct bit_or {
  template <class A, class B> constexpr auto operator()(const A &a, const B &b) const { return a | b; }
};
template <class T = void> struct bit_xor {
  template <class A, class B> constexpr auto operator()(const A &a, const B &b) const { return a ^ b; }
};

/* Butterfly reduction: every member of the tile gets the result, as with CUDA's cg::reduce. */
template <unsigned N, class P, class T, class Op>
inline T reduce(const thread_block_tile<N, P> &g, T v, Op op,
                std::source_location l = std::source_location::current()) {
  for (unsigned o = N / 2; o > 0; o /= 2) v = static_cast<T>(op(v, g.shfl_xor(v, (int)o, l)));
  return v;
}

} // namespace cooperative_groups
#endif
