// stencil/region.hpp - which threads of a distributed rank's kernel update
// their sites: all, only those whose stencil reads no ghost zone (the
// interior, computed while the halos travel), or only the others (the
// boundary, computed once they have arrived). A thread updates a tile of
// sites (span sites per axis from its first); the tile belongs to the
// interior when it lies wholly inside [lo, hi) along every axis, so that
// the interior and the boundary launches share no tile and miss none.
#ifndef STENCIL_REGION_HPP
#define STENCIL_REGION_HPP

#include "stencil/host_device.hpp"
#include "stencil/launch_config.hpp"

namespace stencil {

enum RegionMode : int { kAllSites = 0, kInteriorSites = 1, kBoundarySites = 2 };

struct Region {
  int mode = kAllSites;
  int lo[kMaxDims] = {0, 0, 0, 0};
  int hi[kMaxDims] = {0, 0, 0, 0};
};

/// Whether the thread whose tile starts at (x, y, z, t) and spans (sx, sy,
/// sz, st) sites updates it in a launch restricted to `r`.
STENCIL_HOST_DEVICE inline bool region_takes(const Region &r, int x, int y,
                                             int z, int t, int sx, int sy,
                                             int sz, int st) {
  if (r.mode == kAllSites)
    return true;
  const bool inside = r.lo[0] <= x && x + sx <= r.hi[0] && r.lo[1] <= y &&
                      y + sy <= r.hi[1] && r.lo[2] <= z && z + sz <= r.hi[2] &&
                      r.lo[3] <= t && t + st <= r.hi[3];
  return r.mode == kInteriorSites ? inside : !inside;
}

} // namespace stencil

#endif
