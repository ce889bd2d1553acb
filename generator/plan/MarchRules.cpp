//===- MarchRules.cpp - Kernels the planner marches by rule ---------------===//

#include "plan/MarchRules.h"

#include "check/Check.h"
#include "plan/ChooseOptions.h"

#include <algorithm>
#include <cstdlib>

namespace stencilc {

namespace {

/// Taps that lie off the z axis and reach along z: a tile along z shares
/// their columns' loads between planes only through a long register tile,
/// which the march gets with one ring of 2R + 1 accumulators instead.
int offAxisZTaps(const StencilModel &m) {
  if (m.dims != 3)
    return 0;
  int count = 0;
  for (const Tap &tap : m.taps)
    count += tap.offset[2] != 0 && (tap.offset[0] != 0 || tap.offset[1] != 0);
  return count;
}

/// Taps that reach along the slowest axis (t) of a 4-D field: a march
/// along t shares their planes' loads between a column's sites.
int tapsAlongT(const StencilModel &m) {
  if (m.dims != 4)
    return 0;
  int count = 0;
  for (const Tap &tap : m.taps)
    count += tap.offset[3] != 0;
  return count;
}

/// R, the taps' reach along the slowest axis (t) of a 4-D field: a march
/// along t keeps a ring of 2R + 1 outputs a thread.
int reachAlongT(const StencilModel &m) {
  int reach = 0;
  if (m.dims == 4)
    for (const Tap &tap : m.taps)
      reach = std::max(reach, std::abs(tap.offset[3]));
  return reach;
}

/// The fewest threads a marching 4-D block holds where the planner chose
/// the block. On an H200 at 64^3 x 128, laplacian4d_periodic's groups of 2
/// marched at 3148-3276 GB/s with 128 threads, 3402-3415 with 256 and
/// 3469-3500 with 512 (docs/performance.md, "Marching along t in the
/// generator"); a float torus's groups of 4 at 2186 with 256 threads and
/// 2428 with 512, against 2201 with the planner's tile
/// (docs/results/h200-4d-march-rule.txt).
constexpr int kMarchBlockThreads = 512;

/// The threads an SM keeps resident for the site-major vector march: a
/// minimum of resident blocks that makes them 1024 caps a thread at 64
/// registers. On an H200 (the tuner, 24 floats at 32^3 x 64, one call)
/// such marches ran at 3028-3040 GB/s with 128 threads 8 an SM or 256
/// threads 4 an SM, at 2712 with 256 threads and no minimum, against 2620
/// for the kernels of then (docs/results/h200-vector-march-gap.txt, call
/// 8).
constexpr int kMarchResidentThreads = 1024;

/// The most accumulator values (the ring's 2R + 1 outputs times the values
/// a thread moves) a marching thread holds under that minimum's cap of 64
/// registers; past it the march keeps kMarchWideRingResidentThreads. nvcc 13
/// (sm_90, block 32x4x2x1, no minimum) gives a ring of 3 sites of 6 floats (18
/// values) 64 registers, of 3 sites of 10 floats or 5 of 6 floats (30) 72
/// and 79; under the cap those two spill 8 and 80 bytes. On an H200 at
/// 32^3 x 64 (one call of the tuner, docs/results/tune-h200-heldout-
/// h_lap4d_c10_f32.json, h_star4d_c6_f32.json, h_lap4d_c6_f32.json) they
/// marched at 2040 and 1583 GB/s with the minimum, 2510 and 1825 without;
/// the 18 values at 2596 with it and 2152 without, at the same 64
/// registers.
constexpr int kMarchRingValues = 24;

/// The threads an SM keeps resident for a march whose ring is past
/// kMarchRingValues: half as many, at most 128 registers a thread. On an
/// H200 at 32^3 x 64 (one call of the tuner, docs/results/tune-h200-
/// heldout-*-marchmins.json) five such tori marched with it (blocks of 256,
/// 2 an SM) against none (the rule of before): 1806 -> 1962 GB/s (the
/// 17-point star, 6 floats: 30 values), 1684 -> 1759 (the star, 10 floats:
/// 50), 1320 -> 1499 (14 floats: 42), 1370 -> 1451 (a 25-point star, 4
/// floats: 28), +4.5 to +13.5%, and 2402 -> 2177 (10 floats: 30), -9.3%;
/// 3 an SM moved them by -8.4 to +8.6%. With it the worst of the five ran
/// at 89.8% of its search's best, without at 84.4%.
constexpr int kMarchWideRingResidentThreads = 512;

/// Marches `k` along the slowest of `dims` axes: one thread and a tile of
/// one site along it. Where the planner chose the block (not
/// `blockWritten`), its threads along that axis move to the axis before.
void marchAlongSlowestAxis(KernelOptions &k, int dims, bool blockWritten) {
  const int axis = dims - 1;
  k.march = true;
  k.tileAxis = axis;
  k.tileFactor = 1;
  if (!blockWritten) {
    k.block[axis - 1] *= k.block[axis];
    k.block[axis] = 1;
  }
}

} // namespace

/// Measured for the march: on an H200 (32^3 x 64, the
/// tuner, one call a row; docs/results/tune-h200-heldout-h_lap4d_c*.json)
/// whole sites of 6 floats marched at 2608 and 2686 GB/s where shares of
/// one 8-byte vector marched at 2047 and 2144 (block 32x4x1x1, 1024
/// resident threads); whole sites of 10 floats (32x4x2x1, no minimum:
/// kMarchRingValues) at 2510 and 2398 where such shares (the same block,
/// 1024 resident threads) marched at 2081 and 2042. Only whole sites were
/// measured so; a share of several vectors short of a site (4 of 24 floats
/// in vectors of 2) follows the 16 bytes that every 4-D search found
/// fastest.
int wholeVectorShare(const StencilModel &chosen) {
  const KernelOptions &k = chosen.kernel;
  const int width = k.vectorWidth;
  if (chosen.componentsPerThread() == width && k.written.componentsPerThread)
    return width;
  if (k.written.componentsPerThread || width < 1 ||
      chosen.components % width != 0)
    return 0;
  for (int share = width; share <= chosen.components; share += width)
    if (chosen.components % share == 0 && share * chosen.elementBytes() >= 16)
      return share;
  return chosen.componentsPerThread() == width ? width : 0;
}

/// The groups' kernel marching along the slowest axis, by rule rather than
/// by the cost model, which does not weigh the march, where the spec leaves
/// the tile open:
/// - 3-D, Dirichlet: for stencils with taps off the z axis that reach
///   along z. The block's threads along z move to y (a march has one along
///   z). On an H200 at 512^3 the 27-point stencil marched at 3476 GB/s with
///   the 32x8x1 threads this gives its planner's 32x4x2, against 2905 for
///   the tile (docs/performance.md); star stencils (7- and 13-point) gained
///   nothing in the probe (bench/probes/z_march.cu), so the rule leaves
///   them.
/// - 4-D, every axis periodic or antiperiodic: for stencils that reach
///   along t, star stencils too. The threads along t move to z, and a
///   block the planner chose grows along z to kMarchBlockThreads. On an
///   H200 at 64^3 x 128 tori's groups marched faster than with the
///   planner's tile: 10% (float, 512 threads) and 4% (double, 256) in one
///   call of the tuner, laplacian4d_periodic's 10-12% against an earlier
///   run; on an all-Dirichlet lattice the march lost 6-9%
///   (docs/results/h200-4d-march-rule.txt), so such lattices keep the
///   tile.
/// Single-component fields only: component-major vector fields' rows
/// marched 4-5% slower than their entries.
std::optional<MarchRule> marchingGroups(const StencilModel &grouped) {
  const KernelOptions &k = grouped.kernel;
  if (k.written.tile || k.written.march || grouped.components != 1)
    return std::nullopt;
  MarchRule rule;
  if (grouped.dims == 3) {
    // Measured on Dirichlet fields only; periodic axes keep the tile until
    // a run says the rule holds for them.
    const int offAxis = offAxisZTaps(grouped);
    if (offAxis == 0 || !grouped.allDirichlet())
      return std::nullopt;
    rule.reason = std::to_string(offAxis) + " taps off the z axis reach "
                                            "along z";
  } else if (const int alongT = tapsAlongT(grouped);
             alongT > 0 && grouped.allWrap()) {
    rule.reason = std::to_string(alongT) +
                  " taps reach along t of a torus; on an H200 such groups "
                  "marched 4-12% faster than with a tile";
  } else {
    return std::nullopt;
  }
  StencilModel m = grouped;
  KernelOptions &marching = m.kernel;
  marchAlongSlowestAxis(marching, m.dims, k.written.block);
  if (m.dims == 4 && !k.written.block) {
    while (marching.threadsPerBlock() < kMarchBlockThreads)
      marching.block[2] *= 2;
    if (!k.written.launchBounds)
      marching.launchBounds = marching.threadsPerBlock();
  }
  if (!optionsAdmissible(m))
    return std::nullopt;
  rule.options = marching;
  return rule;
}

/// The spec's own kernels marching along t, by rule: for 4-D site-major
/// float fields, in plain storage or in subdomains one site deep along t,
/// where the spec leaves the tile, the launch bounds and the resident
/// minimum open, on tori (the lattices measured; the single-component march
/// lost on an all-Dirichlet one), whose chosen kernels move whole vectors of
/// a site a tap. A thread moves wholeVectorShare's values: one vector a tap
/// (components_per_thread equal to vector_width), which the march gathers
/// a plane at a time (KernelPlan::gathersPlane), where the spec writes that
/// share or leaves it open and a vector moves 16 bytes; where it is open
/// and a vector moves fewer, the fewest whole vectors that move 16 (a whole
/// site of 6 floats), whatever the cost model chose. The minimum makes
/// kMarchResidentThreads (for apply and the dot kernel: CG's fold kernel
/// goes without it, planFoldPass) where the ring's accumulators fit its
/// register cap (kMarchRingValues), else kMarchWideRingResidentThreads;
/// the threads along t move to z. On an
/// H200 (stencil_bench, 32^3 x 64) the planner's kernels for the 24-float
/// field so marched at 2978-3042 GB/s (docs/results/h200-4d-march-rule.txt)
/// against 2689-2690 unmarched (docs/results/h200-vector-march-gap.txt,
/// call 9); the subdomain field's (8x4x4x1) at 2934-2941 with 4 floats a
/// thread, where its cost model's choice (8 floats a thread, tile y x 2)
/// ran at 2417-2669 and the march with 8 floats a thread at 2030-2881
/// (docs/results/h200-sub-gathered-march.txt); tori of 6 floats a site
/// (the tuner, one call: docs/results/tune-h200-heldout-h_lap4d_c6_f32*.json)
/// at 2593-2608 with whole sites, where shares of one 8-byte vector
/// marched at 2047-2103. Doubles keep the cost model's choice: the
/// 12-double field's marched at 3024-3047 against 3022-3083 unmarched in
/// earlier runs (docs/performance.md), no gain.
std::optional<MarchRule> marchingVectorSites(const StencilModel &chosen) {
  const KernelOptions &k = chosen.kernel;
  if (chosen.dims != 4 || chosen.components == 1 || k.written.tile ||
      k.written.march || k.written.launchBounds || k.written.minBlocksPerSm)
    return std::nullopt;
  const int share = wholeVectorShare(chosen);
  // (Float specs have no inner precision, whose bfloat16 kernels could not
  // march.)
  const FieldLayout &l = chosen.layout;
  if (l.order != LayoutOrder::SiteMajor || l.evenOdd ||
      (l.hasSubdomains() && l.subdomain[3] != 1) || !chosen.allWrap() ||
      chosen.precision != Precision::Float || k.vectorWidth < 2 || !share ||
      tapsAlongT(chosen) == 0)
    return std::nullopt;
  StencilModel m = chosen;
  KernelOptions &marching = m.kernel;
  marching.componentsPerThread = share;
  marchAlongSlowestAxis(marching, m.dims, k.written.block);
  marching.launchBounds = marching.threadsPerBlock();
  const int ring = 2 * reachAlongT(chosen) + 1;
  const bool ringFitsCap = ring * share <= kMarchRingValues;
  // A written block of more threads than the wide ring's residency gets no
  // minimum: one block would keep more, at fewer registers a thread.
  const int resident =
      ringFitsCap ? kMarchResidentThreads : kMarchWideRingResidentThreads;
  marching.minBlocksPerSm = resident / marching.threadsPerBlock();
  if (ringFitsCap)
    marching.minBlocksPerSm = std::max(1, marching.minBlocksPerSm);
  if (!optionsAdmissible(m))
    return std::nullopt;
  MarchRule rule;
  rule.options = marching;
  const std::string values = std::to_string(share);
  rule.share = share == k.vectorWidth
                   ? "one vector of a site a tap"
                   : values + " values a tap, the fewest whole vectors that "
                              "move 16 bytes";
  const std::string ringText =
      "a ring of " + std::to_string(ring) + " outputs of " + values + " values";
  rule.residentThreads = marching.minBlocksPerSm * marching.threadsPerBlock();
  const std::string pastCap =
      std::to_string(ring * share) + " values, past the " +
      std::to_string(kRegistersPerMultiprocessor / kMarchResidentThreads) +
      " registers a thread of " + std::to_string(kMarchResidentThreads) +
      " resident threads";
  if (rule.residentThreads == 0)
    rule.minimum = "none: " + ringText + " (" + pastCap + ") would keep " +
                   std::to_string(kMarchWideRingResidentThreads) +
                   " threads resident, fewer than the written block's " +
                   std::to_string(marching.threadsPerBlock());
  else
    rule.minimum =
        std::to_string(rule.residentThreads) +
        " threads resident an SM, at most " +
        std::to_string(kRegistersPerMultiprocessor / rule.residentThreads) +
        " registers a thread, which hold " + ringText;
  if (!ringFitsCap && rule.residentThreads > 0)
    rule.minimum +=
        " (" + pastCap +
        ", where nvcc spilled such rings; on an H200 such "
        "marches ran 4.5-13.5% faster with this minimum than without in four "
        "fields of five, 9.3% slower in one)";
  rule.reason =
      (share == k.vectorWidth
           ? "a thread moves one vector of " + std::to_string(k.vectorWidth) +
                 " values a tap, gathered a plane at a time"
           : "a thread moves " + values + " values a tap (" +
                 std::to_string(share * chosen.elementBytes()) +
                 " bytes; a vector of " + std::to_string(k.vectorWidth) +
                 " moves " +
                 std::to_string(k.vectorWidth * chosen.elementBytes()) + ")") +
      (rule.residentThreads > 0
           ? ", with at least " + std::to_string(marching.minBlocksPerSm) +
                 " blocks (" + std::to_string(rule.residentThreads) +
                 " threads) an SM"
           : ", without a resident minimum (a written block of " +
                 std::to_string(marching.threadsPerBlock()) + " threads)") +
      (share == k.vectorWidth
           ? "; on an H200 the 24-float field's kernels so marched 11-13% "
             "faster than unmarched"
           : "; on an H200 tori of 6 and 10 floats a site so marched 17-27% "
             "faster than with shares of one vector");
  return rule;
}

/// The accumulators of a marching thread over rows of a component-major
/// field: its ring of 2R + 1 outputs, of vector_width sites and its
/// components each. On an H200 the 24-float soa field's march ran fastest
/// of the shapes tried with 3 components of rows of 4 sites (36 values),
/// as bench/probes/t_march_vec24.cu's best (docs/performance.md, "The soa
/// march gathers its plane").
constexpr int kRowMarchRingValues = 36;

/// The marching block's threads: rows of 32 sites along x (a 128-byte float
/// row per component), 4 planes along z, the rest along y. On an H200 8x8x4x1
/// groups of 4 ran 0.8-2.1% faster than 8x4x4x1 (docs/results/h200-soa-
/// march-gathered.txt, call 12).
constexpr int kRowMarchThreads = 256;
constexpr int kRowMarchRowSites = 32;
constexpr int kRowMarchPlanes = 4;

/// Measured on an H200 (L2 60 MiB; docs/performance.md, "The planner
/// marches component rows on large lattices"): the 24-float soa field's
/// groups marching (8x8x4x1, 3 components a thread) against the same groups
/// unmarched (8x4x2x2, 6 components), stencil_bench, where two slices along
/// t of traffic fill this share of the L2: 160% (64^3 x 128) +16.2%, 67%
/// (48^3 x 96) +21.4% to +23.8% (three calls), 52% (44^3 x 88) +4.9%, 39%
/// (40^3 x 80) -2.4%, 20% (32^3 x 64) +0.3%; against its unmarched H200
/// entry (the tuner, one call) -9.7% at 24^3 x 48 and -9.1% at 36^3 x 64.
/// The aosoa field's (blocks of 32 sites) +6.9% and +7.5% at 67% and 160%,
/// -6.1% to -17.4% below. The threshold lies between 52% and 67%. CG's
/// fold pass keeps the groups: with the march's fold kernel CG ran 1.1%
/// slower an iteration at 48^3 x 64. The H100 (50 MiB) is not measured.
std::optional<MarchRule> marchingComponentRows(const StencilModel &grouped) {
  const KernelOptions &k = grouped.kernel;
  const FieldLayout &l = grouped.layout;
  if (grouped.dims != 4 || grouped.components == 1 || k.vectorWidth < 2 ||
      l.order == LayoutOrder::SiteMajor || l.evenOdd || l.hasSubdomains() ||
      grouped.precision != Precision::Float || !grouped.allWrap() ||
      tapsAlongT(grouped) == 0 || k.written.tile || k.written.march ||
      k.written.componentsPerThread || k.written.launchBounds ||
      k.written.minBlocksPerSm || kRowMarchRowSites % k.vectorWidth != 0)
    return std::nullopt;
  const int ring = 2 * reachAlongT(grouped) + 1;
  int share = 0;
  for (int c = 1; c <= grouped.components; ++c)
    if (grouped.components % c == 0 &&
        ring * k.vectorWidth * c <= kRowMarchRingValues)
      share = c;
  if (share == 0)
    return std::nullopt;
  StencilModel m = grouped;
  KernelOptions &marching = m.kernel;
  const int alongX = kRowMarchRowSites / k.vectorWidth;
  marching.block = {alongX, kRowMarchThreads / (alongX * kRowMarchPlanes),
                    kRowMarchPlanes, 1};
  marchAlongSlowestAxis(marching, m.dims, /*blockWritten=*/true);
  marching.componentsPerThread = share;
  marching.launchBounds = marching.threadsPerBlock();
  marching.minBlocksPerSm = 0;
  if (marching.block[1] < 1 || !optionsAdmissible(m))
    return std::nullopt;
  MarchRule rule;
  rule.options = marching;
  rule.reason = "on an H200 the 24-float soa field's groups so marched "
                "16-24% faster than unmarched where two slices along t of "
                "traffic filled 67% of the L2 or more, -2.4% to +4.9% at 39% "
                "and 52%, up to 10% slower on smaller lattices";
  return rule;
}

} // namespace stencilc
