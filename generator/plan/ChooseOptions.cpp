//===- ChooseOptions.cpp - The planner's choice of open kernel options ----===//

#include "plan/ChooseOptions.h"

#include "check/Check.h"
#include "plan/ChooseStorage.h"
#include "plan/MarchRules.h"
#include "plan/Plan.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace stencilc {

namespace {

/// Block shapes to weigh: 128 and 256 threads, x from 32 to 256 (whole
/// sectors per row), the rest over the slower axes.
std::vector<std::array<int, kMaxDims>> blockCandidates(const StencilModel &m) {
  if (m.layout.evenOdd) // every kernel takes a 1-D block of these threads
    return {{128, 1, 1, 1}, {64, 1, 1, 1}, {256, 1, 1, 1}};
  switch (m.dims) {
  case 1:
    return {{128, 1, 1, 1}, {256, 1, 1, 1}, {512, 1, 1, 1}};
  case 2:
    return {{256, 1, 1, 1}, {128, 2, 1, 1}, {64, 4, 1, 1}, {32, 8, 1, 1},
            {128, 1, 1, 1}, {64, 2, 1, 1}, {32, 4, 1, 1}};
  case 3:
    return {{256, 1, 1, 1}, {128, 2, 1, 1}, {64, 4, 1, 1}, {64, 2, 2, 1},
            {32, 4, 2, 1},  {32, 8, 1, 1},  {128, 1, 1, 1}, {64, 2, 1, 1},
            {32, 4, 1, 1},  {32, 2, 2, 1}};
  default:
    return {{256, 1, 1, 1}, {128, 2, 1, 1}, {64, 4, 1, 1}, {64, 2, 2, 1},
            {32, 4, 2, 1},  {32, 2, 2, 2}, {32, 8, 1, 1},  {128, 1, 1, 1},
            {64, 2, 1, 1},  {32, 4, 1, 1}, {32, 2, 2, 1}, {32, 2, 1, 2}};
  }
}

std::string tileText(const KernelOptions &k) {
  if (k.march)
    return std::string("the march along ") + axisName(k.tileAxis);
  if (k.tileFactor == 1)
    return "none";
  return std::string(axisName(k.tileAxis)) + " x " +
         std::to_string(k.tileFactor);
}

KernelPlan timedPlan(const StencilModel &model) {
  if (model.layout.evenOdd)
    return planHoppingKernel(model, KernelRole::Apply, Hop::EvenToOdd);
  return planKernel(model);
}

/// Groups of sites along x get their own kernels (model.alongX) when they
/// predict at most this fraction of the time of one site per thread. Below
/// a 1% predicted gain the H100 measured either way (anisotropic_reaction3d
/// 2.6% slower with groups, poisson3d_varcoeff 2% faster; both predicted
/// within 0.5%: docs/performance.md), so no second kernel set there.
constexpr double kAlongXGain = 0.99;
/// The widest row of sites a block of groups along x may cover, where the
/// planner chooses the block.
constexpr int kAlongXRowSites = 256;
/// The same for vector fields, whose lattices are short along x (4-D
/// lattice fields of 16 to 64 sites a row, 32 in the searches the cost
/// model was fitted to): wider rows leave threads of every block idle.
constexpr int kAlongXVectorRowSites = 32;

int alongXRowSites(const StencilModel &m) {
  return m.components > 1 ? kAlongXVectorRowSites : kAlongXRowSites;
}

/// Components per thread the planner weighs with groups along x of a vector
/// field: at most 6. With groups of 4 floats, 8 and 12 components per thread
/// measured 4-17% below 2 to 6 on the H100 at 32^3 x 64 for the same blocks
/// and tiles (docs/results/tune-laplacian4d_vec24_*-rows-shares-h100.json),
/// which the cost model, DRAM-bound for all of them, does not see.
constexpr int kAlongXVectorComponents = 6;

/// The sites along x that the threads of a block row cover: a site per
/// thread times its tile along x (the blocks sharing a site split its
/// components, by block or side by side, over the same row of sites).
int blockRowSites(const KernelOptions &k) {
  return k.block[0] * (k.tileAxis == 0 ? k.tileFactor : 1);
}

std::vector<int> vectorGroupShares(const StencilModel &m) {
  if (m.kernel.written.componentsPerThread)
    return {m.componentsPerThread()};
  std::vector<int> shares;
  for (int perThread = kAlongXVectorComponents; perThread >= 2; --perThread)
    if (m.components % perThread == 0 &&
        componentSplitProblem(m, perThread).empty())
      shares.push_back(perThread);
  if (shares.empty())
    shares.push_back(m.componentsPerThread());
  return shares;
}

/// Blocks the planner weighs for groups of `width` sites along x of a
/// vector field: rows of kAlongXVectorRowSites or half that, 128 or 256
/// threads, the rest of the block over the next axes.
std::vector<std::array<int, kMaxDims>> vectorGroupBlocks(int dims, int width) {
  std::vector<std::array<int, kMaxDims>> blocks;
  for (int row : {kAlongXVectorRowSites, kAlongXVectorRowSites / 2}) {
    const int x = row / width;
    if (x < 1)
      continue;
    for (int threads : {128, 256}) {
      const int rest = threads / x; // over y, z, t
      std::vector<std::array<int, kMaxDims>> shapes;
      switch (dims) {
      case 1:
        break;
      case 2:
        shapes = {{x, rest, 1, 1}};
        break;
      case 3:
        shapes = {{x, rest / 2, 2, 1}, {x, rest / 4, 4, 1}};
        break;
      default:
        shapes = {{x, rest / 4, 2, 2}, {x, rest / 2, 2, 1},
                  {x, rest / 4, 4, 1}, {x, rest / 8, 2, 4}};
        break;
      }
      for (const auto &shape : shapes)
        if (shape[1] >= 1)
          blocks.push_back(shape);
    }
  }
  return blocks;
}

/// Even/odd kernels of a site of at least this many bytes give each thread
/// half of it. 24 floats (96 bytes): half a site a thread ran the Schur
/// complement's hops 1.08x (32^3 x 64) and 1.19x (16^3 x 32) faster than
/// whole sites on the H100, and 1.01-1.08x on the H200 over four storages
/// at both sizes, each share with its best block; 8, 6 and 4 components a
/// thread ran slower than halves in every one of those searches
/// (docs/performance.md, "Half a site a thread for even/odd vector
/// fields"). The cost model ties halves and whole sites (67% against 68%
/// on the H100): it knows no lattice size, and a parity of a small lattice
/// gives a whole site's hop too few threads to hide its latency.
constexpr int kEvenOddHalfSiteBytes = 96;

/// The components a thread of an even/odd field's kernels updates where
/// the spec leaves it open (half a site, kEvenOddHalfSiteBytes, else all),
/// and the note that says why.
struct EvenOddShare {
  int perThread;
  std::string reason;
};

EvenOddShare evenOddShare(const StencilModel &m) {
  const int siteBytes = m.components * m.elementBytes();
  const std::string bytes = std::to_string(siteBytes);
  const std::string least = std::to_string(kEvenOddHalfSiteBytes);
  if (siteBytes < kEvenOddHalfSiteBytes)
    return {m.components, "even/odd kernels keep a site of " + bytes +
                              " bytes (under " + least + ") in one thread"};
  if (m.components % 2 != 0)
    return {m.components, "even/odd kernels keep a site of an odd number of "
                          "components in one thread"};
  const int half = m.components / 2;
  if (std::string problem = componentSplitProblem(m, half); !problem.empty())
    return {m.components, "even/odd kernels keep the site in one thread: "
                          "half of it (" +
                              std::to_string(half) + ") " + problem};
  return {half, "half a site a thread, a rule for even/odd kernels of sites "
                "of at least " +
                    least + " bytes (this one: " + bytes +
                    "): halves ran the hops up to 1.19x faster than whole "
                    "sites, which the cost model ties with them"};
}

/// Why `m` cannot take groups of `width` sites along x; empty if it can.
std::string groupsProblem(const StencilModel &m, int width) {
  StencilModel w = m;
  w.kernel.vectorWidth = width;
  std::string problem = siteVectorProblem(w, width);
  return problem.empty() ? stagingProblem(w) : problem;
}

/// Whether the planner weighs `m` with groups of `width` sites along x:
/// it can take them, and where the planner chose the block (the spec did
/// not write it), the block's row covers at most kAlongXRowSites sites (the
/// model does not know nx: rows that wide keep such lattices from idle
/// threads).
bool weighsGroups(const StencilModel &m, int width) {
  return groupsProblem(m, width).empty() &&
         (m.kernel.written.block ||
          m.kernel.block[0] * width <= alongXRowSites(m));
}

/// The inner precision's groups along x (NAME_inner_xW): `alongX`'s block
/// and tile with the width the cost model predicts fastest in that
/// precision, under the same rules as the spec's (rows of at most
/// kAlongXRowSites where the planner chose the block, at least a
/// kAlongXGain gain over the inner kernels' one site per thread); none if
/// no width qualifies.
std::optional<KernelOptions> innerAlongX(const StencilModel &model,
                                         const KernelOptions &alongX,
                                         const DeviceModel &device) {
  StencilModel inner = innerKernelsModel(model);
  const double single = predictedCost(inner, device).picosecondsPerSite;
  std::optional<KernelOptions> best;
  double fastest = kAlongXGain * single;
  for (int width : {2, 4}) {
    StencilModel m = inner;
    m.kernel = alongX;
    m.kernel.vectorWidth = width;
    if (!weighsGroups(m, width))
      continue;
    if (double ps = predictedCost(m, device).picosecondsPerSite;
        ps <= fastest) {
      fastest = ps;
      best = m.kernel;
    }
  }
  return best;
}

struct Candidate {
  StencilModel model;
  KernelCost cost;
};

/// One option as the notes print it, and how to read it from a model;
/// `fixed` says why the planner has no choice, where it has none.
struct OptionView {
  const char *option;
  bool written;
  std::function<std::string(const StencilModel &)> value;
  std::string fixed;
};

/// A second kernel set for CG's fold pass alone: the same threshold as
/// for groups along x.
constexpr double kFoldPassGain = kAlongXGain;

/// The planner's choice for CG's fold pass in one precision, and what the
/// notes say of it.
struct FoldChoice {
  /// None: the fold pass runs with the kernels chosen for apply.
  std::optional<KernelOptions> options;
  std::string value, reason;
};

/// Weighs `kernels` for the fold pass of `running`'s stencil against
/// `running`'s own kernels (described as `runningText`), which would run it
/// otherwise.
FoldChoice chooseFoldPass(const StencilModel &running,
                          const std::string &runningText,
                          const std::vector<KernelOptions> &kernels,
                          const DeviceModel &device) {
  FoldChoice choice;
  choice.value = "the kernels chosen for apply";
  const std::optional<KernelCost> standing = predictedFoldCost(running, device);
  if (!standing) {
    choice.reason = runningText + " have no fold pass";
    return choice;
  }
  std::optional<StencilModel> fastest;
  KernelCost fastestCost;
  for (const KernelOptions &k : kernels) {
    StencilModel m = running;
    m.kernel = k;
    std::optional<KernelCost> cost = predictedFoldCost(m, device);
    if (cost && (!fastest ||
                 cost->picosecondsPerSite < fastestCost.picosecondsPerSite)) {
      fastest = std::move(m);
      fastestCost = *cost;
    }
  }
  const std::string weighed =
      " (" + std::to_string(kernels.size()) + " candidates weighed)";
  if (!fastest || fastestCost.picosecondsPerSite >
                      kFoldPassGain * standing->picosecondsPerSite) {
    choice.reason = "no candidate predicts a fold pass (r and p read at "
                    "every tap) 1% faster than " +
                    runningText + " (" +
                    percentText(standing->predictedFraction()) + ")" + weighed;
    return choice;
  }
  const KernelOptions &k = fastest->kernel;
  const std::string name = running.name + "_fold";
  const int group = fastest->sitesPerThreadX();
  choice.options = k;
  choice.value = name + ": block " + blockShapeText(*fastest) + ", tile " +
                 tileText(k) + ", vector_width " +
                 std::to_string(k.vectorWidth);
  choice.reason =
      percentText(fastestCost.predictedFraction()) +
      " of the copy bandwidth predicted for the fold pass (r and p read at "
      "every tap) against " +
      percentText(standing->predictedFraction()) + " with " + runningText +
      "; CG's fold pass runs from " + name +
      (group > 1 ? " where nx is a multiple of " + std::to_string(group)
                 : std::string()) +
      weighed;
  return choice;
}

/// CG's fold pass reads r and p at every tap, twice the stencil's loads,
/// and its best options need not be apply's. Sets chosen.foldPass (and
/// innerFoldPass) where other options predict a fold pass at least
/// kFoldPassGain faster than the kernels that would run it (the planner's
/// groups along x where it chose some, else `chosen`'s own), and returns
/// the note saying what it chose; none where `chosen`'s kernels have no
/// fold pass. The options weighed: `candidates`' (apply's), and with groups
/// of 2 and 4 sites along x where the spec leaves the width open.
std::optional<KernelOptionNote>
chooseFoldPasses(StencilModel &chosen, const std::vector<Candidate> &candidates,
                 bool widthWritten, const DeviceModel &device) {
  if (!predictedFoldCost(chosen, device))
    return std::nullopt;
  // `base`'s precision decides which widths it can take.
  auto weighed = [&](const StencilModel &base) {
    std::vector<KernelOptions> kernels;
    for (const Candidate &c : candidates) {
      kernels.push_back(c.model.kernel);
      if (widthWritten)
        continue;
      for (int width : {2, 4}) {
        StencilModel m = base;
        m.kernel = c.model.kernel;
        m.kernel.vectorWidth = width;
        if (weighsGroups(m, width))
          kernels.push_back(m.kernel);
      }
    }
    return kernels;
  };
  // The kernels that would run the fold pass otherwise, and their text.
  auto running = [](StencilModel m,
                    const std::optional<KernelOptions> &groups) {
    std::string text = "the kernels chosen for apply";
    if (groups) {
      m.kernel = *groups;
      const std::string w = std::to_string(groups->vectorWidth);
      text = "the kernels for nx a multiple of " + w + ", " + m.name + "_x" + w;
    }
    return std::pair{m, text};
  };
  const auto [outer, outerText] = running(chosen, chosen.alongX);
  const FoldChoice fold =
      chooseFoldPass(outer, outerText, weighed(chosen), device);
  chosen.foldPass = fold.options;
  KernelOptionNote note{"fold_pass", fold.value, false, fold.reason};
  if (chosen.largeAlongX && chosen.alongX && !chosen.foldPass)
    note.reason += "; where the groups march (large lattices), CG's fold "
                   "pass keeps them unmarched (on an H200 the march's fold "
                   "kernel ran CG 1.1% slower at 48^3 x 64)";
  if (chosen.hasInner) {
    const StencilModel innerKernels = innerKernelsModel(chosen);
    const auto [inner, innerText] = running(innerKernels, chosen.innerAlongX);
    const FoldChoice innerFold =
        chooseFoldPass(inner, innerText, weighed(innerKernels), device);
    chosen.innerFoldPass = innerFold.options;
    note.reason += "; the inner precision's fold pass: " + innerFold.value +
                   ", " + innerFold.reason;
  }
  return note;
}

} // namespace

bool optionsAdmissible(const StencilModel &m) {
  const KernelOptions &k = m.kernel;
  if (k.launchBounds && k.launchBounds < k.threadsPerBlock())
    return false;
  if (k.minBlocksPerSm * k.threadsPerBlock() > kMaxThreadsPerMultiprocessor)
    return false;
  return componentSplitProblem(m, k.componentsPerThread).empty() &&
         stagingProblem(m).empty() && marchProblem(m).empty();
}

KernelCost predictedCost(const StencilModel &model,
                         const DeviceModel &device) {
  return estimateCost(model, timedPlan(model), device);
}

std::optional<KernelCost> predictedFoldCost(const StencilModel &model,
                                            const DeviceModel &device) {
  if (std::optional<KernelPlan> fold = planFoldPass(model))
    return estimateCost(model, *fold, device);
  return std::nullopt;
}

StencilModel withKernelOptionsOpen(const StencilModel &model) {
  StencilModel m = model;
  m.name = model.name + "_auto";
  KernelOptions &k = m.kernel;
  k.tileAxis = 0;
  k.tileFactor = 1;
  k.loadOrder = LoadOrder::Ascending;
  k.loadOrderText.clear();
  k.tapOrder.clear();
  k.nontemporalStore = false;
  k.vectorWidth = 1;
  k.componentsPerThread = m.components;
  k.minBlocksPerSm = 0;
  k.slab = KernelOptions::kSlabAuto;
  k.march = false; // the cost model does not weigh the march yet
  k.written = KernelOptions::Written();
  k.launchBounds = k.threadsPerBlock();
  m.optionNotes.clear();
  m.alongX.reset();
  m.largeAlongX.reset();
  m.innerAlongX.reset();
  m.foldPass.reset();
  m.innerFoldPass.reset();
  m.description = "The cost model's choice of every kernel option for " +
                  model.name + ". " + model.description;
  return m;
}

OptionSearch chooseOpenOptions(StencilModel &model,
                               const DeviceModel &device) {
  std::vector<KernelOptionNote> storageNotes = chooseLinkStorage(model);
  std::optional<KernelOptionNote> layoutNote = chooseFieldLayout(model);
  const KernelOptions::Written &written = model.kernel.written;
  const bool evenOdd = model.layout.evenOdd;

  // The values each open option may take; a written one keeps its own.
  std::vector<std::array<int, kMaxDims>> blocks = {model.kernel.block};
  if (!written.block)
    blocks = blockCandidates(model);
  std::vector<std::pair<int, int>> tiles = {
      {model.kernel.tileAxis, model.kernel.tileFactor}};
  if (!written.tile && !evenOdd && !model.kernel.march) {
    tiles = {{0, 1}}; // no tile: the checker's spelling
    // Vector fields hold a tile site's components in registers: 2 at most.
    const std::vector<int> factors =
        model.components > 1 ? std::vector<int>{2} : std::vector<int>{2, 4};
    for (int axis = 1; axis < model.dims; ++axis)
      for (int factor : factors)
        tiles.push_back({axis, factor});
  }
  std::vector<int> widths = {model.kernel.vectorWidth};
  if (!written.vectorWidth && model.components > 1)
    for (int width : {2, 4})
      if (componentVectorProblem(model, width).empty())
        widths.push_back(width);
  std::vector<int> shares = {model.componentsPerThread()};
  const EvenOddShare halfSite =
      evenOdd ? evenOddShare(model) : EvenOddShare{model.components, ""};
  if (!written.componentsPerThread && evenOdd)
    shares = {halfSite.perThread};
  else if (!written.componentsPerThread && model.components > 1)
    for (int groups : {2, 3, 4, 6})
      if (model.components % groups == 0)
        shares.push_back(model.components / groups);

  // Link stencils: each tap's link and neighbour together (as written) or
  // the neighbours in memory order first (registers hold them meanwhile).
  std::vector<LoadOrder> orders = {model.kernel.loadOrder};
  if (!written.loadOrder && model.hasLinkTaps())
    orders = {LoadOrder::Ascending, LoadOrder::AsWritten};

  // A minimum of resident blocks lets the compiler use every register a
  // thread wants (launch bounds then needed); none leaves it its own cap.
  std::vector<int> minBlocks = {model.kernel.minBlocksPerSm};
  if (!written.minBlocksPerSm && !written.launchBounds)
    minBlocks = {0, 1};

  std::vector<Candidate> candidates;
  for (int minimum : minBlocks)
  for (LoadOrder order : orders)
  for (int width : widths)
    for (int share : shares)
      for (const auto &block : blocks)
        for (auto [axis, factor] : tiles) {
          StencilModel m = model;
          KernelOptions &k = m.kernel;
          k.block = block;
          k.tileAxis = axis;
          k.tileFactor = factor;
          k.vectorWidth = width;
          k.componentsPerThread = share;
          if (!written.loadOrder) {
            k.loadOrder = order;
            k.loadOrderText.clear();
            k.tapOrder.clear();
          }
          if (!written.launchBounds)
            k.launchBounds = k.threadsPerBlock();
          if (!written.minBlocksPerSm)
            k.minBlocksPerSm = minimum;
          if (!optionsAdmissible(m))
            continue;
          // Vector fields live on lattices with short rows (4-D, 16 to 64
          // sites): a block row of more sites would idle threads there,
          // which the model, knowing no nx, does not see.
          if (!written.block && !evenOdd && model.components > 1 &&
              blockRowSites(m.kernel) > kAlongXVectorRowSites)
            continue;
          KernelCost cost = predictedCost(m, device);
          candidates.push_back({std::move(m), cost});
        }

  OptionSearch search;
  search.candidates = static_cast<int>(candidates.size());
  if (candidates.empty()) // every option written and nothing to weigh
    candidates.push_back({model, predictedCost(model, device)});
  const Candidate *best = &candidates.front();
  for (const Candidate &c : candidates)
    if (c.cost.picosecondsPerSite < best->cost.picosecondsPerSite)
      best = &c;
  search.chosen = best->cost;

  // The notes: each option's value, and for a chosen one the best
  // candidate with another value of it, for comparison.
  const bool single = model.components == 1;
  const std::vector<OptionView> views = {
      {"block", written.block, blockShapeText, ""},
      {"tile", written.tile,
       [](const StencilModel &m) { return tileText(m.kernel); },
       evenOdd ? "even/odd kernels take no tile (a thread updates one site or "
                 "its share of one)"
               : ""},
      {"vector_width", written.vectorWidth,
       [](const StencilModel &m) {
         return std::to_string(m.kernel.vectorWidth);
       },
       ""},
      {"components_per_thread", written.componentsPerThread,
       [](const StencilModel &m) {
         return std::to_string(m.componentsPerThread());
       },
       single ? "one component per site" : halfSite.reason},
  };
  const std::string predicted = percentText(best->cost.predictedFraction()) +
                                " of the copy bandwidth on " + device.name +
                                " predicted (limit: " + best->cost.limit + ")";
  const std::string searched =
      " (" + std::to_string(search.candidates) + " candidates weighed)";
  // The cheapest candidate whose `value` differs from the choice's.
  auto bestOther = [&](auto value) -> const Candidate * {
    const Candidate *other = nullptr;
    for (const Candidate &c : candidates)
      if (value(c.model) != value(best->model) &&
          (!other ||
           c.cost.picosecondsPerSite < other->cost.picosecondsPerSite))
        other = &c;
    return other;
  };
  // The choice's prediction beside the best alternative's ("the best with
  // tile y x 2: 93%"), and how many candidates were weighed.
  auto compared = [&](const Candidate *other, const std::string &label,
                      const std::string &why) {
    std::string reason = predicted;
    if (other)
      reason += "; the best " + label + ": " +
                percentText(other->cost.predictedFraction()) + why;
    return reason + searched;
  };
  std::vector<KernelOptionNote> notes;
  for (const OptionView &view : views) {
    KernelOptionNote note;
    note.option = view.option;
    note.value = view.value(best->model);
    note.written = view.written;
    if (!view.written && !view.fixed.empty()) {
      note.reason = "fixed: " + view.fixed;
    } else if (!view.written) {
      const Candidate *other = bestOther(view.value);
      note.reason = compared(other,
                             other ? "with " + std::string(view.option) + " " +
                                         view.value(other->model)
                                   : "",
                             "");
    }
    notes.push_back(std::move(note));
  }
  // The spec's own kernels of a 4-D site-major float field march where
  // the cost model's choice moves one vector a tap: a rule, which the
  // notes set beside the cost model's choice.
  const std::optional<MarchRule> sitesMarch = marchingVectorSites(best->model);
  if (sitesMarch) {
    StencilModel marched = best->model;
    marched.kernel = sitesMarch->options;
    KernelOptionNote &block = notes[0], &tile = notes[1], &perThread = notes[3];
    if (!block.written && block.value != blockShapeText(marched)) {
      block.reason = "a rule with the march (its threads along t move to "
                     "z); the cost model chose " +
                     block.value + ": " + block.reason;
      block.value = blockShapeText(marched);
    }
    tile.reason = "a rule, not the cost model: " + sitesMarch->reason +
                  " (the cost model chose tile " + tile.value + ": " +
                  tile.reason + ")";
    tile.value = tileText(sitesMarch->options);
    const std::string marchedPerThread = views[3].value(marched);
    if (!perThread.written && perThread.value != marchedPerThread) {
      perThread.reason = "a rule with the march (" + sitesMarch->share +
                         "); the cost model chose " + perThread.value + ": " +
                         perThread.reason;
      perThread.value = marchedPerThread;
    }
  }
  const KernelOptions &runs =
      sitesMarch ? sitesMarch->options : best->model.kernel;
  // Single-component fields, and each component's row of a component-major
  // vector field: groups of sites along x per access need nx a multiple of
  // the width (rows start aligned), which the spec's kernels must not ask
  // of every lattice. Where groups predict a faster kernel the planner
  // chooses a second set of options for the lattices that allow them
  // (model.alongX), compiled beside the spec's; the runtime picks by nx.
  // Vector fields weigh narrower blocks along x (alongXRowSites).
  std::optional<KernelOptions> alongX, largeAlongX, innerGroups;
  const bool componentRows = !single && model.groupsSitesAlongX();
  if ((single || componentRows) && !written.vectorWidth && !evenOdd) {
    const Candidate *grouped = nullptr;
    std::vector<Candidate> widened;
    for (int width : {2, 4})
      for (const Candidate &c : candidates) {
        if (!componentRows) {
          StencilModel m = c.model;
          m.kernel.vectorWidth = width;
          if (weighsGroups(m, width))
            widened.push_back({m, predictedCost(m, device)});
          continue;
        }
        // Each candidate's other options once, over the narrow blocks and
        // the shares that suit groups. A written block stands where its row
        // stays that narrow; a wider one would idle most of its threads on
        // such lattices, so the groups' kernels take a narrow one instead
        // (the note names it).
        if (c.model.kernel.block != candidates.front().model.kernel.block ||
            c.model.kernel.componentsPerThread !=
                candidates.front().model.kernel.componentsPerThread)
          continue;
        std::vector<std::array<int, kMaxDims>> blocks =
            vectorGroupBlocks(model.dims, width);
        if (written.block &&
            c.model.kernel.block[0] * width <= kAlongXVectorRowSites)
          blocks = {c.model.kernel.block};
        for (const auto &block : blocks)
        for (int perThread : vectorGroupShares(c.model)) {
          StencilModel m = c.model;
          KernelOptions &k = m.kernel;
          k.vectorWidth = width;
          k.block = block;
          k.componentsPerThread = perThread;
          if (!written.launchBounds)
            k.launchBounds = k.threadsPerBlock();
          if (optionsAdmissible(m) && groupsProblem(m, width).empty())
            widened.push_back({m, predictedCost(m, device)});
        }
      }
    for (const Candidate &c : widened)
      if (!grouped ||
          c.cost.picosecondsPerSite < grouped->cost.picosecondsPerSite)
        grouped = &c;
    KernelOptionNote &note = notes[2];
    note.value = "1";
    if (!grouped) {
      const std::string problem = groupsProblem(best->model, 2);
      note.reason = "one site per thread; groups of sites along x: " +
                    (problem.empty() ? "no candidate block spans at most " +
                                           std::to_string(alongXRowSites(
                                               best->model)) +
                                           " sites along x with them"
                                     : problem);
    } else if (grouped->cost.picosecondsPerSite >
               kAlongXGain * best->cost.picosecondsPerSite) {
      note.reason =
          "one site per thread: groups of " +
          std::to_string(grouped->model.kernel.vectorWidth) +
          " sites along x predict " +
          percentText(grouped->cost.predictedFraction()) +
          ", too little gain for a second kernel (one site per thread: " +
          percentText(best->cost.predictedFraction()) + ")";
    } else {
      const KernelOptions &k = grouped->model.kernel;
      const std::string w = std::to_string(k.vectorWidth);
      alongX = k;
      note.reason = "1 for every nx; " + w + " where nx is a multiple of " + w +
                    " (" + model.name + "_x" + w + ": block " +
                    blockShapeText(grouped->model) + ", tile " + tileText(k) +
                    ", vector_width " + w + "; the runtime picks it by nx): " +
                    percentText(grouped->cost.predictedFraction()) +
                    " predicted against " +
                    percentText(best->cost.predictedFraction()) + " (" +
                    std::to_string(widened.size()) + " candidates weighed)";
      if (std::optional<MarchRule> marching = marchingGroups(grouped->model)) {
        alongX = marching->options;
        StencilModel shown = grouped->model;
        shown.kernel = marching->options;
        note.reason +=
            "; it marches along " + std::string(axisName(shown.dims - 1)) +
            " instead of that tile, block " + blockShapeText(shown) +
            " (a rule, not the cost model: " + marching->reason + ")";
      } else if (std::optional<MarchRule> rows =
                     marchingComponentRows(grouped->model)) {
        largeAlongX = rows->options;
        StencilModel shown = grouped->model;
        shown.kernel = rows->options;
        note.reason +=
            "; where two slices along " +
            std::string(axisName(shown.dims - 1)) + " of traffic exceed " +
            std::to_string(kRowMarchL2Percent) +
            "% of the device's L2 they march along it (" + model.name + "_x" +
            w + "_march: block " + blockShapeText(shown) + ", " +
            std::to_string(rows->options.componentsPerThread) +
            " components a thread; a rule, not the cost model: " +
            rows->reason + ")";
      }
      if (model.hasInner) {
        innerGroups = innerAlongX(best->model, k, device);
        note.reason +=
            innerGroups
                ? "; the inner precision's kernels " +
                      innerKernelsModel(model).name + "_x" +
                      std::to_string(innerGroups->vectorWidth)
                : std::string("; the inner precision's kernels: one site per "
                              "thread (groups predict no gain there)");
      }
    }
  }
  {
    KernelOptionNote note;
    note.option = "launch_bounds";
    note.value = std::to_string(runs.launchBounds);
    note.written = written.launchBounds;
    if (!note.written)
      note.reason = "the block's threads, so that the compiler budgets "
                    "registers for it";
    notes.push_back(std::move(note));
  }
  {
    KernelOptionNote note;
    note.option = "min_blocks_per_sm";
    note.value = std::to_string(runs.minBlocksPerSm);
    note.written = written.minBlocksPerSm || written.launchBounds;
    if (!note.written) {
      const int minimum = best->model.kernel.minBlocksPerSm;
      if (sitesMarch)
        note.reason = "a rule with the march: " + sitesMarch->minimum +
                      " (the cost model chose " + std::to_string(minimum) + ")";
      else if (minimum > 0)
        note.reason = "up to " + std::to_string(best->cost.registers) +
                      " registers a thread: a link tap's product wants its "
                      "link and its neighbour in registers together, past "
                      "the compiler's own budget for link stencils";
      else if (best->cost.spilledRegisters > 0)
        note.reason = "the compiler's own register budget, " +
                      std::to_string(best->cost.spilledRegisters) +
                      " registers short of what a thread wants";
      else
        note.reason = "the compiler's own register budget holds the "
                      "thread's estimated " +
                      std::to_string(best->cost.registers) + " registers";
    }
    notes.push_back(std::move(note));
  }
  {
    KernelOptionNote note;
    note.option = "load_order";
    const KernelOptions &k = best->model.kernel;
    note.value = k.loadOrder == LoadOrder::Explicit ? k.loadOrderText
                                                    : loadOrderName(k.loadOrder);
    note.written = written.loadOrder;
    if (!note.written && orders.size() > 1) {
      const Candidate *other = bestOther([](const StencilModel &m) {
        return m.kernel.loadOrder;
      });
      note.reason = compared(
          other,
          other ? loadOrderName(other->model.kernel.loadOrder) : "",
          " (a link's neighbour waits in registers until the link arrives)");
    } else if (!note.written) {
      note.reason = "memory order: each row once, the rows in address order";
    }
    notes.push_back(std::move(note));
  }
  notes.push_back({"nontemporal_store",
                   best->model.kernel.nontemporalStore ? "true" : "false",
                   written.stores,
                   written.stores ? ""
                                  : "regular stores: the solver reads the "
                                    "output again soon"});
  // Named only where the spec writes it or stages: the cost model does not
  // weigh shared memory, so the planner never chooses it.
  if (written.staging || model.kernel.staging == Staging::Shared)
    notes.push_back(
        {"staging", stagingName(model.kernel.staging), written.staging,
         written.staging ? ""
                         : "registers, the default: the cost model does not "
                           "weigh shared-memory staging"});
  // Named only where the spec writes it or a rule marches the spec's own
  // kernels: the cost model does not weigh the march (docs/performance.md,
  // "Marching along z").
  if (written.march)
    notes.push_back({"march", model.kernel.march ? "true" : "false", true, ""});
  else if (sitesMarch)
    notes.push_back(
        {"march", "true", false, "a rule, not the cost model (see tile)"});
  StencilModel chosen = best->model;
  chosen.kernel = runs;
  chosen.alongX = alongX;
  chosen.largeAlongX = largeAlongX;
  chosen.innerAlongX = innerGroups;
  if (sitesMarch) {
    // The cost model, blind to the march, would weigh unmarched fold
    // kernels against it. The marching fold kernel keeps no resident
    // minimum (planFoldPass); on an H200 it so ran CG's fold pass of the
    // 24-float field level with the cost model's apply options unmarched
    // (docs/results/h200-fold-march.txt).
    if (predictedFoldCost(chosen, device))
      notes.push_back({"fold_pass", "the kernels chosen for apply", false,
                       "they march (a rule), the fold kernel without the "
                       "resident minimum, and the cost model does not weigh "
                       "the march against other fold kernels"});
  } else if (std::optional<KernelOptionNote> fold = chooseFoldPasses(
                 chosen, candidates, written.vectorWidth, device)) {
    notes.push_back(std::move(*fold));
  }
  notes.insert(notes.begin(), storageNotes.begin(), storageNotes.end());
  if (layoutNote)
    notes.insert(notes.begin(), std::move(*layoutNote));
  chosen.optionNotes = std::move(notes);
  model = std::move(chosen);
  return search;
}

} // namespace stencilc
