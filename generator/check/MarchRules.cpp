//===- MarchRules.cpp - What kernel.march needs ---------------------------===//
//
// The rule behind kernel.march (declared in Check.h): the checker applies it
// to the spec's options, the tuner, the planner and the tuning-cache reader
// to the models they build. A marching model's tile is z x 1 (the march is
// the tile).
//
//===----------------------------------------------------------------------===//
#include "check/Check.h"

#include <string>

namespace stencilc {

std::string marchProblem(const StencilModel &model) {
  if (!model.kernel.march)
    return "";
  // The march is built for the kernels that gain from it (single-component
  // 3-D fields, docs/performance.md "Marching along z"); other kernels are
  // refused plainly rather than marched untested.
  if (model.dims != 3)
    return "needs a 3-D grid: threads march along z, the slowest axis";
  if (model.components != 1)
    return "is available for single-component fields only";
  if (model.layout.evenOdd || !model.layout.isPlain())
    return "needs the plain site-major layout: the march reads a plane's rows "
           "as offsets from a site";
  if (model.hasLinkTaps() || model.hasCloverTap())
    return "is not available for gauge-covariant stencils";
  if (siteParameterCount(model) > 0)
    return "is not available with coefficient fields (site parameters): "
           "their values belong to the output site, not to the plane loaded";
  if (model.splittable() || model.rankKernels)
    return "is not available with 'grid.split': the ranks' kernels update "
           "regions of the lattice, not whole columns";
  if (model.narrowStorage())
    return "is not available with bfloat16 fields (inner_precision: bf16)";
  if (model.kernel.staging == Staging::Shared)
    return "and 'kernel.staging: shared' exclude each other";
  for (int axis = 0; axis < model.dims; ++axis)
    if (model.wraps(axis))
      return std::string("needs dirichlet boundaries: the ") +
             axisName(axis) + " axis wraps";
  if (model.kernel.block[2] != 1)
    return "needs one thread along z ('kernel.block' [x, y, 1]): each thread "
           "walks the planes itself, not " +
           std::to_string(model.kernel.block[2]);
  if (model.kernel.tileAxis != model.dims - 1 || model.kernel.tileFactor != 1)
    return "is the tile: it takes none but z x 1, not " +
           std::string(axisName(model.kernel.tileAxis)) + " x " +
           std::to_string(model.kernel.tileFactor);
  return "";
}

} // namespace stencilc
