// The communicator layer: MPI where the runtime is built with it
// (STENCIL_HAVE_MPI), one rank otherwise; process grids and one rank's
// block of a lattice.
#include "stencil/comm.hpp"

#include "stencil/device.hpp"

#include "fnv1a.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace stencil {

bool have_mpi() {
#if defined(STENCIL_HAVE_MPI)
  return true;
#else
  return false;
#endif
}

struct Communicator::Handle {
#if defined(STENCIL_HAVE_MPI)
  MPI_Comm comm = MPI_COMM_NULL;
  bool owned = false;
  ~Handle() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (owned && !finalized && comm != MPI_COMM_NULL)
      MPI_Comm_free(&comm);
  }
#endif
};

#if defined(STENCIL_HAVE_MPI)
namespace {

Status mpi_status(int code, const char *call) {
  if (code == MPI_SUCCESS)
    return Status();
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return Status::failure(std::string(call) + " failed: " +
                         std::string(text, length));
}

/// `text` as rank `root` holds it, on every rank of `comm`.
Status broadcast(std::string &text, int root, MPI_Comm comm) {
  int length = static_cast<int>(text.size());
  STENCIL_TRY(
      mpi_status(MPI_Bcast(&length, 1, MPI_INT, root, comm), "MPI_Bcast"));
  text.resize(static_cast<size_t>(length));
  return mpi_status(MPI_Bcast(text.data(), length, MPI_CHAR, root, comm),
                    "MPI_Bcast");
}

} // namespace

Communicator Communicator::of(MPI_Comm comm) {
  Communicator c;
  c.handle_ = std::make_shared<Handle>();
  c.handle_->comm = comm;
  MPI_Comm_rank(comm, &c.rank_);
  MPI_Comm_size(comm, &c.size_);
  return c;
}

Communicator Communicator::owning(MPI_Comm comm) {
  Communicator c = of(comm);
  c.handle_->owned = true;
  return c;
}

MPI_Comm Communicator::mpi() const {
  return handle_ ? handle_->comm : MPI_COMM_SELF;
}
#endif

Communicator Communicator::world() {
#if defined(STENCIL_HAVE_MPI)
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized)
    return of(MPI_COMM_WORLD);
#endif
  return Communicator();
}

Status Communicator::sum(double *values, int count) const {
  if (count < 0)
    return Status::failure("Communicator::sum: a count of " +
                           std::to_string(count) + " values");
  if (!distributed() || count == 0)
    return Status();
#if defined(STENCIL_HAVE_MPI)
  // Gathered, then added in rank order: MPI_Allreduce may combine the ranks
  // in any order and need not give every rank the same bits.
  std::vector<double> all(static_cast<size_t>(count) * size_);
  STENCIL_TRY(mpi_status(MPI_Allgather(values, count, MPI_DOUBLE, all.data(),
                                       count, MPI_DOUBLE, mpi()),
                         "MPI_Allgather"));
  for (int k = 0; k < count; ++k) {
    double total = 0.0;
    for (int r = 0; r < size_; ++r)
      total += all[static_cast<size_t>(r) * count + k];
    values[k] = total;
  }
  return Status();
#else
  return Status::failure("Communicator: several ranks without MPI");
#endif
}

Status Communicator::max(double &value) const {
  if (!distributed())
    return Status();
#if defined(STENCIL_HAVE_MPI)
  return mpi_status(
      MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_DOUBLE, MPI_MAX, mpi()),
      "MPI_Allreduce");
#else
  return Status::failure("Communicator: several ranks without MPI");
#endif
}

Status Communicator::agree(const Status &mine) const {
  if (!distributed())
    return mine;
#if defined(STENCIL_HAVE_MPI)
  // The lowest failing rank (size_ when none) ...
  int failing = mine.ok() ? size_ : rank_;
  STENCIL_TRY(mpi_status(
      MPI_Allreduce(MPI_IN_PLACE, &failing, 1, MPI_INT, MPI_MIN, mpi()),
      "MPI_Allreduce"));
  if (failing == size_)
    return Status();
  // ... sends its message to every rank.
  std::string message = rank_ == failing ? mine.message() : std::string();
  STENCIL_TRY(broadcast(message, failing, mpi()));
  return Status::failure_on_every_rank("rank " + std::to_string(failing) +
                                       ": " + message);
#else
  return mine;
#endif
}

Status Communicator::same(const std::string &what,
                          const std::string &mine) const {
  if (!distributed())
    return Status();
#if defined(STENCIL_HAVE_MPI)
  // Every rank's hash; the texts travel only when they differ.
  const std::uint64_t hash = fnv1a(mine.data(), mine.size());
  std::vector<std::uint64_t> hashes(static_cast<size_t>(size_));
  STENCIL_TRY(mpi_status(MPI_Allgather(&hash, 1, MPI_UINT64_T, hashes.data(), 1,
                                       MPI_UINT64_T, mpi()),
                         "MPI_Allgather"));
  int other = 1;
  while (other < size_ && hashes[other] == hashes[0])
    ++other;
  if (other == size_)
    return Status();
  std::string first = rank_ == 0 ? mine : std::string();
  std::string second = rank_ == other ? mine : std::string();
  STENCIL_TRY(broadcast(first, 0, mpi()));
  STENCIL_TRY(broadcast(second, other, mpi()));
  return Status::failure_on_every_rank(
      what + " differ between the ranks: rank 0 has '" + first + "', rank " +
      std::to_string(other) + " '" + second + "'; every rank needs the same");
#else
  (void)what;
  (void)mine;
  return Status::failure("Communicator: several ranks without MPI");
#endif
}

Status Communicator::local_failure_ends_job(const Status &status,
                                            const char *call) const {
  if (status.ok() || status.on_every_rank() || !distributed())
    return status;
  abort(status.message() + "\n(" + call +
            " failed on this rank alone; the job ends, since the other "
            "ranks would wait for this one in their next collective call)",
        1);
}

Status Communicator::barrier() const {
  if (!distributed())
    return Status();
#if defined(STENCIL_HAVE_MPI)
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized)
    return Status::failure("MPI_Barrier after MPI_Finalize");
  return mpi_status(MPI_Barrier(mpi()), "MPI_Barrier");
#else
  return Status();
#endif
}

void Communicator::abort(const std::string &message, int code) const {
  std::fprintf(stderr, "rank %d of %d: error: %s\n", rank_, size_,
               message.c_str());
  std::fflush(stderr);
#if defined(STENCIL_HAVE_MPI)
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized)
    MPI_Abort(handle_ ? handle_->comm : MPI_COMM_WORLD, code);
#endif
  std::exit(code);
}

MpiSession::MpiSession(int &argc, char **&argv) {
#if defined(STENCIL_HAVE_MPI)
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    finalize_ = true;
  }
#else
  (void)argc;
  (void)argv;
  // Started by mpirun, yet without MPI (a runtime the package rebuilt for
  // another platform, or one configured without STENCILC_MPI): every
  // process would solve the whole problem alone. Said, not silent.
  // (Open MPI's and MPICH's launchers; others are not recognised.)
  for (const char *variable : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    if (const char *size = std::getenv(variable); size && std::atoi(size) > 1) {
      std::fprintf(stderr,
                   "stencilc: warning: started as one of %s MPI processes "
                   "(%s), but this runtime was built without MPI: each "
                   "process runs alone\n",
                   size, variable);
      break;
    }
#endif
}

MpiSession::~MpiSession() {
#if defined(STENCIL_HAVE_MPI)
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalize_ && !finalized)
    MPI_Finalize();
#endif
}

Status use_local_device(const Communicator &comm, int *device) {
  int local = 0;
#if defined(STENCIL_HAVE_MPI)
  if (comm.distributed()) {
    MPI_Comm node;
    STENCIL_TRY(mpi_status(MPI_Comm_split_type(comm.mpi(),
                                               MPI_COMM_TYPE_SHARED,
                                               comm.rank(), MPI_INFO_NULL,
                                               &node),
                           "MPI_Comm_split_type"));
    MPI_Comm_rank(node, &local);
    MPI_Comm_free(&node);
  }
#else
  (void)comm;
#endif
  int chosen = 0;
  STENCIL_TRY(select_device_for_local_rank(local, chosen));
  if (device)
    *device = chosen;
  return Status();
}

// --- Process grids ------------------------------------------------------------

namespace {

constexpr long long kMostRanks = std::numeric_limits<int>::max();

/// The product of a grid's counts, its magnitude capped just past any int
/// (4096^4 had wrapped to 0, one rank): each factor fits in 31 bits, so no
/// step overflows 64 bits. As text(): a hand-built grid may claim more axes
/// than ranks holds.
long long rank_product(const ProcessGrid &grid) {
  long long n = 1;
  for (int axis = 0; axis < std::min(grid.dims, kMaxDims); ++axis)
    n = std::clamp(n * grid.ranks[axis], -kMostRanks - 1, kMostRanks + 1);
  return n;
}

} // namespace

int ProcessGrid::total() const {
  return static_cast<int>(
      std::clamp(rank_product(*this), -kMostRanks, kMostRanks));
}

bool ProcessGrid::splits() const {
  for (int axis = 0; axis < std::min(dims, kMaxDims); ++axis)
    if (ranks[axis] != 1)
      return true;
  return false;
}

std::string ProcessGrid::text() const {
  std::string s;
  // A hand-built grid may claim any dims; ranks has kMaxDims entries.
  for (int axis = 0; axis < std::min(dims, kMaxDims); ++axis)
    s += (axis ? "x" : "") + std::to_string(ranks[axis]);
  return s;
}

Status parse_process_grid(const std::string &text, int dims,
                          ProcessGrid &out) {
  if (dims < 1 || dims > kMaxDims)
    return Status::failure("process grid '" + text + "': a lattice of " +
                           std::to_string(dims) + " axes (1 to 4 expected)");
  ProcessGrid grid;
  grid.dims = dims;
  std::string item;
  std::vector<std::string> items;
  for (char c : text + ",") {
    if (c == ',' || c == 'x') {
      items.push_back(item);
      item.clear();
    } else {
      item += c;
    }
  }
  if (static_cast<int>(items.size()) != dims)
    return Status::failure("process grid '" + text + "' has " +
                           std::to_string(items.size()) +
                           " entries; the lattice has " +
                           std::to_string(dims) + " axes");
  for (int axis = 0; axis < dims; ++axis) {
    char *end = nullptr;
    const long value = std::strtol(items[axis].c_str(), &end, 10);
    if (items[axis].empty() || *end != '\0' || value < 1 || value > 4096)
      return Status::failure("process grid '" + text + "': ranks along " +
                             axis_name(axis) + " must be a positive count, "
                             "not '" + items[axis] + "'");
    grid.ranks[axis] = static_cast<int>(value);
  }
  out = grid;
  return Status();
}

Status choose_process_grid(int ranks, int dims, const int *interior,
                           const bool *splittable, const int *reach,
                           bool even_sites, ProcessGrid &out) {
  ProcessGrid grid;
  grid.dims = dims;
  if (ranks < 1)
    return Status::failure("a process grid needs at least one rank");
  std::vector<int> factors;
  for (int n = ranks, p = 2; n > 1;) {
    if (n % p == 0) {
      factors.push_back(p);
      n /= p;
    } else {
      ++p;
    }
  }
  std::sort(factors.rbegin(), factors.rend());
  for (int p : factors) {
    int best = -1;
    for (int axis = dims - 1; axis >= 0; --axis) {
      if (!splittable[axis])
        continue;
      const int per = interior[axis] / grid.ranks[axis];
      if (interior[axis] % grid.ranks[axis] != 0 || per % p != 0 ||
          per / p < std::max(reach[axis], 1) ||
          (even_sites && (per / p) % 2 != 0))
        continue;
      if (best < 0 || per > interior[best] / grid.ranks[best])
        best = axis;
    }
    if (best < 0) {
      std::string axes;
      for (int axis = 0; axis < dims; ++axis)
        if (splittable[axis])
          axes += std::string(axes.empty() ? "" : ", ") + axis_name(axis) +
                  " (" + std::to_string(interior[axis]) + " sites)";
      return Status::failure(
          "no process grid of " + std::to_string(ranks) +
          " ranks divides the lattice: a factor " + std::to_string(p) +
          " divides none of the splittable axes' remaining sites per rank" +
          " into parts of at least the reach" +
          (even_sites ? std::string(" and of even size") : std::string()) +
          (axes.empty() ? std::string(" (no axis may be split)")
                        : ": " + axes) +
          "; give --grid");
    }
    grid.ranks[best] *= p;
  }
  out = grid;
  return Status();
}

int rank_of(const ProcessGrid &grid, const int *coords) {
  int rank = 0;
  for (int axis = grid.dims - 1; axis >= 0; --axis)
    rank = rank * grid.ranks[axis] + coords[axis];
  return rank;
}

std::string Decomposition::describe() const {
  std::ostringstream s;
  s << "rank " << comm.rank() << " of " << comm.size() << " at (";
  for (int axis = 0; axis < dims; ++axis)
    s << (axis ? "," : "") << coords[axis];
  s << "): owns ";
  for (int axis = 0; axis < dims; ++axis)
    s << (axis ? "x" : "") << owned[axis];
  s << " from (";
  for (int axis = 0; axis < dims; ++axis)
    s << (axis ? "," : "") << first[axis];
  s << ")";
  return s.str();
}

Status decompose(const Communicator &comm, const ProcessGrid &grid, int dims,
                 const int *extents, const int *boundary, const int *reach,
                 const bool *layered, const bool *splittable,
                 bool even_extents, Decomposition &out) {
  Decomposition d;
  d.dims = dims;
  d.grid = grid;
  if (grid.dims != dims)
    return Status::failure("process grid " + grid.text() + " has " +
                           std::to_string(grid.dims) +
                           " axes; the lattice has " + std::to_string(dims));
  // A hand-built grid: each count positive (two negative ones would
  // multiply to a positive total).
  for (int axis = 0; axis < dims; ++axis)
    if (grid.ranks[axis] < 1)
      return Status::failure("process grid " + grid.text() + ": ranks along " +
                             axis_name(axis) + " must be a positive count, "
                             "not " + std::to_string(grid.ranks[axis]));
  const long long total = rank_product(grid);
  if (total > kMostRanks)
    return Status::failure("process grid " + grid.text() +
                           " has more than " + std::to_string(kMostRanks) +
                           " ranks; the job has " +
                           std::to_string(comm.size()));
  if (total != comm.size())
    return Status::failure("process grid " + grid.text() + " has " +
                           std::to_string(total) + " ranks; the job has " +
                           std::to_string(comm.size()));
  for (int axis = 0; axis < dims; ++axis) {
    const std::string name = axis_name(axis);
    const int n = extents[axis];
    const int p = grid.ranks[axis];
    const bool dirichlet = !wraps(boundary[axis]);
    const int halo = dirichlet ? reach[axis] : 0;
    const int unknowns = n - 2 * halo;
    d.global[axis] = n;
    if (p > 1 && (!splittable[axis] || !layered[axis]))
      return Status::failure(
          "the process grid splits " + name + ", which the spec's grid.split "
          "does not list; list it there to generate kernels that read a "
          "ghost zone along " + name);
    if (unknowns < 1)
      return Status::failure("extent n" + name + " = " + std::to_string(n) +
                             " leaves no unknowns inside the halo");
    if (unknowns % p != 0)
      return Status::failure(
          "the process grid's " + std::to_string(p) + " ranks along " + name +
          " do not divide its " + std::to_string(unknowns) +
          (dirichlet ? " unknowns (n" + name + " = " + std::to_string(n) +
                           " minus the halo)"
                     : " sites"));
    const int owned = unknowns / p;
    const std::string perRank =
        "the process grid leaves " + std::to_string(owned) +
        (owned == 1 ? " site" : " sites") + " per rank along " + name;
    // A ghost zone is filled from the neighbour's owned sites alone.
    if (p > 1 && owned < reach[axis])
      return Status::failure(perRank + ", fewer than the stencil's reach of " +
                             std::to_string(reach[axis]) + " there");
    if (p > 1 && even_extents && owned % 2 != 0)
      return Status::failure(perRank + "; even/odd storage needs an even "
                                       "number on every rank to keep its "
                                       "checkerboard");
    d.owned[axis] = owned;
    d.layer[axis] = layered[axis] ? reach[axis] : 0;
    d.local[axis] = owned + 2 * d.layer[axis];
    d.exchanged[axis] = layered[axis] && (p > 1 || !dirichlet);
  }
#if defined(STENCIL_HAVE_MPI)
  if (comm.distributed()) {
    // MPI's Cartesian order is row-major in its dimension list; give it the
    // axes slowest first so that ranks run with x fastest (rank_of()).
    int mpiDims[kMaxDims], periods[kMaxDims];
    for (int axis = 0; axis < dims; ++axis) {
      mpiDims[dims - 1 - axis] = grid.ranks[axis];
      periods[dims - 1 - axis] = wraps(boundary[axis]) ? 1 : 0;
    }
    MPI_Comm cart = MPI_COMM_NULL;
    STENCIL_TRY(mpi_status(MPI_Cart_create(comm.mpi(), dims, mpiDims, periods,
                                           /*reorder=*/0, &cart),
                           "MPI_Cart_create"));
    d.comm = Communicator::owning(cart);
    int mpiCoords[kMaxDims];
    MPI_Cart_coords(cart, d.comm.rank(), dims, mpiCoords);
    for (int axis = 0; axis < dims; ++axis)
      d.coords[axis] = mpiCoords[dims - 1 - axis];
    for (int axis = 0; axis < dims; ++axis) {
      if (!d.exchanged[axis] || grid.ranks[axis] == 1)
        continue;
      int low = MPI_PROC_NULL, high = MPI_PROC_NULL;
      MPI_Cart_shift(cart, dims - 1 - axis, 1, &low, &high);
      d.neighbour[axis][0] = low == MPI_PROC_NULL ? -1 : low;
      d.neighbour[axis][1] = high == MPI_PROC_NULL ? -1 : high;
    }
  } else {
    d.comm = comm;
  }
#else
  if (comm.distributed())
    return Status::failure("several ranks, but this runtime was built "
                           "without MPI (configure with -DSTENCILC_MPI=ON)");
  d.comm = comm;
#endif
  for (int axis = 0; axis < dims; ++axis) {
    const bool dirichlet = !wraps(boundary[axis]);
    const int halo = dirichlet ? reach[axis] : 0;
    d.first[axis] = halo + d.coords[axis] * d.owned[axis];
    if (!d.exchanged[axis])
      continue;
    if (grid.ranks[axis] == 1) {
      // An unsplit axis that wraps: the rank's own opposite face.
      d.neighbour[axis][0] = d.neighbour[axis][1] = d.comm.rank();
    }
    // Crossing the lattice's end along an antiperiodic axis flips signs.
    if (boundary[axis] == kAntiperiodic) {
      d.flips[axis][0] = d.coords[axis] == 0;
      d.flips[axis][1] = d.coords[axis] == grid.ranks[axis] - 1;
    }
  }
  out = d;
  return Status();
}

} // namespace stencil
