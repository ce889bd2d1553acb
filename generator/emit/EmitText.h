//===- EmitText.h - Source-text helpers shared by the kernel writers -*- C++ -*-===//
//
// Internal to generator/emit: the full-lattice kernel writer (Emit.cpp) and
// the even/odd hopping kernel writer (Hopping.cpp) print the same names for
// extents, coordinates, thread positions and weights.
//
//===----------------------------------------------------------------------===//
#ifndef STENCILC_EMIT_EMITTEXT_H
#define STENCILC_EMIT_EMITTEXT_H

#include "check/Model.h"

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace stencilc {

std::string join(const std::vector<std::string> &parts,
                 llvm::StringRef separator);
/// "{a, b, c}".
std::string listOf(const std::vector<std::string> &items);
/// "nx", "ny", ...
std::string extentName(int axis);
/// Name of the coordinate `axis + delta`: "x", "x_p1", "y_m2".
std::string wrappedName(int axis, int delta);
/// This thread's position along `axis` in the launch grid of
/// stencil/launch_config.hpp (unsigned arithmetic, before any tile or halo
/// offset).
std::string threadPosition(const StencilModel &model, int axis);
/// The coefficient in the kernel's precision over its scalar parameters
/// (site-parameter terms are left to the caller, which knows the site).
std::string weightExpression(const StencilModel &model,
                             const Coefficient &coefficient);

/// The site-parameter terms of `coefficient` at element `index` (text),
/// e.g. " + sigma[site]" or " - static_cast<value_type>(2) * s[i]"; empty
/// when it has none.
std::string siteParameterTerms(const StencilModel &model,
                               const Coefficient &coefficient,
                               const std::string &index);
/// The kernel's parameters after `out` and `in`: extents, `blocks_z` for
/// 4-D grids when `withBlocksZ`, then the spec's parameters.
std::string kernelParameterList(const StencilModel &model, bool withBlocksZ);
/// The C++ initializer of a stencil::Layout: "{2, 32, {1, 1, 1, 1}}", with
/// ", 1" for even/odd storage.
std::string layoutInitializer(const FieldLayout &layout);
/// "soa", or "aosoa in blocks of 32 sites".
std::string orderDescription(const FieldLayout &layout);
/// "STENCIL_LAUNCH_BOUNDS(n)\n", or "" without launch bounds.
std::string launchBoundsText(const StencilModel &model);

} // namespace stencilc

#endif
