#include "Reference.h"

namespace stencilc {
namespace testing {

std::int64_t siteCount(const Extents &extents) {
  std::int64_t count = 1;
  for (int n : extents)
    count *= n;
  return count;
}

namespace {

std::array<int, kMaxDims> coordinates(const Extents &extents,
                                      std::int64_t site) {
  std::array<int, kMaxDims> c{};
  for (int axis = 0; axis < kMaxDims; ++axis) {
    c[axis] = static_cast<int>(site % extents[axis]);
    site /= extents[axis];
  }
  return c;
}

} // namespace

bool isUpdated(const StencilModel &model, const Extents &extents,
               std::int64_t site) {
  if (model.boundary == Boundary::Periodic)
    return true;
  std::array<int, kMaxDims> c = coordinates(extents, site);
  for (int axis = 0; axis < model.dims; ++axis)
    for (const Tap &tap : model.taps) {
      int neighbour = c[axis] + tap.offset[axis];
      if (neighbour < 0 || neighbour >= extents[axis])
        return false;
    }
  return true;
}

std::vector<double> referenceApply(const StencilModel &model,
                                   const std::vector<double> &parameters,
                                   const Extents &extents,
                                   const std::vector<double> &in) {
  const int nc = model.components;
  const std::int64_t sites = siteCount(extents);
  std::vector<double> weights;
  for (const Tap &tap : model.taps)
    weights.push_back(tap.coefficient.evaluate(parameters));
  std::vector<double> out(in.size(), 0.0);
  for (std::int64_t site = 0; site < sites; ++site) {
    if (!isUpdated(model, extents, site))
      continue;
    std::array<int, kMaxDims> c = coordinates(extents, site);
    for (size_t t = 0; t < model.taps.size(); ++t) {
      std::int64_t neighbour = 0;
      for (int axis = kMaxDims - 1; axis >= 0; --axis) {
        int n = extents[axis];
        int coordinate = c[axis] + model.taps[t].offset[axis];
        coordinate = ((coordinate % n) + n) % n; // Dirichlet never wraps here
        neighbour = neighbour * n + coordinate;
      }
      for (int k = 0; k < nc; ++k)
        out[site * nc + k] += weights[t] * in[neighbour * nc + k];
    }
  }
  return out;
}

} // namespace testing
} // namespace stencilc
