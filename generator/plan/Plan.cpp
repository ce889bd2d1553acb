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

std::vector<KernelPlan> planKernels(const StencilModel &model) {
  std::vector<KernelPlan> plans = {planKernel(model, KernelRole::Apply)};
  if (!isSymmetric(model))
    plans.push_back(planKernel(model, KernelRole::Adjoint));
  return plans;
}

KernelPlan planKernel(const StencilModel &original, KernelRole role) {
  const StencilModel model = modelForRole(original, role);
  KernelPlan plan;
  plan.role = role;
  plan.kernelName = model.name + (role == KernelRole::Adjoint
                                      ? "_adjoint_kernel"
                                      : "_kernel");
  plan.tileAxis = model.kernel.tileAxis;
  plan.tileFactor = model.kernel.tileFactor;
  const int axis = plan.tileAxis;

  std::vector<Offset> offsets = orderedLoadOffsets(model);
  std::map<Offset, int> loadIndex;
  for (const Offset &offset : offsets) {
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
  plan.flopsPerSite =
      model.components * (2 * static_cast<int>(model.taps.size()) - 1);
  // A site parameter's term is one multiply and one add per site.
  for (const Tap &tap : model.taps)
    for (const auto &[index, factor] : tap.coefficient.terms)
      if (model.parameters[index].site)
        plan.flopsPerSite += 2;
  return plan;
}

void printPlan(const StencilModel &original, const KernelPlan &plan,
               raw_ostream &os) {
  const StencilModel model = modelForRole(original, plan.role);
  const KernelOptions &k = model.kernel;
  os << "kernel " << plan.kernelName
     << (plan.role == KernelRole::Adjoint ? " (adjoint: offsets negated)" : "")
     << "\n";
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
    os << "    store out" << formatOffset(offset, model.dims) << " = acc" << site
       << "\n";
  }
}

} // namespace stencilc
