//===- Hopping.h - Even/odd hopping kernels and their host code -*- C++ -*-===//
//
// Internal to generator/emit. For a model with even/odd storage, each
// hopping plan (plan/Plan.h) becomes a kernel that reads one parity's half
// field and writes the other's, with a run-time epilogue (stencil::HopMode)
// that serves both the full operator and its Schur complement.
//
//===----------------------------------------------------------------------===//
#ifndef STENCILC_EMIT_HOPPING_H
#define STENCILC_EMIT_HOPPING_H

#include "check/Model.h"
#include "plan/Plan.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace stencilc {

/// The kernel of one hopping plan (templates/hopping_kernel.in).
llvm::Expected<std::string> renderHoppingKernel(const StencilModel &model,
                                                const KernelPlan &plan);

/// Pieces of the launchers that the full-lattice launchers share.
struct LauncherText {
  std::string extentList;      ///< "{extents.nx, ..., 1}"
  std::string launchArguments; ///< after out, in
  std::string genericExtents;
  std::string genericParams;
  std::string halfValueCount; ///< values in one parity's half
  std::string siteChecks;     ///< checks of the site-parameter arrays
};

struct HoppingHostCode {
  std::string launchers; ///< NAME.hip: the four launchers
  std::string api;       ///< NAME.hpp: their declarations, hopping_shape()
  std::string table;     ///< info()'s EvenOddKernels definition
};

llvm::Expected<HoppingHostCode>
renderHoppingHostCode(const StencilModel &model,
                      const std::vector<KernelPlan> &plans,
                      const LauncherText &text);

} // namespace stencilc

#endif
