//===- HostPrinter.h - Launchers and host declarations ----------*- C++ -*-===//
//
// Internal to generator/emit: the host side of NAME.hip and NAME.hpp that
// depends on the launchers the planner chose (plan/Plan.h, LauncherPlan).
//
//===----------------------------------------------------------------------===//
#ifndef STENCILC_EMIT_HOSTPRINTER_H
#define STENCILC_EMIT_HOSTPRINTER_H

#include "plan/Plan.h"

#include <string>
#include <vector>

namespace stencilc {

/// Each launcher and its untyped `_generic` twin (NAME.hip).
std::string printLaunchers(const StencilModel &model,
                           const std::vector<LauncherPlan> &launchers);

/// NAME.hpp's declarations of the launchers beyond apply() and
/// apply_adjoint(): apply_dot() and the hopping functions, if any.
std::string printExtraDeclarations(const std::vector<LauncherPlan> &launchers,
                                   bool narrowStorage);
/// The clover kernel's host functions (even/odd Wilson-clover stencils).
std::string printCloverDeclarations(const StencilModel &model);

/// info()'s stencil::EvenOddKernels table, or "" without even/odd storage.
std::string printEvenOddTable(const std::vector<KernelPlan> &plans);

} // namespace stencilc

#endif
