// stencil/box_copy.hpp - one box of a field's sites to and from a
// contiguous buffer: the halo exchange's pack and unpack (and the zeroing
// of a ghost zone after use). Generated code instantiates copy_box_site()
// with its stencil's constexpr Layout, so that each layout gets its own
// kernel (NAME_copy_box_kernel); prepare_box() sets the arguments up on the
// host.
//
// The box is [lo, hi) per axis in the field's stored coordinates (halo and
// ghost zones included). A whole field copies every site of the box; the
// half field of one parity (even/odd storage) holds, and copies, only that
// parity's sites, numbered in the buffer by pairs along `halved_axis` (an
// axis of even width in the box), so that the buffer is dense.
#ifndef STENCIL_BOX_COPY_HPP
#define STENCIL_BOX_COPY_HPP

#include "stencil/host_device.hpp"
#include "stencil/launch_config.hpp"
#include "stencil/layout.hpp"
#include "stencil/types.hpp"

#include <cstdint>
#include <string>

namespace stencil {

enum BoxCopyDirection : int {
  kPackBox = 0,   ///< field -> buffer
  kUnpackBox = 1, ///< buffer -> field, times `scale`
  kZeroBox = 2,   ///< field = 0 (the buffer is not read)
};

struct BoxCopyArgs {
  int dims = 1;
  int extents[kMaxDims] = {1, 1, 1, 1}; ///< the whole lattice's, stored
  int lo[kMaxDims] = {0, 0, 0, 0};
  int hi[kMaxDims] = {1, 1, 1, 1};
  /// Reals per site of the field, and the range [c0, c1) copied (the
  /// buffer holds c1 - c0 per site, site by site).
  int components = 1;
  int c0 = 0;
  int c1 = 1;
  /// -1: a whole field; 0 or 1: the half field of that parity.
  int parity = -1;
  int halved_axis = 0;
  /// Sites copied (one thread each), and sites the field's array holds.
  std::int64_t sites = 0;
  std::int64_t field_sites = 0;
  int direction = kPackBox;
  double scale = 1.0;
};

/// Copies site number `j` of the box (0 <= j < args.sites) between `field`
/// (placed by `layout`) and `buffer`.
template <typename T>
STENCIL_HOST_DEVICE inline void copy_box_site(const Layout &layout, T *field,
                                              T *buffer,
                                              const BoxCopyArgs &a,
                                              std::int64_t j) {
  int c[kMaxDims] = {0, 0, 0, 0};
  std::int64_t rest = j;
  for (int axis = 0; axis < a.dims; ++axis) {
    int width = a.hi[axis] - a.lo[axis];
    if (a.parity >= 0 && axis == a.halved_axis)
      width /= 2;
    c[axis] = static_cast<int>(rest % width);
    rest /= width;
  }
  index_t site;
  if (a.parity >= 0) {
    // The halved axis takes the coordinate of the right parity in its pair.
    const int k = a.halved_axis;
    int others = 0;
    for (int axis = 0; axis < a.dims; ++axis)
      if (axis != k)
        others += a.lo[axis] + c[axis];
    const int first = a.lo[k] + 2 * c[k];
    c[k] = 2 * c[k] + ((a.parity + others + first) & 1);
    for (int axis = 0; axis < a.dims; ++axis)
      c[axis] += a.lo[axis];
    site = even_odd_site(c[0], c[1], c[2], c[3], a.extents[0], a.extents[1],
                         a.extents[2]);
  } else {
    for (int axis = 0; axis < a.dims; ++axis)
      c[axis] += a.lo[axis];
    site = layout_site(layout, c[0], c[1], c[2], c[3], a.extents[0],
                       a.extents[1], a.extents[2], a.extents[3]);
  }
  const int count = a.c1 - a.c0;
  for (int k = a.c0; k < a.c1; ++k) {
    const index_t e =
        a.parity >= 0
            ? order_element(layout.order, layout.block, layout.vector, site, k,
                            a.components, a.field_sites)
            : layout_element(layout, site, k, a.components, a.field_sites);
    T *value = field + e;
    T *slot = buffer + j * count + (k - a.c0);
    if (a.direction == kPackBox)
      *slot = *value;
    else if (a.direction == kUnpackBox)
      *value = static_cast<T>(a.scale) * *slot;
    else
      *value = T(0);
  }
}

/// Arguments for a copy of box [lo, hi) of a field on `extents` (`dims`
/// axes, stored coordinates) with `components` reals per site, components
/// [c0, c1), `parity` -1 (whole field, `layout` even/odd or not) or that of
/// a half field. Fails, naming the numbers, when the box leaves the
/// lattice or a half field's box has no axis of even width to pair sites
/// along (a box of one site along every axis).
inline Status prepare_box(const Layout &layout, int dims, const int *extents,
                          const int *lo, const int *hi, int components, int c0,
                          int c1, int parity, int direction, double scale,
                          BoxCopyArgs &out) {
  BoxCopyArgs a;
  a.dims = dims;
  a.components = components;
  a.c0 = c0;
  a.c1 = c1;
  a.parity = parity;
  a.direction = direction;
  a.scale = scale;
  std::int64_t sites = 1, stored = 1;
  for (int axis = 0; axis < dims; ++axis) {
    a.extents[axis] = extents[axis];
    a.lo[axis] = lo[axis];
    a.hi[axis] = hi[axis];
    if (lo[axis] < 0 || hi[axis] > extents[axis] || lo[axis] > hi[axis])
      return Status::failure("box [" + std::to_string(lo[axis]) + ", " +
                             std::to_string(hi[axis]) + ") along axis " +
                             std::to_string(axis) + " leaves the lattice of " +
                             std::to_string(extents[axis]) + " sites");
    sites *= hi[axis] - lo[axis];
    stored *= extents[axis];
  }
  if (c0 < 0 || c1 > components || c0 >= c1)
    return Status::failure("box copy: components [" + std::to_string(c0) +
                           ", " + std::to_string(c1) + ") of " +
                           std::to_string(components));
  if (parity >= 0) {
    if (!layout.even_odd || parity > 1)
      return Status::failure("box copy: a half field needs even/odd storage");
    a.halved_axis = -1;
    for (int axis = 0; axis < dims && a.halved_axis < 0; ++axis)
      if ((hi[axis] - lo[axis]) % 2 == 0 && hi[axis] > lo[axis])
        a.halved_axis = axis;
    if (sites > 0 && a.halved_axis < 0)
      return Status::failure(
          "box copy: a half field's box needs an axis of even width to pair "
          "its sites along");
    sites /= 2;
    stored /= 2;
  }
  a.sites = sites;
  a.field_sites = stored;
  out = a;
  return Status();
}

} // namespace stencil

#endif
