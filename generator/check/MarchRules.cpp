//===- MarchRules.cpp - What kernel.march needs ---------------------------===//
//
// The rule behind kernel.march (declared in Check.h): the checker applies it
// to the spec's options, the tuner, the planner and the tuning-cache reader
// to the models they build. A marching model's tile is its slowest axis
// (z in 3-D, t in 4-D) with factor 1: the march is the tile.
//
//===----------------------------------------------------------------------===//
#include "check/Check.h"

#include <string>

namespace stencilc {

std::string marchProblem(const StencilModel &model) {
  if (!model.kernel.march)
    return "";
  // The march is built for the kernels that gain from it (3-D and 4-D
  // fields, docs/performance.md "Marching along z" and "along t"); other
  // kernels are refused plainly rather than marched untested.
  if (model.dims != 3 && model.dims != 4)
    return "needs a 3-D or 4-D grid: threads march along the slowest axis "
           "(z or t)";
  const int axis = model.dims - 1;
  const std::string name = axisName(axis);
  if (model.layout.evenOdd)
    return "is not available with even/odd storage: its threads walk a "
           "half's sites, not columns of the lattice";
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
  if (model.kernel.block[axis] != 1)
    return "needs one thread along " + name + " ('kernel.block' " +
           (axis == 2 ? "[x, y, 1]" : "[x, y, z, 1]") +
           "): each thread walks the planes itself, not " +
           std::to_string(model.kernel.block[axis]);
  if (model.kernel.tileAxis != axis || model.kernel.tileFactor != 1)
    return "is the tile: it takes none but " + name + " x 1, not " +
           std::string(axisName(model.kernel.tileAxis)) + " x " +
           std::to_string(model.kernel.tileFactor);
  return "";
}

} // namespace stencilc
