// stencil/layout.hpp - where a lattice value lives in memory.
//
// Sites are numbered x fastest, optionally grouped into subdomains (blocks
// of sub[0] x sub[1] x ... sites stored one after another, as in the sprint
// report's subdomain layout). Components are then placed by `order`:
//   site-major (AoS)        element = site * nc + c
//   component-major (SoA)   element = c * sites + site
//   blocked (AoSoA)         element = (site / B) * nc * B + c * B + site % B
// With a vector V > 1 (component-major and blocked orders), a site's
// components go in groups of V adjacent values, each group placed as one
// component is above: (c / V) takes c's place and c % V is the fastest
// index, so that a thread reads V values with one 4- to 16-byte load (the
// order QUDA calls FloatN): links, clover terms and fields
// (field.layout.vector) use it.
// Even/odd (checkerboard) storage splits the sites by parity (x+y+z+t) % 2:
// the even sites' values come first, then the odd sites', each half its own
// array of nsites/2 sites numbered x fastest with x halved, and the order
// above applied within the half. A nearest-neighbour hop changes parity, so
// a hopping kernel reads one half and writes the other.
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
  int even_odd = 0;          ///< 1: split by parity (no subdomains)
  int vector = 1;            ///< soa/aosoa: values per adjacent group

  STENCIL_HOST_DEVICE constexpr bool has_subdomains() const {
    return sub[0] * sub[1] * sub[2] * sub[3] != 1;
  }
  /// Plain site-major storage, x fastest: the user's host order.
  STENCIL_HOST_DEVICE constexpr bool is_plain() const {
    return order == kSiteMajor && !has_subdomains() && !even_odd;
  }
};

/// The parity of a site: 0 even, 1 odd.
STENCIL_HOST_DEVICE inline int site_parity(int x, int y, int z, int t) {
  return (x + y + z + t) & 1;
}

/// The index of site (x, y, z, t) within its parity's half of an even/odd
/// lattice (nx even): sites numbered x fastest, x halved.
STENCIL_HOST_DEVICE inline index_t even_odd_site(int x, int y, int z, int t,
                                                 int nx, int ny, int nz) {
  return (((static_cast<index_t>(t) * nz + z) * ny + y) * nx + x) >> 1;
}

/// The element index of component c of site `site` in an array of `sites`
/// sites stored in `order` (subdomains and parity already resolved).
STENCIL_HOST_DEVICE inline index_t order_element(int order, int block,
                                                 index_t site, int c, int nc,
                                                 index_t sites) {
  if (order == kComponentMajor)
    return static_cast<index_t>(c) * sites + site;
  if (order == kBlocked)
    return (site / block) * nc * block + static_cast<index_t>(c) * block +
           site % block;
  return site * nc + c;
}

/// The same with a site's components in groups of `vector` adjacent values
/// (nc a multiple of vector); vector 1 is the order above.
STENCIL_HOST_DEVICE inline index_t order_element(int order, int block,
                                                 int vector, index_t site,
                                                 int c, int nc,
                                                 index_t sites) {
  if (vector == 1 || order == kSiteMajor)
    return order_element(order, block, site, c, nc, sites);
  const index_t group = c / vector, lane = c % vector;
  if (order == kComponentMajor)
    return (group * sites + site) * vector + lane;
  return (((site / block) * (nc / vector) + group) * block + site % block) *
             vector +
         lane;
}

/// The storage index of site (x, y, z, t) on an nx x ny x nz x nt lattice.
STENCIL_HOST_DEVICE inline index_t layout_site(const Layout &l, int x, int y,
                                               int z, int t, int nx, int ny,
                                               int nz, int nt) {
  if (l.even_odd) // the odd half follows the even half
    return site_parity(x, y, z, t) *
               (static_cast<index_t>(nx) * ny * nz * nt / 2) +
           even_odd_site(x, y, z, t, nx, ny, nz);
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

/// The element index of component c of the site stored at `site` (from
/// layout_site) in a field of `sites` sites.
STENCIL_HOST_DEVICE inline index_t layout_element(const Layout &l,
                                                  index_t site, int c, int nc,
                                                  index_t sites) {
  if (l.even_odd) {
    const index_t half = sites / 2;
    const index_t parity = site >= half ? 1 : 0;
    return parity * half * nc + order_element(l.order, l.block, l.vector,
                                              site - parity * half, c, nc,
                                              half);
  }
  return order_element(l.order, l.block, l.vector, site, c, nc, sites);
}

/// A clear error unless a site's `nc` values fill whole groups of the
/// layout's vector, of at most 16 bytes (`element_bytes` each).
inline Status check_layout_vector(const Layout &l, int nc, int element_bytes) {
  if (l.vector == 1)
    return Status();
  if (l.order == kSiteMajor || l.vector < 1 || l.vector * element_bytes > 16)
    return Status::failure("a vector of " + std::to_string(l.vector) +
                           " values needs the soa or aosoa order and at "
                           "most 16 bytes per group");
  if (nc % l.vector != 0)
    return Status::failure(std::to_string(nc) +
                           " values per site do not fill groups of " +
                           std::to_string(l.vector));
  return Status();
}

/// A clear error unless the extents fit the layout: whole subdomains, whole
/// blocks of sites, and for even/odd storage an even nx (x is halved) and
/// even extents along the axes that wrap (`boundary[axis]`, a
/// stencil::Boundary, non-zero: periodic or antiperiodic), so that
/// wrapping keeps the checkerboard.
inline Status check_layout(const Layout &l, int dims, const int *extents,
                           const int *boundary = nullptr) {
  long long sites = 1;
  static const char *const axes[4] = {"x", "y", "z", "t"};
  // A Layout built by hand, not by the generator: every field in range
  // before anything divides by it.
  if (l.order != kSiteMajor && l.order != kComponentMajor &&
      l.order != kBlocked)
    return Status::failure("layout order " + std::to_string(l.order) +
                           " is not aos (0), soa (1) or aosoa (2)");
  if (l.order == kBlocked && l.block < 1)
    return Status::failure("the aosoa layout's blocks of " +
                           std::to_string(l.block) + " sites are not positive");
  if (l.vector < 1)
    return Status::failure("the layout's groups of " +
                           std::to_string(l.vector) +
                           " values are not positive");
  if (l.even_odd != 0 && l.even_odd != 1)
    return Status::failure("the layout's even_odd is " +
                           std::to_string(l.even_odd) + ", not 0 or 1");
  for (int axis = 0; axis < 4; ++axis)
    if (l.sub[axis] < 1 || (axis >= dims && l.sub[axis] != 1))
      return Status::failure(std::string("the layout's subdomain extent ") +
                             std::to_string(l.sub[axis]) + " along " +
                             axes[axis] + " is not " +
                             (axis < dims ? "positive" : "1 (no such axis)"));
  for (int axis = 0; axis < dims; ++axis) {
    // 2^62 sites at most: the products below and the field's bytes stay in
    // 64 bits.
    if (extents[axis] < 1 || sites > (1LL << 62) / extents[axis])
      return Status::failure(
          std::string("extent n") + axes[axis] + " = " +
          std::to_string(extents[axis]) +
          (extents[axis] < 1 ? " is not positive"
                             : " makes the lattice too large to index"));
    sites *= extents[axis];
    const bool wraps = boundary && boundary[axis] != 0;
    if (l.even_odd && (axis == 0 || wraps) && extents[axis] % 2 != 0)
      return Status::failure(
          std::string("extent n") + axes[axis] + " = " +
          std::to_string(extents[axis]) + " is odd; even/odd storage needs " +
          (axis == 0 ? "an even nx (each half holds nx/2 sites per row)"
                     : "even extents along axes that wrap around (an odd "
                       "one joins sites of equal parity across the wrap)"));
    if (extents[axis] % l.sub[axis] != 0)
      return Status::failure(
          std::string("extent n") + axes[axis] + " = " +
          std::to_string(extents[axis]) + " is not a multiple of the " +
          "subdomain's " + std::to_string(l.sub[axis]) + " sites along " +
          axes[axis]);
  }
  const long long stored = l.even_odd ? sites / 2 : sites;
  if (l.order == kBlocked && stored % l.block != 0)
    return Status::failure(std::string(l.even_odd ? "each parity's " : "the "
                                                    "lattice's ") +
                           std::to_string(stored) +
                           " sites are not a multiple of the layout's "
                           "blocks of " +
                           std::to_string(l.block) + " sites");
  return Status();
}

} // namespace stencil

#endif
