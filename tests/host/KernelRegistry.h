// Every kernel the test build generated (shipped specs and tests/specs),
// with the spec it came from. The list is written by tests/CMakeLists.txt.
#ifndef STENCILC_TESTS_KERNELREGISTRY_H
#define STENCILC_TESTS_KERNELREGISTRY_H

#include "stencil/kernel_info.hpp"

#include <string>
#include <vector>

namespace stencilc {
namespace testing {

struct RegisteredKernel {
  const stencil::KernelInfo *info;
  std::string specPath;
  /// The planner's groups of sites along x compiled into the spec's code
  /// (stencil::TunedChoice::x_multiple), not the spec's own kernels.
  bool alongX = false;
};

const std::vector<RegisteredKernel> &registeredKernels();

/// registeredKernels(), then the planner's groups along x of each.
const std::vector<RegisteredKernel> &kernelsWithAlongXVariants();

} // namespace testing
} // namespace stencilc

#endif
