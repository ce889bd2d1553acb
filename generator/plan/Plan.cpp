//===- Plan.cpp - KernelPlan construction and printing --------------------===//
#include "plan/Plan.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"

#include <algorithm>
#include <cstdlib>
#include <map>

using namespace llvm;

namespace stencilc {

bool precedesInMemory(const Offset &a, const Offset &b) {
  for (int axis = kMaxDims - 1; axis >= 0; --axis)
    if (a[axis] != b[axis])
      return a[axis] < b[axis];
  return false;
}

namespace {

Offset shifted(const Offset &offset, int axis, int by) {
  Offset result = offset;
  result[axis] += by;
  return result;
}

/// The lattice offsets the tile reads, in the order the model asks for.
/// With `xWidth` > 1 each tile site stands for that many consecutive sites
/// along x.
std::vector<Offset> orderedLoadOffsets(const StencilModel &model,
                                       int factor, int xWidth) {
  const int axis = model.kernel.tileAxis;
  std::vector<Offset> order;
  std::map<Offset, bool> seen;
  auto visit = [&](const Offset &offset) {
    for (int lane = 0; lane < xWidth; ++lane)
      if (Offset at = shifted(offset, 0, lane); seen.emplace(at, true).second)
        order.push_back(at);
  };
  switch (model.kernel.loadOrder) {
  case LoadOrder::AsWritten:
    // Site by site, each site's taps as written: the lab note's kernel 2.
    for (int site = 0; site < factor; ++site)
      for (const Tap &tap : model.taps)
        visit(shifted(tap.offset, axis, site));
    break;
  case LoadOrder::Explicit:
    // Tap by tap in the given order, each across the whole tile.
    for (int tapIndex : model.kernel.tapOrder)
      for (int site = 0; site < factor; ++site)
        visit(shifted(model.taps[tapIndex].offset, axis, site));
    break;
  case LoadOrder::Ascending:
    // Every value once, by ascending address: the lab note's kernel 3.
    for (int site = 0; site < factor; ++site)
      for (const Tap &tap : model.taps)
        visit(shifted(tap.offset, axis, site));
    std::stable_sort(order.begin(), order.end(), precedesInMemory);
    break;
  }
  return order;
}

} // namespace

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

std::vector<KernelPlan> planKernels(const StencilModel &model) {
  std::vector<KernelRole> roles = {KernelRole::Apply};
  if (!isSymmetric(model))
    roles.push_back(KernelRole::Adjoint);
  std::vector<KernelPlan> plans;
  for (KernelRole role : roles)
    plans.push_back(planKernel(model, role));
  if (model.layout.evenOdd)
    for (KernelRole role : roles)
      for (Hop hop : {Hop::EvenToOdd, Hop::OddToEven})
        plans.push_back(planHoppingKernel(model, role, hop));
  return plans;
}

const KernelPlan *findPlan(const std::vector<KernelPlan> &plans,
                           KernelRole role, Hop hop) {
  for (const KernelPlan &plan : plans)
    if (plan.role == role && plan.hop == hop)
      return &plan;
  return nullptr;
}

namespace {

KernelPlan buildPlan(const StencilModel &original, KernelRole role, Hop hop) {
  const StencilModel model = modelForRole(original, role);
  const bool hopping = hop != Hop::None;
  KernelPlan plan;
  plan.role = role;
  plan.hop = hop;
  plan.kernelName =
      model.name +
      (hop == Hop::EvenToOdd   ? "_even_to_odd"
       : hop == Hop::OddToEven ? "_odd_to_even"
                               : "") +
      (role == KernelRole::Adjoint ? "_adjoint_kernel" : "_kernel");
  plan.tileAxis = model.kernel.tileAxis;
  plan.tileFactor = hopping ? 1 : model.kernel.tileFactor;
  plan.xWidth = hopping ? 1 : model.sitesPerThreadX();
  const int axis = plan.tileAxis;
  const int width = plan.xWidth;
  const bool dirichlet = model.boundary == Boundary::Dirichlet;
  // A hopping kernel reads the neighbours; the centre value is the diagonal
  // term, which the epilogue applies (or not) at run time.
  auto isCentre = [](const Offset &offset) { return offset == Offset{}; };
  // With x groups, the values of a row inside the thread's own group come
  // with one vector load (keyed by the row's x = 0 offset); the halo beside
  // the group comes value by value.
  auto inGroup = [&](const Offset &offset) {
    return width > 1 && offset[0] >= 0 && offset[0] < width;
  };
  auto loadKey = [&](const Offset &offset) {
    return inGroup(offset) ? shifted(offset, 0, -offset[0]) : offset;
  };

  std::vector<Offset> offsets =
      orderedLoadOffsets(model, plan.tileFactor, width);
  std::map<Offset, int> loadIndex;
  for (const Offset &offset : offsets) {
    if (hopping && isCentre(offset))
      continue;
    Offset key = loadKey(offset);
    if (loadIndex.count(key))
      continue;
    PlannedLoad load;
    load.offset = key;
    load.clampTileAxis = dirichlet && offset[axis] > model.reach[axis];
    load.width = inGroup(offset) ? width : 1;
    load.clampX = dirichlet && width > 1 && load.width == 1;
    loadIndex[key] = static_cast<int>(plan.loads.size());
    plan.loads.push_back(load);
  }

  // Each (site, tap) pair reads exactly one load; attach it to that load's
  // step so the value is consumed as soon as it arrives.
  plan.steps.resize(plan.loads.size());
  for (size_t i = 0; i < plan.loads.size(); ++i)
    plan.steps[i].load = static_cast<int>(i);
  for (int site = 0; site < plan.tileFactor; ++site)
    for (int lane = 0; lane < width; ++lane)
      for (size_t tap = 0; tap < model.taps.size(); ++tap) {
        if (hopping && isCentre(model.taps[tap].offset))
          continue;
        Offset at = shifted(shifted(model.taps[tap].offset, axis, site), 0,
                            lane);
        PlannedAccumulation acc;
        acc.site = site;
        acc.lane = lane;
        acc.tap = static_cast<int>(tap);
        acc.element = inGroup(at) ? at[0] : 0;
        plan.steps[loadIndex.at(loadKey(at))].accumulations.push_back(acc);
      }
  std::vector<bool> started(plan.sitesPerTile(), false);
  for (PlanStep &step : plan.steps)
    for (PlannedAccumulation &acc : step.accumulations)
      if (int s = acc.site * width + acc.lane; !started[s])
        acc.first = started[s] = true;

  const int siteBytes = model.components * model.elementBytes();
  // Site parameters are read once per site, like the input.
  plan.bytesReadPerSite =
      siteBytes + siteParameterCount(model) * model.elementBytes();
  plan.bytesWrittenPerSite = siteBytes;
  const int summed = static_cast<int>(model.taps.size()) - (hopping ? 1 : 0);
  plan.flopsPerSite = model.components * (2 * summed - 1);
  // A site parameter's term is one multiply and one add per site.
  for (const Tap &tap : model.taps)
    for (const auto &[index, factor] : tap.coefficient.terms)
      if (model.parameters[index].site)
        plan.flopsPerSite += 2;
  return plan;
}

} // namespace

KernelPlan planKernel(const StencilModel &model, KernelRole role) {
  return buildPlan(model, role, Hop::None);
}

KernelPlan planHoppingKernel(const StencilModel &model, KernelRole role,
                             Hop hop) {
  return buildPlan(model, role, hop);
}

void printPlan(const StencilModel &original, const KernelPlan &plan,
               raw_ostream &os) {
  const StencilModel model = modelForRole(original, plan.role);
  const KernelOptions &k = model.kernel;
  os << "kernel " << plan.kernelName
     << (plan.role == KernelRole::Adjoint ? " (adjoint: offsets negated)" : "")
     << "\n";
  if (plan.hop != Hop::None)
    os << "  hopping:     " << hopName(plan.hop) << " (reads the "
       << (plan.hop == Hop::EvenToOdd ? "even" : "odd") << " sites, writes the "
       << (plan.hop == Hop::EvenToOdd ? "odd" : "even")
       << "; centre tap applied by the epilogue)\n";
  os << "  grid:        " << model.dims << "-D " << boundaryName(model.boundary)
     << ", " << model.valueType() << ", " << model.components
     << (model.components == 1 ? " component" : " components") << " per site";
  if (model.componentGroups() > 1)
    os << ", split over " << model.componentGroups() << " threads ("
       << model.componentsPerThread() << " components each)";
  os << "\n";
  os << "  taps:        " << model.taps.size() << ", reach";
  for (int axis = 0; axis < model.dims; ++axis)
    os << " " << axisName(axis) << ":" << model.reach[axis];
  os << "\n";
  os << "  block:       ";
  for (int axis = 0; axis < model.dims; ++axis)
    os << (axis ? " x " : "") << k.block[axis];
  os << " (" << k.threadsPerBlock() << " threads), launch bounds ";
  if (k.launchBounds)
    os << k.launchBounds << "\n";
  else
    os << "none\n";
  os << "  tile:        " << plan.tileFactor << " sites along "
     << axisName(plan.tileAxis);
  if (plan.xWidth > 1)
    os << " x " << plan.xWidth << " aligned sites along x (vector width "
       << plan.xWidth << ")";
  os << "\n";
  os << "  load order:  " << loadOrderName(k.loadOrder);
  if (k.loadOrder == LoadOrder::Explicit)
    os << " \"" << k.loadOrderText << "\"";
  os << "\n";
  os << "  stores:      " << (k.nontemporalStore ? "non-temporal" : "regular")
     << "\n";
  os << format("  loads per tile: %d, stores per tile: %d, loads per site: "
               "%.3f\n",
               plan.loadsPerTile(), plan.storesPerTile(), plan.loadsPerSite());
  os << format("  bytes per site: %d (%d read, %d written), flops per site: "
               "%d, arithmetic intensity: %.3f flop/byte\n",
               plan.bytesPerSite(), plan.bytesReadPerSite,
               plan.bytesWrittenPerSite, plan.flopsPerSite,
               plan.arithmeticIntensity());
  os << "  program:\n";
  for (const PlanStep &step : plan.steps) {
    const PlannedLoad &load = plan.loads[step.load];
    os << "    load  u" << step.load << " = in"
       << formatOffset(load.offset, model.dims);
    if (load.width > 1)
      os << " .. +" << load.width - 1 << " along x (one " << load.width
         << "-wide access)";
    if (load.clampTileAxis)
      os << "  [clamped along " << axisName(plan.tileAxis) << "]";
    if (load.clampX)
      os << "  [clamped along x]";
    os << "\n";
    for (const PlannedAccumulation &acc : step.accumulations) {
      const Coefficient &coefficient = model.taps[acc.tap].coefficient;
      std::string text = coefficientText(model, coefficient);
      bool compound = coefficient.terms.size() +
                          (coefficient.constant != 0.0 ? 1 : 0) >
                      1;
      std::string lane =
          plan.xWidth > 1 ? "[" + std::to_string(acc.lane) + "]" : "";
      std::string element = load.width > 1
                                ? "[" + std::to_string(acc.element) + "]"
                                : "";
      os << "      acc" << acc.site << lane << (acc.first ? "  = " : " += ")
         << (compound ? "(" + text + ")" : text) << " * u" << step.load
         << element << "\n";
    }
  }
  for (int site = 0; site < plan.tileFactor; ++site) {
    Offset offset{};
    offset[plan.tileAxis] = site;
    os << "    store out" << formatOffset(offset, model.dims);
    if (plan.xWidth > 1)
      os << " .. +" << plan.xWidth - 1 << " along x";
    os << " = ";
    if (plan.hop == Hop::None)
      os << "acc" << site << "\n";
    else
      os << "beta * acc0, beta * acc0 / D or alpha * D * same + beta * acc0 "
            "(the launch's mode; D = "
         << coefficientText(model, model.taps[centreTapIndex(model)].coefficient)
         << ")\n";
  }
}

} // namespace stencilc
