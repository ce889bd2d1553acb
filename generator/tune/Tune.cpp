//===- Tune.cpp - Autotuning: the variant space and its build directory ---===//
#include "tune/Tune.h"

#include "check/Check.h"

#include "emit/Emit.h"
#include "emit/EmitText.h"
#include "emit/TemplateEngine.h"
#include "plan/MarchRules.h"
#include "plan/Plan.h"
#include "stencil/launch_config.hpp"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <limits>
#include <set>

using namespace llvm;

namespace stencilc {

namespace {

std::string summaryOf(const StencilModel &m) {
  const KernelOptions &k = m.kernel;
  std::string text =
      "block " + blockShapeText(m) + ", " + tileSummary(k) + ", " +
      (k.loadOrder == LoadOrder::Explicit ? "'" + k.loadOrderText + "'"
                                          : loadOrderName(k.loadOrder)) +
      ", " + (k.nontemporalStore ? "non-temporal" : "regular") + " stores";
  if (k.launchBounds)
    text += ", launch bounds " + std::to_string(k.launchBounds);
  if (k.minBlocksPerSm)
    text += " (at least " + std::to_string(k.minBlocksPerSm) + " per SM)";
  if (m.components > 1) {
    text += ", " + orderDescription(m.layout);
    if (m.componentsPerAccess() > 1)
      text += ", vector width " + std::to_string(k.vectorWidth);
    else if (m.sitesPerThreadX() > 1)
      text += ", " + std::to_string(k.vectorWidth) +
              " sites along x per access";
    if (m.componentGroups() > 1)
      text += ", " + std::to_string(m.componentsPerThread()) +
              " components per thread";
  } else if (k.vectorWidth > 1) {
    text += ", " + std::to_string(k.vectorWidth) + " sites along x per access";
  }
  if (m.hasLinkTaps())
    text += ", links " + orderDescription(m.links.storageOrder());
  // The summary also tells variants apart (tuningVariants drops repeats).
  if (m.hasCloverTap())
    text += ", clover " + orderDescription(m.cloverLayout());
  if (m.layout.evenOdd && m.dims >= 3)
    text += ", slab " + slabText(k.slab);
  if (k.staging == Staging::Shared)
    text += ", staged in shared memory";
  return text;
}

/// Candidate block shapes (threads per axis) for a grid of `dims` axes.
std::vector<std::array<int, kMaxDims>> blockShapes(int dims) {
  switch (dims) {
  case 1:
    return {{128, 1, 1, 1}, {256, 1, 1, 1}, {512, 1, 1, 1}};
  case 2:
    return {{64, 4, 1, 1}, {128, 2, 1, 1}, {256, 1, 1, 1}, {32, 8, 1, 1}};
  case 3:
    return {{64, 4, 1, 1}, {128, 2, 1, 1}, {256, 1, 1, 1}, {32, 4, 2, 1},
            {64, 2, 2, 1}};
  default:
    return {{32, 4, 1, 1}, {32, 4, 2, 1}, {64, 2, 1, 1}, {16, 4, 2, 2},
            {32, 2, 4, 1}, {32, 2, 2, 2}};
  }
}

/// A cache entry recorded for another version of the stencil (another
/// fingerprint) is skipped with this warning; `consequence` says what that
/// means where it is read.
void warnStale(raw_ostream &warnings, StringRef cachePath,
               const TuningCacheEntry &entry, StringRef fingerprint,
               StringRef consequence) {
  warnings << cachePath << ":" << entry.line << ": warning: entry for "
           << entry.spec << " was recorded for another version of the "
           << "stencil (fingerprint " << entry.fingerprint << ", now "
           << fingerprint << "); ignored: " << consequence << "\n";
}

/// The register cap of one resident block at least: all a thread may
/// address.
constexpr int kMostRegisters = 255;

/// The variants to time, in the order added: each named NAME_tNNN by its
/// place, a repeat of an earlier one (the same summary) dropped, at most
/// `limit`; the spec's own options and what the runtime runs (where given)
/// first, pinned there.
class VariantList {
public:
  VariantList(const StencilModel &model, const StencilModel *runtime,
              int limit = std::numeric_limits<int>::max())
      : name(model.name), limit(limit) {
    add(model, true);
    if (runtime)
      add(*runtime, true);
  }

  void add(StencilModel m, bool pinned = false) {
    std::string summary = summaryOf(m);
    if (static_cast<int>(variants.size()) >= limit ||
        !seen.insert(summary).second)
      return;
    char suffix[16];
    std::snprintf(suffix, sizeof suffix, "_t%03zu", variants.size());
    m.name = name + suffix;
    variants.push_back({std::move(m), std::move(summary), pinned});
  }

  std::vector<Variant> take() { return std::move(variants); }

private:
  std::string name;
  int limit;
  std::vector<Variant> variants;
  std::set<std::string> seen;
};

/// A built-in load order, dropping any explicit one.
void setLoadOrder(KernelOptions &k, LoadOrder order) {
  k.loadOrder = order;
  k.loadOrderText.clear();
  k.tapOrder.clear();
}

/// Whether `model` takes groups of `width` sites along x at the size being
/// tuned: the checker's rule, and rows that start aligned (nx a multiple).
bool groupsFitSize(const StencilModel &model, int width,
                   const std::vector<int> &extents) {
  return siteVectorProblem(model, width).empty() && !extents.empty() &&
         extents[0] % width == 0;
}

/// Whether a field stored as `layout` holds the size being tuned in whole
/// blocks of sites (each parity's sites with even/odd storage), as the
/// runtime's check_layout demands; any size where none is given.
bool blocksFitSize(const FieldLayout &layout, const std::vector<int> &extents) {
  if (layout.order != LayoutOrder::Blocked || extents.empty())
    return true;
  long long sites = 1;
  for (int extent : extents)
    sites *= extent;
  if (layout.evenOdd)
    sites /= 2;
  return sites % layout.block == 0;
}

} // namespace

namespace {

/// The bytes a site of `model`'s apply kernel reads and writes, as its
/// KernelInfo::bytes_per_site gives them to the runtime.
int applyBytesPerSite(const StencilModel &model) {
  for (const KernelPlan &plan : planKernels(model))
    if (plan.role == KernelRole::Apply)
      return plan.bytesPerSite();
  return 0;
}

} // namespace

RuntimeKernels kernelsRunAt(const StencilModel &planned,
                            const std::vector<int> &extents, bool foldPass,
                            long long l2Bytes) {
  // The runtime's test of the large lattices' row (stencil/tuning.hpp).
  const bool large =
      planned.largeAlongX &&
      stencil::slices_exceed_l2(static_cast<int>(extents.size()),
                                extents.data(), applyBytesPerSite(planned),
                                kRowMarchL2Percent, l2Bytes);
  // CG's fold pass runs the planner's fold kernels where nx takes them,
  // else the kernels the other passes run.
  const std::pair<std::optional<KernelOptions>, const char *> seconds[] = {
      {foldPass ? planned.foldPass : std::nullopt,
       "the planner's kernels for CG's fold pass"},
      {large && !foldPass ? planned.largeAlongX : std::nullopt,
       "the planner's groups marching along the slowest axis (a lattice "
       "whose slices exceed its share of the L2)"},
      {planned.alongX, "the planner's groups of sites along x"}};
  for (const auto &[kernels, what] : seconds) {
    if (!kernels || extents.empty())
      continue;
    StencilModel m = plannerKernelsModel(planned, *kernels, planned.name);
    if (extents[0] % m.sitesPerThreadX() == 0)
      return {std::move(m), what};
  }
  return {plannerKernelsModel(planned, planned.kernel, planned.name),
          "the spec's kernels"};
}

Expected<std::optional<RuntimeKernels>>
entryRunAt(const StencilModel &planned,
           const std::vector<TuningCacheEntry> &entries, StringRef cachePath,
           StringRef device, const std::vector<int> &extents, bool foldPass,
           raw_ostream &warnings) {
  const std::string fingerprint = stencilFingerprint(planned);
  // The last entry of the kind wins, as in the runtime.
  auto lastEntry = [&](bool foldEntries) -> const TuningCacheEntry * {
    const TuningCacheEntry *found = nullptr;
    for (const TuningCacheEntry &entry : entries) {
      if (entry.spec != planned.name || entry.device != device ||
          entry.extents != extents || isExchangeEntry(entry.options) ||
          isFoldEntry(entry.options) != foldEntries)
        continue;
      if (entry.fingerprint != fingerprint) {
        warnStale(warnings, cachePath, entry, fingerprint,
                  "not what the runtime runs");
        continue;
      }
      found = &entry;
    }
    return found;
  };
  const TuningCacheEntry *found = lastEntry(foldPass);
  // Without a fold-pass entry, CG's fold pass runs an entry's kernels for
  // the other passes where one is recorded: the runtime prefers a
  // measurement to the planner's fold kernels (stencil::select_fold_kernels).
  const bool othersEntry = foldPass && !found;
  if (othersEntry)
    found = lastEntry(false);
  if (!found)
    return std::nullopt;
  Expected<StencilModel> m = withTuningOptions(
      planned, foldPass && !othersEntry ? foldEntryOptions(found->options)
                                        : StringRef(found->options));
  if (!m)
    return createStringError(inconvertibleErrorCode(), "%s:%u: %s",
                             cachePath.str().c_str(), found->line,
                             toString(m.takeError()).c_str());
  std::string size;
  for (int e : extents)
    size += (size.empty() ? "" : "x") + std::to_string(e);
  return RuntimeKernels{
      plannerKernelsModel(*m, m->kernel, planned.name),
      "its tuning-cache entry for " + device.str() + " at " + size + ", " +
          cachePath.str() + ":" + std::to_string(found->line) +
          (othersEntry ? " (no fold-pass entry: CG's fold pass runs the "
                         "entry's kernels, not the planner's)"
                       : ""),
      true};
}

StencilModel naiveModel(const StencilModel &model) {
  StencilModel m = model;
  m.name = model.name + "_naive";
  m.kernel.tileFactor = 1;
  if (m.groupsSitesAlongX())
    m.kernel.vectorWidth = 1; // one site per thread
  m.kernel.componentsPerThread = m.components; // a site per thread
  m.kernel.slab = 1; // hopping kernels' threads in storage order
  m.kernel.staging = Staging::Registers; // straight from global memory
  m.kernel.march = false;                // one site a thread
  m.split.fill(false); // one rank
  m.rankKernels = false;
  m.hasInner = false;
  setLoadOrder(m.kernel, LoadOrder::AsWritten);
  m.description = "Naive baseline of " + model.name +
                  " (no tile, loads as written). " + model.description;
  return m;
}

std::vector<Variant> tuningVariants(const StencilModel &model, int limit,
                                    const std::vector<int> &extents,
                                    const StencilModel *runtime) {
  VariantList variants(model, runtime, limit);
  // Tiles: vector fields keep a tile's accumulators in registers, 2 x the
  // components per tile site, so they stop at 2.
  std::vector<std::pair<int, int>> tiles = {{0, 1}};
  const std::vector<int> factors =
      model.components > 1 ? std::vector<int>{2} : std::vector<int>{2, 4, 8};
  if (!model.layout.evenOdd)
    for (int axis = model.dims > 1 ? 1 : 0; axis < model.dims; ++axis)
      for (int factor : factors)
        tiles.push_back({axis, factor});
  // Layouts and vector widths, for vector fields stored without subdomains
  // (even/odd halves too: on the H200 the double Wilson hops ran 1.46x
  // faster with the spinors in blocks of 32 sites than site-major, the
  // float ones 6% slower; docs/performance.md). Blocks of sites only where
  // the size being tuned holds them whole (else every variant would be
  // skipped at run time).
  std::vector<std::pair<FieldLayout, int>> layouts = {
      {model.layout, model.kernel.vectorWidth}};
  if (model.components > 1 && !model.layout.hasSubdomains() &&
      !model.storagePinned()) {
    FieldLayout l = model.layout;
    for (auto [order, block] :
         {std::pair{LayoutOrder::SiteMajor, 1},
          std::pair{LayoutOrder::ComponentMajor, 1},
          std::pair{LayoutOrder::Blocked, 32}}) {
      l.order = order;
      l.block = block;
      l.vector = 1;
      if (!blocksFitSize(l, extents))
        continue;
      layouts.push_back({l, 1});
      // The field stored so, one value an access.
      StencilModel stored = model;
      stored.layout = l;
      stored.kernel.vectorWidth = 1;
      // soa and aosoa with a site's values in groups of 2 or 4, each one
      // 4- to 16-byte load (field.layout.vector; QUDA's FloatN order).
      for (int vector : {2, 4}) {
        if (fieldVectorProblem(stored, vector).empty()) {
          FieldLayout g = l;
          g.vector = vector;
          layouts.push_back({g, 1});
        }
      }
      // The checker's rules for vector accesses: a site's components where
      // they are adjacent, else groups of sites along each component's row
      // (their rows of the size being tuned starting aligned).
      for (int width : {2, 4}) {
        if (stored.groupsSitesAlongX()
                ? groupsFitSize(stored, width, extents)
                : componentVectorProblem(stored, width).empty())
          layouts.push_back({l, width});
      }
    }
  }
  // Single-component fields: aligned groups of sites along x moved with
  // 8- and 16-byte accesses, widest first, where the grid allows them and
  // the rows of the size being tuned start aligned.
  if (model.components == 1 && !extents.empty()) {
    std::vector<std::pair<FieldLayout, int>> widths;
    for (int width : {4, 2})
      if (width != model.kernel.vectorWidth &&
          groupsFitSize(model, width, extents))
        widths.push_back({model.layout, width});
    layouts.insert(layouts.begin() + 1, widths.begin(), widths.end());
  }
  // Vector fields: a site's components whole, then split over 2, 3 and 4
  // threads (fewer accumulators per thread, a smaller cache footprint per
  // block), where the split is even and keeps whole vector accesses. Where
  // a site's components are adjacent the shares sit side by side in a warp
  // (Plan.h, ComponentShareOrder): there also 6 and 8 threads a site, down
  // to one 16-byte access each for 24 floats (kept to site-major variants
  // below).
  std::vector<int> shares = {model.componentsPerThread()};
  if (model.components > 1)
    for (int groups : {1, 2, 3, 4, 6, 8})
      if (model.components % groups == 0 &&
          model.components / groups != shares.front())
        shares.push_back(model.components / groups);
  // Gauge-covariant stencils: where the links live (a site's matrices
  // together, one array per real, blocks of 32 sites, and blocks of 32
  // sites with pairs of reals loaded together).
  // (A spec with inner-precision kernels keeps its storage of both in
  // either precision: the mixed solver converts them value by value.)
  std::vector<FieldLayout> linkLayouts = {model.links.storageOrder()};
  if (model.hasLinkTaps() && !model.storagePinned()) {
    FieldLayout aos, soa, blocked, pairs;
    soa.order = LayoutOrder::ComponentMajor;
    blocked.order = pairs.order = LayoutOrder::Blocked;
    blocked.block = pairs.block = 32;
    pairs.vector = 2;
    for (const FieldLayout &option : {aos, soa, blocked, pairs})
      if (option.order != linkLayouts.front().order ||
          option.block != linkLayouts.front().block ||
          option.vector != linkLayouts.front().vector)
        linkLayouts.push_back(option);
  }
  // Wilson-clover stencils: where the clover term lives (72 reals a site,
  // as much as the spinors of a hop): the spec's order, a site's blocks
  // together, and blocks of 32 sites with 16-byte loads.
  std::vector<FieldLayout> cloverLayouts;
  {
    FieldLayout own;
    own.order = model.clover.order;
    own.block = model.clover.block;
    own.vector = model.clover.vector;
    cloverLayouts.push_back(own);
    if (model.hasCloverTap() && !model.storagePinned()) {
      FieldLayout aos, blocked;
      blocked.order = LayoutOrder::Blocked;
      blocked.block = 32;
      blocked.vector = 16 / model.elementBytes();
      for (const FieldLayout &option : {aos, blocked})
        if (option.order != own.order || option.block != own.block ||
            option.vector != own.vector)
          cloverLayouts.push_back(option);
    }
  }
  const std::vector<int> boundsOptions =
      model.hasLinkTaps() ? std::vector<int>{0, 1, 2} : std::vector<int>{0, 1};
  // Even/odd lattices of 3 axes or more: the hopping kernels' walk in
  // storage order and in slabs of 8 slices (the spec's own 'auto', first,
  // is one of the two at any size), next to each other so that a short
  // --max-variants list still compares them.
  const std::vector<int> slabs = model.layout.evenOdd && model.dims >= 3
                                     ? std::vector<int>{1, 8}
                                     : std::vector<int>{model.kernel.slab};
  // Where the neighbours are read: the spec's choice, then the other where
  // the stencil can stage (kernel.staging; each variant's box must fit).
  std::vector<Staging> stagings = {model.kernel.staging};
  {
    StencilModel other = model;
    other.kernel.staging = model.kernel.staging == Staging::Shared
                               ? Staging::Registers
                               : Staging::Shared;
    other.kernel.block = {1, 1, 1, 1}; // the size is checked per variant
    other.kernel.tileFactor = 1;
    if (other.sitesPerThreadX() > 1)
      other.kernel.vectorWidth = 1;
    if (stagingProblem(other).empty())
      stagings.push_back(other.kernel.staging);
  }
  // Whether threads march along the slowest axis (kernel.march): the spec's
  // choice, then the other where the stencil can march (each variant's
  // block must have one thread along that axis; the march is its tile).
  std::vector<bool> marches = {model.kernel.march};
  {
    StencilModel other = model;
    other.kernel.march = !model.kernel.march;
    other.kernel.block = {1, 1, 1, 1};
    other.kernel.tileAxis = other.dims - 1;
    other.kernel.tileFactor = 1;
    if (marchProblem(other).empty())
      marches.push_back(other.kernel.march);
  }
  // Most influential first, so that --max-variants keeps what matters.
  // The links' layout varies fastest: it moves most of a covariant
  // stencil's bytes, so every combination below is tried with each.
  for (bool march : marches)
  for (Staging staging : stagings)
  for (const auto &[layout, width] : layouts)
    for (int perThread : shares)
      for (const auto &block : blockShapes(model.dims))
        for (auto [axis, factor] : tiles)
          for (LoadOrder order : {LoadOrder::Ascending, LoadOrder::AsWritten})
            for (bool nontemporal : {false, true})
              // Launch bounds: none, the block's threads, and for link
              // stencils those with one block per multiprocessor at least
              // (every register a site's 36 link loads in flight want).
              for (int bounded : boundsOptions)
                for (const FieldLayout &links : linkLayouts)
                for (const FieldLayout &clover : cloverLayouts)
                for (int slab : slabs) {
                StencilModel m = model;
                m.kernel.slab = slab;
                m.links.order = links.order;
                m.links.block = links.block;
                m.links.vector = links.vector;
                m.clover.order = clover.order;
                m.clover.block = clover.block;
                m.clover.vector = clover.vector;
                m.layout = layout;
                m.kernel.vectorWidth = width;
                m.kernel.block = block;
                m.kernel.launchBounds =
                    bounded ? m.kernel.threadsPerBlock() : 0;
                m.kernel.minBlocksPerSm = bounded == 2 ? 1 : 0;
                m.kernel.tileAxis = axis;
                m.kernel.tileFactor = factor;
                setLoadOrder(m.kernel, order);
                m.kernel.nontemporalStore = nontemporal;
                m.kernel.componentsPerThread = perThread;
                m.kernel.staging = staging;
                m.kernel.march = march;
                if (march) { // the march is the tile: one model, not one a tile
                  if (std::make_pair(axis, factor) != tiles.front())
                    continue;
                  m.kernel.tileAxis = m.dims - 1;
                  m.kernel.tileFactor = 1;
                  if (!marchProblem(m).empty())
                    continue;
                }
                // The checker's rules for groups along x (no tile along x),
                // for component splits (whole vector accesses) and for
                // staging (a box within the shared-memory limit).
                if (m.sitesPerThreadX() > 1 &&
                    !siteVectorProblem(m, width).empty())
                  continue;
                if (!componentSplitProblem(m, perThread).empty())
                  continue;
                if (m.componentGroups() > 4 &&
                    m.layout.order != LayoutOrder::SiteMajor &&
                    perThread != model.componentsPerThread())
                  continue;
                if (!stagingProblem(m).empty())
                  continue;
                variants.add(std::move(m));
              }
  return variants.take();
}

std::vector<Variant> withRegisterCaps(const StencilModel &model,
                                      std::vector<Variant> variants) {
  // The caps whose minimums the H200 search found best: from 128 for
  // component-major 24-float fields to 40 for site-major ones
  // (docs/performance.md, "Register caps"); link stencils also the most a
  // thread may address.
  std::vector<int> caps = {128, 80, 64, 40};
  if (model.hasLinkTaps())
    caps.insert(caps.begin(), kMostRegisters);
  std::set<std::string> seen;
  for (const Variant &v : variants)
    seen.insert(v.summary);
  // The pinned variants stay first, in their places (the timing program
  // finds what the runtime runs second); their caps follow them, and every
  // other variant is followed by its own.
  std::vector<Variant> capped;
  for (Variant &variant : variants)
    if (variant.pinned)
      capped.push_back(variant);
  for (Variant &variant : variants) {
    const StencilModel base = variant.model;
    if (!variant.pinned)
      capped.push_back(std::move(variant));
    const int threads = base.kernel.threadsPerBlock();
    for (int cap : caps) {
      const int minimum =
          cap == kMostRegisters
              ? 1
              : std::max(1, kRegistersPerMultiprocessor / (threads * cap));
      // Within the checker's limits for kernel.min_blocks_per_sm.
      if (minimum > 32 || minimum * threads > kMaxThreadsPerMultiprocessor)
        continue;
      StencilModel m = base;
      m.kernel.launchBounds = threads;
      m.kernel.minBlocksPerSm = minimum;
      std::string summary = summaryOf(m);
      if (!seen.insert(summary).second)
        continue;
      // Named by the cap the minimum gives (registers go in groups of 8).
      const int given = std::min(
          kMostRegisters,
          kRegistersPerMultiprocessor / (minimum * threads) / 8 * 8);
      m.name = base.name + "_cap" + std::to_string(given);
      capped.push_back({std::move(m), std::move(summary)});
    }
  }
  return capped;
}

Expected<std::vector<Variant>> listedVariants(const StencilModel &model,
                                              StringRef text, StringRef path,
                                              const StencilModel *runtime) {
  VariantList variants(model, runtime);
  SmallVector<StringRef, 32> lines;
  text.split(lines, '\n');
  for (size_t i = 0; i < lines.size(); ++i) {
    StringRef line = lines[i].trim();
    if (line.empty() || line.startswith("#"))
      continue;
    Expected<StencilModel> m = withTuningOptions(model, line);
    if (!m)
      return createStringError(inconvertibleErrorCode(),
                               "%s:%zu: %s", path.str().c_str(), i + 1,
                               toString(m.takeError()).c_str());
    variants.add(std::move(*m));
  }
  return variants.take();
}

Expected<TunedKernels>
tunedKernels(const StencilModel &model,
             const std::vector<TuningCacheEntry> &entries, StringRef cachePath,
             raw_ostream &warnings) {
  const std::string fingerprint = stencilFingerprint(model);
  const std::string own = tuningOptionsText(model);
  // First the entries that stand (a later entry for the same device and
  // extents replaces an earlier one), then one variant per distinct
  // options among them, so that no replaced entry's variant is compiled.
  struct Standing {
    TunedChoice choice;
    StencilModel variant;
    unsigned line = 0; ///< in the cache file
  };
  std::vector<Standing> standing;
  std::vector<TunedExchangeChoice> exchanges;
  for (const TuningCacheEntry &entry : entries) {
    if (entry.spec != model.name)
      continue;
    if (entry.fingerprint != fingerprint) {
      warnStale(warnings, cachePath, entry, fingerprint, "tune it again");
      continue;
    }
    if (static_cast<int>(entry.extents.size()) != model.dims)
      return createStringError(inconvertibleErrorCode(),
                               "%s:%u: %zu extents for the %d-D %s",
                               cachePath.str().c_str(), entry.line,
                               entry.extents.size(), model.dims,
                               model.name.c_str());
    if (isExchangeEntry(entry.options)) {
      Expected<ExchangeCacheOptions> policy =
          parseExchangeOptions(model, entry.options);
      if (!policy)
        return createStringError(inconvertibleErrorCode(), "%s:%u: %s",
                                 cachePath.str().c_str(), entry.line,
                                 toString(policy.takeError()).c_str());
      // A later entry for the same device, extents and grid replaces it.
      llvm::erase_if(exchanges, [&](const TunedExchangeChoice &c) {
        return c.device == entry.device && c.extents == entry.extents &&
               c.grid == policy->grid;
      });
      exchanges.push_back({entry.device, entry.extents, policy->grid,
                           policy->options, entry.milliseconds});
      continue;
    }
    const bool foldPass = isFoldEntry(entry.options);
    if (!foldPass && StringRef(entry.options).trim().startswith("kernel"))
      return createStringError(
          inconvertibleErrorCode(),
          "%s:%u: '%s': an entry names its kernels only as 'kernel=fold; ' "
          "before the options (CG's fold pass alone); entries for all "
          "kernels name none",
          cachePath.str().c_str(), entry.line, entry.options.c_str());
    Expected<StencilModel> variant =
        withTuningOptions(model, foldEntryOptions(entry.options));
    if (!variant)
      return createStringError(inconvertibleErrorCode(), "%s:%u: %s",
                               cachePath.str().c_str(), entry.line,
                               toString(variant.takeError()).c_str());
    if (foldPass && !planFoldPass(*variant))
      return createStringError(
          inconvertibleErrorCode(),
          "%s:%u: a fold-pass entry ('kernel=fold; ...') for %s, whose "
          "kernels with these options have no fold pass (CG's direction "
          "update folded into the stencil: whole-lattice CG specs with one "
          "value per site and blocks of whole wavefronts)",
          cachePath.str().c_str(), entry.line, model.name.c_str());
    if (int group = variant->sitesPerThreadX();
        group > 1 && entry.extents[0] % group != 0)
      return createStringError(
          inconvertibleErrorCode(),
          "%s:%u: vector_width %d needs nx to be a multiple of %d, not %d",
          cachePath.str().c_str(), entry.line, group, group, entry.extents[0]);
    llvm::erase_if(standing, [&](const Standing &s) {
      return s.choice.device == entry.device &&
             s.choice.extents == entry.extents &&
             s.choice.foldPass == foldPass;
    });
    TunedChoice choice{entry.device, entry.extents, -1, entry.gbs};
    choice.foldPass = foldPass;
    standing.push_back({std::move(choice), std::move(*variant), entry.line});
  }
  // CG's fields are the other kernels' fields: a fold pass must store them
  // as the kernels chosen for the same device and extents do (an entry for
  // all kernels, else the spec's own options).
  for (const Standing &fold : standing) {
    if (!fold.choice.foldPass)
      continue;
    const StencilModel *others = &model;
    for (const Standing &s : standing)
      if (!s.choice.foldPass && s.choice.device == fold.choice.device &&
          s.choice.extents == fold.choice.extents)
        others = &s.variant;
    const std::string want = storageOptionsText(*others),
                      have = storageOptionsText(fold.variant);
    if (have != want)
      return createStringError(
          inconvertibleErrorCode(),
          "%s:%u: a fold-pass entry must store the fields as the kernels "
          "chosen for the same device and extents do (%s: %s); this one "
          "has '%s'",
          cachePath.str().c_str(), fold.line,
          others == &model ? "the spec's own options"
                           : "the entry for all kernels",
          want.c_str(), have.c_str());
  }
  TunedKernels tuned;
  std::vector<std::string> variantOptions;
  for (Standing &s : standing) {
    const std::string options = tuningOptionsText(s.variant);
    if (options != own) {
      auto at = llvm::find(variantOptions, options);
      s.choice.variant = static_cast<int>(at - variantOptions.begin());
      if (at == variantOptions.end()) {
        variantOptions.push_back(options);
        s.variant.name =
            model.name + "_tuned" + std::to_string(s.choice.variant);
        s.variant.split.fill(false); // ranks run the spec's NAME_split
        s.variant.rankKernels = false;
        s.variant.hasInner = false; // the spec's NAME_inner serves all
        Expected<EmittedStencil> files =
            emitStencil(s.variant, planKernels(s.variant));
        if (!files)
          return files.takeError();
        tuned.variants.push_back({std::move(s.variant), std::move(*files)});
      }
    }
    tuned.choices.push_back(std::move(s.choice));
  }
  tuned.exchanges = std::move(exchanges);
  if (model.hasInner) {
    Expected<TunedKernels> inner =
        tunedKernels(innerKernelsModel(model), entries, cachePath, warnings);
    if (!inner)
      return inner.takeError();
    tuned.inner = std::make_shared<TunedKernels>(std::move(*inner));
  }
  return tuned;
}

Error addPlannerVariants(const StencilModel &model, TunedKernels &tuned) {
  if (model.hasInner) {
    if (!tuned.inner)
      tuned.inner = std::make_shared<TunedKernels>();
    if (Error error =
            addPlannerVariants(innerKernelsModel(model), *tuned.inner))
      return error;
  }
  auto add = [&](StencilModel variant, bool foldPass,
                 int l2Percent = 0) -> Error {
    if (foldPass && !planFoldPass(variant))
      return createStringError(
          inconvertibleErrorCode(),
          "the planner's kernels for CG's fold pass, %s, have no fold pass",
          variant.name.c_str());
    Expected<EmittedStencil> files = emitStencil(variant, planKernels(variant));
    if (!files)
      return files.takeError();
    TunedChoice choice;
    choice.variant = static_cast<int>(tuned.variants.size());
    choice.xMultiple = variant.sitesPerThreadX();
    choice.foldPass = foldPass;
    choice.l2Percent = l2Percent;
    tuned.variants.push_back({std::move(variant), std::move(*files), true});
    tuned.choices.push_back(std::move(choice));
    return Error::success();
  };
  // The runtime takes the first row that serves: the large lattices' march
  // before the groups.
  if (model.largeAlongX)
    if (Error error =
            add(largeAlongXVariantModel(model), false, kRowMarchL2Percent))
      return error;
  if (model.alongX)
    if (Error error = add(alongXVariantModel(model), false))
      return error;
  if (model.largeAlongX && model.alongX && !model.foldPass) {
    // CG's fold pass keeps the groups on large lattices too: the march's
    // fold kernel ran CG 1.1% slower (plan/MarchRules.h).
    TunedChoice fold = tuned.choices.back();
    fold.foldPass = true;
    tuned.choices.push_back(fold);
  }
  if (model.foldPass)
    if (Error error = add(foldPassVariantModel(model), true))
      return error;
  return Error::success();
}

Error writeTuningDirectory(const StencilModel &model,
                           const std::vector<Variant> &variants,
                           const std::vector<int> &extents, StringRef directory,
                           StringRef kernel) {
  SmallString<256> generated(directory);
  sys::path::append(generated, "generated");
  std::vector<std::string> includes, entries, names;
  for (const Variant &v : variants) {
    StencilModel timed = v.model;
    timed.split.fill(false); // the timing program runs one rank
    timed.rankKernels = false;
    timed.hasInner = false;
    std::vector<KernelPlan> plans = planKernels(timed);
    Expected<EmittedStencil> files = emitStencil(timed, plans);
    if (!files)
      return files.takeError();
    if (Error error = writeStencil(timed, *files, generated))
      return error;
    includes.push_back("#include \"" + v.model.name + ".hpp\"");
    entries.push_back("    {&stencilc_kernels::" + v.model.name +
                      "::info(), \"" + v.summary + "\"},");
  }
  std::vector<std::string> sizes;
  for (int e : extents)
    sizes.push_back(std::to_string(e));
  auto write = [&](StringRef name, StringRef templateName,
                   const TemplateValues &values) -> Error {
    Expected<StringRef> source = getTemplate(templateName);
    if (!source)
      return source.takeError();
    Expected<std::string> text = renderTemplate(templateName, *source, values);
    if (!text)
      return text.takeError();
    SmallString<256> path(directory);
    sys::path::append(path, name);
    return writeFile(path, *text);
  };
  if (Error error = write("tune_main.cpp", "tune_main.cpp.in",
                          {{"name", model.name},
                           {"includes", join(includes, "\n")},
                           {"entries", join(entries, "\n")},
                           {"extents", join(sizes, ", ")},
                           {"kernel", kernel.str()},
                           {"spec_file", model.specFileName},
                           {"runs_now", variants.size() > 1 && variants[1].pinned
                                            ? "1"
                                            : "-1"},
                           {"version", generatorVersion().str()}}))
    return error;
  return write("CMakeLists.txt", "tune_CMakeLists.txt.in",
               {{"name", model.name}, {"version", generatorVersion().str()}});
}

} // namespace stencilc
