// stencil/layout.hpp - where a lattice value lives in memory.
//
// Sites are numbered x fastest, optionally grouped into subdomains (blocks
// of sub[0] x sub[1] x ... sites stored one after another, as in the sprint
// report's subdomain layout). Components are then placed by `order`:
//   site-major (AoS)        element = site * nc + c
//   component-major (SoA)   element = c * sites + site
//   blocked (AoSoA)         element = (site / B) * nc * B + c * B + site % B
// The functions are used by generated kernels (with a constexpr Layout, so
// that the compiler folds them) and by the runtime (fields, halos).
#ifndef STENCIL_LAYOUT_HPP
#define STENCIL_LAYOUT_HPP

#include "stencil/host_device.hpp"
#include "stencil/types.hpp"

#include <string>

namespace stencil {

enum LayoutOrder : int { kSiteMajor = 0, kComponentMajor = 1, kBlocked = 2 };

struct Layout {
  int order = kSiteMajor;
  int block = 1;            ///< kBlocked: sites per block
  int sub[4] = {1, 1, 1, 1}; ///< subdomain extent per axis; all 1: none

  STENCIL_HOST_DEVICE constexpr bool has_subdomains() const {
    return sub[0] * sub[1] * sub[2] * sub[3] != 1;
  }
  /// Plain site-major storage, x fastest: the user's host order.
  STENCIL_HOST_DEVICE constexpr bool is_plain() const {
    return order == kSiteMajor && !has_subdomains();
  }
};

/// The storage index of site (x, y, z, t) on an nx x ny x nz x nt lattice.
STENCIL_HOST_DEVICE inline index_t layout_site(const Layout &l, int x, int y,
                                               int z, int t, int nx, int ny,
                                               int nz, int nt) {
  (void)nt; // the slowest axis' extent never scales an index
  if (!l.has_subdomains())
    return ((static_cast<index_t>(t) * nz + z) * ny + y) * nx + x;
  const int sx = l.sub[0], sy = l.sub[1], sz = l.sub[2], st = l.sub[3];
  const index_t outer =
      ((static_cast<index_t>(t / st) * (nz / sz) + z / sz) * (ny / sy) +
       y / sy) * (nx / sx) + x / sx;
  const index_t inner =
      ((static_cast<index_t>(t % st) * sz + z % sz) * sy + y % sy) * sx +
      x % sx;
  return outer * (static_cast<index_t>(sx) * sy * sz * st) + inner;
}

/// The element index of component c of the site stored at `site`.
STENCIL_HOST_DEVICE inline index_t layout_element(const Layout &l,
                                                  index_t site, int c, int nc,
                                                  index_t sites) {
  if (l.order == kComponentMajor)
    return static_cast<index_t>(c) * sites + site;
  if (l.order == kBlocked)
    return (site / l.block) * nc * l.block + static_cast<index_t>(c) * l.block +
           site % l.block;
  return site * nc + c;
}

/// A clear error unless the extents fit the layout: whole subdomains, and
/// whole blocks of sites.
inline Status check_layout(const Layout &l, int dims, const int *extents) {
  long long sites = 1;
  static const char *const axes[4] = {"x", "y", "z", "t"};
  for (int axis = 0; axis < dims; ++axis) {
    sites *= extents[axis];
    if (extents[axis] % l.sub[axis] != 0)
      return Status::failure(
          std::string("extent n") + axes[axis] + " = " +
          std::to_string(extents[axis]) + " is not a multiple of the " +
          "subdomain's " + std::to_string(l.sub[axis]) + " sites along " +
          axes[axis]);
  }
  if (l.order == kBlocked && sites % l.block != 0)
    return Status::failure("the lattice's " + std::to_string(sites) +
                           " sites are not a multiple of the layout's "
                           "blocks of " +
                           std::to_string(l.block) + " sites");
  return Status();
}

} // namespace stencil

#endif
