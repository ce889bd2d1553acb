// stencil/link_algebra.hpp - link matrices in registers, for gauge-covariant
// kernels (and the runtime's gauge fields on the host).
//
// A link U_mu(x) is an N x N complex matrix stored row by row, each entry
// (re, im) adjacent: entry (i, j) is v[2 * (i * N + j)] + i v[2 * (i * N + j)
// + 1]. A colour vector is N complex numbers stored the same way. A site's
// links are `dims` such matrices, U_0 (x) first; compressed SU(3) links keep
// the first two rows (12 reals) and rebuild the third as the complex
// conjugate of the cross product of the first two, which is exact for
// special unitary matrices (det U = 1).
#ifndef STENCIL_LINK_ALGEBRA_HPP
#define STENCIL_LINK_ALGEBRA_HPP

#include "stencil/host_device.hpp"
#include "stencil/layout.hpp"

namespace stencil {

template <typename T, int N> struct LinkMatrix {
  T v[2 * N * N];
};

/// Rebuilds row 2 of an SU(3) matrix from rows 0 and 1: u_2j = conj(u_0k
/// u_1l - u_0l u_1k) for (j, k, l) cyclic.
template <typename T>
STENCIL_HOST_DEVICE inline void reconstruct_third_row(LinkMatrix<T, 3> &u) {
  for (int j = 0; j < 3; ++j) {
    const int k = (j + 1) % 3, l = (j + 2) % 3;
    const T ar = u.v[2 * k], ai = u.v[2 * k + 1];         // u_0k
    const T br = u.v[2 * (3 + l)], bi = u.v[2 * (3 + l) + 1]; // u_1l
    const T cr = u.v[2 * l], ci = u.v[2 * l + 1];         // u_0l
    const T dr = u.v[2 * (3 + k)], di = u.v[2 * (3 + k) + 1]; // u_1k
    const T re = (ar * br - ai * bi) - (cr * dr - ci * di);
    const T im = (ar * bi + ai * br) - (cr * di + ci * dr);
    u.v[2 * (6 + j)] = re;
    u.v[2 * (6 + j) + 1] = -im;
  }
}

/// load_link's V-wide loads: group g of the link's reals is one vec<T, V>.
template <int V, int Reals, typename T, int N>
STENCIL_HOST_DEVICE inline void load_link_groups(LinkMatrix<T, N> &u,
                                                 const T *links,
                                                 const Layout &layout,
                                                 index_t site, int mu, int dims,
                                                 index_t sites) {
  for (int k = 0; k < Reals; k += V) {
    const vec<T, V> group = *reinterpret_cast<const vec<T, V> *>(
        links +
        layout_element(layout, site, mu * Reals + k, dims * Reals, sites));
    for (int l = 0; l < V; ++l)
      u.v[k + l] = group.v[l];
  }
}

/// Reads U_mu of the site stored at `site` from a link array placed by
/// `layout` (stencil/layout.hpp): `dims` matrices of `Reals` reals per site
/// (2 N^2, or 12 for two rows of SU(3), then rebuilt) in an array of `sites`
/// sites. With layout.vector V > 1 each group of V adjacent reals is one
/// V-wide load (the array aligned to V reals, Reals a multiple of V).
template <int N, int Reals, typename T>
STENCIL_HOST_DEVICE inline void load_link(LinkMatrix<T, N> &u, const T *links,
                                          const Layout &layout, index_t site,
                                          int mu, int dims, index_t sites) {
  static_assert(Reals == 2 * N * N || (N == 3 && Reals == 12),
                "links hold every entry, or two rows of SU(3)");
  if (layout.vector == 4 && Reals % 4 == 0 && 4 * sizeof(T) <= 16)
    load_link_groups<4, Reals>(u, links, layout, site, mu, dims, sites);
  else if (layout.vector == 2 && Reals % 2 == 0)
    load_link_groups<2, Reals>(u, links, layout, site, mu, dims, sites);
  else
    for (int k = 0; k < Reals; ++k)
      u.v[k] = links[layout_element(layout, site, mu * Reals + k, dims * Reals,
                                    sites)];
  if constexpr (Reals != 2 * N * N)
    reconstruct_third_row(u);
}

/// acc = w (U v) when First, else acc += w (U v), over one colour vector.
template <bool First, int N, typename T>
STENCIL_HOST_DEVICE inline void link_times(T *acc, T w,
                                           const LinkMatrix<T, N> &u,
                                           const T *v) {
  for (int i = 0; i < N; ++i) {
    T re = 0, im = 0;
    for (int j = 0; j < N; ++j) {
      const T ur = u.v[2 * (i * N + j)], ui = u.v[2 * (i * N + j) + 1];
      re += ur * v[2 * j] - ui * v[2 * j + 1];
      im += ur * v[2 * j + 1] + ui * v[2 * j];
    }
    if (First) {
      acc[2 * i] = w * re;
      acc[2 * i + 1] = w * im;
    } else {
      acc[2 * i] += w * re;
      acc[2 * i + 1] += w * im;
    }
  }
}

/// acc (=|+=) w (U^dagger v): (U^dagger)_ij = conj(U_ji).
template <bool First, int N, typename T>
STENCIL_HOST_DEVICE inline void link_dagger_times(T *acc, T w,
                                                  const LinkMatrix<T, N> &u,
                                                  const T *v) {
  for (int i = 0; i < N; ++i) {
    T re = 0, im = 0;
    for (int j = 0; j < N; ++j) {
      const T ur = u.v[2 * (j * N + i)], ui = u.v[2 * (j * N + i) + 1];
      re += ur * v[2 * j] + ui * v[2 * j + 1];
      im += ur * v[2 * j + 1] - ui * v[2 * j];
    }
    if (First) {
      acc[2 * i] = w * re;
      acc[2 * i + 1] = w * im;
    } else {
      acc[2 * i] += w * re;
      acc[2 * i + 1] += w * im;
    }
  }
}

/// acc (=|+=) (wr + i wi) (U v): a complex weight (a complex coefficient
/// field on a link tap).
template <bool First, int N, typename T>
STENCIL_HOST_DEVICE inline void link_times(T *acc, T wr, T wi,
                                           const LinkMatrix<T, N> &u,
                                           const T *v) {
  for (int i = 0; i < N; ++i) {
    T re = 0, im = 0;
    for (int j = 0; j < N; ++j) {
      const T ur = u.v[2 * (i * N + j)], ui = u.v[2 * (i * N + j) + 1];
      re += ur * v[2 * j] - ui * v[2 * j + 1];
      im += ur * v[2 * j + 1] + ui * v[2 * j];
    }
    const T r = wr * re - wi * im, m = wr * im + wi * re;
    acc[2 * i] = First ? r : acc[2 * i] + r;
    acc[2 * i + 1] = First ? m : acc[2 * i + 1] + m;
  }
}

/// acc (=|+=) (wr + i wi) (U^dagger v).
template <bool First, int N, typename T>
STENCIL_HOST_DEVICE inline void link_dagger_times(T *acc, T wr, T wi,
                                                  const LinkMatrix<T, N> &u,
                                                  const T *v) {
  for (int i = 0; i < N; ++i) {
    T re = 0, im = 0;
    for (int j = 0; j < N; ++j) {
      const T ur = u.v[2 * (j * N + i)], ui = u.v[2 * (j * N + i) + 1];
      re += ur * v[2 * j] + ui * v[2 * j + 1];
      im += ur * v[2 * j + 1] - ui * v[2 * j];
    }
    const T r = wr * re - wi * im, m = wr * im + wi * re;
    acc[2 * i] = First ? r : acc[2 * i] + r;
    acc[2 * i + 1] = First ? m : acc[2 * i + 1] + m;
  }
}

} // namespace stencil

#endif
