// Helpers the host runtime tests share: kernel lookup by name, status
// assertions, random site parameters.
#ifndef STENCILC_TESTS_HOSTFIXTURES_H
#define STENCILC_TESTS_HOSTFIXTURES_H

#include "KernelRegistry.h"

#include "stencil/field.hpp"
#include "stencil/operator.hpp"
#include "stencil/random.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#define ASSERT_OK(call)                                                        \
  do {                                                                         \
    ::stencil::Status status_ = (call);                                        \
    ASSERT_TRUE(status_.ok()) << status_.message();                            \
  } while (0)

namespace stencilc {
namespace testing {

/// The registered stencil named `name` (a test failure if there is none).
inline const stencil::KernelInfo &kernelNamed(const std::string &name) {
  for (const auto &k : registeredKernels())
    if (name == k.info->name)
      return *k.info;
  ADD_FAILURE() << "no kernel " << name;
  return *registeredKernels().front().info;
}

/// Gives each site parameter of A an array of values uniform in [low,
/// high); `fields` keeps them alive.
inline stencil::Status
attachRandomSiteParameters(stencil::StencilOperator &A, stencil::Random &random,
                           double low, double high,
                           std::vector<std::unique_ptr<stencil::Field>> &fields) {
  return stencil::set_random_site_parameters(
      A, random, [&](const std::string &) { return std::pair{low, high}; },
      fields);
}

} // namespace testing
} // namespace stencilc

#endif
