//===- Model.h - The validated stencil model -------------------*- C++ -*-===//
//
// What the checker hands to the planner: every name resolved, every default
// filled in, every invariant the later stages rely on established. Plain data
// with no source locations and no LLVM types, so that tests and tools can
// build one directly.
//
//===----------------------------------------------------------------------===//
#ifndef STENCILC_CHECK_MODEL_H
#define STENCILC_CHECK_MODEL_H

#include <array>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace stencilc {

constexpr int kMaxDims = 4;
/// An offset on the lattice; entries past the model's dimension are zero.
using Offset = std::array<int, kMaxDims>;

/// "x", "y", "z", "t" for axes 0..3.
const char *axisName(int axis);
/// "(-1, 0, 0)" for the first `dims` entries.
std::string formatOffset(const Offset &offset, int dims);
/// -offset, entry by entry: the mirror tap's offset.
Offset negatedOffset(const Offset &offset);

/// How the lattice ends along an axis: a halo of fixed values (Dirichlet),
/// neighbours that wrap around (periodic), or wrap around with their sign
/// flipped (antiperiodic: fermion fields in time). Values match
/// stencil::Boundary of the runtime.
enum class Boundary { Dirichlet, Periodic, Antiperiodic };
/// A field's precision: BFloat16 stores bfloat16 values (stencil/
/// bfloat16.hpp) and computes in float (mixed-precision CG's inner fields).
enum class Precision { Float, Double, BFloat16 };
enum class LoadOrder { AsWritten, Ascending, Explicit };
/// The Krylov solver the spec asks for; the checker proves what it needs.
enum class Solver { None, CG, CGNR };

const char *boundaryName(Boundary boundary);
const char *precisionName(Precision precision);
const char *loadOrderName(LoadOrder order);
const char *solverName(Solver solver);

/// grid.exchange: how ranks fill their ghost zones unless the tuning cache
/// or the environment (STENCILC_EXCHANGE, STENCILC_OVERLAP) says otherwise.
/// Auto: peer copies between GPUs of one node, else MPI on device memory
/// where the MPI moves it, else staged through pinned host memory.
enum class ExchangeTransport { Auto, Peer, Staged, GpuAware };
const char *exchangeTransportName(ExchangeTransport transport);
struct ExchangeOptions {
  ExchangeTransport transport = ExchangeTransport::Auto;
  bool overlap = true; ///< interior computed while the halos travel
};

struct Parameter {
  std::string name;
  double defaultValue = 0.0;
  /// A site parameter (a coefficient field) has one value per lattice site,
  /// an array the caller passes at run time; any tap's coefficient may read
  /// it, at the output site or at a shifted one.
  bool site = false;
  /// A complex site parameter: (re, im) adjacent per site; taps may read it
  /// conjugated (complex fields only).
  bool complex = false;
  /// Values per site of a site parameter's array.
  int realsPerSite() const { return complex ? 2 : 1; }
};

/// `factor * parameter`, a site parameter read at the output site plus
/// `shift` (zero for scalar parameters), conjugated when `conjugate` (a
/// complex site parameter: `conj(k@-x)`).
struct CoefficientTerm {
  int parameter = 0;
  double factor = 1.0;
  Offset shift{};
  bool conjugate = false;
  bool operator==(const CoefficientTerm &other) const {
    return parameter == other.parameter && factor == other.factor &&
           shift == other.shift && conjugate == other.conjugate;
  }
};

/// A coefficient is `constant + sum of factor * parameter[@shift]`.
struct Coefficient {
  double constant = 0.0;
  std::vector<CoefficientTerm> terms;
  bool isLiteral() const { return terms.empty(); }
  /// The value with the given scalar parameter values (site parameters
  /// must not appear).
  double evaluate(const std::vector<double> &parameterValues) const {
    double value = constant;
    for (const CoefficientTerm &term : terms)
      value += term.factor * parameterValues[term.parameter];
    return value;
  }
  /// Adds `factor * parameter@shift` (conjugated when `conjugate`), merged
  /// with a term of the same parameter, shift and conjugation (`a + a` is
  /// `2 * a`); a term that cancels goes.
  void addTerm(int parameter, double factor, const Offset &shift = Offset{},
               bool conjugate = false);
};

/// Whether `a` and `b` are the same linear form, their terms in any order
/// (the checker merges repeated parameters into one term).
bool sameCoefficient(const Coefficient &a, const Coefficient &b);

struct Tap {
  Offset offset{};
  Coefficient coefficient;
  /// The tap also multiplies each colour vector by the link of its
  /// direction: U_mu(x) for a forward tap (+1 along mu), U_mu(x - mu)^dagger
  /// for a backward one. Link taps are nearest-neighbour steps.
  bool link = false;
  /// Link taps on spinors (shape [4, N]): also the spin projector
  /// (1 + spin gamma_mu) of the tap's axis (DeGrand-Rossi basis,
  /// stencil/dirac.hpp); 0: none. Wilson: -1 forward, +1 backward.
  int spin = 0;
  /// The centre tap of a Wilson-clover operator: the diagonal is the
  /// coefficient plus the clover term (StencilModel::clover), a Hermitian
  /// matrix per site that the runtime computes from the links.
  bool clover = false;
};

/// The axis a link tap steps along, and whether it steps forward.
int linkAxis(const Tap &tap);
bool isForwardLink(const Tap &tap);
/// Whether some tap carries a spin projector; "(1 - gamma_x)" of a tap.
struct StencilModel;
bool hasSpinTaps(const StencilModel &model);
std::string spinProjectorText(const Tap &tap);

/// How links are stored: two rows of three (12 of 18 reals, SU(3) only;
/// the third row is the complex conjugate of the cross product of the first
/// two) or every entry.
enum class LinkCompression { None, TwoRows };
const char *linkCompressionName(LinkCompression compression);

/// How a field is stored (see runtime/include/stencil/layout.hpp).
enum class LayoutOrder { SiteMajor, ComponentMajor, Blocked };
const char *layoutOrderName(LayoutOrder order);

struct FieldLayout {
  LayoutOrder order = LayoutOrder::SiteMajor;
  int block = 1;                        ///< Blocked: sites per block
  std::array<int, kMaxDims> subdomain{1, 1, 1, 1};
  /// Checkerboard storage: even sites, then odd sites, each half in
  /// `order`; the generator adds the hopping kernels.
  bool evenOdd = false;
  /// Component-major and blocked orders: a site's values in groups of
  /// `vector` adjacent ones, each group one 4- to 16-byte load.
  int vector = 1;
  bool hasSubdomains() const {
    return subdomain[0] * subdomain[1] * subdomain[2] * subdomain[3] != 1;
  }
  /// Site-major, no subdomains: what the user's host arrays look like.
  bool isPlain() const {
    return order == LayoutOrder::SiteMajor && !hasSubdomains() && !evenOdd;
  }
};

/// A component order alone, as a layout (no site order): how the links and
/// the clover term place a site's reals.
inline FieldLayout componentOrder(LayoutOrder order, int block, int vector) {
  FieldLayout l;
  l.order = order;
  l.block = block;
  l.vector = vector;
  return l;
}

/// The link field of a gauge-covariant stencil: an N x N complex matrix
/// U_mu(x) per site and direction, stored per site as `dims` matrices, rows
/// of complex entries (re, im) in row-major order, placed by `order`.
struct LinkField {
  std::string name; ///< empty: the stencil has no links
  int colours = 3;  ///< N
  LinkCompression compression = LinkCompression::None;
  LayoutOrder order = LayoutOrder::SiteMajor;
  int block = 1;  ///< Blocked order: sites per block
  int vector = 1; ///< reals per load (soa and aosoa: adjacent groups)
  /// Whether the spec writes links.layout; if not the planner chooses it
  /// (chooseLinkStorage).
  bool layoutWritten = false;
  bool present() const { return !name.empty(); }
  /// The links' component order alone, as a layout (no site order).
  FieldLayout storageOrder() const {
    return componentOrder(order, block, vector);
  }
  /// Reals stored per matrix: 2 N^2, or 12 for two rows of SU(3).
  int realsPerLink() const {
    return compression == LinkCompression::TwoRows ? 4 * colours
                                                   : 2 * colours * colours;
  }
};

/// The Sheikholeslami-Wohlert (clover) term of a Wilson-clover stencil:
/// c_sw (i/4) sum sigma_mu,nu F_mu,nu(x) from the links, plus the centre
/// tap's coefficient, stored per site as two Hermitian 2N x 2N chiral
/// blocks of 4 N^2 reals (stencil/clover.hpp), placed by `order`.
struct CloverTerm {
  std::string name; ///< empty: no clover term
  Coefficient csw;  ///< over scalar parameters
  LayoutOrder order = LayoutOrder::SiteMajor;
  int block = 1;
  int vector = 1;
  /// Whether the spec writes clover.layout; if not the planner chooses it
  /// (chooseLinkStorage).
  bool layoutWritten = false;
  bool present() const { return !name.empty(); }
  /// The clover's component order alone, as a layout (no site order).
  FieldLayout storageOrder() const {
    return componentOrder(order, block, vector);
  }
};

/// Where a whole-lattice kernel's threads read their neighbours: straight
/// from global memory through the caches, into registers (the default), or
/// from the block's box of sites with its halo, which the block's threads
/// first stage together in shared memory (LDS) and then compute from.
enum class Staging { Registers, Shared };
const char *stagingName(Staging staging);

struct KernelOptions {
  std::array<int, kMaxDims> block{1, 1, 1, 1}; ///< threads per axis
  int launchBounds = 0;                         ///< 0: no attribute
  /// With launch bounds: blocks resident per multiprocessor at least (the
  /// register budget); 0: the compiler's choice.
  int minBlocksPerSm = 0;
  int tileAxis = 0;
  int tileFactor = 1;
  LoadOrder loadOrder = LoadOrder::Ascending;
  std::string loadOrderText;   ///< the explicit order string, if any
  std::vector<int> tapOrder;   ///< explicit order: tap indices
  bool nontemporalStore = false;
  /// Values moved per load and store instruction: a site's consecutive
  /// components (site-major vector fields), or for single-component fields
  /// consecutive sites along x, so that each thread updates `vectorWidth`
  /// aligned sites of a row with 8- or 16-byte accesses.
  int vectorWidth = 1;
  /// Components of a site each thread computes; fewer than the field's
  /// components split a site over components / componentsPerThread threads
  /// (consecutive blocks along x), which holds fewer accumulators per thread
  /// and a smaller cache footprint per block. 0 until the checker sets it.
  int componentsPerThread = 0;
  /// Even/odd hopping kernels: how threads walk the half lattice. 1: in
  /// storage order; S > 1: the slowest axis in slabs of S slices, each slab
  /// walked with the slowest axis inside the one before it (a neighbour
  /// along the slowest axis is read twice within a few planes instead of
  /// two slices apart); kSlabAuto: chosen at launch by stencil::hop_slab
  /// from the extents and the device's L2.
  int slab = kSlabAuto;
  static constexpr int kSlabAuto = 0;
  /// kernel.staging: registers, or the block's box in shared memory.
  Staging staging = Staging::Registers;
  /// kernel.march: each thread walks along the slowest axis (z, t) through a
  /// chunk of planes in a loop, loads each plane once and adds it into the
  /// 2R + 1 outputs it feeds (a ring of accumulators); the tile is then
  /// that axis with factor 1, and the runtime sizes the chunk
  /// (stencil::march_planes).
  bool march = false;

  /// Which options the spec wrote; the planner's cost model
  /// (plan/ChooseOptions.h) chooses the others.
  struct Written {
    bool block = false;
    bool tile = false;
    bool loadOrder = false;
    bool stores = false;
    bool launchBounds = false;
    bool minBlocksPerSm = false;
    bool vectorWidth = false;
    bool componentsPerThread = false;
    bool staging = false;
    bool march = false;
  } written;

  int threadsPerBlock() const {
    return block[0] * block[1] * block[2] * block[3];
  }
};

/// kernel.slab as the spec writes it: "auto" or the number of slices.
std::string slabText(int slab);

/// The tile as summaries name it: "tile y x 4", "no tile" (one site a
/// thread), or "marching along z" (or t).
std::string tileSummary(const KernelOptions &k);
/// A tile of `factor` sites along `axis` as summaries name it: "tile y x
/// 4", or "no tile" for one site.
std::string tileSummary(int axis, int factor);

/// How one kernel option got its value: written in the spec, or chosen by
/// the planner's cost model, and why (`stencilc plan` prints these).
struct KernelOptionNote {
  std::string option; ///< "block", "tile", ... as the spec names it
  std::string value;  ///< "64x4x1", "y x 2", ...
  bool written = false;
  std::string reason; ///< one sentence; empty when written
};

struct StencilModel {
  std::string name;
  std::string description;
  std::string specFileName; ///< file name only: generated code names no paths
  std::string specSha256;   ///< of the spec file's bytes (NAME.json)
  int dims = 1;
  /// Per axis; entries past `dims` are unused.
  std::array<Boundary, kMaxDims> boundaries{};
  Precision precision = Precision::Double;
  /// Reals per site: the shape's entries, twice over for complex values.
  int components = 1;
  /// Complex values: each entry is (re, im), adjacent.
  bool complexValues = false;
  /// The site's values as an array, slowest index first ([4, 3]: spin x
  /// colour); empty for real fields declared by `components`.
  std::vector<int> shape;
  FieldLayout layout;
  /// Whether the spec writes field.layout; where it does not, the planner
  /// may choose the storage of an even/odd field (plan/ChooseOptions.h).
  bool layoutWritten = false;
  LinkField links;
  CloverTerm clover;
  std::vector<Parameter> parameters;
  std::vector<Tap> taps;
  /// The stencil's largest |offset| along each axis. Along a Dirichlet axis
  /// it is the halo width on both sides (so that A and A^T update the same
  /// interior); along an axis that wraps, the smallest extent it takes.
  Offset reach{};
  KernelOptions kernel;
  /// How each kernel option was decided (plan/ChooseOptions.h); empty
  /// until the planner chose the open ones.
  std::vector<KernelOptionNote> optionNotes;
  /// The planner's options for lattices whose nx is a multiple of their
  /// vector width: set where a single-component or component-major vector
  /// spec leaves vector_width open and groups of sites along x (of each
  /// component's row) predict a faster kernel than one site
  /// per thread, which every nx needs. Compiled beside the spec's kernels
  /// as NAME_xW (alongXVariantModel); the runtime picks it by nx.
  std::optional<KernelOptions> alongX;
  /// Those groups marching along the slowest axis, for lattices whose two
  /// slices across it exceed a share of the device's L2 (plan/MarchRules.h,
  /// marchingComponentRows): compiled beside the groups as NAME_xW_march
  /// (largeAlongXVariantModel); the runtime picks it by nx and the extents.
  std::optional<KernelOptions> largeAlongX;
  /// The same for the inner precision's kernels (NAME_inner_xW), where the
  /// spec declares inner_precision: the width weighed again there.
  std::optional<KernelOptions> innerAlongX;
  /// The planner's options for CG's fold pass alone (apply_fold_dot reads
  /// r and p at every tap, twice the stencil's loads): set where the spec
  /// leaves options open and another block, tile or width predicts a faster
  /// fold pass than the kernels that would run it otherwise. Compiled
  /// beside the spec's kernels as NAME_fold (foldPassVariantModel); the
  /// runtime runs CG's fold pass with it where nx is a multiple of its
  /// groups along x and no tuning-cache entry chose the kernels.
  std::optional<KernelOptions> foldPass;
  /// The same for the inner precision's kernels (NAME_inner_fold).
  std::optional<KernelOptions> innerFoldPass;
  Solver solver = Solver::None;
  /// grid.split: the axes a process grid may divide among ranks.
  std::array<bool, kMaxDims> split{};
  /// inner_precision: the kernels in this precision too (NAME_inner), for
  /// mixed-precision CG; only for double stencils.
  bool hasInner = false;
  Precision innerPrecision = Precision::Float;
  /// The kernels of another model's inner precision (innerKernelsModel):
  /// the mixed solver converts that operator's fields, links and clover
  /// arrays value by value, so their storage stays the spec's and tuning
  /// may not change it.
  bool storageOfOuter = false;
  /// Set where `name` names another GPU's kernels, NAME_<tag> (`stencilc
  /// plan --device`): the inner precision's are then NAME_inner_<tag>, as
  /// they are compiled (tune/DevicePlans.h), not NAME_<tag>_inner.
  std::string deviceTag;
  /// grid.exchange (only with split axes).
  ExchangeOptions exchange;
  /// Whether these are the kernels ranks run (splitKernelsModel): their
  /// code also holds the halo exchange's box copies.
  bool rankKernels = false;

  /// Whether these kernels also run on one rank: any but NAME_split's
  /// (splitKernelsModel), which only ranks run; the stencil's own kernels
  /// of a split Dirichlet spec are ranks' kernels that serve one rank too.
  bool servesOneRank() const { return !rankKernels || splittable(); }

  bool splittable() const {
    for (int axis = 0; axis < dims; ++axis)
      if (split[axis])
        return true;
    return false;
  }
  /// Whether a splittable axis wraps around: then the ranks need kernels of
  /// their own, which read a ghost zone there.
  bool splitAxisWraps() const {
    for (int axis = 0; axis < dims; ++axis)
      if (split[axis] && wraps(axis))
        return true;
    return false;
  }

  /// Bytes of a stored value.
  int elementBytes() const {
    return precision == Precision::Double ? 8
           : precision == Precision::Float ? 4
                                           : 2;
  }
  /// Whether values are stored narrower than the kernels compute.
  bool narrowStorage() const { return precision == Precision::BFloat16; }
  /// Bytes of a value of the parameter, link and clover arrays: value_type,
  /// which bfloat16 fields compute in (those arrays are not narrowed).
  int arrayElementBytes() const {
    return precision == Precision::Double ? 8 : 4;
  }
  /// Whether neighbours wrap around along `axis` (periodic or antiperiodic).
  bool wraps(int axis) const {
    return boundaries[axis] != Boundary::Dirichlet;
  }
  /// Whether any axis wraps; whether every axis has a Dirichlet halo.
  bool anyWraps() const {
    for (int axis = 0; axis < dims; ++axis)
      if (wraps(axis))
        return true;
    return false;
  }
  bool allDirichlet() const { return !anyWraps(); }
  /// Whether every axis wraps (no halo anywhere).
  bool allWrap() const {
    for (int axis = 0; axis < dims; ++axis)
      if (!wraps(axis))
        return false;
    return true;
  }
  /// Whether every axis has the same boundary.
  bool uniformBoundary() const {
    for (int axis = 1; axis < dims; ++axis)
      if (boundaries[axis] != boundaries[0])
        return false;
    return true;
  }
  /// Whether kernel.vector_width groups sites along x (one value per site,
  /// or a vector field stored component-major: each component's row moves
  /// `vectorWidth` sites at once) rather than a site's adjacent components
  /// (site-major vector fields).
  bool groupsSitesAlongX() const {
    return components == 1 || layout.order != LayoutOrder::SiteMajor;
  }
  /// Sites each thread updates along x (aligned groups): the vector width
  /// where it groups sites, otherwise 1.
  int sitesPerThreadX() const {
    return groupsSitesAlongX() ? kernel.vectorWidth : 1;
  }
  /// Components per vector access of a site-major vector field (1: none).
  int componentsPerAccess() const {
    return groupsSitesAlongX() ? 1 : kernel.vectorWidth;
  }
  /// A site's adjacent values that one access moves: kernel.vector_width
  /// for a site-major vector field, field.layout.vector for soa and aosoa
  /// (1: one by one).
  int siteValuesPerAccess() const {
    return layout.order == LayoutOrder::SiteMajor ? componentsPerAccess()
                                                  : layout.vector;
  }
  /// Threads that share a site's components (1: one thread per site).
  int componentGroups() const {
    return kernel.componentsPerThread > 0
               ? components / kernel.componentsPerThread
               : 1;
  }
  /// Components each thread computes.
  int componentsPerThread() const { return components / componentGroups(); }
  /// The type the kernels compute in.
  const char *valueType() const {
    return precision == Precision::Double ? "double" : "float";
  }
  /// The type fields store: valueType() unless storage is narrower.
  const char *storageType() const {
    return narrowStorage() ? "stencil::bfloat16" : valueType();
  }
  /// Whether tuning must keep the spec's storage of the field, links and
  /// clover term: either precision's kernels of a mixed solve, which
  /// converts those arrays value by value from one operator to the other.
  bool storagePinned() const { return hasInner || storageOfOuter; }
  /// Whether some tap multiplies by a link.
  bool hasLinkTaps() const {
    for (const Tap &tap : taps)
      if (tap.link)
        return true;
    return false;
  }
  /// Whether the centre tap carries the clover term.
  bool hasCloverTap() const {
    for (const Tap &tap : taps)
      if (tap.clover)
        return true;
    return false;
  }
  /// Reals of one site's clover term: two blocks of 4 N^2.
  int cloverComponents() const {
    return 8 * links.colours * links.colours;
  }
  /// How the clover array is stored: the field's site order with the
  /// clover's own component order.
  FieldLayout cloverLayout() const {
    FieldLayout l = layout;
    l.order = clover.order;
    l.block = clover.block;
    l.vector = clover.vector;
    return l;
  }
  /// Colour vectors per site that links multiply (spin components of a
  /// spinor are spectators): components / (2 N).
  int colourVectors() const { return components / (2 * links.colours); }
  /// Reals of one site's links: dims matrices.
  int linkComponents() const { return dims * links.realsPerLink(); }
  /// How the link array is stored: the field's site order (subdomains,
  /// even/odd halves) with the links' own component order.
  FieldLayout linkLayout() const {
    FieldLayout l = layout;
    l.order = links.order;
    l.block = links.block;
    l.vector = links.vector;
    return l;
  }
};

/// "3 complex values (shape [3])", "24 reals".
std::string valuesText(const StencilModel &model);

/// The boundaries as the spec would write them: "periodic" when every
/// axis has the same, else one name per axis, "periodic, periodic,
/// dirichlet".
std::string boundaryText(const StencilModel &model);

/// Recomputes `reach` from the taps.
void computeReach(StencilModel &model);

/// The taps' largest step below (-offset) and above (+offset) the output
/// site along each axis, 0 where none steps that way: the halo a block's
/// box of sites needs on each side (kernel.staging: shared).
void tapHalo(const StencilModel &model, Offset &below, Offset &above);

/// The tap at `offset`, or null when the stencil has none there.
const Tap *findTap(const StencilModel &model, const Offset &offset);

/// Whether the operator equals its adjoint (symmetric for real
/// coefficients, Hermitian with complex ones), decided from the structure:
/// A^dagger has at offset o the conjugated coefficient of A's tap -o read
/// from the site x + o, so every tap o needs a tap -o whose coefficient, its
/// coefficient fields shifted by o and conjugated, is the same. (A tap +o
/// reading k at x pairs with the tap -o reading k at x - o, or conj(k) at
/// x - o for a complex k.)
bool isSymmetric(const StencilModel &model);

/// The adjoint stencil A^dagger (A^T for real coefficients): each tap's
/// offset negated, its coefficient fields read from x + (new offset), the
/// site the original tap started from, and its complex fields conjugated.
StencilModel transposedModel(const StencilModel &model);

/// The kernels ranks run when a process grid divides the lattice
/// (grid.split): every splittable axis that wraps around becomes a Dirichlet
/// axis to the kernels, whose halo, `reach` sites wide, is the ghost zone
/// the halo exchange fills (with the signs of an antiperiodic wrap applied
/// on the way). Named NAME_split, with rankKernels set and split cleared.
StencilModel splitKernelsModel(const StencilModel &model);

/// The kernel's block as the tuning cache and summaries spell it: "64x4x1",
/// one entry per axis of the grid.
std::string blockShapeText(const StencilModel &model);

/// The kernels of mixed-precision CG's inner iterations (inner_precision):
/// the stencil in that precision, named NAME_inner, for one rank. A
/// site-major vector field's accesses keep their bytes (kernel.vector_width
/// counts values of the spec's precision: 2 doubles are 4 floats or 8
/// bfloat16 in the inner kernels), as far as the values fit a thread's
/// share of a site.
StencilModel innerKernelsModel(const StencilModel &model);

/// `model`'s stencil with the planner's `kernel` options, named `name`, for
/// one rank and without inner or second kernels of its own.
StencilModel plannerKernelsModel(const StencilModel &model,
                                 const KernelOptions &kernel, std::string name);

/// The kernels of `model.alongX` (which must be set): the stencil with
/// those options, named NAME_xW for its W sites along x, for one rank and
/// without inner kernels (the spec's own serve every nx).
StencilModel alongXVariantModel(const StencilModel &model);

/// The kernels of `model.largeAlongX` (which must be set), named
/// NAME_xW_march, for one rank and without inner kernels.
StencilModel largeAlongXVariantModel(const StencilModel &model);

/// The kernels of `model.foldPass` (which must be set), named NAME_fold,
/// for one rank and without inner kernels: CG's fold pass runs from them.
StencilModel foldPassVariantModel(const StencilModel &model);

/// The coefficient that A^dagger's tap at `offset` has, from A's tap at
/// -offset with coefficient `mirror`: its fields read from the neighbour
/// x + offset, complex ones conjugated.
Coefficient adjointCoefficient(const StencilModel &model,
                               const Coefficient &mirror, const Offset &offset);

/// `c` with each complex field term's conjugation flipped.
Coefficient conjugatedCoefficient(const StencilModel &model,
                                  const Coefficient &c);

/// Whether `c` reads a complex coefficient field (its value is complex).
bool isComplexCoefficient(const StencilModel &model, const Coefficient &c);

/// Whether some tap's coefficient is complex.
bool hasComplexCoefficients(const StencilModel &model);

/// `c` with every site parameter's shift moved by `delta`: the same
/// coefficient seen from the site x + delta.
Coefficient shiftedCoefficient(const StencilModel &model, const Coefficient &c,
                               const Offset &delta);

/// "@-x", "@+x-2y": a field's shift as a coefficient spells it ("" for 0).
std::string shiftText(const Offset &shift);

/// The shortest decimal text that reads back as exactly `value`.
std::string shortestNumberText(double value);

/// `constant + sum of factor * name` as a spec writes it: "2 * h + 1",
/// "-h", "0.5".
std::string linearText(double constant,
                       const std::vector<std::pair<std::string, double>> &terms);

/// The coefficient as the spec spells it, for example `inv_hx2`,
/// `-2 * inv_h2`, `8 + mass`, `0.5` or `k + k@-x`.
std::string coefficientText(const StencilModel &model,
                            const Coefficient &coefficient);

/// Number of site parameters.
int siteParameterCount(const StencilModel &model);

/// Reals per site of the site parameters' arrays (2 for a complex one).
int siteParameterReals(const StencilModel &model);

/// Whether a site parameter appears in a tap other than the centre or with a
/// shift: the operator's off-diagonal entries vary from site to site.
bool hasOffCentreFields(const StencilModel &model);

/// Index of the (0, ..., 0) tap, or -1 when the stencil has none.
int centreTapIndex(const StencilModel &model);

} // namespace stencilc

#endif
