//===- StagingRules.cpp - What kernel.staging: shared needs ---------------===//
//
// The rule behind kernel.staging (declared in Check.h): the checker applies
// it to the spec's options, the planner's option choice, the tuner and the
// tuning-cache reader to the models they build.
//
//===----------------------------------------------------------------------===//
#include "check/Check.h"

#include <string>

namespace stencilc {

long long stagedSites(const StencilModel &model) {
  Offset below, above;
  tapHalo(model, below, above);
  long long sites = 1;
  for (int axis = 0; axis < model.dims; ++axis) {
    const int tile =
        axis == model.kernel.tileAxis ? model.kernel.tileFactor : 1;
    sites *= model.kernel.block[axis] * tile + below[axis] + above[axis];
  }
  return sites;
}

long long stagedBytes(const StencilModel &model) {
  return stagedSites(model) * model.componentsPerThread() *
         model.elementBytes();
}

std::string stagingProblem(const StencilModel &model) {
  if (model.kernel.staging != Staging::Shared)
    return "";
  // Kernels whose threads are not a block of sites, or that read other
  // arrays at neighbours, are not staged (yet); said plainly.
  if (model.layout.evenOdd)
    return "is not available with even/odd storage: the hopping kernels' "
           "threads walk one parity's half, not a block of sites with a halo";
  if (model.hasLinkTaps() || model.hasCloverTap())
    return "is not available for gauge-covariant stencils: only the field is "
           "staged, and their links and clover terms are read per site";
  if (siteParameterCount(model) > 0)
    return "is not available with coefficient fields (site parameters): "
           "only the field is staged";
  if (model.splittable() || model.rankKernels)
    return "is not available with 'grid.split': the ranks' kernels update "
           "regions of the lattice, not whole blocks";
  if (model.narrowStorage())
    return "is not available with bfloat16 fields (inner_precision: bf16): "
           "the box would hold the folded direction unrounded, and q = A p "
           "must hold for the stored p";
  if (model.sitesPerThreadX() > 1)
    return "is not available with groups of sites along x "
           "('kernel.vector_width' of a single-component field, or of a "
           "component-major vector field): the group is read from the box "
           "value by value";
  const long long bytes = stagedBytes(model);
  if (bytes > kMaxStaticSharedBytes) {
    Offset below, above;
    tapHalo(model, below, above);
    std::string box;
    for (int axis = 0; axis < model.dims; ++axis) {
      const int tile =
          axis == model.kernel.tileAxis ? model.kernel.tileFactor : 1;
      box += (axis ? "x" : "") +
             std::to_string(model.kernel.block[axis] * tile + below[axis] +
                            above[axis]);
    }
    return "needs a shared array of " + std::to_string(bytes) +
           " bytes per block (" + box + " sites with the halo, " +
           std::to_string(model.componentsPerThread()) + " component" +
           (model.componentsPerThread() == 1 ? "" : "s") + " of " +
           std::to_string(model.elementBytes()) +
           " bytes), more than the " + std::to_string(kMaxStaticSharedBytes) +
           " bytes (48 KiB) a kernel may declare statically; use a smaller "
           "block or tile, or fewer components per thread";
  }
  return "";
}

} // namespace stencilc
