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
std::vector<Offset> orderedLoadOffsets(const StencilModel &model) {
  const int axis = model.kernel.tileAxis;
  const int factor = model.kernel.tileFactor;
  std::vector<Offset> order;
  std::map<Offset, bool> seen;
  auto visit = [&](const Offset &offset) {
    if (seen.emplace(offset, true).second)
      order.push_back(offset);
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
  const int axis = plan.tileAxis;
  // A hopping kernel reads the neighbours; the centre value is the diagonal
  // term, which the epilogue applies (or not) at run time.
  auto isCentre = [](const Offset &offset) { return offset == Offset{}; };

  std::vector<Offset> offsets = orderedLoadOffsets(model);
  std::map<Offset, int> loadIndex;
  for (const Offset &offset : offsets) {
    if (hopping && isCentre(offset))
      continue;
    PlannedLoad load;
    load.offset = offset;
    load.clampTileAxis = model.boundary == Boundary::Dirichlet &&
                         offset[axis] > model.reach[axis];
    loadIndex[offset] = static_cast<int>(plan.loads.size());
    plan.loads.push_back(load);
  }

  // Each (site, tap) pair reads exactly one load; attach it to that load's
  // step so the value is consumed as soon as it arrives.
  plan.steps.resize(plan.loads.size());
  for (size_t i = 0; i < plan.loads.size(); ++i)
    plan.steps[i].load = static_cast<int>(i);
  for (int site = 0; site < plan.tileFactor; ++site)
    for (size_t tap = 0; tap < model.taps.size(); ++tap) {
      if (hopping && isCentre(model.taps[tap].offset))
        continue;
      int load = loadIndex.at(shifted(model.taps[tap].offset, axis, site));
      plan.steps[load].accumulations.push_back(
          {site, static_cast<int>(tap), false});
    }
  std::vector<bool> started(plan.tileFactor, false);
  for (PlanStep &step : plan.steps)
    for (PlannedAccumulation &acc : step.accumulations)
      if (!started[acc.site])
        acc.first = started[acc.site] = true;

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
     << (model.components == 1 ? " component" : " components") << " per site\n";
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
     << axisName(plan.tileAxis) << "\n";
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
    if (load.clampTileAxis)
      os << "  [clamped along " << axisName(plan.tileAxis) << "]";
    os << "\n";
    for (const PlannedAccumulation &acc : step.accumulations) {
      const Coefficient &coefficient = model.taps[acc.tap].coefficient;
      std::string text = coefficientText(model, coefficient);
      bool compound = coefficient.terms.size() +
                          (coefficient.constant != 0.0 ? 1 : 0) >
                      1;
      os << "      acc" << acc.site << (acc.first ? "  = " : " += ")
         << (compound ? "(" + text + ")" : text) << " * u" << step.load
         << "\n";
    }
  }
  for (int site = 0; site < plan.tileFactor; ++site) {
    Offset offset{};
    offset[plan.tileAxis] = site;
    os << "    store out" << formatOffset(offset, model.dims) << " = ";
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
