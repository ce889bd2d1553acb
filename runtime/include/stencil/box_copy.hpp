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
  /// field = scale * field `shift` sites further along each axis: a
  /// ghost zone filled from the rank's own face (the buffer is not used).
  kMoveBox = 3,
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
  /// kMoveBox: the source's offset from the box, per axis.
  int shift[kMaxDims] = {0, 0, 0, 0};
};

/// One axis of box_site(): the coordinate within the box along `axis`
/// (halved for a half field's paired axis), taken off `rest`.
STENCIL_HOST_DEVICE inline int box_coordinate(const BoxCopyArgs &a, int axis,
                                              int &rest) {
  if (axis >= a.dims)
    return 0;
  int width = a.hi[axis] - a.lo[axis];
  if (a.parity >= 0 && axis == a.halved_axis)
    width /= 2;
  const int c = rest % width;
  rest /= width;
  return c;
}

/// The stored coordinates of site number `j` of the box, and its index in
/// the field's array (that of its half for a half field). Every array is
/// indexed by a constant once inlined (the axes are written out): an index
/// known only at run time would put the kernel's arguments and `c` in
/// local memory, which costs a GPU more than the copy itself; and 32-bit
/// arithmetic, as prepare_box keeps a box's reals below 2^31.
STENCIL_HOST_DEVICE inline index_t box_site(const Layout &layout,
                                            const BoxCopyArgs &a, int j,
                                            int *c) {
  static_assert(kMaxDims == 4, "box_site writes out four axes");
  int rest = j;
  c[0] = box_coordinate(a, 0, rest);
  c[1] = box_coordinate(a, 1, rest);
  c[2] = box_coordinate(a, 2, rest);
  c[3] = box_coordinate(a, 3, rest);
  if (a.parity >= 0) {
    // The halved axis takes the coordinate of the right parity in its pair:
    // the one that makes the stored coordinates' sum have the parity.
    int sum = 0;
    for (int axis = 0; axis < kMaxDims; ++axis)
      if (axis < a.dims)
        sum += a.lo[axis] + (axis == a.halved_axis ? 2 : 1) * c[axis];
    const int bit = (a.parity + sum) & 1;
    for (int axis = 0; axis < kMaxDims; ++axis)
      if (axis == a.halved_axis)
        c[axis] = 2 * c[axis] + bit;
  }
  for (int axis = 0; axis < kMaxDims; ++axis)
    if (axis < a.dims)
      c[axis] += a.lo[axis];
  if (a.parity >= 0)
    return even_odd_site(c[0], c[1], c[2], c[3], a.extents[0], a.extents[1],
                         a.extents[2]);
  return layout_site(layout, c[0], c[1], c[2], c[3], a.extents[0],
                     a.extents[1], a.extents[2], a.extents[3]);
}

/// The array index of component k of the site stored at index `site`.
STENCIL_HOST_DEVICE inline index_t box_element(const Layout &layout,
                                               const BoxCopyArgs &a,
                                               index_t site, int k) {
  return a.parity >= 0
             ? order_element(layout.order, layout.block, layout.vector, site,
                             k, a.components, a.field_sites)
             : layout_element(layout, site, k, a.components, a.field_sites);
}

/// Copies one real of the box: number `i` of box_copy_elements(args). The
/// threads of a launch run along what the layout keeps adjacent, a site's
/// components in site-major storage, sites otherwise, and the buffer
/// follows the same order, so that both sides of the copy coalesce.
template <typename T>
STENCIL_HOST_DEVICE inline void copy_box_element(const Layout &layout,
                                                 T *field, T *buffer,
                                                 const BoxCopyArgs &a,
                                                 std::int64_t i) {
  const int count = a.c1 - a.c0;
  const int sites = static_cast<int>(a.sites);
  const int n = static_cast<int>(i);
  const bool componentsAdjacent = layout.order == kSiteMajor;
  const int j = componentsAdjacent ? n / count : n % sites;
  const int k = a.c0 + (componentsAdjacent ? n % count
                                           : n / sites);
  int c[kMaxDims];
  T *value = field + box_element(layout, a, box_site(layout, a, j, c), k);
  if (a.direction == kZeroBox) {
    *value = T(0);
    return;
  }
  if (a.direction == kMoveBox) {
    for (int axis = 0; axis < kMaxDims; ++axis)
      c[axis] += a.shift[axis]; // 0 beyond dims
    const index_t from =
        a.parity >= 0
            ? even_odd_site(c[0], c[1], c[2], c[3], a.extents[0],
                            a.extents[1], a.extents[2])
            : layout_site(layout, c[0], c[1], c[2], c[3], a.extents[0],
                          a.extents[1], a.extents[2], a.extents[3]);
    *value = static_cast<T>(a.scale) * field[box_element(layout, a, from, k)];
    return;
  }
  T *slot = buffer + (componentsAdjacent ? n : (k - a.c0) * sites + j);
  if (a.direction == kPackBox)
    *slot = *value;
  else
    *value = static_cast<T>(a.scale) * *slot;
}

/// The number of reals a box copy moves (one thread each).
STENCIL_HOST_DEVICE inline std::int64_t
box_copy_elements(const BoxCopyArgs &a) {
  return a.sites * (a.c1 - a.c0);
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
  if (sites * (c1 - c0) >= (std::int64_t{1} << 31))
    return Status::failure("box copy: a box of " + std::to_string(sites) +
                           " sites of " + std::to_string(c1 - c0) +
                           " reals exceeds 2^31 reals");
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

/// Arguments for filling box [lo, hi) from the box of the same shape at
/// `from` of the same array (kMoveBox), times `scale`. A half field's
/// source must have the parity of its destination: an even shift.
inline Status prepare_box_move(const Layout &layout, int dims,
                               const int *extents, const int *lo,
                               const int *hi, const int *from, int components,
                               int parity, double scale, BoxCopyArgs &out) {
  int from_hi[kMaxDims] = {1, 1, 1, 1};
  int shift = 0;
  for (int axis = 0; axis < dims; ++axis) {
    from_hi[axis] = from[axis] + hi[axis] - lo[axis];
    shift += from[axis] - lo[axis];
  }
  BoxCopyArgs source;
  Status status = prepare_box(layout, dims, extents, from, from_hi,
                              components, 0, components, parity, kMoveBox,
                              scale, source);
  if (!status.ok())
    return status;
  if (parity >= 0 && shift % 2 != 0)
    return Status::failure("box copy: a half field's box moves by an odd "
                           "number of sites (" +
                           std::to_string(shift) + "), changing its parity");
  status = prepare_box(layout, dims, extents, lo, hi, components, 0,
                       components, parity, kMoveBox, scale, out);
  if (!status.ok())
    return status;
  for (int axis = 0; axis < dims; ++axis)
    out.shift[axis] = from[axis] - lo[axis];
  return Status();
}

} // namespace stencil

#endif
