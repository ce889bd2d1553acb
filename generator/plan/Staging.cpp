//===- Staging.cpp - A block's box of sites staged in shared memory -------===//
//
// kernel.staging: shared. Each block copies its sites and the halo its taps
// reach into a shared array once (every thread of the block takes part),
// waits at a barrier, and runs the same program with its loads reading the
// array: a value that several threads of the block need is read from global
// memory once per block instead of once per thread through the caches.
// The wide stencils and vector fields whose loads the L1 and L2 limit are
// the case for it (docs/staging.md).
//
//===----------------------------------------------------------------------===//
#include "plan/Plan.h"

#include "plan/Schedule.h"

#include "llvm/ADT/STLExtras.h"

namespace stencilc {

namespace {

StagingEdge edgeOf(Boundary boundary) {
  switch (boundary) {
  case Boundary::Periodic:
    return StagingEdge::Wrap;
  case Boundary::Antiperiodic:
    return StagingEdge::WrapNegate;
  case Boundary::Dirichlet:
    break;
  }
  return StagingEdge::SkipPastEnd;
}

std::string boxText(const SharedStaging &s) {
  std::string text;
  for (int axis = 0; axis < s.dims; ++axis)
    text += (axis ? "x" : "") + std::to_string(s.axes[axis].extent());
  return text;
}

} // namespace

KernelPlan withSharedStaging(const StencilModel &model,
                             const KernelPlan &plan) {
  KernelPlan staged = plan;
  const LatticeThreads &threads = plan.threads.lattice;
  Offset below, above;
  tapHalo(model, below, above);

  SharedStaging s;
  s.dims = model.dims;
  s.threadsPerBlock = 1;
  for (int axis = 0; axis < model.dims; ++axis) {
    StagingAxis &a = s.axes[axis];
    a.threads = threads.block[axis];
    a.sitesPerThread = threads.sitesPerThread[axis];
    a.below = below[axis];
    a.above = above[axis];
    a.edge = edgeOf(model.boundaries[axis]);
    s.threadsPerBlock *= a.threads;
  }
  s.components = plan.access.perThread;
  s.fieldComponents = plan.access.components;
  s.split = plan.access.split;
  s.elementBytes = model.elementBytes();
  s.layout = model.layout;
  s.address = plan.indexing.kind == SiteIndexingKind::Layout
                  ? StagingAddress::LayoutSite
                  : StagingAddress::PlainSite;
  // A site's components are adjacent in site-major storage: consecutive
  // threads take consecutive components there, consecutive sites elsewhere.
  s.order = s.fieldComponents > 1 && model.layout.order == LayoutOrder::SiteMajor
                ? StagingOrder::ComponentsFastest
                : StagingOrder::SitesFastest;
  staged.staging = s;

  // Every thread stages and reaches the barrier: no early return.
  staged.guard.kind = GuardKind::Predicate;
  // The box holds each value already wrapped, clamped (zero past a
  // Dirichlet end) and signed: the loads read it as it is.
  for (PlannedLoad &load : staged.loads) {
    load.source = LoadSource::SharedBox;
    load.clampTileAxis = false;
    load.clampX = false;
    load.signAxes.clear();
  }
  // What still reads global memory by coordinates: the stores, under a
  // layout (plain indexings store at offsets from `site`).
  SiteIndexing &indexing = staged.indexing;
  indexing.coordinates.clear();
  if (indexing.kind == SiteIndexingKind::Layout) {
    std::vector<Offset> offsets;
    for (const PlannedStore &store : staged.stores)
      offsets.push_back(store.offset);
    indexing.coordinates =
        neighbourCoordinates(model, offsets, staged.tileAxis);
  }
  indexing.declaresXRoom = false;
  indexing.declaresRoom =
      llvm::any_of(indexing.coordinates, [](const Coordinate &c) {
        return c.kind == CoordinateKind::ClampAbove;
      });

  staged.comment += " The loads read the block's " + boxText(s) +
                    "-site box, staged in shared memory (" +
                    std::to_string(s.bytes()) + " bytes).";
  staged.programComment = "Each value is read from the box once and feeds "
                          "the tile's sites.";
  return staged;
}

const char *stagingEdgeName(StagingEdge edge) {
  switch (edge) {
  case StagingEdge::SkipPastEnd:
    return "skip-past-end";
  case StagingEdge::Wrap:
    return "wrap";
  case StagingEdge::WrapNegate:
    return "wrap-negate";
  }
  return "";
}

const char *stagingOrderName(StagingOrder order) {
  return order == StagingOrder::ComponentsFastest ? "components-fastest"
                                                  : "sites-fastest";
}

const char *stagingAddressName(StagingAddress address) {
  return address == StagingAddress::LayoutSite ? "layout-site" : "plain-site";
}

} // namespace stencilc
