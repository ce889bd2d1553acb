// An independent naive reference for stencil application, in double: a loop
// over every site and every tap, straight from the validated model. It
// shares nothing with the planner or the emitter.
#ifndef STENCILC_TESTS_REFERENCE_H
#define STENCILC_TESTS_REFERENCE_H

#include "check/Model.h"

#include <array>
#include <cstdint>
#include <vector>

namespace stencilc {
namespace testing {

using Extents = std::array<int, kMaxDims>; ///< unused axes are 1

/// Number of sites of the lattice.
std::int64_t siteCount(const Extents &extents);

/// Whether `site` (linear index, x fastest) is updated by the stencil:
/// every site on a periodic grid, the interior on a Dirichlet grid.
bool isUpdated(const StencilModel &model, const Extents &extents,
               std::int64_t site);

/// out = A in over the updated sites (components interleaved per site);
/// other entries of the result are 0.
std::vector<double> referenceApply(const StencilModel &model,
                                   const std::vector<double> &parameters,
                                   const Extents &extents,
                                   const std::vector<double> &in);

} // namespace testing
} // namespace stencilc

#endif
