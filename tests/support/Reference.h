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
/// along each Dirichlet axis the sites at least the stencil's largest reach
/// away from both ends; along periodic and antiperiodic axes every site.
bool isUpdated(const StencilModel &model, const Extents &extents,
               std::int64_t site);

/// out = A in (or A^T in when `adjoint`) over the updated sites (components
/// interleaved per site); other entries of the result are 0. A neighbour
/// past the end of a periodic axis is read from the other end, and past an
/// antiperiodic one also negated (in(x + n) = -in(x)). `parameters`
/// holds each scalar parameter's value; `siteValues[p]` the array (one value
/// per site, an (re, im) pair for a complex one) of each site parameter p,
/// and is empty for scalar ones. A^T is
/// computed from the definition A^T_ij = A_ji, with the input's halo read as
/// zero: the operator on the interior unknowns.
/// Link taps (complex fields): `links` holds per site (x fastest) the
/// model's dims N x N complex matrices U_mu, row-major, (re, im) adjacent;
/// a forward tap multiplies each colour vector of the neighbour by U_mu(x),
/// a backward one by U_mu(x - mu)^dagger, and A^dagger takes the conjugate
/// transpose of each block A_ij. On complex fields every weight is complex
/// (complex coefficient fields, conjugated as the terms say) and multiplies
/// each complex value.
/// Clover taps: `clover` holds per site (x fastest) two compact Hermitian
/// 2N x 2N blocks (stencil/clover.hpp's storage, the tap's coefficient
/// included), and the tap multiplies the site's spinor by them.
std::vector<double>
referenceApply(const StencilModel &model, const std::vector<double> &parameters,
               const std::vector<std::vector<double>> &siteValues,
               const Extents &extents, const std::vector<double> &in,
               bool adjoint = false,
               const std::vector<double> &links = std::vector<double>(),
               const std::vector<double> &clover = std::vector<double>());

} // namespace testing
} // namespace stencilc

#endif
