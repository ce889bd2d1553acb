// Whole fields to and from the ranks (stencil/scatter.hpp). Plain C++: it
// moves host copies of the values with MPI.
#include "stencil/scatter.hpp"

#include <algorithm>

namespace stencil {
namespace {

/// The sites a rank at `coords` holds for the whole lattice, in its stored
/// coordinates [lo, hi) per axis, and the global coordinate of its stored
/// site 0 (`origin`): its owned sites, widened to the halo at the lattice's
/// own Dirichlet boundary.
struct RankBox {
  int lo[kMaxDims] = {0, 0, 0, 0};
  int hi[kMaxDims] = {1, 1, 1, 1};
  int origin[kMaxDims] = {0, 0, 0, 0};
  std::int64_t sites() const {
    std::int64_t n = 1;
    for (int axis = 0; axis < kMaxDims; ++axis)
      n *= hi[axis] - lo[axis];
    return n;
  }
};

RankBox box_of(const Decomposition &d, const int *coords) {
  RankBox b;
  for (int axis = 0; axis < d.dims; ++axis) {
    const int layer = d.layer[axis];
    // The first owned site's global coordinate: the halo of a Dirichlet
    // axis (global minus owned times ranks, halved) comes first.
    const int halo =
        (d.global[axis] - d.owned[axis] * d.grid.ranks[axis]) / 2;
    const int first = halo + coords[axis] * d.owned[axis];
    b.origin[axis] = first - layer;
    b.lo[axis] = layer;
    b.hi[axis] = layer + d.owned[axis];
    if (halo > 0 && coords[axis] == 0)
      b.lo[axis] = 0;
    if (halo > 0 && coords[axis] == d.grid.ranks[axis] - 1)
      b.hi[axis] = d.local[axis];
  }
  return b;
}

/// Calls visit(local site, global site) for each site of `b` (site-major
/// indices of the rank's stored lattice and of the whole lattice), in box
/// order (x fastest).
template <typename Visit>
void for_each_site(const Decomposition &d, const RankBox &b, Visit visit) {
  int c[kMaxDims];
  for (int axis = 0; axis < kMaxDims; ++axis)
    c[axis] = b.lo[axis];
  const std::int64_t n = b.sites();
  for (std::int64_t k = 0; k < n; ++k) {
    std::int64_t local = 0, global = 0;
    for (int axis = d.dims - 1; axis >= 0; --axis) {
      local = local * d.local[axis] + c[axis];
      global = global * d.global[axis] + (b.origin[axis] + c[axis]);
    }
    visit(local, global);
    for (int axis = 0; axis < d.dims; ++axis) {
      if (++c[axis] < b.hi[axis])
        break;
      c[axis] = b.lo[axis];
    }
  }
}

/// Grid coordinates of `rank` (x fastest, as rank_of()).
void coords_of(const ProcessGrid &grid, int rank, int *coords) {
  for (int axis = 0; axis < kMaxDims; ++axis) {
    const int n = axis < grid.dims ? grid.ranks[axis] : 1;
    coords[axis] = rank % n;
    rank /= n;
  }
}

} // namespace

/// A clear error unless `local` is a whole field of the rank's block of
/// `d` (`what` names the caller).
static Status require_rank_field(const Decomposition &d, const Field &local,
                                  const char *what) {
  STENCIL_TRY(require_storage(local, what));
  const Lattice &l = local.lattice();
  if (l.dims != d.dims)
    return Status::failure(std::string(what) + ": the field has " +
                           std::to_string(l.dims) + " axes, the lattice " +
                           std::to_string(d.dims));
  for (int axis = 0; axis < d.dims; ++axis)
    if (l.extents[axis] != d.local[axis])
      return Status::failure(std::string(what) +
                             ": the field's lattice is not the rank's "
                             "(extent " +
                             std::to_string(l.extents[axis]) + " along axis " +
                             std::to_string(axis) + ", the rank stores " +
                             std::to_string(d.local[axis]) + ")");
  return Status();
}

Status scatter_field(const Decomposition &d, const double *whole,
                     std::int64_t count, Field &local) {
  if (!whole)
    return Status::failure("scatter_field: the host array is null");
  STENCIL_TRY(require_rank_field(d, local, "scatter_field"));
  const Lattice &l = local.lattice();
  if (l.parity >= 0)
    return Status::failure("scatter_field: a whole field, not one parity's "
                           "half");
  std::int64_t expected = l.components;
  for (int axis = 0; axis < d.dims; ++axis)
    expected *= d.global[axis];
  if (count != expected)
    return Status::failure("scatter_field: " + std::to_string(count) +
                           " values; the whole lattice holds " +
                           std::to_string(expected));
  std::vector<double> values(l.values(), 0.0);
  const int nc = l.components;
  for_each_site(d, box_of(d, d.coords),
                [&](std::int64_t site, std::int64_t global) {
                  std::copy_n(whole + global * nc, nc,
                              values.data() + site * nc);
                });
  return local.upload_values(values.data(),
                             static_cast<std::int64_t>(values.size()));
}

Status gather_field(const Decomposition &d, const Field &local,
                    std::vector<double> &whole, int root) {
  // Agreed on: every rank must take part in the gather below or none.
  STENCIL_TRY(d.comm.agree(require_rank_field(d, local, "gather_field")));
  if (root < 0 || root >= d.comm.size())
    return Status::failure("gather_field: root " + std::to_string(root) +
                           " is not a rank of the " +
                           std::to_string(d.comm.size()) + "-rank job");
  const Lattice &l = local.lattice();
  if (l.parity >= 0)
    return Status::failure("gather_field: a whole field, not one parity's "
                           "half");
  const int nc = l.components;
  std::vector<double> values(l.values());
  // Agreed on before the collective gather.
  STENCIL_TRY(d.comm.agree(local.download_values(
      values.data(), static_cast<std::int64_t>(values.size()))));
  std::vector<double> mine;
  for_each_site(d, box_of(d, d.coords),
                [&](std::int64_t site, std::int64_t) {
                  mine.insert(mine.end(), values.begin() + site * nc,
                              values.begin() + (site + 1) * nc);
                });
  const int ranks = d.comm.size();
  std::vector<std::vector<double>> boxes(1);
  if (ranks == 1) {
    boxes[0] = std::move(mine);
  } else {
#if defined(STENCIL_HAVE_MPI)
    std::vector<int> counts(ranks), displacements(ranks);
    std::vector<double> all;
    if (d.comm.rank() == root) {
      int offset = 0;
      for (int r = 0; r < ranks; ++r) {
        int coords[kMaxDims];
        coords_of(d.grid, r, coords);
        counts[r] = static_cast<int>(box_of(d, coords).sites() * nc);
        displacements[r] = offset;
        offset += counts[r];
      }
      all.resize(offset);
    }
    if (MPI_Gatherv(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE,
                    all.data(), counts.data(), displacements.data(),
                    MPI_DOUBLE, root, d.comm.mpi()) != MPI_SUCCESS)
      return Status::failure("gather_field: MPI_Gatherv failed");
    if (d.comm.rank() != root) {
      whole.clear();
      return Status();
    }
    boxes.assign(ranks, {});
    for (int r = 0; r < ranks; ++r)
      boxes[r].assign(all.begin() + displacements[r],
                      all.begin() + displacements[r] + counts[r]);
#else
    return Status::failure("gather_field: several ranks without MPI");
#endif
  }
  std::int64_t total = nc;
  for (int axis = 0; axis < d.dims; ++axis)
    total *= d.global[axis];
  whole.assign(total, 0.0);
  for (size_t r = 0; r < boxes.size(); ++r) {
    int coords[kMaxDims];
    coords_of(d.grid, static_cast<int>(r), coords);
    std::int64_t k = 0;
    for_each_site(d, box_of(d, coords),
                  [&](std::int64_t, std::int64_t global) {
                    std::copy_n(boxes[r].data() + k * nc, nc,
                                whole.data() + global * nc);
                    ++k;
                  });
  }
  return Status();
}

} // namespace stencil
