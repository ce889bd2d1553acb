//===- link_products.hpp - Products of links on the host's stack ----------===//
//
// The runtime's host-side gauge work (the plaquette, the clover leaves) is
// 10^8 to 10^9 products of N x N links on a production lattice, too many
// for heap matrices (HostMatrix). These keep stencil/link_algebra.hpp's
// LinkMatrix storage (row-major, (re, im) adjacent, as GaugeField stores a
// link) and HostMatrix's order of operations (complex products written out
// as std::complex computes finite ones), so results have the bits of the
// HostMatrix code they replace.
//
//===----------------------------------------------------------------------===//
#ifndef STENCIL_SRC_LINK_PRODUCTS_HPP
#define STENCIL_SRC_LINK_PRODUCTS_HPP

#include "stencil/gauge.hpp"
#include "stencil/link_algebra.hpp"

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace stencil {

/// U_mu(site), or its conjugate transpose.
template <int N>
LinkMatrix<double, N> host_link(const GaugeField &U, std::int64_t site,
                                int mu, bool daggered = false) {
  LinkMatrix<double, N> m;
  const double *v = U.link(site, mu);
  if (!daggered) {
    std::copy_n(v, 2 * N * N, m.v);
    return m;
  }
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) {
      m.v[2 * (j * N + i)] = v[2 * (i * N + j)];
      m.v[2 * (j * N + i) + 1] = -v[2 * (i * N + j) + 1];
    }
  return m;
}

/// a b, each entry summed over k in order from zero.
template <int N>
LinkMatrix<double, N> link_product(const LinkMatrix<double, N> &a,
                                   const LinkMatrix<double, N> &b) {
  LinkMatrix<double, N> c;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) {
      double re = 0, im = 0;
      for (int k = 0; k < N; ++k) {
        const double ar = a.v[2 * (i * N + k)], ai = a.v[2 * (i * N + k) + 1];
        const double br = b.v[2 * (k * N + j)], bi = b.v[2 * (k * N + j) + 1];
        re += ar * br - ai * bi;
        im += ar * bi + ai * br;
      }
      c.v[2 * (i * N + j)] = re;
      c.v[2 * (i * N + j) + 1] = im;
    }
  return c;
}

/// body(std::integral_constant<int, N>()) with N = `colours` (1 to 4,
/// which GaugeField::create enforces): the products above for a gauge
/// field's own N.
template <typename Body> decltype(auto) with_colours(int colours, Body body) {
  switch (colours) {
  case 1:
    return body(std::integral_constant<int, 1>());
  case 2:
    return body(std::integral_constant<int, 2>());
  case 3:
    return body(std::integral_constant<int, 3>());
  default:
    return body(std::integral_constant<int, 4>());
  }
}

} // namespace stencil

#endif
