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
};

const std::vector<RegisteredKernel> &registeredKernels();

} // namespace testing
} // namespace stencilc

#endif
