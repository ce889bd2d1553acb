//===- BoxCopyPrinter.h - The halo exchange's box copies --------*- C++ -*-===//
//
// Internal to generator/emit: the kernels, launchers and declarations of
// the box copies of the kernels ranks run (plan/Plan.h, BoxCopyPlan).
//
//===----------------------------------------------------------------------===//
#ifndef STENCILC_EMIT_BOXCOPYPRINTER_H
#define STENCILC_EMIT_BOXCOPYPRINTER_H

#include "plan/Plan.h"

#include <string>
#include <vector>

namespace stencilc {

/// The kernels (NAME.hip, inside its anonymous namespace).
std::string printBoxCopyKernels(const std::vector<BoxCopyPlan> &plans);
/// Their launchers, stencil::BoxCopy functions (NAME.hip).
std::string printBoxCopyLaunchers(const StencilModel &model,
                                  const std::vector<BoxCopyPlan> &plans);
/// The launchers' declarations (NAME.hpp).
std::string printBoxCopyDeclarations(const std::vector<BoxCopyPlan> &plans);

} // namespace stencilc

#endif
