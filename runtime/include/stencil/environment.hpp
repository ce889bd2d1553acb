// environment.hpp - the STENCILC_* environment variables the runtime reads,
// and the one way it reads them.
#ifndef STENCIL_ENVIRONMENT_HPP
#define STENCIL_ENVIRONMENT_HPP

#include "stencil/types.hpp"

#include <cstdlib>

namespace stencil {

/// Every variable the runtime reads (README, "The runtime and the
/// solvers"). The solver programs compare them over the ranks of a job;
/// tests/cli/environment.test checks that the runtime reads no other.
inline constexpr const char *kEnvironmentVariables[] = {
    "STENCILC_TUNING",   "STENCILC_TUNE_CACHE", "STENCILC_GRAPHS",
    "STENCILC_EXCHANGE", "STENCILC_OVERLAP",    "STENCILC_MARCH_PLANES"};

/// The value of `name`, or null where it is unset or empty: `NAME= program`
/// means the default for every variable alike (an empty STENCILC_OVERLAP
/// had been an error while an empty STENCILC_TUNING meant on).
inline const char *environment_value(const char *name) {
  const char *value = std::getenv(name);
  return value && *value ? value : nullptr;
}

/// The variables of kEnvironmentVariables that take a word or a number
/// hold one they take, or a clear error names it (STENCILC_TUNE_CACHE, a
/// path, is checked where the cache is read). Each is read only where it
/// applies (STENCILC_EXCHANGE on ranks, STENCILC_MARCH_PLANES by marching
/// kernels); StencilOperator::create checks them all, so that a misspelt
/// value fails in every program rather than only where it is used.
Status check_environment();

} // namespace stencil

#endif
