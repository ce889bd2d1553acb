// Every kernel the test build generated (shipped specs and tests/specs),
// with the spec it came from. The list is written by tests/CMakeLists.txt.
#ifndef STENCILC_TESTS_KERNELREGISTRY_H
#define STENCILC_TESTS_KERNELREGISTRY_H

#include "stencil/kernel_info.hpp"

#include <string>
#include <vector>

namespace stencilc {
namespace testing {

/// Which kernels of a spec's code: its own, or one of the planner's second
/// kernel sets compiled beside them (stencil::TunedChoice with x_multiple),
/// for the default device or (RegisteredKernel::device) another GPU.
enum class PlannerVariant {
  None,   ///< the spec's own kernels
  AlongX, ///< groups of sites along x (NAME_xW)
  /// Those groups marching along t, for large lattices (NAME_xW_march)
  LargeLattices,
  FoldPass, ///< the kernels for CG's fold pass (NAME_fold)
  Device,   ///< another GPU's (NAME_<tag>, NAME_<tag>_xW, NAME_<tag>_fold)
};

struct RegisteredKernel {
  const stencil::KernelInfo *info;
  std::string specPath;
  PlannerVariant variant = PlannerVariant::None;
  /// Of the inner precision's kernels (NAME_inner_xW, NAME_inner_fold).
  bool inner = false;
  /// The GPU whose cost model chose these (NAME_<tag>, NAME_<tag>_xW,
  /// NAME_<tag>_fold: tune/DevicePlans.h); empty for the default device.
  std::string device = {};
};

const std::vector<RegisteredKernel> &registeredKernels();

/// registeredKernels(), then the planner's second kernels of each, and of
/// its inner precision's kernels.
const std::vector<RegisteredKernel> &kernelsWithPlannerVariants();

} // namespace testing
} // namespace stencilc

#endif
