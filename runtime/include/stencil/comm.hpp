// stencil/comm.hpp - the ranks of a distributed run and how they divide a
// lattice: a communicator (MPI when stencilc is built with STENCILC_MPI, a
// single rank otherwise), the process grid (ranks per axis) and one rank's
// block of the lattice with its ghost zones (docs/distributed.md).
#ifndef STENCIL_COMM_HPP
#define STENCIL_COMM_HPP

#include "stencil/launch_config.hpp"
#include "stencil/types.hpp"

#include <memory>
#include <string>
#include <vector>

#if defined(STENCIL_HAVE_MPI)
#include <mpi.h>
#endif

namespace stencil {

/// Whether this runtime was built with MPI (STENCILC_MPI).
bool have_mpi();

/// The ranks of a run. Copies share the underlying MPI communicator, which
/// the last copy frees when the communicator was made here (a Cartesian
/// one, say).
class Communicator {
public:
  /// One rank, no MPI.
  Communicator() = default;
  /// MPI_COMM_WORLD once MPI is initialised (MpiSession), else one rank.
  static Communicator world();
#if defined(STENCIL_HAVE_MPI)
  /// `comm` as it is (not freed here).
  static Communicator of(MPI_Comm comm);
  /// `comm`, freed with the last copy.
  static Communicator owning(MPI_Comm comm);
  MPI_Comm mpi() const;
#endif

  int rank() const { return rank_; }
  int size() const { return size_; }
  bool distributed() const { return size_ > 1; }

  /// Sums `count` doubles over the ranks, element by element, the same way
  /// on every rank whatever the MPI library: the ranks' values are gathered
  /// and added in rank order (rank 0 first), so every rank gets identical
  /// bits and a run with the same ranks is reproducible.
  Status sum(double *values, int count) const;
  Status sum(double &value) const { return sum(&value, 1); }
  /// The largest of each rank's `value`.
  Status max(double &value) const;
  /// Collective: every rank learns whether some rank failed. Returns the
  /// failure of the lowest failing rank, its message prefixed with the
  /// rank ("rank 2: ..."), as a failure on every rank, or success when none
  /// failed.
  Status agree(const Status &mine) const;
  /// Collective: whether every rank holds the same `mine` (compared by a
  /// 64-bit hash). If not, a failure on every rank naming `what`, rank 0's
  /// text and that of the lowest rank whose text differs.
  Status same(const std::string &what, const std::string &mine) const;
  /// The end of a collective call on this rank: `status` as it is, unless
  /// it is a failure of this rank alone (not Status::on_every_rank()) in a
  /// job of several ranks. The others cannot learn of that one and would
  /// wait for this rank in their next collective, so the job ends (abort,
  /// status 1) with the message and the name of the call. Agreeing instead
  /// would cost a collective on every call, also on success.
  Status local_failure_ends_job(const Status &status, const char *call) const;
  Status barrier() const;
  /// Ends every rank of the job with `code` (MPI_Abort), after printing
  /// `message` with this rank's number; without MPI, exits.
  [[noreturn]] void abort(const std::string &message, int code) const;

private:
  struct Handle;
  std::shared_ptr<Handle> handle_;
  int rank_ = 0;
  int size_ = 1;
};

/// MPI_Init_thread / MPI_Finalize for a program's lifetime; does nothing
/// without MPI or when MPI is already initialised.
class MpiSession {
public:
  MpiSession(int &argc, char **&argv);
  ~MpiSession();
  MpiSession(const MpiSession &) = delete;
  MpiSession &operator=(const MpiSession &) = delete;

private:
  bool finalize_ = false;
};

/// Selects this rank's GPU: its rank among the ranks of its node (MPI's
/// shared-memory split) modulo the node's GPUs. Call before any device
/// allocation; on the host backend it does nothing.
Status use_local_device(const Communicator &comm, int *device = nullptr);

/// How the ranks divide a lattice: ranks per axis, 1 for an axis that is
/// not split. The ranks' Cartesian coordinates run with x fastest (MPI's
/// row-major order with axis 0 the slowest would differ; see rank_of()).
struct ProcessGrid {
  int dims = 0;
  int ranks[kMaxDims] = {1, 1, 1, 1};
  /// The ranks' product, capped at +-INT_MAX.
  int total() const;
  /// Whether any axis has other than one rank (a count below 1 is an
  /// error decompose() reports).
  bool splits() const;
  /// "1x1x2x2".
  std::string text() const;
};

/// "1,1,2,2" (or "1x1x2x2"), one positive count per axis.
Status parse_process_grid(const std::string &text, int dims, ProcessGrid &out);

/// A process grid of `ranks` ranks for a lattice of `interior` sites per
/// axis (the unknowns: halo excluded), splitting only the axes `splittable`
/// allows: prime factors of `ranks`, largest first, each to the splittable
/// axis with the most sites per rank that it divides, leaving at least
/// `reach` sites per rank there (and an even number with `even_sites`, for
/// even/odd storage), preferring the slower axis on ties (their faces are
/// contiguous). Fails, saying why, when the factors cannot be placed.
Status choose_process_grid(int ranks, int dims, const int *interior,
                           const bool *splittable, const int *reach,
                           bool even_sites, ProcessGrid &out);

/// One rank's block of a lattice of `dims` axes divided by a process grid.
/// Global coordinates count the lattice's own sites as the single-rank
/// operator stores them (its halo included along Dirichlet axes); along an
/// axis with a ghost zone the rank stores `ghost` extra sites on both
/// sides, filled from its neighbours (or, along an axis that wraps and is
/// not split, from its own opposite face).
struct Decomposition {
  Communicator comm; ///< Cartesian, same ranks
  ProcessGrid grid;
  int dims = 0;
  int coords[kMaxDims] = {0, 0, 0, 0}; ///< this rank's place in the grid
  int global[kMaxDims] = {1, 1, 1, 1};  ///< the whole lattice's extents
  /// The unknowns this rank owns per axis, and the global coordinate of
  /// its first one.
  int owned[kMaxDims] = {1, 1, 1, 1};
  int first[kMaxDims] = {0, 0, 0, 0};
  /// Per axis: the width of the stored layer on each side of the owned
  /// sites (a Dirichlet halo or a ghost zone; 0 where the axis wraps
  /// locally), and the extents the rank's kernels see: owned + 2 layer.
  int layer[kMaxDims] = {0, 0, 0, 0};
  int local[kMaxDims] = {1, 1, 1, 1};
  /// Per axis and side (0 low, 1 high): the rank whose sites fill this
  /// rank's layer on that side, -1 for none (a global Dirichlet boundary,
  /// or an axis that is not exchanged), and whether values arriving there
  /// change sign (they crossed an antiperiodic boundary).
  int neighbour[kMaxDims][2] = {{-1, -1}, {-1, -1}, {-1, -1}, {-1, -1}};
  bool flips[kMaxDims][2] = {};
  /// Per axis: whether the layer is a ghost zone that the exchange fills
  /// (from a neighbour, or locally along an unsplit axis that wraps).
  bool exchanged[kMaxDims] = {false, false, false, false};

  /// Global coordinate of local (stored) coordinate `c` along `axis`.
  int global_of(int axis, int c) const {
    return first[axis] - layer[axis] + c;
  }
  /// "rank 1 of 4 at (0,0,0,1): owns 8x8x8x4 from (0,0,0,4)".
  std::string describe() const;
};

/// The rank at grid coordinates `coords` (x fastest).
int rank_of(const ProcessGrid &grid, const int *coords);

/// Divides a lattice of `extents` (as the single-rank operator takes them;
/// `boundary` and `reach` per axis: the stencil's) over `comm` by `grid`.
/// `layered` says along which axes the ranks' kernels store a layer (a
/// halo to them: Dirichlet axes, and ghost zones); the grid may split only
/// the axes `splittable` allows (grid.split), which must be layered, into
/// equal parts of at least `reach` unknowns; `even_extents` asks for an
/// even number per rank along every split axis (even/odd storage keeps its
/// checkerboard). Collective (MPI_Cart_create). Errors name the axis and
/// the numbers.
Status decompose(const Communicator &comm, const ProcessGrid &grid, int dims,
                 const int *extents, const int *boundary, const int *reach,
                 const bool *layered, const bool *splittable,
                 bool even_extents, Decomposition &out);

} // namespace stencil

#endif
