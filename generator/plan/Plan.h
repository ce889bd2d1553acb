//===- Plan.h - KernelPlan: the kernel IR -----------------------*- C++ -*-===//
//
// Every decision about a generated kernel lives in its KernelPlan: which
// threads update which sites (ThreadMapping), which sites are inside the
// update region (SiteGuard), how a site's storage index is computed
// (SiteIndexing, with its neighbour coordinates and clamps), how a site's
// values move between memory and registers (FieldAccess: one node kind per
// layout and access width), the weights, the straight-line program of loads
// and accumulations of one thread's tile, the stores with their predicates
// and kind, and the epilogue (CG's block sum, the even/odd hop modes).
// Printers (generator/emit) walk it and decide nothing; `stencilc plan`
// prints it as text or JSON; tests count it.
//
// Plans are made by functions from the model (planKernel, planHopping-
// Kernel) and transformed by functions from plan to plan (withBlockSum);
// the model transforms (the adjoint's transpose, the naive baseline, the
// tuner's variants) come before planning.
//
//===----------------------------------------------------------------------===//
#ifndef STENCILC_PLAN_PLAN_H
#define STENCILC_PLAN_PLAN_H

#include "check/Model.h"

#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace stencilc {

/// Which operator a kernel applies: A, or A^T (the transposed stencil,
/// emitted only when A is not symmetric).
enum class KernelRole { Apply, Adjoint };

/// Even/odd storage only: a hopping kernel applies the off-diagonal block of
/// its role's operator between the parities (the neighbour taps; the centre
/// tap is the diagonal D, used only in the kernel's epilogue). EvenToOdd
/// reads the even sites and writes the odd ones.
enum class Hop { None, EvenToOdd, OddToEven };

// --- Parameters -------------------------------------------------------------

enum class ParameterKind {
  OutField,    ///< value_type *out
  InField,     ///< const value_type *in
  SameField,   ///< const value_type *same (hop mode kDiagonalPlusHop)
  HopMode,     ///< const int: stencil::HopMode
  HopAlpha,    ///< const value_type hop_alpha: the launch's alpha
  HopBeta,     ///< const value_type hop_beta: the launch's beta
  Extent,      ///< const int nx, ...
  MarchPlanes, ///< const int planes: sites each block walks (march)
  BlocksZ,     ///< const unsigned blocks_z: z blocks of a 4-D launch
  Slab,        ///< const int slab: slices per slab of a hopping kernel's walk
  Region,      ///< const stencil::Region region: the ranks' kernels' sites
  Params,      ///< the spec's parameters, by value (Params of NAME.hpp)
  Partials,    ///< double *partials: one sum per block
  /// CG's folded direction update (EpilogueKind::DirectionBlockSum):
  DirectionField,     ///< const value_type *direction: p of the last step
  NextDirectionField, ///< value_type *next_direction: p' = in + beta p
  /// const double *beta_source: beta in device memory, where CG keeps its
  /// scalars so that an iteration needs no round trip to the host.
  DirectionBeta,
  /// value_type *solution: CG's x, given x += alpha direction at the stored
  /// sites (the last step's update, deferred into this pass, which reads
  /// the direction anyway); null: no update.
  SolutionField,
  /// const double *alpha_source: that alpha in device memory (read only
  /// with a solution).
  SolutionAlpha,
};

struct KernelParameter {
  ParameterKind kind;
  std::string name;
};

// --- Threads and sites ------------------------------------------------------

/// Where the threads that share a site's components (components_per_thread)
/// find their share among the blocks of the same sites.
enum class ComponentShareOrder {
  /// Block b takes share b % groups of every site of the block: a warp
  /// reads a run of consecutive sites of one share. Coalesced where a
  /// site's components are stored apart (soa, aosoa), and the only order a
  /// staged box (kernel.staging: shared) knows.
  ByBlock,
  /// Thread k of the blocks of the same sites, counted across them, takes
  /// share k % groups of site k / groups: a warp reads its sites' shares
  /// side by side. Coalesced where a site's components are adjacent (aos),
  /// where by block a warp's accesses lie a whole site apart.
  ByLane,
};

/// A site's components shared by `groups` threads, `perThread` each from
/// `c0`, placed by `order` (components_per_thread; groups 1: a site whole).
/// blockIdx.x counts the share fastest: the `groups` blocks of the same
/// sites are neighbours in launch order (stencil/launch_config.hpp).
struct ComponentShares {
  int groups = 1;
  int perThread = 1;
  ComponentShareOrder order = ComponentShareOrder::ByBlock;
  bool split() const { return groups > 1; }
  bool byLane() const {
    return split() && order == ComponentShareOrder::ByLane;
  }
};

/// One thread per tile of sites of the whole lattice, on the launch grid of
/// stencil/launch_config.hpp.
struct LatticeThreads {
  std::array<int, kMaxDims> block{1, 1, 1, 1};
  /// The thread's first site along each axis: origin + sitesPerThread *
  /// (its position in the launch grid).
  std::array<int, kMaxDims> origin{};
  std::array<int, kMaxDims> sitesPerThread{1, 1, 1, 1};
  /// Axes z and t share the launch's z dimension (4-D grids).
  bool zSharesWithT = false;
  ComponentShares shares;
};

/// One thread per site of one parity, on a one-dimensional grid. Thread v
/// takes site v in storage order (x fastest, x halved), or with a slab walk
/// the axes below the second-slowest as stored, then the slowest axis
/// within its slab, the second-slowest, and the slab: for 4-D, site (xh, y,
/// t % S, z, t / S) in that order, S the launch's `slab` argument (the last
/// slab of the slowest axis may be thinner).
struct HalfLatticeThreads {
  int parity = 0; ///< of the sites written
  int threadsPerBlock = 256;
  /// 1: storage order, no `slab` argument; otherwise the spec's choice,
  /// KernelOptions::kSlabAuto or a number of slices, passed per launch as
  /// stencil::hop_slab() resolves it.
  int slab = 1;
  bool walksSlabs() const { return slab != 1; }
  ComponentShares shares;
};

enum class ThreadMappingKind {
  Lattice,
  HalfLattice,
  /// The whole-lattice kernels of even/odd fields: one thread per site of
  /// both halves, in runs of 32 threads that alternate between them: run k
  /// takes sites 32 (k / 2) to 32 (k / 2) + 31 of parity k % 2, each half
  /// numbered as HalfLatticeThreads numbers it without a slab walk (`half`
  /// holds the block's threads and the shares; `half.parity` is unused).
  /// A warp reads consecutive sites of one parity, as the hopping kernels
  /// do, where a lattice walk along x alternates parities lane by lane and
  /// leaves threads idle in rows shorter than the block; the next warp
  /// takes the sites beside them, which share their links and neighbours
  /// (one half after the other reads every link from memory twice: 1.8x
  /// the unique bytes on an H200). Threads past a half's end land past
  /// the slowest axis' end, where the guard stops them.
  BothHalves,
};

struct ThreadMapping {
  ThreadMappingKind kind = ThreadMappingKind::Lattice;
  int dims = 1;
  LatticeThreads lattice;
  HalfLatticeThreads half;
  /// One-dimensional blocks over a field's halves (the hopping kernels' and
  /// the whole-lattice kernels' of even/odd fields): `half` holds them.
  bool oneDimensionalGrid() const { return kind != ThreadMappingKind::Lattice; }
  /// The mapping's split of a site (its kind's).
  const ComponentShares &shares() const {
    return oneDimensionalGrid() ? half.shares : lattice.shares;
  }
  ComponentShares &shares() {
    return oneDimensionalGrid() ? half.shares : lattice.shares;
  }
};

/// The update region: a site is updated when, along every axis,
/// lower <= c < n - upper. Bounds that the mapping already guarantees are
/// left out (hasLower/hasUpper false).
struct AxisBounds {
  bool hasLower = false;
  int lower = 0;
  bool hasUpper = false;
  int upper = 0;
};

enum class GuardKind {
  EarlyReturn, ///< threads outside return at once
  Predicate,   ///< threads outside skip the body (every thread must reach
               ///< the epilogue's barrier)
};

struct SiteGuard {
  GuardKind kind = GuardKind::EarlyReturn;
  std::array<AxisBounds, kMaxDims> axes{};
  /// The ranks' kernels (StencilModel::rankKernels): a thread also needs
  /// its tile, `regionSpan` sites per axis from its first, to belong to the
  /// launch's stencil::Region (interior, boundary or all).
  bool region = false;
  std::array<int, kMaxDims> regionSpan{1, 1, 1, 1};
};

/// How the storage index of a site is computed.
enum class SiteIndexingKind {
  /// Plain site-major storage, offsets from `site` (x + y * sy + ...).
  PlainOffsets,
  /// Plain storage from neighbour coordinates (some of them wrapped).
  PlainCoordinates,
  /// stencil::layout_site() of a constexpr stencil::Layout.
  Layout,
  /// stencil::even_odd_site(): the index in one parity's half.
  EvenOddHalf,
};

/// A neighbour's coordinate along one axis, `axis + delta`, as the
/// coordinate-based indexings need it.
enum class CoordinateKind {
  Shift,      ///< axis + delta
  Wrap,       ///< periodic: stencil::wrap(axis + delta, n)
  ClampAbove, ///< axis + stencil::clamp_above(delta, room): past the array
  /// Groups along a Dirichlet x (rows of a lattice that wraps elsewhere):
  /// the halo beside the first and last groups, whose values only halo
  /// sites use, is read inside the row instead of past it.
  ClampXAbove, ///< x + stencil::clamp_above(delta, xroom)
  ClampXBelow, ///< x + stencil::clamp_below(delta, -x)
};

struct Coordinate {
  int axis = 0;
  int delta = 0;
  CoordinateKind kind = CoordinateKind::Shift;
  /// Antiperiodic axes: also declares `<name>_sign`, -1 when the
  /// coordinate crossed the wrap, else 1.
  bool flipsSign = false;
};

struct SiteIndexing {
  SiteIndexingKind kind = SiteIndexingKind::PlainOffsets;
  int dims = 1;
  FieldLayout layout;
  /// Declares `sites` (layout_element needs the field's site count) or
  /// `half_sites` (one parity's).
  bool declaresSiteCount = false;
  bool declaresHalfSiteCount = false;
  /// `room`: rows left along the tile axis before the array's end, for
  /// loads clamped there; `xroom`: the same along x for a group's halo.
  bool declaresRoom = false;
  int roomAxis = 0;
  bool declaresXRoom = false;
  std::vector<Coordinate> coordinates;
};

// --- Values -----------------------------------------------------------------

/// constant + sum of factor * parameter, over scalar parameters.
struct LinearForm {
  double constant = 0.0;
  std::vector<std::pair<std::string, double>> terms;
  bool isZero() const { return constant == 0.0 && terms.empty(); }
};

/// A tap weight: a value of the kernel's precision shared by every tap
/// whose coefficient is the same.
struct Weight {
  std::string name;
  LinearForm value;
};

/// Where a per-site value is read: the site at `offset` from the tile's
/// first (through the kernel's SiteIndexing), or in a hopping kernel from
/// the thread's own site, in the whole-lattice array of one value per site.
struct SiteRef {
  Offset offset{};
  /// Dirichlet tile axis only: past the reach of the tile's first site, so
  /// its tile-axis coordinate is clamped into the array (as a load's).
  bool clampTileAxis = false;
  /// x groups: beside the thread's group along x, its x coordinate clamped
  /// into the array (as a load's clampX).
  bool clampX = false;
  /// Hopping kernels: the site is odd; odd sites follow the even half.
  bool oddHalf = false;
};

/// factor * params.NAME[index of `at`]: a coefficient field's value; a
/// complex field's (re, im) pair, conjugated when `conjugate`.
struct SiteTerm {
  std::string name;
  double factor = 1.0;
  SiteRef at;
  bool complex = false;
  bool conjugate = false;
};

/// A weight that varies from site to site: a base weight (or a constant
/// value) plus coefficient-field terms, each read at its own site.
struct SiteWeight {
  std::string name;
  std::string comment; ///< empty, or a line explaining it
  std::string base;    ///< a Weight's name, or empty: `value` instead
  LinearForm value;    ///< when `base` is empty; often 0
  std::vector<SiteTerm> terms;
  /// Some term is complex: the weight is a pair NAME_re, NAME_im (`base`
  /// and `value` are real, its real part's).
  bool isComplex() const {
    for (const SiteTerm &term : terms)
      if (term.complex)
        return true;
    return false;
  }
  /// Whether the sum starts at `base` or a non-zero `value`; otherwise it is
  /// the field terms alone.
  bool hasSharedPart() const {
    return !base.empty() || !value.isZero() || terms.empty();
  }
};

// --- Links ------------------------------------------------------------------

/// How a gauge-covariant kernel reads its link array params.NAME: per site
/// `dims` matrices of `realsPerLink` reals (rows of complex entries, re and
/// im adjacent), placed by `layout` (the field's site order with the links'
/// own component order; stencil::layout_element()).
struct LinkStorage {
  std::string name;
  int colours = 3;
  int dims = 1;
  int realsPerLink = 18;
  /// Two rows stored; the third is reconstructed after the load.
  bool compressed = false;
  FieldLayout layout;
  /// Colour vectors per site of the field (spin components are spectators).
  int colourVectors = 1;
  int componentsPerSite() const { return dims * realsPerLink; }
};

/// One link matrix a thread reads, U_axis at the site `at`, into registers
/// named l<index>; forward taps use it as is, backward taps daggered.
struct PlannedLink {
  int axis = 0;
  SiteRef at;
};

// --- The clover term ------------------------------------------------------

/// How a Wilson-clover kernel reads its clover array params.NAME (whole
/// lattice, the field's site order with the clover's component order) and
/// the inverse params.NAME_inverse (one parity's half, its own site order):
/// per site two compact Hermitian 2N x 2N blocks (stencil/clover_algebra.hpp).
struct CloverStorage {
  std::string name;
  int colours = 3;
  int reals = 72; ///< per site: 8 N^2
  FieldLayout layout;
};

/// One site's clover term a thread reads into registers named c<index>.
struct PlannedClover {
  SiteRef at;
};

// --- Field accesses ---------------------------------------------------------

/// How the values of one site move between memory and registers: the node
/// kinds the printers have one case each for.
enum class AccessKind {
  Scalar,          ///< one value per site
  RowGroup,        ///< one value per site, `width` sites along x at once
  SiteMajor,       ///< components contiguous: a pointer to the site's
  SiteMajorVector, ///< components contiguous, `width` per access
  LayoutElement,   ///< stencil::layout_element() per component
  /// layout_element() per component, `width` sites along x at once: each
  /// component's row of the thread's aligned group (soa, aosoa).
  LayoutRowGroup,
  HalfOrder,       ///< stencil::order_element() within one parity's half
};

struct FieldAccess {
  AccessKind kind = AccessKind::Scalar;
  int components = 1;
  int perThread = 1;   ///< components this thread computes
  bool split = false;  ///< from c0 (a site shared by several threads)
  /// values per access: sites along x (RowGroup, LayoutRowGroup), a site's
  /// adjacent components (SiteMajorVector), or a group of the layout's
  /// vector (LayoutElement, HalfOrder in soa and aosoa)
  int width = 1;
  FieldLayout layout;  ///< LayoutElement, HalfOrder
};

// --- Shared-memory staging ---------------------------------------------------

/// How the cooperative load treats a box coordinate outside [0, n).
enum class StagingEdge {
  /// Dirichlet: threads start past the halo, so coordinates stay >= 0;
  /// elements past the array's end are not read and hold 0 (only sites that
  /// are never stored consume them).
  SkipPastEnd,
  Wrap,       ///< periodic: stencil::wrap(c, n)
  WrapNegate, ///< antiperiodic: wrapped, negated when it crossed the wrap
};

/// One axis of the box a block stages: the block's sites (threads x sites
/// per thread) and the halo the taps reach below and above.
struct StagingAxis {
  int threads = 1;
  int sitesPerThread = 1;
  int below = 0;
  int above = 0;
  StagingEdge edge = StagingEdge::SkipPastEnd;
  int extent() const { return threads * sitesPerThread + below + above; }
};

/// Which index of a box element varies fastest in the cooperative load:
/// the one that is contiguous in the field's storage, so that consecutive
/// threads read consecutive addresses.
enum class StagingOrder {
  ComponentsFastest, ///< site-major (aos) storage
  SitesFastest,      ///< one value per site, soa, aosoa, subdomains
};

/// How the cooperative load addresses an element in global memory.
enum class StagingAddress {
  PlainSite,  ///< x + nx (y + ny z ...), times the components
  LayoutSite, ///< stencil::layout_site() and layout_element() of `layout`
};

/// kernel.staging: shared. The block's threads first copy its box of sites
/// (with the halo every tap reaches) from `in` into the shared array
/// `array`, component-major (box_sites values per component, x fastest),
/// each thread taking elements thread, thread + threadsPerBlock, ... in
/// `order`; then a barrier; then the program's loads (LoadSource::SharedBox)
/// read the array. On the host backend the kernel runs in phases:
/// `stagePhase` for every thread of the block, then `computePhase`.
struct SharedStaging {
  std::string array = "box";
  int dims = 1;
  std::array<StagingAxis, kMaxDims> axes{};
  int threadsPerBlock = 1;
  /// Values staged per site: this thread group's share of the components
  /// (from c0 when `split`); the field stores `fieldComponents`.
  int components = 1;
  int fieldComponents = 1;
  bool split = false;
  int elementBytes = 4;
  StagingOrder order = StagingOrder::SitesFastest;
  StagingAddress address = StagingAddress::PlainSite;
  FieldLayout layout; ///< LayoutSite
  /// CG's folded direction (EpilogueKind::DirectionBlockSum): the box holds
  /// p' = in + beta direction, computed once per element.
  bool foldsDirection = false;
  int stagePhase = 0;
  int computePhase = 1;
  int phases() const { return computePhase + 1; }
  long long sites() const {
    long long n = 1;
    for (int axis = 0; axis < dims; ++axis)
      n *= axes[axis].extent();
    return n;
  }
  long long elements() const { return sites() * components; }
  long long bytes() const { return elements() * elementBytes; }
};

// --- The program ------------------------------------------------------------

/// Where a planned load reads: global memory (through the caches), or the
/// block's staged box in shared memory.
enum class LoadSource { Global, SharedBox };

struct PlannedLoad {
  /// Lattice offset from the tile's first site.
  Offset offset{};
  /// Dirichlet tile axis only: this load lies past the reach of the tile's
  /// first site (the only one always stored), so near the array's far end
  /// it could leave the array; its tile-axis coordinate is clamped. Only
  /// sites that are never stored consume a clamped value.
  bool clampTileAxis = false;
  /// Consecutive values along x this load reads with one instruction: the
  /// thread's own aligned group of sites (KernelPlan::xWidth) in one row.
  int width = 1;
  /// Dirichlet only: a halo value beside the thread's group along x; its x
  /// coordinate is clamped into the array. Only sites that are never
  /// stored consume a clamped value.
  bool clampX = false;
  /// Antiperiodic axes along which this load may cross the wrap: its value
  /// is multiplied by those coordinates' signs (Coordinate::flipsSign).
  std::vector<int> signAxes;
  /// SharedBox: read at `offset` from the thread's first site in the box
  /// (clamps and signs were the cooperative load's).
  LoadSource source = LoadSource::Global;
};

/// acc[site] (+)= weight * load.
struct PlannedAccumulation {
  int site = 0; ///< position in the tile, 0 .. tileFactor-1
  int tap = 0;  ///< index into the model's taps
  bool first = false; ///< first contribution to this site: initialise
  int lane = 0;    ///< the site's position in the x group, 0 .. xWidth-1
  int element = 0; ///< which of the load's `width` values it reads
  std::string weight; ///< the Weight or SiteWeight it multiplies by
  /// Link taps: acc[site] (+)= weight * (L v) for each colour vector v of the
  /// load, L the link `link` of KernelPlan::links, daggered when `dagger`
  /// (complex N x N matrix-vector products); -1: weight * value per real.
  int link = -1;
  bool dagger = false;
  /// Spin-projected link taps: acc (+)= weight * (1 + spin gamma_axis) L v
  /// per spinor (4 spins x N colours), projected to two colour vectors
  /// before the link multiply (stencil/dirac.hpp); 0: no projector.
  int spin = 0;
  int spinAxis = 0;
  /// Clover taps: acc[site] (+)= A v, A the clover term `clover` of
  /// KernelPlan::clovers (it includes the tap's coefficient; no weight);
  /// -1: none.
  int clover = -1;
  /// The weight is complex (a SiteWeight with complex terms): each (re, im)
  /// pair of the value, or of L v, is multiplied as a complex number.
  bool complexWeight = false;
};

/// One load and the accumulations that consume it right away, so that each
/// loaded value is dead after its step.
struct PlanStep {
  int load = 0;
  std::vector<PlannedAccumulation> accumulations;
  /// Links read right before this step: those its accumulations use first.
  /// A link used by two tile sites (U for one, U^dagger for the next) is
  /// read once.
  std::vector<int> links;
  /// Clover terms read right before this step.
  std::vector<int> clovers;
  bool usesLinks() const {
    for (const PlannedAccumulation &acc : accumulations)
      if (acc.link >= 0)
        return true;
    return false;
  }
  /// Whether an accumulation works on (re, im) pairs (a link product or a
  /// complex weight): the site's values are gathered into an array first.
  bool pairsValues() const {
    for (const PlannedAccumulation &acc : accumulations)
      if (acc.link >= 0 || acc.complexWeight || acc.clover >= 0)
        return true;
    return false;
  }
};

/// The registers a thread sums into: acc0 .. acc{sites-1}, each of
/// `valuesPerSite` values.
struct Accumulators {
  int sites = 1;
  int valuesPerSite = 1;
  /// Arrays even of one value: the per-component loops of a split site
  /// index them (components_per_thread: 1).
  bool indexed = false;
  bool declaredAsArrays() const { return valuesPerSite > 1 || indexed; }
  /// > 1: declares vec_t, the `vectorWidth`-wide access type.
  int vectorWidth = 1;
  std::string vectorComment;
};

enum class StoreKind { Regular, NonTemporal };

/// The value a store writes.
enum class StoredValue {
  Accumulator, ///< acc of the tile site
  /// acc after the hop modes' epilogue (stencil/hop_modes.hpp) turned it
  /// into the launch's result; stored as an accumulator is.
  HopResult,
};

struct PlannedStore {
  int site = 0;     ///< tile site
  Offset offset{};  ///< from the tile's first site
  /// Stored only when inside the update region along the tile axis:
  /// `axis + site < n - upper`.
  bool guarded = false;
  int guardAxis = 0;
  int guardUpper = 0;
  /// RowGroup: the group's sites inside the region along x (reach on both
  /// sides) are stored, the whole group at once when all are.
  int groupReach = 0;
  StoredValue value = StoredValue::Accumulator;
  /// Also adds in . out over the stored values to `dot` (BlockSum).
  bool addsDot = false;
};

enum class EpilogueKind {
  None,
  /// in . out summed per block into partials[] (stencil::block_sum).
  BlockSum,
  /// CG's direction update folded into the stencil: every value of `in` is
  /// read as p' = in + beta direction, p' is stored to next_direction at the
  /// stored sites, and p' . out summed per block as BlockSum does. With a
  /// solution, the last step's x += alpha direction at the stored sites too.
  DirectionBlockSum,
  /// out = beta H in, beta D^-1 H in or alpha D same + beta H in, chosen
  /// per launch (stencil::HopMode); D is the SiteWeight named "diag", or
  /// with a clover term (KernelPlan::hasClover) the site's clover matrix,
  /// D^-1 read from the inverse array.
  HopModes,
};

struct KernelPlan {
  KernelRole role = KernelRole::Apply;
  Hop hop = Hop::None;
  EpilogueKind epilogue = EpilogueKind::None;
  std::string kernelName;
  std::string comment; ///< the kernel's doc comment, one line
  int launchBounds = 0; ///< 0: none
  int minBlocksPerSm = 0; ///< 0: none
  std::vector<KernelParameter> parameters;

  ThreadMapping threads;
  SiteGuard guard;
  SiteIndexing indexing;
  int tileAxis = 0;
  int tileFactor = 1;
  /// kernel.march: the thread walks along the tile axis (the slowest, z
  /// or t) through its block's chunk of `planes` in a loop. Each iteration
  /// loads plane z + R of its column once (every load lies at offset R
  /// along the axis from the site of output z; wrapped where the axis
  /// wraps), adds each value into the ring of accumulators acc0 .. acc{2R}
  /// (outputs z .. z + 2R) with the weight of its offset, stores acc0, now
  /// complete, and moves the ring down. tileFactor is the ring's 2R + 1;
  /// the stores are site 0's.
  bool march = false;
  int marchReach = 0; ///< R: the taps' reach along the march
  /// A march whose thread moves one vector a tap of a site-major field
  /// gathers each plane: it reads the plane through 32-bit offsets within
  /// it, one a load (`u<load>_at`, computed once before the walk), from the
  /// loaded plane's first value (`plane_first`, once a plane), and gathers
  /// the plane's loads into arrays before any accumulation, so that they
  /// are all in flight at once. Printed in the plan's order, each load
  /// recomputed its 64-bit element index (about 8 integer instructions)
  /// and ptxas issued two or three loads and waited for them before the
  /// next; the two changes paid only together, and 64-bit offsets ran
  /// 7-13% slower (docs/performance.md, "Gathering a plane's loads first").
  bool gathersPlane = false;
  /// A march whose thread moves rows of a soa or aosoa field, a vector of
  /// aligned sites along x a component, gathers each plane too: every
  /// load's index, then the loads component by component into arrays,
  /// then the accumulations. Printed in the plan's order (a tap's
  /// components, then the next tap), ptxas interleaved the sums with the
  /// loads; gathered, the 24-float soa march on the H200 ran 11-17%
  /// faster (24^3 x 48 to 48^3 x 64), the aosoa one 11% (0.4% slower to
  /// 0.2% faster with 2 blocks an SM). Its 64-bit indices stay: int
  /// offsets hoisted as gathersPlane does ran 16-42% slower here, more
  /// registers for the same loads (docs/performance.md, "The soa march
  /// gathers its plane").
  bool gathersRows = false;
  /// Aligned sites along x per thread (single-component fields with a
  /// vector width): the tile is xWidth x tileFactor sites, each row of it
  /// loaded and stored with one vector access.
  int xWidth = 1;

  std::vector<Weight> weights;
  std::vector<SiteWeight> siteWeights;
  Accumulators accumulators;
  /// How `in`, `out` (and `same`) move a site's values.
  FieldAccess access;
  StoreKind storeKind = StoreKind::Regular;
  /// Fields hold `storage_type` (bfloat16) values, read widened to
  /// value_type and stored narrowed (inner_precision: bf16).
  bool narrowStorage = false;
  std::string programComment;
  std::vector<PlannedLoad> loads; ///< in issue order
  std::vector<PlanStep> steps;    ///< one per load, same order
  std::vector<PlannedStore> stores;
  /// Gauge-covariant kernels: the link array and the links the tile reads.
  bool hasLinks = false;
  LinkStorage linkStorage;
  std::vector<PlannedLink> links;
  /// Wilson-clover kernels: the clover array, and the sites whose clover
  /// term the tile reads (hopping kernels: none, the epilogue reads its
  /// own site's).
  bool hasClover = false;
  CloverStorage cloverStorage;
  std::vector<PlannedClover> clovers;
  /// kernel.staging: shared: the block's box staged in shared memory before
  /// the program runs (the guard is then a predicate: every thread takes
  /// part in the staging and reaches the barrier).
  std::optional<SharedStaging> staging;

  /// Sites a thread stores per tile, or per plane of a march.
  int storedSites() const { return march ? 1 : tileFactor; }
  int sitesPerTile() const { return storedSites() * xWidth; }
  /// Whether the kernel ends with stencil::block_sum (BlockSum and
  /// DirectionBlockSum).
  bool sumsPerBlock() const {
    return epilogue == EpilogueKind::BlockSum ||
           epilogue == EpilogueKind::DirectionBlockSum;
  }
  /// Whether the kernel folds CG's direction update in (withFoldedDirection).
  bool foldsDirection() const {
    return epilogue == EpilogueKind::DirectionBlockSum;
  }
  /// Arrays each planned load reads and each planned store writes: two
  /// when the kernel folds CG's direction update in (in and direction;
  /// out and next_direction), else one.
  int arraysPerAccess() const { return foldsDirection() ? 2 : 1; }
  /// Whether CG runs the fold kernel with x (its `solution`), adding the
  /// last step's alpha p: where x is stored like the fields, not for
  /// bfloat16 fields, whose x is float (the runtime's
  /// defers_solution_update).
  bool updatesSolution() const { return foldsDirection() && !narrowStorage; }
  /// Load and store instructions (a vector access counts once); the fold
  /// also loads and stores CG's x once per stored row.
  int loadsPerTile() const {
    return static_cast<int>(loads.size()) * arraysPerAccess() +
           (updatesSolution() ? storedSites() : 0);
  }
  int storesPerTile() const {
    return storedSites() * (arraysPerAccess() + (updatesSolution() ? 1 : 0));
  }
  double loadsPerSite() const {
    return static_cast<double>(loadsPerTile()) / sitesPerTile();
  }
  /// Minimal traffic per site: the input, each coefficient field and each
  /// link read once, the output written once, all components.
  int bytesReadPerSite = 0;
  int bytesWrittenPerSite = 0;
  /// The links' share of bytesReadPerSite (0 without links).
  int linkBytesPerSite = 0;
  int bytesPerSite() const { return bytesReadPerSite + bytesWrittenPerSite; }
  /// One multiply per tap and one add per tap after the first, per
  /// component; a link tap's complex matrix-vector products (8N^2 - 2N per
  /// colour vector) and a compressed link's reconstruction (42 per link
  /// read, shared by the tile's sites); coefficient-field sums; a complex
  /// weight's complex multiply (8 flops per complex value instead of 4).
  int flopsPerSite = 0;
  double arithmeticIntensity() const {
    return static_cast<double>(flopsPerSite) / bytesPerSite();
  }
};

/// The linear-address order of two offsets on a lattice much larger than the
/// stencil: compare t, then z, then y, then x.
bool precedesInMemory(const Offset &a, const Offset &b);

/// Builds the plan of the kernel that applies A (or A^T) of `model`.
KernelPlan planKernel(const StencilModel &model,
                      KernelRole role = KernelRole::Apply);

/// The site-local clover kernel of an even/odd Wilson-clover stencil: one
/// thread per site of one parity (chosen per launch), out = beta A^-1 in,
/// or alpha A same + beta in (the hop modes, H replaced by the identity),
/// so that the clover term can run apart from the hopping kernels.
struct CloverKernelPlan {
  std::string kernelName;
  std::string comment;
  int launchBounds = 0;
  int minBlocksPerSm = 0;
  int threadsPerBlock = 256;
  int components = 24;
  /// How a half field's site moves: site-major with `vectorWidth` values
  /// per access, or stencil::order_element() of `layout`.
  FieldLayout layout;
  int vectorWidth = 1;
  /// Fields hold storage_type (bfloat16) values, read widened and stored
  /// rounded; the clover arrays stay value_type.
  bool narrowStorage = false;
  CloverStorage clover;
  int bytesPerSite = 0; ///< kInverseDiagonalHop: in, the inverse, out
  int flopsPerSite = 0;
};

/// The halo exchange's box copy of one kind of array (the kernels ranks
/// run, StencilModel::rankKernels): one thread per site of a box, between
/// the array and a contiguous buffer (stencil/box_copy.hpp), and the
/// launcher that is stencil::DistributedInfo's entry.
struct BoxCopyPlan {
  std::string kernelName; ///< NAME_copy_box_kernel, NAME_copy_link_box_kernel
  std::string function;   ///< copy_box, copy_link_box, copy_site_box
  std::string arrays;     ///< what it copies, for comments
  FieldLayout layout;     ///< the arrays' layout, constexpr in the kernel
  int threadsPerBlock = 256;
};

/// The box copies of `model`'s arrays: fields (their layout), the links
/// and the site parameter arrays where the stencil has them; none unless
/// model.rankKernels.
std::vector<BoxCopyPlan> planBoxCopies(const StencilModel &model);

/// Whether the stencil has a clover term (then its clover kernel exists).
bool hasCloverKernel(const StencilModel &model);
CloverKernelPlan planCloverKernel(const StencilModel &model);

/// Builds the plan of a hopping kernel of an even/odd model: one site per
/// thread, the neighbour taps only, the hop modes' epilogue.
KernelPlan planHoppingKernel(const StencilModel &model, KernelRole role,
                             Hop hop);

/// Plan transforms of whole-lattice kernels, applied by planKernel as the
/// model's options ask (kernel.components_per_thread, kernel.vector_width):
/// a site's components shared by components / perThread threads (blockIdx.x
/// counts the share, c0 is this thread's first component), in `order`
/// (whole-lattice and hopping plans alike);
KernelPlan splitComponents(const KernelPlan &plan, int perThread,
                           ComponentShareOrder order);
/// a site-major site's components moved `width` at a time;
KernelPlan vectorizeComponents(const KernelPlan &plan, int width);
/// each thread an aligned group of `width` sites along x, each row moved
/// with one access (single-component fields; the load schedule is made
/// again from `model`'s taps for the wider tile).
KernelPlan groupSitesAlongX(const StencilModel &model, const KernelPlan &plan,
                            int width);

/// The plan transform for kernel.staging: shared (whole-lattice kernels;
/// the checker's stagingProblem refuses the rest): the block's box staged
/// in shared memory, every load reading it, the guard a predicate, and the
/// indexing left with what still reads global memory (the stores).
KernelPlan withSharedStaging(const StencilModel &model, const KernelPlan &plan);

/// The plan transform for CG: the same kernel that also sums in . out over
/// the sites it stores, one partial per block. Every thread reaches the
/// block's sum, so the guard becomes a predicate.
KernelPlan withBlockSum(const KernelPlan &plan);

/// The plan transform for the ranks' kernels: a `region` argument whose
/// tiles the kernel updates (SiteGuard::region), so that a rank computes
/// its interior while the halos travel and the rest after.
KernelPlan withRegion(const KernelPlan &plan);

/// The plan transform for CG's direction update p' = r + beta p: the fused
/// stencil-and-dot kernel `dotPlan` reading `in` (r) and `direction` (p) as
/// p', storing p' to next_direction besides out = A p' and summing
/// p' . out; the 11 field transfers of an iteration become 10.
KernelPlan withFoldedDirection(const KernelPlan &dotPlan);

/// Whether `dotPlan` (withBlockSum's) can take withFoldedDirection: every
/// whole-lattice field access (not one parity's half).
bool canFoldDirection(const KernelPlan &dotPlan);

/// CG's fold pass among `model`'s kernels (withFoldedDirection of the fused
/// stencil-and-dot kernel, as planKernels plans it); none where they have
/// none.
std::optional<KernelPlan> planFoldPass(const StencilModel &model);

/// Whether the model's CG gets the fused stencil-and-dot kernel: whole-
/// lattice CG specs whose block is made of whole wavefronts (64 threads on
/// AMD, 2 warps on NVIDIA), as stencil::block_sum's shuffles need.
bool hasFusedDotKernel(const StencilModel &model);

/// The plans of every kernel the model needs: A, and A^T unless A is
/// symmetric (then A serves as its own adjoint); the fused CG kernel; for
/// even/odd storage the hopping kernels even-to-odd and odd-to-even of each
/// of those roles.
std::vector<KernelPlan> planKernels(const StencilModel &model);

/// The plan of `role`, `hop` and `epilogue` in `plans`, or null (no adjoint
/// plans for a symmetric model). Hopping plans have the HopModes epilogue.
const KernelPlan *findPlan(const std::vector<KernelPlan> &plans,
                           KernelRole role, Hop hop = Hop::None,
                           EpilogueKind epilogue = EpilogueKind::None);

/// "even-to-odd", "odd-to-even"; "" for None.
const char *hopName(Hop hop);

/// The model a plan of this role was built from: `model` itself, or its
/// transpose for the adjoint.
StencilModel modelForRole(const StencilModel &model, KernelRole role);

// --- Host functions ---------------------------------------------------------

enum class LauncherKind {
  Lattice,    ///< apply(), apply_adjoint(): the whole-lattice grid
  LatticeDot, ///< apply_dot(): the same, with partials
  /// apply_fold_dot(): LatticeDot with CG's direction update folded in
  LatticeFoldDot,
  Hopping,    ///< even_to_odd(), ...: one parity's sites
};

/// A host function that checks its arguments and launches one kernel.
struct LauncherPlan {
  LauncherKind kind = LauncherKind::Lattice;
  std::string function;   ///< "apply", "even_to_odd_adjoint", ...
  std::string kernelName; ///< the kernel it launches
  /// The kernel's parameters, which the launch passes in order.
  std::vector<KernelParameter> kernelParameters;
  std::string summary;    ///< its doc comment
  /// Vector accesses: fields must be aligned to this many bytes (0: any),
  /// for the option named in `alignmentReason` ("kernel.vector_width 4").
  int alignmentBytes = 0;
  std::string alignmentReason;
  /// KernelPlan::gathersPlane: the values of a site, and the march
  /// axis; a plane of the march (every other axis) must hold at most
  /// 2^31 - 1 values.
  int planeOffsetValues = 0;
  int marchAxis = -1;
  int vectorWidth = 1;
  int threadsPerBlock = 0; ///< Hopping: the 1-D block
  /// Hopping: threads sharing a site's components; the grid holds that
  /// many blocks per block of sites (HalfLatticeThreads).
  int componentGroups = 1;
  /// Phases between barriers of the kernel (SharedStaging): more than one
  /// launches with STENCIL_LAUNCH_PHASED, which the host backend needs.
  int phases = 1;
  /// Hopping: the kernel's walk (HalfLatticeThreads::slab) and the bytes
  /// per site stencil::hop_slab() weighs for auto, those of the even-to-odd
  /// hop of A, so that every hop of a launch geometry walks alike and
  /// stencil::hop_slab(info(), extents) says how.
  int slab = 1;
  int slabBytesPerSite = 0;
  /// The ranks' kernels: the launcher takes a stencil::Region, and a
  /// `_region_generic` twin passes one (DistributedInfo's entries).
  bool region = false;
  /// Site parameters: arrays checked for null and for overlap with `out`
  /// (params.NAME, `realsPerSite` values per site: 2 for a complex one).
  struct SiteArray {
    std::string name;
    int realsPerSite = 1;
  };
  std::vector<SiteArray> siteArrays;
  /// The link array (params.NAME), checked the same way; empty: none.
  std::string linkArray;
  int linkComponents = 0; ///< reals per site of the link array
  /// links.layout.vector > 1: the link array's alignment for its loads.
  int linkAlignmentBytes = 0;
  /// The clover array (params.NAME) and, for hopping kernels, its inverse
  /// (params.NAME_inverse), each needed by the modes that read it; empty:
  /// none.
  std::string cloverArray;
  int cloverComponents = 0; ///< reals per site
  /// clover.layout.vector > 1: the arrays' alignment for their loads.
  int cloverAlignmentBytes = 0;
};

/// The host functions of `model`'s kernels, in the order they are emitted.
std::vector<LauncherPlan> planLaunchers(const StencilModel &model,
                                        const std::vector<KernelPlan> &plans);

/// The human-readable listing printed by `stencilc plan`: every node of
/// the plan.
/// How each kernel option was decided (StencilModel::optionNotes), one
/// line each; nothing when the planner has not chosen.
void printOptionNotes(const StencilModel &model, llvm::raw_ostream &os);
void printPlan(const StencilModel &model, const KernelPlan &plan,
               llvm::raw_ostream &os);

/// The kernels compiled for another known GPU beside a spec's own
/// (tune/DevicePlans.h), as `stencilc plan` reports them: a row per kernel
/// set the runtime may pick on that GPU, of the levels (the spec's
/// precision, the inner one) whose kernels differ from the spec's.
struct DeviceChoice {
  struct Row {
    StencilModel model; ///< named as compiled: NAME_<tag>, NAME_<tag>_xW,
                        ///< NAME_<tag>_fold, or kernels that exist already
    int nxMultiple = 1; ///< for nx a multiple of this
    bool foldPass = false; ///< CG's fold pass alone
    /// Only where two slices along the slowest axis exceed this share of
    /// the L2 (percent; stencil::TunedChoice::l2_percent); 0: any lattice.
    int l2Percent = 0;
  };
  std::string device; ///< the GPU's name, as the runtime reads it
  std::string tag;    ///< its short name (`stencilc plan --device TAG`)
  std::vector<Row> rows;
};

/// ", where two slices along the slowest axis exceed P% of the L2" for a
/// row of the large lattices' kernels (`l2Percent` P above 0), else "".
std::string largeLatticeText(int l2Percent);

/// The same as JSON (`stencilc plan --format json`) for several specs'
/// plans, with `otherDevices[i]` the other GPUs' choices for specs[i] (none
/// where it is missing); the schema is documented in docs/design.md.
void printPlansJson(
    const std::vector<std::pair<StencilModel, std::vector<KernelPlan>>> &specs,
    llvm::raw_ostream &os,
    const std::vector<std::vector<DeviceChoice>> &otherDevices = {});

/// Names of the node kinds, as the listings print them.
const char *parameterKindName(ParameterKind kind);
const char *siteIndexingName(SiteIndexingKind kind);
const char *coordinateKindName(CoordinateKind kind);
const char *accessKindName(AccessKind kind);
const char *epilogueName(EpilogueKind kind);
const char *stagingEdgeName(StagingEdge edge);
const char *stagingOrderName(StagingOrder order);
const char *stagingAddressName(StagingAddress address);
/// A linear form as the spec writes it: "2 * h + 1", "-h".
std::string linearFormSpelling(const LinearForm &form);

} // namespace stencilc

#endif
