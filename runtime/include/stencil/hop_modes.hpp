// stencil/hop_modes.hpp - the epilogue of generated even/odd hopping
// kernels: the launch's stencil::HopMode applied to one site's values, and
// a half field's site read and written whole.
//
// The epilogue works on the accumulator before it is stored, under one
// branch per mode: a branch per stored chunk let AMDGPU's IR sinking move
// the hop arithmetic into the chunks' join blocks while the neighbour
// loads, which it may not sink there, stayed above, all live at once (the
// double Wilson hops spilled), and one branch around two copies of the
// stores let the compiler merge a pair of them and drop its non-temporal
// hint.
#ifndef STENCIL_HOP_MODES_HPP
#define STENCIL_HOP_MODES_HPP

#include "stencil/bfloat16.hpp"
#include "stencil/host_device.hpp"
#include "stencil/kernel_info.hpp"
#include "stencil/layout.hpp"
#include "stencil/types.hpp"

namespace stencil {

/// Whether a half field in `layout` is read and written V values at a
/// time: V adjacent components of site-major storage, or soa and aosoa
/// storage in groups of V (layout.vector; the field aligned to V values).
template <int V>
STENCIL_HOST_DEVICE constexpr bool half_groups(const Layout &layout) {
  return V > 1 && (layout.order == kSiteMajor || layout.vector == V);
}

/// K of the NC values of the site stored at `site` of one parity's half
/// field (`sites` sites, placed by layout.order, layout.block and
/// layout.vector), from component c0 (a thread's share of a split site):
/// V at a time where half_groups, else one by one. A field stored narrower
/// than T (bfloat16) is read widened.
template <int NC, int V, int K, typename T, typename S>
STENCIL_HOST_DEVICE inline void load_half_share(T *dst, const S *half,
                                                const Layout &layout,
                                                index_t site, index_t sites,
                                                int c0) {
  if (half_groups<V>(layout)) {
    for (int j = 0; j < K / V; ++j) {
      const vec<S, V> g = *reinterpret_cast<const vec<S, V> *>(
          half + order_element(layout.order, layout.block, layout.vector, site,
                               c0 + j * V, NC, sites));
      for (int l = 0; l < V; ++l)
        dst[j * V + l] = static_cast<T>(g.v[l]);
    }
  } else {
    for (int c = 0; c < K; ++c)
      dst[c] = static_cast<T>(half[order_element(
          layout.order, layout.block, layout.vector, site, c0 + c, NC, sites)]);
  }
}

/// The NC values of the site stored at `site` of one parity's half field,
/// as load_half_share reads a share.
template <int NC, int V, typename T, typename S>
STENCIL_HOST_DEVICE inline void load_half_site(T *dst, const S *half,
                                               const Layout &layout,
                                               index_t site, index_t sites) {
  load_half_share<NC, V, NC>(dst, half, layout, site, sites, 0);
}

/// The NC values `src` into the site stored at `site` of a half field, as
/// load_half_site reads them; a field stored narrower than T (bfloat16)
/// gets them rounded (stencil::narrow).
template <int NC, int V, typename S, typename T>
STENCIL_HOST_DEVICE inline void store_half_site(S *half, const T *src,
                                                const Layout &layout,
                                                index_t site, index_t sites) {
  if (half_groups<V>(layout)) {
    for (int j = 0; j < NC / V; ++j) {
      vec<S, V> g;
      for (int l = 0; l < V; ++l)
        g.v[l] = narrow<S>(src[j * V + l]);
      *reinterpret_cast<vec<S, V> *>(
          half + order_element(layout.order, layout.block, layout.vector, site,
                               j * V, NC, sites)) = g;
    }
  } else {
    for (int c = 0; c < NC; ++c)
      half[order_element(layout.order, layout.block, layout.vector, site, c, NC,
                         sites)] = narrow<S>(src[c]);
  }
}

/// The hop modes with a diagonal `diag` (the centre tap's coefficient at
/// this site), on a thread's K of a site's NC values `acc` = H in, from
/// component c0 (K = NC, c0 = 0: the whole site): kHop acc = beta acc;
/// kInverseDiagonalHop acc = (beta / diag) acc; kDiagonalPlusHop acc =
/// beta acc + (alpha diag) same, `same` read at `site` of its half field
/// (V values per access; S, the field's stored type, widened to T).
template <int NC, int V, int K = NC, typename T, typename S>
STENCIL_HOST_DEVICE inline void diagonal_hop_mode(T *acc, int mode, T alpha,
                                                  T beta, T diag, const S *same,
                                                  const Layout &field_layout,
                                                  index_t site,
                                                  index_t half_sites,
                                                  int c0 = 0) {
  const T scale = mode == kInverseDiagonalHop ? beta / diag : beta;
  for (int c = 0; c < K; ++c)
    acc[c] *= scale;
  if (mode == kDiagonalPlusHop) {
    T s[K];
    load_half_share<NC, V, K>(s, same, field_layout, site, half_sites, c0);
    const T same_scale = alpha * diag;
    for (int c = 0; c < K; ++c)
      acc[c] += same_scale * s[c];
  }
}

} // namespace stencil

#endif
