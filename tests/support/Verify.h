// Runs one generated kernel on the host backend against the naive reference:
// random input, poisoned output, then every updated value compared and every
// other value checked untouched. Shared by the test suite and stencil_verify.
#ifndef STENCILC_TESTS_VERIFY_H
#define STENCILC_TESTS_VERIFY_H

#include "Reference.h"

#include "stencil/kernel_info.hpp"

#include <cstdint>
#include <string>

namespace stencilc {
namespace testing {

struct Verification {
  bool launched = false;       ///< apply() returned ok
  std::string launchMessage;   ///< its message otherwise
  std::int64_t updatedSites = 0;
  std::int64_t untouchedValues = 0; ///< halo values still poisoned
  std::int64_t writtenHaloValues = 0;  ///< halo values overwritten: a bug
  std::int64_t unwrittenValues = 0;    ///< updated values left poisoned or
                                       ///< not finite: a bug
  double maxRelativeError = 0.0; ///< max |out - ref| / max |ref|
  double tolerance = 0.0;        ///< 1e-5 for float, 1e-12 for double
  double seconds = 0.0;          ///< wall time of apply()

  bool passed() const {
    return launched && writtenHaloValues == 0 && unwrittenValues == 0 &&
           maxRelativeError < tolerance;
  }
};

/// Verifies `info` (generated from `model`) on `extents` with random input,
/// random scalar parameters in [0.5, 1.5] and random site parameters in
/// [0, 2] (complex ones' parts in [-1, 1]), all drawn from `seed`: A, or A^T when `adjoint` (then the input's
/// halo is zero, as the operator on interior unknowns requires). Fields of
/// bfloat16 get inputs rounded to it, and their kernels' parameters, links
/// and clover terms in float, as they read them; the tolerance is then a
/// bfloat16 step of the largest value.
Verification verifyKernel(const stencil::KernelInfo &info,
                          const StencilModel &model, const Extents &extents,
                          std::uint64_t seed, bool adjoint = false);

} // namespace testing
} // namespace stencilc

#endif
