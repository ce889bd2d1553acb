// stencil/launch_config.hpp - from lattice extents to a launch grid.
//
// Shared by every generated kernel: the thread-to-site mapping is fixed here
// and in the emitted kernel prologue (generator/emit), nowhere else.
//   - axis x -> threadIdx.x/blockIdx.x, axis y -> .y;
//   - axes z and t share .z: threadIdx.z = lz + bz * lt and
//     blockIdx.z = block_z + blocks_z * block_t;
//   - along the tile axis each thread owns `tile_factor` consecutive sites;
//   - with `x_width` > 1, each thread owns an aligned group of that many
//     sites along x, from x = 0 (groups may hold halo sites, never stored);
//   - with `component_groups` G > 1, a site's components are split over G
//     threads: blockIdx.x = G * (block along x) + g, so the G blocks of the
//     same sites are neighbours in launch order; the kernel places a share
//     either by block (share g) or by lane (share k % G of site k / G, k
//     counting those blocks' threads), as the plan says;
//   - along a Dirichlet axis threads map to interior sites only (the halo,
//     `reach` sites wide on both sides, is never written); along a periodic
//     or antiperiodic axis to every site;
//   - except for even/odd fields (`both_halves`): one-dimensional blocks of
//     the block's threads over every site of the lattice, in runs of 32
//     that alternate between the even and the odd half (each half in
//     storage order, its last run padded to 32; the kernels skip the halo
//     and the padding), the G shares of a site split as above.
#ifndef STENCIL_LAUNCH_CONFIG_HPP
#define STENCIL_LAUNCH_CONFIG_HPP

#include "stencil/environment.hpp"
#include "stencil/types.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace stencil {

constexpr int kMaxDims = 4;

/// How a lattice axis ends (the spec's grid.boundary). Dirichlet: a halo of
/// fixed values `reach` sites wide on both sides; periodic: neighbours wrap
/// around; antiperiodic: they wrap around with their sign flipped (fermion
/// fields in time).
enum Boundary : int { kDirichlet = 0, kPeriodic = 1, kAntiperiodic = 2 };

inline const char *boundary_name(int boundary) {
  return boundary == kPeriodic       ? "periodic"
         : boundary == kAntiperiodic ? "antiperiodic"
                                     : "dirichlet";
}

/// Whether neighbours wrap around along an axis with this boundary.
inline bool wraps(int boundary) { return boundary != kDirichlet; }

/// What the launch geometry depends on; generated headers define one.
struct StencilShape {
  int dims;
  int boundary[kMaxDims]; ///< per axis, a stencil::Boundary
  int reach[kMaxDims]; ///< largest |offset| per axis
  int block[kMaxDims];
  int tile_axis;
  int tile_factor;
  /// Aligned sites per thread along x (the vector width of a single-component
  /// or component-major vector field; 1 otherwise): threads start at x = 0
  /// in steps of it, and
  /// nx must be a multiple of it so that every row starts aligned.
  int x_width;
  /// Threads sharing a site's components (kernel.components_per_thread);
  /// 0 or 1: one thread per site.
  int component_groups;
  /// 1: the whole-lattice kernels of an even/odd field, threads over both
  /// halves in runs of 32 that alternate between them (generator/plan/Plan.h,
  /// ThreadMappingKind::BothHalves); 0: the grid above.
  int both_halves;
  /// 1: kernel.march, each thread walks along the tile axis (the slowest)
  /// through a chunk of LaunchConfig::planes sites in a loop (tile_factor
  /// is 1); 0: one tile per thread.
  int march = 0;
};

struct LaunchConfig {
  LaunchDims grid;
  LaunchDims block;
  unsigned blocks_z = 1; ///< blocks along z; blockIdx.z / blocks_z is t's
  bool empty = false;    ///< no site to update (Dirichlet grid all halo)
  /// Marching kernels: the sites along the tile axis each block walks.
  int planes = 0;
};

/// How a marching kernel's grid is sized against the device's resident
/// blocks; each rule is the one its probes found fastest.
enum class MarchWaves {
  /// About two whole waves (3-D marches along z). At 512^3 on an H200 the
  /// 7-point march ran at 77% of the copy with 1.3 waves, 87% with 2.6 and
  /// 89% with 2 (bench/probes/z_march.cu); the 27-point stencil's tuned
  /// march 82.9% with this rule, 72.7-83.4% at other chunks.
  Two,
  /// The fewest chunks whose grid fills 0.75 to 1 wave, or more than one
  /// wave with the last one at least 90% full, else the grid whose last
  /// wave is fullest (4-D marches along t). On an
  /// H200 it picked the fastest chunk of every probed 4-D march
  /// (bench/probes/t_march_vec24.cu); the generated
  /// laplacian4d_periodic_march at 64^3 x 128 ran at 82.2% of the copy
  /// with its one chunk (0.97 waves), 79.8% with two waves.
  FewestWhole,
};

/// The chunk of planes each block of a marching kernel walks
/// (StencilShape::march): `sites` to update along the march, `columns`
/// blocks across it, `resident` blocks the device holds at once (0: cannot
/// tell, as on the host backend), sized by `waves`. A block walks a long
/// chunk, so a last partial wave idles much of the GPU. Each chunk has at
/// least 8 planes where there are as many: the ring's first 2R planes are
/// loaded for no output. STENCILC_MARCH_PLANES=N overrides the choice (at
/// most `sites`); `override` is its value, 0 when unset.
inline long long march_planes(long long sites, long long columns,
                              std::int64_t resident, long long override,
                              MarchWaves waves = MarchWaves::Two) {
  if (sites <= 0)
    return 1;
  if (override > 0)
    return override < sites ? override : sites;
  constexpr long long kWaves = 2, kMinPlanes = 8;
  if (resident <= 0 || columns <= 0)
    return sites;
  const long long least = sites < kMinPlanes ? sites : kMinPlanes;
  if (waves == MarchWaves::FewestWhole) {
    // Chunks of equal planes, up to 8 waves (past them a grid's tail costs
    // little); where none fills its last wave as the rule asks, the one
    // that fills it most (a grid just over a wave ran up to 30% slower).
    long long best = sites, bestFill = -1;
    for (long long chunks = 1; chunks <= sites; ++chunks) {
      const long long planes = (sites + chunks - 1) / chunks;
      if (planes < least)
        break;
      const long long blocks = columns * ((sites + planes - 1) / planes);
      const long long whole = blocks / resident, rest = blocks % resident;
      if (whole >= 8)
        break;
      if (whole == 0 ? 4 * blocks >= 3 * resident
                     : rest == 0 || 10 * rest >= 9 * resident)
        return planes;
      // The last wave's resident blocks in use, in thousandths.
      const long long fill = rest == 0 ? 1000 : 1000 * rest / resident;
      if (fill > bestFill)
        best = planes, bestFill = fill;
    }
    return best;
  }
  long long chunks = kWaves * resident / columns;
  chunks = chunks < 1 ? 1 : chunks;
  const long long planes = (sites + chunks - 1) / chunks;
  return planes < least ? least : planes;
}

/// STENCILC_MARCH_PLANES: unset or empty 0, else a positive integer; any
/// other value fails naming it.
inline Status march_planes_override(long long &planes) {
  planes = 0;
  const char *text = environment_value("STENCILC_MARCH_PLANES");
  if (text == nullptr)
    return Status();
  char *end = nullptr;
  const long long value = std::strtoll(text, &end, 10);
  if (*end != '\0' || value < 1 || value > (1LL << 30))
    return Status::failure(std::string("STENCILC_MARCH_PLANES='") + text +
                           "' is not a number of planes in [1, 2^30]");
  planes = value;
  return Status();
}

/// Vector loads and stores (kernel.vector_width) need fields aligned to the
/// access size; device allocations are, sub-arrays need not be.
inline bool is_aligned(const void *pointer, std::size_t bytes) {
  return reinterpret_cast<std::uintptr_t>(pointer) % bytes == 0;
}

inline const char *axis_name(int axis) {
  static const char *const names[kMaxDims] = {"x", "y", "z", "t"};
  return names[axis];
}

/// The slices per slab of an even/odd hopping kernel's walk (kernel.slab;
/// Plan.h, HalfLatticeThreads): `requested` slices, at most the slowest
/// axis' extent, or for `requested` 0 (auto) a choice from the reuse of a
/// neighbour along the slowest axis. In storage order it is read as the
/// neighbour of slice s - 1 and again of slice s + 1, two slices of traffic
/// apart (`bytes_per_site` per output site, half of a slice's sites). When
/// that exceeds 1.5 times the L2 the walk takes 8 slices per slab, which
/// brings both reads within a few planes; below it storage order, whose
/// few address streams the hardware serves best. The threshold and the 8
/// slices come from the Wilson hop on an H100 between 32^3 x 64 and 48^3 x
/// 64 (bench/probes/wilson_traversal.cu, docs/performance.md). Lattices of
/// fewer than 3 axes, and l2_bytes 0 (the host backend), keep storage
/// order.
inline int hop_slab(int requested, int dims, const int *extents,
                    int bytes_per_site, std::int64_t l2_bytes) {
  if (dims < 3)
    return 1;
  const int slowest = extents[dims - 1];
  if (requested > 0)
    return requested < slowest ? requested : (slowest > 0 ? slowest : 1);
  std::int64_t slice_sites = 1;
  for (int axis = 0; axis + 1 < dims; ++axis)
    slice_sites *= extents[axis];
  const std::int64_t traffic = 2 * (slice_sites / 2) * bytes_per_site;
  if (l2_bytes <= 0 || 2 * traffic <= 3 * l2_bytes)
    return 1;
  return slowest < 8 ? (slowest > 0 ? slowest : 1) : 8;
}

/// The bytes two slices across the slowest of `dims` axes move at
/// `bytes_per_site` (read and written) a site: what a kernel works through
/// between reading a plane as the neighbour of the plane before it and
/// reading it again for the plane after. Slices past 2^36 sites count as
/// 2^36 (no lattice a GPU holds; the product stays within 64 bits).
inline std::int64_t two_slices_bytes(int dims, const int *extents,
                                     int bytes_per_site) {
  constexpr std::int64_t kSaturated = std::int64_t(1) << 36;
  std::int64_t slice_sites = 1;
  for (int axis = 0; axis + 1 < dims; ++axis)
    slice_sites = extents[axis] > 0 && slice_sites > kSaturated / extents[axis]
                      ? kSaturated
                      : slice_sites * extents[axis];
  return 2 * slice_sites * bytes_per_site;
}

/// Whether those two slices exceed `percent` percent of an L2 of `l2_bytes`
/// (TunedChoice::l2_percent): past it an unmarched kernel's second read of
/// a plane misses L2, which a march along that axis avoids. False for
/// `percent` 0 or an unknown L2 (`l2_bytes` 0: the host backend).
inline bool slices_exceed_l2(int dims, const int *extents, int bytes_per_site,
                             int percent, std::int64_t l2_bytes) {
  if (percent <= 0 || l2_bytes <= 0 || dims < 2)
    return false;
  return two_slices_bytes(dims, extents, bytes_per_site) * 100 >
         percent * l2_bytes;
}

/// The grid of StencilShape::both_halves, after make_launch_config checked
/// the extents one by one: one thread per site (per share of a site), each
/// half's last run of 32 padded, in one-dimensional blocks of the block's
/// threads.
inline Status both_halves_config(const StencilShape &shape, const int *extents,
                                 LaunchConfig &config) {
  // The kernels number a half's sites as the hopping kernels do, with
  // 32-bit arithmetic: fewer than 2^31 a parity, and the padded runs of
  // both halves within 2^32 threads.
  constexpr long long kMaxHalf = (1LL << 31) - 64;
  // The product saturates at 2^32, past the limit (extents reach 2^30).
  constexpr long long kSaturated = 1LL << 32;
  long long sites = 1;
  for (int axis = 0; axis < shape.dims; ++axis)
    sites = std::min(sites * extents[axis], kSaturated);
  if (sites / 2 > kMaxHalf)
    return Status::failure(
        (sites == kSaturated ? std::string("at least ") : std::string()) +
        std::to_string(sites / 2) +
        " sites per parity exceed the whole-lattice kernels' 2^31 - 64");
  // Runs of 32 sites alternate between the halves: each half's last run is
  // padded to 32 threads.
  const long long threads = (sites / 2 + 31) / 32 * 64;
  const long long per_block =
      static_cast<long long>(shape.block[0]) * shape.block[1] *
      shape.block[2] * shape.block[3];
  const int groups = shape.component_groups > 1 ? shape.component_groups : 1;
  config.block = LaunchDims{static_cast<unsigned>(per_block), 1, 1};
  if (config.empty)
    return Status();
  const long long blocks = (threads + per_block - 1) / per_block * groups;
  if (blocks > 2147483647LL)
    return Status::failure("launch grid of " + std::to_string(blocks) +
                           " blocks exceeds the GPU limit (2^31-1); use "
                           "larger blocks");
  config.grid = LaunchDims{static_cast<unsigned>(blocks), 1, 1};
  return Status();
}

/// Checks `extents` (one per axis) against the stencil and computes the
/// grid. Sizes need not be multiples of the block or the tile. For a
/// marching kernel `resident` is the device's resident blocks of it
/// (stencil::resident_blocks; the generated headers' march_residency()).
inline Status make_launch_config(const StencilShape &shape,
                                 const int *extents, LaunchConfig &config,
                                 std::int64_t resident = 0) {
  // Coordinates are 32-bit in the kernels; tile and reach may add to them.
  constexpr long long kMaxExtent = 1LL << 30;
  long long blocks[kMaxDims] = {1, 1, 1, 1};
  long long marchSites = 0;
  config = LaunchConfig();
  for (int axis = 0; axis < shape.dims; ++axis) {
    const long long n = extents[axis];
    const std::string name = axis_name(axis);
    if (n < 1 || n > kMaxExtent)
      return Status::failure("extent n" + name + " = " + std::to_string(n) +
                             " is out of range [1, 2^30]");
    long long sites;
    if (axis == 0 && shape.x_width > 1) {
      if (n % shape.x_width != 0)
        return Status::failure(
            "extent nx = " + std::to_string(n) + " is not a multiple of " +
            std::to_string(shape.x_width) +
            ", the sites each thread updates along x with one vector access "
            "(kernel.vector_width); rows would not start aligned");
      if (wraps(shape.boundary[0])) {
        if (n < shape.reach[0])
          return Status::failure(
              std::string(boundary_name(shape.boundary[0])) + " extent nx = " +
              std::to_string(n) + " is smaller than the stencil's reach of " +
              std::to_string(shape.reach[0]) + " along x");
        sites = n; // every group holds updated sites
      } else {
        // Groups from x = 0 up to the last one that holds an updated site.
        sites = n - shape.reach[0];
        if (n - 2LL * shape.reach[0] <= 0)
          config.empty = true;
      }
    } else if (wraps(shape.boundary[axis])) {
      const int reach = shape.reach[axis];
      if (n < reach)
        return Status::failure(
            std::string(boundary_name(shape.boundary[axis])) + " extent n" +
            name + " = " + std::to_string(n) +
            " is smaller than the stencil's reach of " +
            std::to_string(reach) + " along " + name);
      sites = n;
    } else {
      sites = n - 2LL * shape.reach[axis];
      if (sites <= 0)
        config.empty = true;
    }
    if (axis == shape.tile_axis && shape.march)
      marchSites = sites; // the chunk follows from the other axes' blocks
    else if (axis == shape.tile_axis)
      sites = (sites + shape.tile_factor - 1) / shape.tile_factor;
    if (axis == 0) // one thread per group along x (x_width is 1 otherwise)
      sites = (sites + shape.x_width - 1) / shape.x_width;
    blocks[axis] = sites > 0 ? (sites + shape.block[axis] - 1) / shape.block[axis]
                             : 0;
  }
  if (shape.both_halves)
    return both_halves_config(shape, extents, config);
  if (shape.march) {
    long long override = 0;
    const Status read = march_planes_override(override);
    if (!read.ok())
      return read;
    // Every block of the grid but those along the march, a site's
    // component groups among them (blocks along x below). Saturated at
    // 2^40: no GPU launches such a grid (refused below), and the chunk's
    // arithmetic must not overflow first.
    constexpr long long kColumnsCap = 1LL << 40;
    long long columns = shape.component_groups > 1 ? shape.component_groups : 1;
    for (int axis = 0; axis < shape.dims; ++axis)
      if (axis != shape.tile_axis)
        columns = blocks[axis] > 0 && columns > kColumnsCap / blocks[axis]
                      ? kColumnsCap
                      : columns * blocks[axis];
    const long long planes = march_planes(
        marchSites, columns, resident, override,
        shape.dims == 4 ? MarchWaves::FewestWhole : MarchWaves::Two);
    config.planes = static_cast<int>(planes);
    blocks[shape.tile_axis] =
        marchSites > 0 ? (marchSites + planes - 1) / planes : 0;
  }
  if (shape.component_groups > 1)
    blocks[0] *= shape.component_groups;
  config.block.x = static_cast<unsigned>(shape.block[0]);
  config.block.y = static_cast<unsigned>(shape.block[1]);
  config.block.z = static_cast<unsigned>(shape.block[2] * shape.block[3]);
  if (config.empty)
    return Status();
  const long long gridZ = blocks[2] * blocks[3];
  if (blocks[0] > 2147483647LL || blocks[1] > 65535 || gridZ > 65535)
    return Status::failure(
        "launch grid " + std::to_string(blocks[0]) + " x " +
        std::to_string(blocks[1]) + " x " + std::to_string(gridZ) +
        " exceeds the GPU limits (2^31-1 x 65535 x 65535); use larger "
        "blocks or a larger tile");
  config.grid.x = static_cast<unsigned>(blocks[0]);
  config.grid.y = static_cast<unsigned>(blocks[1]);
  config.grid.z = static_cast<unsigned>(gridZ);
  config.blocks_z = static_cast<unsigned>(blocks[2]);
  return Status();
}

} // namespace stencil

#endif
