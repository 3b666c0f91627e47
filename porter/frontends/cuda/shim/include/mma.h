/* tileport stand-in for <mma.h>: declares nvcuda::wmma far enough that a kernel using it parses
 * and gets its diagnostic (TP156: wmma has no thread-level TileLang equivalent) at its line. */
#pragma once
namespace nvcuda {
namespace wmma {
struct row_major {}; struct col_major {}; struct matrix_a {}; struct matrix_b {}; struct accumulator {};
namespace precision { struct tf32 {}; }
enum layout_t { mem_row_major, mem_col_major };
template <class Use, int M, int N, int K, class T, class Layout = void> struct fragment {
  T x[8]; int num_elements;
};
template <class F, class P> __device__ void load_matrix_sync(F &f, const P *p, unsigned ldm);
template <class F, class P> __device__ void load_matrix_sync(F &f, const P *p, unsigned ldm, layout_t l);
template <class P, class F> __device__ void store_matrix_sync(P *p, const F &f, unsigned ldm, layout_t l);
template <class D, class A, class B, class C> __device__ void mma_sync(D &d, const A &a, const B &b, const C &c);
template <class F, class T> __device__ void fill_fragment(F &f, const T &v);
}  // namespace wmma
}  // namespace nvcuda
