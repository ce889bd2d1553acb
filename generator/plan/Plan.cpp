//===- Plan.cpp - From the model to each kernel's plan --------------------===//
//
// Each function below makes one kind of decision for a plan; planKernel and
// planHoppingKernel call them in order. The printers in generator/emit
// only spell what they decided.
//
//===----------------------------------------------------------------------===//
#include "plan/Plan.h"

#include "plan/Schedule.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

namespace stencilc {

StencilModel modelForRole(const StencilModel &model, KernelRole role) {
  return role == KernelRole::Adjoint ? transposedModel(model) : model;
}

const char *hopName(Hop hop) {
  switch (hop) {
  case Hop::EvenToOdd:
    return "even-to-odd";
  case Hop::OddToEven:
    return "odd-to-even";
  case Hop::None:
    break;
  }
  return "";
}

bool hasFusedDotKernel(const StencilModel &model) {
  return model.solver == Solver::CG && !model.layout.evenOdd &&
         model.kernel.threadsPerBlock() % 64 == 0;
}

namespace {

/// Whether the whole-lattice kernels walk both halves of an even/odd field
/// (ThreadMappingKind::BothHalves) rather than the lattice grid.
bool walksBothHalves(const StencilModel &model) {
  return model.layout.evenOdd;
}

/// out, in, [same and the hop mode's scalars], the extents, [blocks_z],
/// [the spec's parameters].
/// The hopping kernels' walk: the spec's kernel.slab, where it can differ
/// from storage order (lattices of 3 axes or more).
int hoppingSlab(const StencilModel &model) {
  return model.dims >= 3 ? model.kernel.slab : 1;
}

std::vector<KernelParameter> kernelParameters(const StencilModel &model,
                                              bool hopping) {
  std::vector<KernelParameter> params = {{ParameterKind::OutField, "out"},
                                         {ParameterKind::InField, "in"}};
  if (hopping) {
    params.push_back({ParameterKind::SameField, "same"});
    params.push_back({ParameterKind::HopMode, "hop_mode"});
    params.push_back({ParameterKind::HopAlpha, "hop_alpha"});
    params.push_back({ParameterKind::HopBeta, "hop_beta"});
  }
  for (int axis = 0; axis < model.dims; ++axis)
    params.push_back(
        {ParameterKind::Extent, std::string("n") + axisName(axis)});
  if (model.kernel.march)
    params.push_back({ParameterKind::MarchPlanes, "planes"});
  // Only the 4-D lattice grid packs z and t into the launch's z.
  if (model.dims == 4 && !hopping && !walksBothHalves(model))
    params.push_back({ParameterKind::BlocksZ, "blocks_z"});
  if (hopping && hoppingSlab(model) != 1)
    params.push_back({ParameterKind::Slab, "slab"});
  // The spec's parameters and the link array travel in `params`.
  if (!model.parameters.empty() || model.hasLinkTaps())
    params.push_back({ParameterKind::Params, "params"});
  return params;
}

/// The whole-lattice grid: threads start past the halo along Dirichlet
/// axes, and own a tile of sites along the tile axis.
ThreadMapping latticeThreads(const StencilModel &model) {
  ThreadMapping mapping;
  mapping.kind = ThreadMappingKind::Lattice;
  mapping.dims = model.dims;
  LatticeThreads &t = mapping.lattice;
  t.block = model.kernel.block;
  t.zSharesWithT = model.dims == 4;
  t.shares.perThread = model.components;
  for (int axis = 0; axis < model.dims; ++axis) {
    if (axis == model.kernel.tileAxis)
      t.sitesPerThread[axis] *= model.kernel.tileFactor;
    if (!model.wraps(axis))
      t.origin[axis] = model.reach[axis];
  }
  return mapping;
}

/// The whole-lattice grid of an even/odd field: both halves in runs of 32
/// sites that alternate between them (ThreadMappingKind::BothHalves).
ThreadMapping bothHalvesThreads(const StencilModel &model) {
  ThreadMapping mapping;
  mapping.kind = ThreadMappingKind::BothHalves;
  mapping.dims = model.dims;
  mapping.half.threadsPerBlock = model.kernel.threadsPerBlock();
  mapping.half.shares.perThread = model.components;
  return mapping;
}

} // namespace

/// Coordinates of the (axis, delta) rows that `offsets` touch, for the
/// indexings that compute addresses from coordinates.
std::vector<Coordinate> neighbourCoordinates(const StencilModel &model,
                                             const std::vector<Offset> &offsets,
                                             int tileAxis, int xWidth) {
  std::set<std::pair<int, int>> deltas;
  for (const Offset &offset : offsets)
    for (int axis = 0; axis < model.dims; ++axis)
      if (offset[axis] != 0)
        deltas.insert({axis, offset[axis]});
  std::vector<Coordinate> coordinates;
  for (auto [axis, delta] : deltas) {
    Coordinate c;
    c.axis = axis;
    c.delta = delta;
    // Inside the thread's aligned group (nx a multiple of its width) a
    // site never leaves the row: no wrap, no clamp.
    const bool inGroup = axis == 0 && delta > 0 && delta < xWidth;
    if (inGroup)
      c.kind = CoordinateKind::Shift;
    else if (model.wraps(axis))
      c.kind = CoordinateKind::Wrap;
    else if (axis == tileAxis && delta > model.reach[axis])
      c.kind = CoordinateKind::ClampAbove;
    else if (axis == 0 && xWidth > 1)
      c.kind =
          delta < 0 ? CoordinateKind::ClampXBelow : CoordinateKind::ClampXAbove;
    coordinates.push_back(c);
  }
  return coordinates;
}

namespace {

/// The part of a coefficient every site shares: constant and scalar terms.
LinearForm scalarPart(const StencilModel &model, const Coefficient &c) {
  LinearForm form{c.constant, {}};
  for (const CoefficientTerm &term : c.terms)
    if (!model.parameters[term.parameter].site)
      form.terms.push_back({model.parameters[term.parameter].name, term.factor});
  return form;
}

/// The coefficient-field terms of `c`, read from `from` plus their shifts.
std::vector<SiteTerm> fieldTerms(const StencilModel &model,
                                 const Coefficient &c, const SiteRef &from) {
  std::vector<SiteTerm> terms;
  for (const CoefficientTerm &term : c.terms) {
    if (!model.parameters[term.parameter].site)
      continue;
    const Parameter &param = model.parameters[term.parameter];
    SiteTerm t{param.name, term.factor, from, param.complex, term.conjugate};
    for (int axis = 0; axis < kMaxDims; ++axis)
      t.at.offset[axis] += term.shift[axis];
    terms.push_back(std::move(t));
  }
  return terms;
}

/// Whether `c` reads a coefficient field.
bool hasFieldTerms(const StencilModel &model, const Coefficient &c) {
  return llvm::any_of(c.terms, [&](const CoefficientTerm &term) {
    return model.parameters[term.parameter].site;
  });
}

/// One weight per distinct coefficient, named w0, w1, ... in tap order;
/// `tapWeight` receives each tap's name ("" for a skipped tap). A
/// coefficient made only of fields has its name (its site weights use it)
/// but no Weight: its shared part is 0.
std::vector<Weight> planWeights(const StencilModel &model, int skippedTap,
                                std::vector<std::string> &tapWeight) {
  std::map<std::string, std::string> byText;
  std::vector<Weight> weights;
  for (size_t t = 0; t < model.taps.size(); ++t) {
    if (static_cast<int>(t) == skippedTap) {
      tapWeight.push_back("");
      continue;
    }
    const Coefficient &c = model.taps[t].coefficient;
    auto [it, inserted] = byText.emplace(coefficientText(model, c),
                                         "w" + std::to_string(byText.size()));
    LinearForm shared = scalarPart(model, c);
    if (inserted && !(shared.isZero() && hasFieldTerms(model, c)))
      weights.push_back({it->second, shared});
    tapWeight.push_back(it->second);
  }
  return weights;
}

/// Whether planWeights declared a Weight named `name`.
bool declaresWeight(const std::vector<Weight> &weights,
                    const std::string &name) {
  return llvm::any_of(weights,
                      [&](const Weight &w) { return w.name == name; });
}

/// The values of a site of one parity's half: site-major halves index the
/// half directly, other orders through stencil::order_element() (a group
/// of the layout's vector adjacent values per access).
FieldAccess halfAccess(const StencilModel &model) {
  FieldAccess access;
  access.components = access.perThread = model.components;
  access.layout = model.layout;
  access.width = model.siteValuesPerAccess();
  if (model.components == 1)
    access.kind = AccessKind::Scalar;
  else if (model.layout.order != LayoutOrder::SiteMajor)
    access.kind = AccessKind::HalfOrder;
  else if (access.width > 1)
    access.kind = AccessKind::SiteMajorVector;
  else
    access.kind = AccessKind::SiteMajor;
  return access;
}

/// 0 or 1: the parity a step by `offset` changes a site's parity by.
int stepParity(const Offset &offset) {
  int steps = 0;
  for (int delta : offset)
    steps += std::abs(delta);
  return steps % 2;
}

/// Bytes of coefficient fields per output site: each field once, or in a
/// hopping kernel, whose threads cover one parity, once per parity of the
/// sites it is read at (an array read at the thread's site and at a
/// neighbour touches both halves).
int fieldBytesPerSite(const StencilModel &model, bool hopping) {
  if (!hopping)
    return siteParameterReals(model) * model.arrayElementBytes();
  std::set<std::pair<int, int>> fields; // (parameter, parity of the shift)
  for (const Tap &tap : model.taps)
    for (const CoefficientTerm &term : tap.coefficient.terms)
      if (model.parameters[term.parameter].site)
        fields.insert({term.parameter, stepParity(term.shift)});
  int reals = 0;
  for (const auto &field : fields)
    reals += model.parameters[field.first].realsPerSite();
  return reals * model.arrayElementBytes();
}

/// Bytes of links per output site: each axis' matrices once, or in a
/// hopping kernel each (axis, direction) once: the forward links lie in
/// the thread's half, the backward ones in the other.
int linkBytesPerSite(const StencilModel &model, bool hopping) {
  std::set<std::pair<int, bool>> links;
  for (const Tap &tap : model.taps)
    if (tap.link)
      links.insert({linkAxis(tap), hopping && isForwardLink(tap)});
  return static_cast<int>(links.size()) * model.links.realsPerLink() *
         model.arrayElementBytes();
}

/// Flops of one site's clover product (stencil/clover_algebra.hpp): per
/// chiral block 2N real diagonal entries times a complex value (2 flops) and
/// N (2N - 1) lower entries, each two complex multiply-adds (8 flops).
int cloverFlops(int colours) {
  return 2 * (4 * colours + 16 * colours * (2 * colours - 1));
}

void setTraffic(const StencilModel &model, bool hopping, KernelPlan &plan) {
  const int siteBytes = model.components * model.elementBytes();
  // Coefficient fields and links are read once per site, like the input.
  plan.linkBytesPerSite = linkBytesPerSite(model, hopping);
  plan.bytesReadPerSite =
      siteBytes + fieldBytesPerSite(model, hopping) + plan.linkBytesPerSite;
  plan.bytesWrittenPerSite = siteBytes;
  const int summed = static_cast<int>(model.taps.size()) - (hopping ? 1 : 0);
  plan.flopsPerSite = model.components * (2 * summed - 1);
  // The clover term (whole-lattice kernels; a hop's kHop has none): its
  // array once per site, a Hermitian block product instead of the centre
  // tap's multiply.
  if (!hopping && model.hasCloverTap()) {
    plan.bytesReadPerSite +=
        model.cloverComponents() * model.arrayElementBytes();
    plan.flopsPerSite += cloverFlops(model.links.colours) - model.components;
  }
  // A link tap's N x N complex matrix times each colour vector: N^2 complex
  // multiplies (6 flops) and N (N - 1) complex adds (2 flops).
  const int n = model.links.colours;
  for (const Tap &tap : model.taps) {
    if (!tap.link)
      continue;
    // A spin projector halves the products: per spinor, two colour vectors
    // (1 + s gamma) v (2N complex adds) times the link.
    if (tap.spin != 0)
      plan.flopsPerSite +=
          model.colourVectors() / 4 * (2 * (8 * n * n - 2 * n) + 4 * n);
    else
      plan.flopsPerSite += model.colourVectors() * (8 * n * n - 2 * n);
  }
  // Each compressed link read: its third row, three entries of two complex
  // multiplies and a complex subtract (14 flops each), by every thread
  // that shares the site's components; rounded to the nearest flop.
  if (plan.hasLinks && plan.linkStorage.compressed) {
    const int rebuilt = 42 * static_cast<int>(plan.links.size()) *
                        model.componentGroups();
    plan.flopsPerSite += (rebuilt + plan.sitesPerTile() / 2) /
                         plan.sitesPerTile();
  }
  // Each tap's weight at a site: one add per field term (one fewer when the
  // weight is fields alone) and a multiply where the factor is not +-1,
  // twice over for the (re, im) of a complex term. A complex weight times a
  // complex value is 6 flops and its sum 2, where a real weight's are 4.
  for (const Tap &tap : model.taps) {
    const std::vector<SiteTerm> terms = fieldTerms(model, tap.coefficient, {});
    if (terms.empty())
      continue;
    plan.flopsPerSite += static_cast<int>(terms.size()) -
                         (scalarPart(model, tap.coefficient).isZero() ? 1 : 0);
    int complexTerms = 0;
    for (const SiteTerm &term : terms) {
      complexTerms += term.complex;
      plan.flopsPerSite += (term.factor != 1.0 && term.factor != -1.0) *
                           (term.complex ? 2 : 1);
    }
    // The imaginary part sums the complex terms alone.
    plan.flopsPerSite += std::max(0, complexTerms - 1);
    if (isComplexCoefficient(model, tap.coefficient))
      plan.flopsPerSite += 2 * model.components;
  }
}

/// Names each accumulation's weight: the tap's, or at its tile site the
/// SiteWeight of a tap with site parameters; marks the complex ones.
void nameAccumulationWeights(
    const StencilModel &model, KernelPlan &plan,
    const std::vector<std::string> &tapWeight,
    const std::map<int, std::vector<std::string>> &siteWeightOfTap) {
  for (PlanStep &step : plan.steps)
    for (PlannedAccumulation &acc : step.accumulations) {
      auto it = siteWeightOfTap.find(acc.tap);
      acc.weight = it == siteWeightOfTap.end()
                       ? tapWeight[acc.tap]
                       : it->second[acc.site * plan.xWidth + acc.lane];
      // A complex field term makes the tap's site weights complex.
      acc.complexWeight =
          isComplexCoefficient(model, model.taps[acc.tap].coefficient);
    }
}

/// Loads that may cross an antiperiodic wrap take the sign of their
/// coordinates along those axes; those coordinates declare the sign.
void markSignFlips(const StencilModel &model, KernelPlan &plan) {
  for (PlannedLoad &load : plan.loads) {
    load.signAxes.clear();
    for (int axis = 0; axis < model.dims; ++axis)
      if (model.boundaries[axis] == Boundary::Antiperiodic &&
          load.offset[axis] != 0)
        load.signAxes.push_back(axis);
  }
  for (Coordinate &c : plan.indexing.coordinates)
    c.flipsSign = llvm::any_of(plan.loads, [&](const PlannedLoad &load) {
      return llvm::is_contained(load.signAxes, c.axis) &&
             load.offset[c.axis] == c.delta;
    });
}

/// Link taps: each accumulation's link, read once per tile before the first
/// step that uses it; the forward tap of one tile site and the backward tap
/// of the next share the same lattice link. Hopping kernels read the
/// backward links from the other parity's half (`outParity` is that of the
/// thread's site).
void planLinks(const StencilModel &model, KernelPlan &plan, bool hopping,
               int outParity) {
  plan.links.clear();
  plan.hasLinks = model.hasLinkTaps();
  if (!plan.hasLinks)
    return;
  LinkStorage &storage = plan.linkStorage;
  storage.name = model.links.name;
  storage.colours = model.links.colours;
  storage.dims = model.dims;
  storage.realsPerLink = model.links.realsPerLink();
  storage.compressed = model.links.compression == LinkCompression::TwoRows;
  storage.layout = model.linkLayout();
  storage.colourVectors = model.colourVectors();
  const bool tileWraps = model.wraps(plan.tileAxis);
  for (PlanStep &step : plan.steps) {
    step.links.clear();
    for (PlannedAccumulation &acc : step.accumulations) {
      const Tap &tap = model.taps[acc.tap];
      if (!tap.link)
        continue;
      PlannedLink link;
      link.axis = linkAxis(tap);
      if (!hopping)
        link.at.offset[plan.tileAxis] = acc.site;
      if (!isForwardLink(tap))
        link.at.offset[link.axis] -= 1;
      const int along = link.at.offset[plan.tileAxis];
      if (hopping)
        link.at.oddHalf = (outParity + stepParity(link.at.offset)) % 2 == 1;
      else
        link.at.clampTileAxis =
            !tileWraps && along > model.reach[plan.tileAxis];
      auto same = llvm::find_if(plan.links, [&](const PlannedLink &l) {
        return l.axis == link.axis && l.at.offset == link.at.offset;
      });
      if (same == plan.links.end()) {
        step.links.push_back(static_cast<int>(plan.links.size()));
        plan.links.push_back(link);
        same = plan.links.end() - 1;
      }
      acc.link = static_cast<int>(same - plan.links.begin());
      acc.dagger = !isForwardLink(tap);
      acc.spin = tap.spin;
      acc.spinAxis = link.axis;
    }
  }
  plan.indexing.declaresSiteCount = !hopping;
  for (const PlannedLink &link : plan.links)
    plan.indexing.declaresRoom |= link.at.clampTileAxis;
}

CloverStorage cloverStorage(const StencilModel &model) {
  CloverStorage storage;
  storage.name = model.clover.name;
  storage.colours = model.links.colours;
  storage.reals = model.cloverComponents();
  storage.layout = model.cloverLayout();
  return storage;
}

/// The index of the clover tap, or -1.
int cloverTapIndex(const StencilModel &model) {
  for (size_t t = 0; t < model.taps.size(); ++t)
    if (model.taps[t].clover)
      return static_cast<int>(t);
  return -1;
}

/// Clover taps of a whole-lattice kernel: each tile site's clover term,
/// read right before the step that multiplies by it (every axis wraps, so
/// no read is clamped).
void planClover(const StencilModel &model, KernelPlan &plan) {
  plan.clovers.clear();
  plan.hasClover = model.hasCloverTap();
  if (!plan.hasClover)
    return;
  plan.cloverStorage = cloverStorage(model);
  for (PlanStep &step : plan.steps) {
    step.clovers.clear();
    for (PlannedAccumulation &acc : step.accumulations) {
      if (!model.taps[acc.tap].clover)
        continue;
      PlannedClover clover;
      clover.at.offset[plan.tileAxis] = acc.site;
      clover.at.offset[0] += acc.lane;
      step.clovers.push_back(static_cast<int>(plan.clovers.size()));
      acc.clover = static_cast<int>(plan.clovers.size());
      plan.clovers.push_back(clover);
    }
  }
  plan.indexing.declaresSiteCount = true;
}

std::string kernelName(const StencilModel &model, KernelRole role, Hop hop) {
  return model.name +
         (hop == Hop::EvenToOdd   ? "_even_to_odd"
          : hop == Hop::OddToEven ? "_odd_to_even"
                                  : "") +
         (role == KernelRole::Adjoint ? "_adjoint_kernel" : "_kernel");
}

/// The tile's program: loads and their accumulations with weights, the
/// per-site weights of taps with site parameters, the rooms clamped loads
/// need. Depends on the tile and on plan.xWidth.
void scheduleTile(const StencilModel &model, KernelPlan &plan) {
  const bool tileWraps = model.wraps(plan.tileAxis);
  // Loads are clamped along the tile axis only where it has a halo.
  LoadSchedule schedule =
      scheduleLoads(model, plan.tileFactor, plan.xWidth, false);
  plan.loads = std::move(schedule.loads);
  plan.steps = std::move(schedule.steps);
  SiteIndexing &indexing = plan.indexing;
  indexing.roomAxis = plan.tileAxis;
  indexing.declaresRoom = llvm::any_of(
      plan.loads, [](const PlannedLoad &l) { return l.clampTileAxis; });
  // xroom bounds a group's halo reads to the right (those to the left are
  // bounded by x itself); along a tile axis x the tile's room serves.
  auto readsXRoom = [&](bool clampX, bool clampTileAxis, int dx) {
    return clampX && dx > 0 && !(plan.tileAxis == 0 && clampTileAxis);
  };
  indexing.declaresXRoom =
      llvm::any_of(plan.loads, [&](const PlannedLoad &l) {
        return readsXRoom(l.clampX, l.clampTileAxis, l.offset[0]);
      });

  std::vector<std::string> tapWeight;
  // The clover array carries its tap's coefficient: no weight.
  plan.weights = planWeights(model, cloverTapIndex(model), tapWeight);
  // Taps with coefficient fields get one weight per tile site; taps with the
  // same coefficient share them.
  plan.siteWeights.clear();
  std::map<int, std::vector<std::string>> siteWeightOfTap;
  std::set<std::string> declared;
  for (size_t t = 0; t < model.taps.size(); ++t) {
    const Coefficient &c = model.taps[t].coefficient;
    if (!hasFieldTerms(model, c))
      continue;
    for (int site = 0; site < plan.tileFactor; ++site)
      for (int lane = 0; lane < plan.xWidth; ++lane) {
        SiteWeight w;
        w.name = tapWeight[t] + "_s" + std::to_string(site) +
                 (plan.xWidth > 1 ? "_" + std::to_string(lane) : "");
        siteWeightOfTap[static_cast<int>(t)].push_back(w.name);
        if (!declared.insert(w.name).second)
          continue;
        if (declaresWeight(plan.weights, tapWeight[t]))
          w.base = tapWeight[t];
        SiteRef from;
        from.offset[plan.tileAxis] = site;
        from.offset[0] += lane;
        w.terms = fieldTerms(model, c, from);
        for (SiteTerm &term : w.terms) {
          const int along = term.at.offset[plan.tileAxis];
          term.at.clampTileAxis =
              !tileWraps && along > model.reach[plan.tileAxis];
          term.at.clampX = !model.wraps(0) && plan.xWidth > 1 &&
                           (term.at.offset[0] < 0 ||
                            term.at.offset[0] >= plan.xWidth);
        }
        plan.siteWeights.push_back(std::move(w));
      }
  }
  nameAccumulationWeights(model, plan, tapWeight, siteWeightOfTap);
  for (const SiteWeight &w : plan.siteWeights)
    for (const SiteTerm &term : w.terms) {
      indexing.declaresRoom |= term.at.clampTileAxis;
      indexing.declaresXRoom |= readsXRoom(
          term.at.clampX, term.at.clampTileAxis, term.at.offset[0]);
    }
  planLinks(model, plan, /*hopping=*/false, 0);
  planClover(model, plan);
}

/// The neighbour coordinates of the rows that are addressed through
/// coordinates (loads and per-site weights; with a Layout also the stores,
/// which plain indexings address from `site`), and the antiperiodic signs.
void planCoordinates(const StencilModel &model, KernelPlan &plan) {
  SiteIndexing &indexing = plan.indexing;
  indexing.coordinates.clear();
  if (indexing.kind != SiteIndexingKind::PlainOffsets) {
    std::vector<Offset> offsets;
    for (const PlannedLoad &load : plan.loads)
      offsets.push_back(load.offset);
    for (const SiteWeight &w : plan.siteWeights)
      for (const SiteTerm &term : w.terms)
        offsets.push_back(term.at.offset);
    for (const PlannedLink &link : plan.links)
      offsets.push_back(link.at.offset);
    if (indexing.kind == SiteIndexingKind::Layout)
      for (const PlannedStore &store : plan.stores)
        offsets.push_back(store.offset);
    indexing.coordinates =
        neighbourCoordinates(model, offsets, plan.tileAxis, plan.xWidth);
  }
  markSignFlips(model, plan);
}

/// What follows from the program: the coordinates and signs, the doc
/// comment, the traffic.
void finishLatticePlan(const StencilModel &model, KernelPlan &plan) {
  planCoordinates(model, plan);
  plan.comment = std::to_string(model.dims) + "-D " + boundaryText(model) +
                 " " + std::to_string(model.taps.size()) +
                 "-point stencil; " + std::to_string(plan.loadsPerTile()) +
                 " loads and " + std::to_string(plan.storesPerTile()) +
                 " stores per thread.";
  setTraffic(model, false, plan);
}

/// One thread per tile of sites along the tile axis, every component of
/// each site, one value per access.
KernelPlan planSiteKernel(const StencilModel &model, KernelRole role) {
  const bool tileWraps = model.wraps(model.kernel.tileAxis);
  KernelPlan plan;
  plan.role = role;
  plan.kernelName = kernelName(model, role, Hop::None);
  plan.launchBounds = model.kernel.launchBounds;
  plan.minBlocksPerSm = model.kernel.minBlocksPerSm;
  plan.parameters = kernelParameters(model, /*hopping=*/false);
  plan.tileAxis = model.kernel.tileAxis;
  plan.tileFactor = model.kernel.tileFactor;
  if (walksBothHalves(model)) {
    // Every site has a thread, the halo's too: the guard skips the halo
    // along Dirichlet axes, and threads past the last site, which fall past
    // the slowest axis' end.
    plan.threads = bothHalvesThreads(model);
    for (int axis = 0; axis < model.dims; ++axis) {
      AxisBounds &bounds = plan.guard.axes[axis];
      const bool halo = !model.wraps(axis) && model.reach[axis] > 0;
      bounds.hasLower = bounds.hasUpper = halo;
      bounds.lower = bounds.upper = halo ? model.reach[axis] : 0;
    }
    plan.guard.axes[model.dims - 1].hasUpper = true;
  } else {
    plan.threads = latticeThreads(model);
    for (int axis = 0; axis < model.dims; ++axis) {
      plan.guard.axes[axis].hasUpper = true;
      plan.guard.axes[axis].upper = model.wraps(axis) ? 0 : model.reach[axis];
    }
  }
  // Storage index: offsets from `site` in plain Dirichlet storage, else
  // from each neighbour's coordinates.
  SiteIndexing &indexing = plan.indexing;
  indexing.dims = model.dims;
  indexing.layout = model.layout;
  indexing.kind = !model.layout.isPlain() ? SiteIndexingKind::Layout
                  : model.anyWraps()      ? SiteIndexingKind::PlainCoordinates
                                          : SiteIndexingKind::PlainOffsets;
  indexing.declaresSiteCount =
      indexing.kind == SiteIndexingKind::Layout && model.components > 1;

  FieldAccess &access = plan.access;
  access.components = access.perThread = model.components;
  access.layout = model.layout;
  access.kind = model.components == 1     ? AccessKind::Scalar
                : !model.layout.isPlain() ? AccessKind::LayoutElement
                                          : AccessKind::SiteMajor;
  plan.accumulators.sites = plan.tileFactor;
  plan.accumulators.valuesPerSite = model.components;
  if (access.kind == AccessKind::LayoutElement &&
      model.layout.order != LayoutOrder::SiteMajor && model.layout.vector > 1) {
    // field.layout.vector: each group one access, whose width the cost
    // model's L1 term and the printers take from here.
    access.width = model.layout.vector;
    plan.accumulators.vectorWidth = access.width;
    plan.accumulators.vectorComment = "A site's components";
  }
  plan.programComment = "Each value is loaded once and feeds every site of "
                        "the tile that needs it.";
  plan.narrowStorage = model.narrowStorage();
  plan.storeKind = model.kernel.nontemporalStore ? StoreKind::NonTemporal
                                                 : StoreKind::Regular;
  for (int site = 0; site < plan.tileFactor; ++site) {
    PlannedStore store;
    store.site = site;
    store.offset[plan.tileAxis] = site;
    store.guarded = site > 0;
    store.guardAxis = plan.tileAxis;
    store.guardUpper = tileWraps ? 0 : model.reach[plan.tileAxis];
    // Along a wrapping x every site is updated: whole groups throughout.
    store.groupReach = model.wraps(0) ? 0 : model.reach[0];
    plan.stores.push_back(store);
  }
  scheduleTile(model, plan);
  finishLatticePlan(model, plan);
  return plan;
}

} // namespace

KernelPlan splitComponents(const KernelPlan &plan, int perThread,
                           ComponentShareOrder order) {
  KernelPlan split = plan;
  ComponentShares &shares = split.threads.shares();
  shares.groups = plan.access.components / perThread;
  shares.perThread = perThread;
  shares.order = order;
  split.access.perThread = perThread;
  split.access.split = true;
  split.accumulators.valuesPerSite = perThread;
  split.accumulators.indexed = true;
  return split;
}

KernelPlan vectorizeComponents(const KernelPlan &plan, int width) {
  KernelPlan vector = plan;
  vector.access.kind = AccessKind::SiteMajorVector;
  vector.access.width = width;
  // Whole vectors from a pointer: no layout_element, no site count (but
  // the link array's elements are placed by one).
  vector.indexing.declaresSiteCount = plan.hasLinks;
  vector.accumulators.vectorWidth = width;
  vector.accumulators.vectorComment = "A site's components";
  return vector;
}

KernelPlan groupSitesAlongX(const StencilModel &original,
                            const KernelPlan &plan, int width) {
  const StencilModel model = modelForRole(original, plan.role);
  KernelPlan grouped = plan;
  grouped.xWidth = width;
  // Groups start aligned at x = 0; halo sites among them are not stored.
  grouped.threads.lattice.origin[0] = 0;
  grouped.threads.lattice.sitesPerThread[0] *= width;
  grouped.access.width = width;
  if (plan.access.kind == AccessKind::LayoutElement) {
    // A component-major vector field: each of the thread's components
    // moves its row of the group at once; acc[c * width + lane].
    grouped.access.kind = AccessKind::LayoutRowGroup;
    grouped.accumulators.valuesPerSite = plan.access.perThread * width;
    grouped.accumulators.vectorComment = "Each component's sites along x";
  } else {
    grouped.access.kind = AccessKind::RowGroup;
    grouped.accumulators.valuesPerSite = width;
    grouped.accumulators.vectorComment = "A row's sites";
  }
  grouped.accumulators.vectorWidth = width;
  scheduleTile(model, grouped);
  finishLatticePlan(model, grouped);
  return grouped;
}

/// Shares side by side where a site's components are adjacent (site-major,
/// with or without subdomains), so that a warp's accesses form one run; by
/// block where they lie apart and for a staged box, which stages whole
/// rows of the block's sites.
static ComponentShareOrder componentShareOrder(const StencilModel &model) {
  return model.layout.order == LayoutOrder::SiteMajor &&
                 model.kernel.staging == Staging::Registers
             ? ComponentShareOrder::ByLane
             : ComponentShareOrder::ByBlock;
}

/// kernel.march: the kernels of a tile along the slowest axis (z or t) of
/// 2R + 1 sites (the ring), reduced to the loads of its plane R, which feed
/// every site of the ring; the loop over planes and the ring's shift are
/// the printer's.
static KernelPlan planMarchingKernel(const StencilModel &original,
                                     KernelRole role) {
  const int axis = original.dims - 1;
  const int reach = original.reach[axis];
  StencilModel ring = original;
  ring.kernel.march = false;
  ring.kernel.tileAxis = axis;
  ring.kernel.tileFactor = 2 * reach + 1;
  KernelPlan tile = planKernel(ring, role);
  KernelPlan plan = tile;
  plan.march = true;
  plan.marchReach = reach;
  plan.parameters = kernelParameters(modelForRole(original, role),
                                     /*hopping=*/false);
  plan.loads.clear();
  plan.steps.clear();
  for (const PlanStep &step : tile.steps) {
    const PlannedLoad &load = tile.loads[step.load];
    if (load.offset[axis] != reach)
      continue;
    PlanStep kept = step;
    kept.load = static_cast<int>(plan.loads.size());
    // The ring's accumulators start at zero and gather over 2R + 1 planes.
    for (PlannedAccumulation &acc : kept.accumulations)
      acc.first = false;
    plan.loads.push_back(load);
    plan.steps.push_back(std::move(kept));
  }
  plan.stores.resize(1); // site 0: output z, complete once plane z + R is in
  // The coordinates of the kept loads only: in-plane wraps, and along a
  // periodic march axis the plane's, wrapped once a plane.
  planCoordinates(original, plan);
  plan.indexing.declaresRoom = false;
  plan.indexing.declaresXRoom =
      llvm::any_of(plan.loads, [](const PlannedLoad &l) {
        return l.clampX && l.offset[0] > 0;
      });
  // A thread that moves one vector a tap of a site-major field gathers the
  // plane first, its loads at 32-bit offsets from the plane: on the H200
  // the two together ran such marches 5-16% faster, hoisted offsets alone
  // 8%, gathering alone 1% (64-bit offsets 7-13% slower); with two vectors
  // a tap together -2% to +4.5% (docs/performance.md, "Gathering a plane's
  // loads first"). Plain storage, or subdomains one site deep along the
  // march, whose planes are stored one after another as plain planes are
  // (an offset within the plane, then plane x the plane's values). The
  // rest keep the plan's interleaving: single values (the 27-point march
  // ran 3.5% slower with its loads first), soa and aosoa rows (hoisted
  // offsets 16-42% slower: more registers; they gather without them),
  // deeper subdomains (a plane's sites not contiguous) and even/odd
  // halves. (A site-major vector access moves at least 2 values.)
  const FieldLayout &stored = plan.indexing.layout;
  const bool planesContiguous =
      plan.indexing.kind == SiteIndexingKind::PlainOffsets ||
      plan.indexing.kind == SiteIndexingKind::PlainCoordinates ||
      (plan.indexing.kind == SiteIndexingKind::Layout && !stored.evenOdd &&
       stored.order == LayoutOrder::SiteMajor && stored.subdomain[axis] == 1);
  plan.gathersPlane = plan.access.kind == AccessKind::SiteMajorVector &&
                      plan.access.perThread == plan.access.width &&
                      planesContiguous;
  // Rows of a soa or aosoa field (a component's row contiguous) gather
  // their plane component by component (KernelPlan::gathersRows).
  plan.gathersRows = plan.access.kind == AccessKind::LayoutRowGroup &&
                     stored.order != LayoutOrder::SiteMajor &&
                     !stored.evenOdd && !stored.hasSubdomains();
  const std::string axisText = axisName(axis);
  plan.programComment =
      "Plane " + axisText + " + " + std::to_string(reach) +
      (plan.gathersPlane || plan.gathersRows
           ? ": its values are gathered first, then each feeds every output "
             "of the ring that needs it."
           : ": each value is loaded once and feeds every output of the ring "
             "that needs it.");
  plan.comment =
      std::to_string(original.dims) + "-D " + boundaryText(original) + " " +
      std::to_string(original.taps.size()) + "-point stencil marching along " +
      axisText + "; per plane " + std::to_string(plan.loadsPerTile()) +
      " loads and " + std::to_string(plan.storesPerTile()) +
      " stores per thread, a ring of " + std::to_string(2 * reach + 1) +
      " outputs.";
  return plan;
}

KernelPlan planKernel(const StencilModel &original, KernelRole role) {
  if (original.kernel.march)
    return planMarchingKernel(original, role);
  const StencilModel model = modelForRole(original, role);
  KernelPlan plan = planSiteKernel(model, role);
  if (model.componentGroups() > 1)
    plan = splitComponents(plan, model.componentsPerThread(),
                           componentShareOrder(model));
  if (model.components > 1 && model.componentsPerAccess() > 1)
    plan = vectorizeComponents(plan, model.componentsPerAccess());
  if (model.sitesPerThreadX() > 1)
    plan = groupSitesAlongX(original, plan, model.sitesPerThreadX());
  if (model.kernel.staging == Staging::Shared)
    plan = withSharedStaging(model, plan);
  return plan;
}

KernelPlan planHoppingKernel(const StencilModel &original, KernelRole role,
                             Hop hop) {
  const StencilModel model = modelForRole(original, role);
  const int outParity = hop == Hop::EvenToOdd ? 1 : 0;
  KernelPlan plan;
  plan.role = role;
  plan.hop = hop;
  plan.epilogue = EpilogueKind::HopModes;
  plan.kernelName = kernelName(model, role, hop);
  plan.launchBounds = model.kernel.launchBounds;
  plan.minBlocksPerSm = model.kernel.minBlocksPerSm;
  plan.parameters = kernelParameters(model, /*hopping=*/true);
  plan.tileAxis = model.kernel.tileAxis;

  // The centre tap never enters the sum: it is the diagonal D, applied
  // (or inverted) by the epilogue that the runtime selects per launch.
  LoadSchedule schedule = scheduleLoads(model, 1, 1, /*skipCentre=*/true);
  plan.loads = std::move(schedule.loads);
  plan.steps = std::move(schedule.steps);
  plan.comment = std::string(hop == Hop::EvenToOdd ? "Even-to-odd"
                                                   : "Odd-to-even") +
                 " hopping kernel" +
                 (role == KernelRole::Adjoint ? " of A^T" : "") + ": " +
                 std::to_string(plan.loadsPerTile()) +
                 " neighbour loads and one store per thread.";

  // Threads run over the half lattice in storage order, whatever its
  // shape: consecutive threads touch consecutive sites of every input and
  // output, and short rows (nx / 2 below the block) leave no thread idle.
  // With a slab walk the rows of the fastest axes stay whole and in order,
  // and a neighbour along the slowest axis is read again a few planes
  // later instead of two slices later (docs/performance.md, the Wilson
  // hops at 48^3 x 64).
  plan.threads.kind = ThreadMappingKind::HalfLattice;
  plan.threads.dims = model.dims;
  plan.threads.half.parity = outParity;
  plan.threads.half.threadsPerBlock = model.kernel.threadsPerBlock();
  plan.threads.half.slab = hoppingSlab(model);
  // The mapping covers every site of the parity: the halo is skipped here.
  for (int axis = 0; axis < model.dims; ++axis)
    if (!model.wraps(axis) && model.reach[axis] > 0) {
      AxisBounds &bounds = plan.guard.axes[axis];
      bounds.hasLower = bounds.hasUpper = true;
      bounds.lower = bounds.upper = model.reach[axis];
    }

  const int centre = centreTapIndex(model);
  const Coefficient &diagonal = model.taps[centre].coefficient;
  plan.indexing.kind = SiteIndexingKind::EvenOddHalf;
  plan.indexing.dims = model.dims;
  plan.indexing.layout = model.layout;

  std::vector<std::string> tapWeight;
  plan.weights = planWeights(model, centre, tapWeight);
  // Coefficient fields are read from the thread's site plus their shifts;
  // the parity of the site read decides its half of the field's array.
  auto fieldsFrom = [&](const Coefficient &c, const Offset &origin) {
    SiteRef from;
    from.offset = origin;
    std::vector<SiteTerm> terms = fieldTerms(model, c, from);
    for (SiteTerm &term : terms)
      term.at.oddHalf = (outParity + stepParity(term.at.offset)) % 2 == 1;
    return terms;
  };
  if (!model.hasCloverTap()) {
    SiteWeight diag;
    diag.name = "diag";
    diag.comment = "The diagonal D: the centre tap's coefficient at this site.";
    diag.value = scalarPart(model, diagonal);
    diag.terms = fieldsFrom(diagonal, Offset{});
    plan.siteWeights.push_back(diag);
  } else {
    // The epilogue reads the clover term (or its inverse) of its own site.
    plan.hasClover = true;
    plan.cloverStorage = cloverStorage(model);
  }
  std::map<int, std::vector<std::string>> siteWeightOfTap;
  std::set<std::string> declared;
  for (size_t t = 0; t < model.taps.size(); ++t) {
    const Coefficient &c = model.taps[t].coefficient;
    if (static_cast<int>(t) == centre || !hasFieldTerms(model, c))
      continue;
    SiteWeight w;
    w.name = tapWeight[t] + "_s0";
    siteWeightOfTap[static_cast<int>(t)] = {w.name};
    if (!declared.insert(w.name).second)
      continue;
    if (declaresWeight(plan.weights, tapWeight[t]))
      w.base = tapWeight[t];
    w.terms = fieldsFrom(c, Offset{});
    plan.siteWeights.push_back(std::move(w));
  }
  nameAccumulationWeights(model, plan, tapWeight, siteWeightOfTap);
  planLinks(model, plan, /*hopping=*/true, outParity);

  std::vector<Offset> offsets;
  for (const PlannedLoad &load : plan.loads)
    offsets.push_back(load.offset);
  for (const SiteWeight &w : plan.siteWeights)
    for (const SiteTerm &term : w.terms)
      offsets.push_back(term.at.offset);
  for (const PlannedLink &link : plan.links)
    offsets.push_back(link.at.offset);
  plan.indexing.coordinates =
      neighbourCoordinates(model, offsets, /*tileAxis=*/-1);
  // The hop modes' epilogue reads `same` within the half
  // (stencil/hop_modes.hpp), and site parameters, links and the clover of
  // odd sites sit after the even half.
  plan.indexing.declaresHalfSiteCount = true;

  plan.access = halfAccess(model);
  plan.accumulators.valuesPerSite = model.components;
  if (model.componentGroups() > 1)
    plan = splitComponents(plan, model.componentsPerThread(),
                           componentShareOrder(model));
  if (plan.access.width > 1) {
    plan.accumulators.vectorWidth = plan.access.width;
    plan.accumulators.vectorComment = "A site's components";
  }
  plan.programComment = "The neighbours, all of the other parity.";
  plan.narrowStorage = model.narrowStorage();
  plan.storeKind = model.kernel.nontemporalStore ? StoreKind::NonTemporal
                                                 : StoreKind::Regular;
  PlannedStore store;
  store.value = StoredValue::HopResult;
  plan.stores.push_back(store);
  markSignFlips(model, plan);
  setTraffic(model, true, plan);
  return plan;
}

bool hasCloverKernel(const StencilModel &model) {
  return model.layout.evenOdd && model.hasCloverTap();
}

CloverKernelPlan planCloverKernel(const StencilModel &model) {
  CloverKernelPlan plan;
  plan.kernelName = model.name + "_clover_kernel";
  plan.comment = "The clover term alone on one parity's sites: out = beta "
                 "A^-1 in or alpha A same + beta in (stencil::HopMode, the "
                 "hop replaced by the identity).";
  plan.launchBounds = model.kernel.launchBounds;
  plan.minBlocksPerSm = model.kernel.minBlocksPerSm;
  plan.threadsPerBlock = model.kernel.threadsPerBlock();
  plan.components = model.components;
  plan.layout = model.layout;
  plan.vectorWidth = model.siteValuesPerAccess();
  plan.narrowStorage = model.narrowStorage();
  plan.clover = cloverStorage(model);
  plan.bytesPerSite = 2 * model.components * model.elementBytes() +
                      plan.clover.reals * model.arrayElementBytes();
  plan.flopsPerSite = cloverFlops(model.links.colours) + model.components;
  return plan;
}

KernelPlan withBlockSum(const KernelPlan &plan) {
  KernelPlan fused = plan;
  llvm::StringRef name(plan.kernelName);
  name.consume_back("_kernel");
  fused.kernelName = name.str() + "_dot_kernel";
  fused.comment += " Also sums in . out over the stored sites: one partial "
                   "per block, for CG's p^T A p without a second pass over "
                   "the fields.";
  fused.epilogue = EpilogueKind::BlockSum;
  fused.guard.kind = GuardKind::Predicate;
  fused.parameters.push_back({ParameterKind::Partials, "partials"});
  for (PlannedStore &store : fused.stores)
    store.addsDot = true;
  return fused;
}

bool canFoldDirection(const KernelPlan &dotPlan) {
  // Every whole-lattice access; one parity's half (HalfOrder) serves the
  // hops, whose Schur complement has no fused kernels.
  return dotPlan.epilogue == EpilogueKind::BlockSum &&
         dotPlan.access.kind != AccessKind::HalfOrder;
}

KernelPlan withFoldedDirection(const KernelPlan &dotPlan) {
  KernelPlan folded = dotPlan;
  llvm::StringRef name(dotPlan.kernelName);
  name.consume_back("_dot_kernel");
  folded.kernelName = name.str() + "_fold_dot_kernel";
  folded.comment =
      dotPlan.comment +
      " Each of those loads reads `in` and `direction` as p' = in + beta "
      "direction (CG's next direction from the residual `in` and the last "
      "one), each store also writes p' to next_direction (whose halo is not "
      "written) and, given a solution, adds the last step's alpha direction "
      "to it, and the sum is p' . out: the direction's own pass and x's "
      "update folded into the stencil.";
  folded.programComment = "Each value of r and p is loaded once; p' = r + "
                          "beta p feeds every site of the tile that needs it.";
  folded.epilogue = EpilogueKind::DirectionBlockSum;
  if (folded.staging) {
    folded.staging->foldsDirection = true;
    folded.programComment = "p' = r + beta p, staged once per element, "
                            "feeds the tile's sites.";
  }
  auto in = std::find_if(folded.parameters.begin(), folded.parameters.end(),
                         [](const KernelParameter &p) {
                           return p.kind == ParameterKind::InField;
                         });
  folded.parameters.insert(
      in + 1, {{ParameterKind::DirectionField, "direction"},
               {ParameterKind::NextDirectionField, "next_direction"},
               {ParameterKind::DirectionBeta, "beta_source"},
               {ParameterKind::SolutionField, "solution"},
               {ParameterKind::SolutionAlpha, "alpha_source"}});
  // Two fields read and two written where the stencil moves one each, and
  // x read and written where CG passes it (KernelPlan::updatesSolution).
  const int xBytes =
      folded.updatesSolution() ? dotPlan.bytesWrittenPerSite : 0;
  folded.bytesReadPerSite += dotPlan.bytesWrittenPerSite + xBytes;
  folded.bytesWrittenPerSite += dotPlan.bytesWrittenPerSite + xBytes;
  folded.flopsPerSite += 2 * folded.accumulators.valuesPerSite; // p' itself
  return folded;
}

namespace {

/// Whether `model`'s kernels fold CG's direction update into `dotPlan`
/// (withBlockSum of the apply kernel). Not for the kernels only ranks run:
/// across ranks both fields' halos would have to travel.
bool foldsDirection(const StencilModel &model, const KernelPlan &dotPlan) {
  return model.servesOneRank() && canFoldDirection(dotPlan);
}

/// CG's fold kernel from its fused dot kernel. A marching one keeps no
/// resident minimum that the spec does not write: reading r and p at every
/// tap, it wants more registers than apply, and on an H200 (the tuner, 24
/// floats at 32^3 x 64) the planner's march rule's fold kernel spilled on
/// sm_90 and ran at 2996 GB/s with its minimum of 4 blocks of 256 threads,
/// 3200 without (docs/results/h200-fold-march.txt).
KernelPlan planFoldKernel(const StencilModel &model, const KernelPlan &dot) {
  KernelPlan folded = withFoldedDirection(dot);
  if (model.kernel.march && !model.kernel.written.minBlocksPerSm)
    folded.minBlocksPerSm = 0;
  return folded;
}

} // namespace

std::optional<KernelPlan> planFoldPass(const StencilModel &model) {
  if (!hasFusedDotKernel(model))
    return std::nullopt;
  const KernelPlan dot = withBlockSum(planKernel(model, KernelRole::Apply));
  if (!foldsDirection(model, dot))
    return std::nullopt;
  return planFoldKernel(model, dot);
}

std::vector<KernelPlan> planKernels(const StencilModel &model) {
  std::vector<KernelRole> roles = {KernelRole::Apply};
  if (!isSymmetric(model))
    roles.push_back(KernelRole::Adjoint);
  std::vector<KernelPlan> plans;
  for (KernelRole role : roles)
    plans.push_back(planKernel(model, role));
  if (hasFusedDotKernel(model)) {
    plans.push_back(withBlockSum(plans.front()));
    if (foldsDirection(model, plans.back()))
      plans.push_back(planFoldKernel(model, plans.back()));
  }
  if (model.layout.evenOdd)
    for (KernelRole role : roles)
      for (Hop hop : {Hop::EvenToOdd, Hop::OddToEven})
        plans.push_back(planHoppingKernel(model, role, hop));
  if (model.rankKernels)
    for (KernelPlan &plan : plans)
      plan = withRegion(plan);
  return plans;
}

KernelPlan withRegion(const KernelPlan &plan) {
  KernelPlan result = plan;
  result.guard.region = true;
  if (plan.threads.kind == ThreadMappingKind::Lattice)
    result.guard.regionSpan = plan.threads.lattice.sitesPerThread;
  result.parameters.insert(
      std::find_if(result.parameters.begin(), result.parameters.end(),
                   [](const KernelParameter &p) {
                     return p.kind == ParameterKind::Params ||
                            p.kind == ParameterKind::Partials;
                   }),
      {ParameterKind::Region, "region"});
  return result;
}

const KernelPlan *findPlan(const std::vector<KernelPlan> &plans,
                           KernelRole role, Hop hop, EpilogueKind epilogue) {
  if (hop != Hop::None)
    epilogue = EpilogueKind::HopModes;
  for (const KernelPlan &plan : plans)
    if (plan.role == role && plan.hop == hop && plan.epilogue == epilogue)
      return &plan;
  return nullptr;
}

} // namespace stencilc
