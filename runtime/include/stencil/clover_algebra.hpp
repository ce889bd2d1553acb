// stencil/clover_algebra.hpp - the clover term's site-local algebra for
// generated kernels: loading a site's compact chiral blocks and multiplying
// a spinor by them.
//
// A site's clover term (stencil/clover.hpp) is two Hermitian 2N x 2N
// blocks, chirality 0 acting on spins 0 and 1, chirality 1 on spins 2 and
// 3, each stored compactly in 4 N^2 reals: the 2N real diagonal entries,
// then the strictly lower triangle's complex entries row by row ((1, 0),
// (2, 0), (2, 1), ...), (re, im) adjacent. A spinor holds 4 spins x N
// colours of complex values, spin slowest, so block b acts on the spinor's
// 2N complex values from index 2 b N on, (spin, colour) as s N + c.
#ifndef STENCIL_CLOVER_ALGEBRA_HPP
#define STENCIL_CLOVER_ALGEBRA_HPP

#include "stencil/hop_modes.hpp"
#include "stencil/host_device.hpp"
#include "stencil/layout.hpp"
#include "stencil/types.hpp"

namespace stencil {

/// Reals of one site's clover term: two blocks of 4 N^2.
STENCIL_HOST_DEVICE constexpr int clover_reals(int colours) { return 8 * colours * colours; }

/// One site's clover term in registers.
template <typename T, int N> struct CloverSite {
  T v[clover_reals(N)];
};

/// Reads the clover term of the site stored at `site` from an array of
/// `sites` sites placed by `layout`, `layout.vector` adjacent reals per load
/// (the array aligned to them).
template <int N, typename T>
STENCIL_HOST_DEVICE inline void load_clover(CloverSite<T, N> &c,
                                            const T *clover,
                                            const Layout &layout, index_t site,
                                            index_t sites) {
  constexpr int kReals = clover_reals(N);
  if (layout.vector == 4 && 4 * sizeof(T) <= 16) {
    for (int k = 0; k < kReals; k += 4) {
      const vec<T, 4> g = *reinterpret_cast<const vec<T, 4> *>(
          clover + layout_element(layout, site, k, kReals, sites));
      for (int l = 0; l < 4; ++l)
        c.v[k + l] = g.v[l];
    }
  } else if (layout.vector == 2) {
    for (int k = 0; k < kReals; k += 2) {
      const vec<T, 2> g = *reinterpret_cast<const vec<T, 2> *>(
          clover + layout_element(layout, site, k, kReals, sites));
      c.v[k] = g.v[0];
      c.v[k + 1] = g.v[1];
    }
  } else {
    for (int k = 0; k < kReals; ++k)
      c.v[k] = clover[layout_element(layout, site, k, kReals, sites)];
  }
}

/// out = A v for one spinor v (4 N complex values); `out` and `v` may not
/// alias. Per block: the real diagonal times v, then each stored lower
/// entry a_ij (i > j) adds a_ij v_j to row i and conj(a_ij) v_i to row j.
template <int N, typename T>
STENCIL_HOST_DEVICE inline void clover_times(T *out, const CloverSite<T, N> &c,
                                             const T *v) {
  constexpr int kRows = 2 * N;             // rows of one block
  constexpr int kBlock = 4 * N * N;        // reals of one block
  for (int b = 0; b < 2; ++b) {
    const T *a = c.v + b * kBlock;
    const T *x = v + 2 * b * kRows;
    T *y = out + 2 * b * kRows;
    for (int i = 0; i < kRows; ++i) {
      y[2 * i] = a[i] * x[2 * i];
      y[2 * i + 1] = a[i] * x[2 * i + 1];
    }
    int k = kRows;
    for (int i = 1; i < kRows; ++i)
      for (int j = 0; j < i; ++j, k += 2) {
        const T re = a[k], im = a[k + 1];
        // row i += a_ij x_j
        y[2 * i] += re * x[2 * j] - im * x[2 * j + 1];
        y[2 * i + 1] += re * x[2 * j + 1] + im * x[2 * j];
        // row j += conj(a_ij) x_i
        y[2 * j] += re * x[2 * i] + im * x[2 * i + 1];
        y[2 * j + 1] += re * x[2 * i + 1] - im * x[2 * i];
      }
  }
}

/// acc = A v (First) or acc += A v over one spinor: a whole-lattice
/// kernel's clover tap (the array includes the tap's coefficient).
template <bool First, int N, typename T>
STENCIL_HOST_DEVICE inline void clover_product(T *acc,
                                               const CloverSite<T, N> &c,
                                               const T *v) {
  if constexpr (First) {
    clover_times(acc, c, v);
  } else {
    T product[8 * N];
    clover_times(product, c, v);
    for (int k = 0; k < 8 * N; ++k)
      acc[k] += product[k];
  }
}

/// The hop modes (stencil::HopMode) with a clover term A, on one site's NC
/// values `acc`: kHop acc = beta acc; kInverseDiagonalHop acc = beta A^-1
/// acc, A^-1 read at `site` of the inverse's half array; kDiagonalPlusHop
/// acc = alpha A same + beta acc, A read at `whole_site` of the
/// whole-lattice array and `same` at `site` of its half field (V values
/// per access; S, the field's stored type, widened to T). The hopping
/// kernels' epilogue (acc = H in) and the clover kernel (acc = in) both end
/// with it.
template <int N, int NC, int V, typename T, typename S>
STENCIL_HOST_DEVICE inline void clover_hop_mode(
    T *acc, int mode, T alpha, T beta, const T *clover,
    const Layout &clover_layout, index_t whole_site, const T *inverse,
    const Layout &inverse_layout, const S *same, const Layout &field_layout,
    index_t site, index_t half_sites) {
  if (mode == kInverseDiagonalHop) {
    CloverSite<T, N> a;
    load_clover(a, inverse, inverse_layout, site, half_sites);
    T h[NC];
    for (int c = 0; c < NC; ++c)
      h[c] = acc[c];
    clover_times(acc, a, h);
    for (int c = 0; c < NC; ++c)
      acc[c] *= beta;
  } else if (mode == kDiagonalPlusHop) {
    CloverSite<T, N> a;
    load_clover(a, clover, clover_layout, whole_site, 2 * half_sites);
    T s[NC], as[NC];
    load_half_site<NC, V>(s, same, field_layout, site, half_sites);
    clover_times(as, a, s);
    for (int c = 0; c < NC; ++c)
      acc[c] = beta * acc[c] + alpha * as[c];
  } else {
    for (int c = 0; c < NC; ++c)
      acc[c] *= beta;
  }
}

/// Flops of clover_times: per block 2N real-times-complex products (2
/// each), N (2N - 1) off-diagonal pairs of complex multiply-adds (8 each,
/// twice): 504 for N = 3.
STENCIL_HOST_DEVICE constexpr int clover_flops(int colours) {
  return 2 * (2 * 2 * colours + 2 * colours * (2 * colours - 1) * 8);
}

} // namespace stencil

#endif
