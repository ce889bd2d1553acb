//===- PrintPlan.cpp - The listing of `stencilc plan` ---------------------===//
//
// Prints every node of a plan: the options it came from, then its
// parameters, thread mapping, guard, site indexing, access, weights and
// accumulators, the program of loads and accumulations, the stores and the
// epilogue.
//
//===----------------------------------------------------------------------===//
#include "plan/Plan.h"

#include "llvm/Support/Format.h"

using namespace llvm;

namespace stencilc {

const char *parameterKindName(ParameterKind kind) {
  switch (kind) {
  case ParameterKind::OutField:
    return "out field";
  case ParameterKind::InField:
    return "in field";
  case ParameterKind::SameField:
    return "same field";
  case ParameterKind::HopMode:
    return "hop mode";
  case ParameterKind::HopAlpha:
    return "hop alpha";
  case ParameterKind::HopBeta:
    return "hop beta";
  case ParameterKind::Extent:
    return "extent";
  case ParameterKind::MarchPlanes:
    return "planes per block (march)";
  case ParameterKind::BlocksZ:
    return "blocks along z";
  case ParameterKind::Slab:
    return "slices per slab";
  case ParameterKind::Region:
    return "region";
  case ParameterKind::Params:
    return "spec parameters";
  case ParameterKind::Partials:
    return "block partials";
  case ParameterKind::DirectionField:
    return "direction field";
  case ParameterKind::NextDirectionField:
    return "next direction field";
  case ParameterKind::DirectionBeta:
    return "direction beta";
  case ParameterKind::SolutionField:
    return "solution field";
  case ParameterKind::SolutionAlpha:
    return "solution alpha";
  }
  return "?";
}

const char *siteIndexingName(SiteIndexingKind kind) {
  switch (kind) {
  case SiteIndexingKind::PlainOffsets:
    return "plain-offsets";
  case SiteIndexingKind::PlainCoordinates:
    return "plain-coordinates";
  case SiteIndexingKind::Layout:
    return "layout";
  case SiteIndexingKind::EvenOddHalf:
    return "even-odd-half";
  }
  return "?";
}

const char *coordinateKindName(CoordinateKind kind) {
  switch (kind) {
  case CoordinateKind::Shift:
    return "shift";
  case CoordinateKind::Wrap:
    return "wrap";
  case CoordinateKind::ClampAbove:
    return "clamp-above";
  case CoordinateKind::ClampXAbove:
    return "clamp-x-above";
  case CoordinateKind::ClampXBelow:
    return "clamp-x-below";
  }
  return "?";
}

const char *accessKindName(AccessKind kind) {
  switch (kind) {
  case AccessKind::Scalar:
    return "scalar";
  case AccessKind::RowGroup:
    return "row-group";
  case AccessKind::SiteMajor:
    return "site-major";
  case AccessKind::SiteMajorVector:
    return "site-major-vector";
  case AccessKind::LayoutElement:
    return "layout-element";
  case AccessKind::LayoutRowGroup:
    return "layout-row-group";
  case AccessKind::HalfOrder:
    return "half-order";
  }
  return "?";
}

const char *epilogueName(EpilogueKind kind) {
  switch (kind) {
  case EpilogueKind::None:
    return "none";
  case EpilogueKind::BlockSum:
    return "block-sum";
  case EpilogueKind::DirectionBlockSum:
    return "direction-block-sum";
  case EpilogueKind::HopModes:
    return "hop-modes";
  }
  return "?";
}

std::string largeLatticeText(int l2Percent) {
  if (l2Percent <= 0)
    return "";
  return ", where two slices along the slowest axis exceed " +
         std::to_string(l2Percent) + "% of the L2";
}

std::string linearFormSpelling(const LinearForm &form) {
  return linearText(form.constant, form.terms);
}

namespace {

void printOptions(const StencilModel &model, const KernelPlan &plan,
                  raw_ostream &os) {
  const KernelOptions &k = model.kernel;
  os << "kernel " << plan.kernelName
     << (plan.role == KernelRole::Adjoint ? " (adjoint: offsets negated)" : "")
     << "\n";
  if (plan.hop != Hop::None)
    os << "  hopping:     " << hopName(plan.hop) << " (reads the "
       << (plan.hop == Hop::EvenToOdd ? "even" : "odd") << " sites, writes the "
       << (plan.hop == Hop::EvenToOdd ? "odd" : "even")
       << "; centre tap applied by the epilogue)\n";
  os << "  grid:        " << model.dims << "-D " << boundaryText(model)
     << ", " << model.valueType() << ", " << model.components
     << (model.components == 1 ? " component" : " components") << " per site";
  if (model.componentGroups() > 1)
    os << ", split over " << model.componentGroups() << " threads ("
       << model.componentsPerThread() << " components each)";
  os << "\n";
  if (model.splittable()) {
    os << "  ranks:       grid.split";
    for (int axis = 0; axis < model.dims; ++axis)
      if (model.split[axis])
        os << " " << axisName(axis);
    os << "; halo exchange " << exchangeTransportName(model.exchange.transport)
       << (model.exchange.overlap ? ", overlapped with the interior"
                                  : ", before the kernels")
       << " (grid.exchange; the tuning cache and STENCILC_EXCHANGE, "
          "STENCILC_OVERLAP may choose otherwise)\n";
  }
  os << "  taps:        " << model.taps.size() << ", reach";
  for (int axis = 0; axis < model.dims; ++axis)
    os << " " << axisName(axis) << ":" << model.reach[axis];
  os << "\n";
  os << "  block:       ";
  for (int axis = 0; axis < model.dims; ++axis)
    os << (axis ? " x " : "") << k.block[axis];
  os << " (" << k.threadsPerBlock() << " threads), launch bounds ";
  if (plan.launchBounds && plan.minBlocksPerSm)
    os << plan.launchBounds << ", at least " << plan.minBlocksPerSm
       << (plan.minBlocksPerSm == 1 ? " block" : " blocks")
       << " per multiprocessor\n";
  else if (plan.launchBounds)
    os << plan.launchBounds << "\n";
  else
    os << "none\n";
  if (plan.march)
    os << "  tile:        a march along " << axisName(plan.tileAxis)
       << " through each block's chunk of planes, a ring of "
       << plan.tileFactor << " outputs";
  else if (plan.tileFactor > 1)
    os << "  tile:        " << plan.tileFactor << " sites along "
       << axisName(plan.tileAxis);
  else
    os << "  tile:        none";
  if (plan.xWidth > 1)
    os << (plan.march || plan.tileFactor > 1 ? " x " : "; ") << plan.xWidth
       << " aligned sites along x (vector width " << plan.xWidth << ")";
  else if (!plan.march && plan.tileFactor == 1)
    os << " (one site a thread)";
  os << "\n";
  if (plan.gathersPlane)
    os << "  plane:       its loads gathered before the sums, at 32-bit "
          "offsets within the plane computed before the walk (one vector a "
          "tap of a site-major field)\n";
  if (plan.gathersRows)
    os << "  plane:       its loads gathered before the sums, component by "
          "component (rows of a soa or aosoa field)\n";
  os << "  load order:  " << loadOrderName(k.loadOrder);
  if (k.loadOrder == LoadOrder::Explicit)
    os << " \"" << k.loadOrderText << "\"";
  os << "\n";
  os << "  stores:      "
     << (plan.storeKind == StoreKind::NonTemporal ? "non-temporal" : "regular")
     << "\n";
  os << format("  loads per tile: %d, stores per tile: %d, loads per site: "
               "%.3f\n",
               plan.loadsPerTile(), plan.storesPerTile(), plan.loadsPerSite());
  os << format("  bytes per site: %d (%d read, %d written), flops per site: "
               "%d, arithmetic intensity: %.3f flop/byte\n",
               plan.bytesPerSite(), plan.bytesReadPerSite,
               plan.bytesWrittenPerSite, plan.flopsPerSite,
               plan.arithmeticIntensity());
}

std::string boundsText(const KernelPlan &plan) {
  std::string text;
  for (int axis = 0; axis < plan.threads.dims; ++axis) {
    const AxisBounds &b = plan.guard.axes[axis];
    if (!b.hasLower && !b.hasUpper)
      continue;
    const std::string name = axisName(axis);
    text += text.empty() ? "" : ", ";
    if (b.hasLower)
      text += std::to_string(b.lower) + " <= ";
    text += name;
    if (b.hasUpper)
      text += " < n" + name +
              (b.upper ? " - " + std::to_string(b.upper) : std::string());
  }
  if (plan.guard.region) {
    std::string span;
    for (int axis = 0; axis < plan.threads.dims; ++axis)
      span += (axis ? "x" : "") + std::to_string(plan.guard.regionSpan[axis]);
    text += (text.empty() ? "" : ", ") + std::string("the thread's tile (") +
            span + " sites) in the launch's region";
  }
  return text.empty() ? "every thread's site is updated" : text;
}

/// "; G threads per site, K components each from c0, ..." for a split site,
/// nothing for a whole one.
std::string sharesText(const ComponentShares &s) {
  if (!s.split())
    return "";
  return "; " + std::to_string(s.groups) + " threads per site, " +
         std::to_string(s.perThread) + " components each from c0, " +
         (s.byLane() ? "shares side by side in a warp" : "a share per block");
}

/// The SharedStaging node: the box, the cooperative load, the phases.
void printStaging(const SharedStaging &s, raw_ostream &os) {
  os << "  staging:     shared array " << s.array << ", ";
  for (int axis = 0; axis < s.dims; ++axis)
    os << (axis ? " x " : "") << s.axes[axis].extent();
  os << " sites (halo";
  for (int axis = 0; axis < s.dims; ++axis)
    os << " " << axisName(axis) << " -" << s.axes[axis].below << "/+"
       << s.axes[axis].above;
  os << "), " << s.components << " of " << s.fieldComponents
     << (s.fieldComponents == 1 ? " component" : " components")
     << (s.split ? " from c0" : "") << " per site; " << s.elements()
     << " elements, " << s.bytes() << " bytes per block\n";
  os << "  stage:       phase " << s.stagePhase << ": " << s.threadsPerBlock
     << " threads copy " << (s.foldsDirection ? "in + beta * direction" : "in")
     << ", " << stagingOrderName(s.order) << ", "
     << stagingAddressName(s.address) << "; edges";
  for (int axis = 0; axis < s.dims; ++axis)
    os << " " << axisName(axis) << ":" << stagingEdgeName(s.axes[axis].edge);
  os << "; barrier; compute phase " << s.computePhase << "\n";
}

void printNodes(const KernelPlan &plan, raw_ostream &os) {
  os << "  parameters: ";
  for (const KernelParameter &param : plan.parameters)
    os << " " << param.name;
  os << "\n";
  const ThreadMapping &t = plan.threads;
  os << "  threads:     ";
  if (t.kind == ThreadMappingKind::Lattice) {
    os << "lattice grid, first site";
    for (int axis = 0; axis < t.dims; ++axis) {
      os << (axis ? ", " : " ") << axisName(axis) << " = ";
      if (t.lattice.origin[axis])
        os << t.lattice.origin[axis] << " + ";
      if (plan.march && axis == plan.tileAxis) {
        os << "planes * block." << axisName(axis)
           << " (the block's chunk of planes, walked in a loop)";
        continue;
      }
      if (t.lattice.sitesPerThread[axis] > 1)
        os << t.lattice.sitesPerThread[axis] << " * ";
      os << "thread." << axisName(axis);
    }
    os << sharesText(t.lattice.shares);
  } else if (t.kind == ThreadMappingKind::BothHalves) {
    os << "one per site, runs of 32 alternating between the even and the "
          "odd half, each in storage order, "
       << t.half.threadsPerBlock << " per block";
    os << sharesText(t.half.shares);
  } else {
    os << "one per site of parity " << t.half.parity;
    if (t.half.walksSlabs())
      os << " in slabs of "
         << (t.half.slab == KernelOptions::kSlabAuto
                 ? std::string("slices of ") + axisName(t.dims - 1) +
                       " chosen at launch (stencil::hop_slab)"
                 : std::to_string(t.half.slab) + " slices of " +
                       axisName(t.dims - 1))
         << ", " << axisName(t.dims - 1) << " inside "
         << axisName(t.dims - 2);
    else
      os << " in storage order";
    os << ", " << t.half.threadsPerBlock << " per block";
    os << sharesText(t.half.shares);
  }
  os << "\n";
  os << "  guard:       "
     << (plan.guard.kind == GuardKind::EarlyReturn ? "return unless "
                                                   : "skip the body unless ")
     << boundsText(plan) << "\n";
  const SiteIndexing &ix = plan.indexing;
  os << "  indexing:    " << siteIndexingName(ix.kind);
  if (ix.kind == SiteIndexingKind::Layout ||
      ix.kind == SiteIndexingKind::EvenOddHalf)
    os << " (" << layoutOrderName(ix.layout.order)
       << (ix.layout.order == LayoutOrder::Blocked
               ? " of " + std::to_string(ix.layout.block)
               : std::string())
       << (ix.layout.vector > 1
               ? ", " + std::to_string(ix.layout.vector) + " reals per load"
               : std::string())
       << (ix.layout.hasSubdomains() ? ", subdomains" : "")
       << (ix.layout.evenOdd ? ", even/odd" : "") << ")";
  if (ix.declaresRoom)
    os << ", room along " << axisName(ix.roomAxis);
  if (ix.declaresXRoom)
    os << ", room along x";
  os << "\n";
  if (!ix.coordinates.empty()) {
    os << "  coordinates:";
    for (const Coordinate &c : ix.coordinates)
      os << " " << axisName(c.axis) << (c.delta < 0 ? "" : "+") << c.delta
         << ":" << coordinateKindName(c.kind) << (c.flipsSign ? "+sign" : "");
    os << "\n";
  }
  const FieldAccess &a = plan.access;
  os << "  access:      " << accessKindName(a.kind);
  if (a.components > 1)
    os << ", " << a.perThread << " of " << a.components << " components"
       << (a.split ? " from c0" : "");
  if (a.width > 1)
    os << ", " << a.width << " values per access";
  os << "\n";
  if (plan.staging)
    printStaging(*plan.staging, os);
  os << "  weights:    ";
  for (const Weight &w : plan.weights)
    os << " " << w.name << " = " << linearFormSpelling(w.value) << ";";
  if (plan.weights.empty())
    os << " none (every weight varies from site to site)";
  os << "\n";
  for (const SiteWeight &w : plan.siteWeights) {
    // The shared part, then each field term with where it is read.
    double constant = w.base.empty() ? w.value.constant : 0.0;
    std::vector<std::pair<std::string, double>> terms;
    if (!w.base.empty())
      terms.push_back({w.base, 1.0});
    else
      terms = w.value.terms;
    for (const SiteTerm &term : w.terms) {
      std::string read = term.name + "[site";
      if (term.at.offset != Offset{})
        read += " " + formatOffset(term.at.offset, plan.threads.dims);
      if (term.at.clampTileAxis)
        read += std::string(" clamped along ") + axisName(plan.tileAxis);
      if (term.at.clampX)
        read += " clamped along x";
      if (term.at.oddHalf)
        read += " odd half";
      read += "]";
      terms.push_back({term.conjugate ? "conj(" + read + ")" : read,
                       term.factor});
    }
    const std::string text = linearText(constant, terms);
    os << "  site weight: " << w.name << " = " << text
       << (w.isComplex() ? "   (complex)" : "") << "\n";
  }
  if (plan.hasLinks) {
    const LinkStorage &l = plan.linkStorage;
    os << "  links:       " << l.name << ": " << l.dims << " x "
       << l.colours << "x" << l.colours << " complex per site, "
       << l.realsPerLink << " reals each"
       << (l.compressed ? " (two rows; the third rebuilt)" : "") << ", "
       << layoutOrderName(l.layout.order)
       << (l.layout.order == LayoutOrder::Blocked
               ? " of " + std::to_string(l.layout.block)
               : std::string())
       << (l.layout.vector > 1
               ? ", " + std::to_string(l.layout.vector) + " reals per load"
               : std::string())
       << (l.layout.evenOdd ? ", even/odd" : "") << "; "
       << plan.links.size() << " read per tile, each times "
       << l.colourVectors << " colour vector"
       << (l.colourVectors == 1 ? "" : "s") << " per use\n";
  }
  if (plan.hasClover) {
    const CloverStorage &c = plan.cloverStorage;
    os << "  clover:      " << c.name << ": two Hermitian " << 2 * c.colours
       << "x" << 2 * c.colours << " blocks per site, " << c.reals
       << " reals, " << layoutOrderName(c.layout.order)
       << (c.layout.order == LayoutOrder::Blocked
               ? " of " + std::to_string(c.layout.block)
               : std::string())
       << (c.layout.vector > 1
               ? ", " + std::to_string(c.layout.vector) + " reals per load"
               : std::string())
       << (c.layout.evenOdd ? ", even/odd" : "") << "; "
       << (plan.hop == Hop::None
               ? std::to_string(plan.clovers.size()) + " read per tile"
               : "the epilogue reads " + c.name + " or " + c.name +
                     "_inverse at the thread's site")
       << "\n";
  }
  os << "  accumulators: " << plan.accumulators.sites << " x "
     << plan.accumulators.valuesPerSite << " values\n";
  os << "  epilogue:    " << epilogueName(plan.epilogue) << "\n";
}

} // namespace

void printOptionNotes(const StencilModel &model, raw_ostream &os) {
  if (model.optionNotes.empty())
    return;
  os << "options of " << model.name << " (written in the spec, or chosen by "
     << "the planner's cost model):\n";
  for (const KernelOptionNote &note : model.optionNotes) {
    os << "  " << note.option << ": " << note.value;
    if (note.written)
      os << " (spec)\n";
    else
      os << " (planner: " << note.reason << ")\n";
  }
  os << "\n";
}

void printPlan(const StencilModel &original, const KernelPlan &plan,
               raw_ostream &os) {
  const StencilModel model = modelForRole(original, plan.role);
  printOptions(model, plan, os);
  printNodes(plan, os);
  os << "  program:\n";
  for (const PlanStep &step : plan.steps) {
    for (int index : step.links) {
      const PlannedLink &link = plan.links[index];
      os << "    link  l" << index << " = " << plan.linkStorage.name << "_"
         << axisName(link.axis) << "[site";
      if (link.at.offset != Offset{})
        os << " " << formatOffset(link.at.offset, model.dims);
      if (link.at.clampTileAxis)
        os << " clamped along " << axisName(plan.tileAxis);
      if (link.at.oddHalf)
        os << " odd half";
      os << "]\n";
    }
    for (int index : step.clovers) {
      const PlannedClover &clover = plan.clovers[index];
      os << "    clover c" << index << " = " << plan.cloverStorage.name
         << "[site";
      if (clover.at.offset != Offset{})
        os << " " << formatOffset(clover.at.offset, model.dims);
      os << "]\n";
    }
    const PlannedLoad &load = plan.loads[step.load];
    os << "    load  u" << step.load << " = "
       << (load.source == LoadSource::SharedBox ? plan.staging->array
           : plan.foldsDirection()             ? "(in + beta * direction)"
                                               : "in")
       << formatOffset(load.offset, model.dims);
    if (load.width > 1)
      os << " .. +" << load.width - 1 << " along x (one " << load.width
         << "-wide access)";
    if (load.clampTileAxis)
      os << "  [clamped along " << axisName(plan.tileAxis) << "]";
    if (load.clampX)
      os << "  [clamped along x]";
    for (int axis : load.signAxes)
      os << "  [sign flips across the " << axisName(axis) << " wrap]";
    os << "\n";
    for (const PlannedAccumulation &acc : step.accumulations) {
      const Coefficient &coefficient = model.taps[acc.tap].coefficient;
      if (acc.clover >= 0) {
        os << "      acc" << acc.site << (acc.first ? "  = " : " += ") << "c"
           << acc.clover << " u" << step.load << "   (clover term, "
           << coefficientText(model, coefficient) << " included)\n";
        continue;
      }
      std::string text = coefficientText(model, coefficient);
      bool compound = coefficient.terms.size() +
                          (coefficient.constant != 0.0 ? 1 : 0) >
                      1;
      std::string lane =
          plan.xWidth > 1 ? "[" + std::to_string(acc.lane) + "]" : "";
      std::string element = load.width > 1
                                ? "[" + std::to_string(acc.element) + "]"
                                : "";
      const std::string link =
          (acc.spin ? std::string("(1 ") + (acc.spin < 0 ? "-" : "+") +
                          " gamma_" + axisName(acc.spinAxis) + ") "
                    : std::string()) +
          (acc.link < 0 ? std::string()
                        : "l" + std::to_string(acc.link) +
                              (acc.dagger ? "^dagger " : " "));
      os << "      acc" << acc.site << lane << (acc.first ? "  = " : " += ")
         << (compound ? "(" + text + ")" : text) << " * " << link << "u"
         << step.load << element << "   (" << acc.weight
         << (acc.complexWeight ? ", complex" : "") << ")\n";
    }
  }
  for (const PlannedStore &store : plan.stores) {
    os << "    store out" << formatOffset(store.offset, model.dims);
    if (plan.xWidth > 1)
      os << " .. +" << plan.xWidth - 1 << " along x";
    os << " = ";
    if (store.value == StoredValue::Accumulator)
      os << "acc" << store.site;
    else if (plan.hasClover)
      os << "beta * acc0, beta * D^-1 acc0 or alpha * D same + beta * acc0 "
            "(the launch's mode; D = the clover term "
         << plan.cloverStorage.name << ", D^-1 = "
         << plan.cloverStorage.name << "_inverse)";
    else
      os << "beta * acc0, beta * acc0 / D or alpha * D * same + beta * acc0 "
            "(the launch's mode; D = "
         << coefficientText(model, model.taps[centreTapIndex(model)].coefficient)
         << ")";
    if (store.guarded)
      os << "  if " << axisName(store.guardAxis) << " + " << store.site
         << " < n" << axisName(store.guardAxis)
         << (store.guardUpper ? " - " + std::to_string(store.guardUpper)
                              : std::string());
    if (plan.foldsDirection())
      os << "; next_direction = p' = in + beta * direction there; solution "
            "+= alpha * direction there; dot += p' . out";
    else if (store.addsDot)
      os << "; dot += in . out";
    os << "\n";
  }
}

} // namespace stencilc
