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

/// Entry i of L v for one colour vector v, L = u or, with Dagger,
/// u^dagger: (U^dagger)_ij = conj(U_ji).
template <bool Dagger, int N, typename T>
STENCIL_HOST_DEVICE inline void link_row(const LinkMatrix<T, N> &u,
                                         const T *v, int i, T &re, T &im) {
  re = 0;
  im = 0;
  for (int j = 0; j < N; ++j) {
    const int at = Dagger ? 2 * (j * N + i) : 2 * (i * N + j);
    const T ur = u.v[at], ui = Dagger ? -u.v[at + 1] : u.v[at + 1];
    re += ur * v[2 * j] - ui * v[2 * j + 1];
    im += ur * v[2 * j + 1] + ui * v[2 * j];
  }
}

/// acc (=|+=) w (L v) over one colour vector, L = u or u^dagger.
template <bool First, bool Dagger, int N, typename T>
STENCIL_HOST_DEVICE inline void link_product(T *acc, T w,
                                             const LinkMatrix<T, N> &u,
                                             const T *v) {
  for (int i = 0; i < N; ++i) {
    T re, im;
    link_row<Dagger>(u, v, i, re, im);
    acc[2 * i] = First ? w * re : acc[2 * i] + w * re;
    acc[2 * i + 1] = First ? w * im : acc[2 * i + 1] + w * im;
  }
}

/// The same with a complex weight wr + i wi (a complex coefficient field on
/// a link tap).
template <bool First, bool Dagger, int N, typename T>
STENCIL_HOST_DEVICE inline void link_product(T *acc, T wr, T wi,
                                             const LinkMatrix<T, N> &u,
                                             const T *v) {
  for (int i = 0; i < N; ++i) {
    T re, im;
    link_row<Dagger>(u, v, i, re, im);
    const T r = wr * re - wi * im, m = wr * im + wi * re;
    acc[2 * i] = First ? r : acc[2 * i] + r;
    acc[2 * i + 1] = First ? m : acc[2 * i + 1] + m;
  }
}

/// The generated kernels' names: acc (=|+=) w (U v) and w (U^dagger v),
/// with a real weight or a complex one (wr, wi).
template <bool First, int N, typename T>
STENCIL_HOST_DEVICE inline void link_times(T *acc, T w,
                                           const LinkMatrix<T, N> &u,
                                           const T *v) {
  link_product<First, false>(acc, w, u, v);
}
template <bool First, int N, typename T>
STENCIL_HOST_DEVICE inline void link_dagger_times(T *acc, T w,
                                                  const LinkMatrix<T, N> &u,
                                                  const T *v) {
  link_product<First, true>(acc, w, u, v);
}
template <bool First, int N, typename T>
STENCIL_HOST_DEVICE inline void link_times(T *acc, T wr, T wi,
                                           const LinkMatrix<T, N> &u,
                                           const T *v) {
  link_product<First, false>(acc, wr, wi, u, v);
}
template <bool First, int N, typename T>
STENCIL_HOST_DEVICE inline void link_dagger_times(T *acc, T wr, T wi,
                                                  const LinkMatrix<T, N> &u,
                                                  const T *v) {
  link_product<First, true>(acc, wr, wi, u, v);
}

} // namespace stencil

#endif
