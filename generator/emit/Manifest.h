//===- Manifest.h - NAME.json: what was generated ---------------*- C++ -*-===//
#ifndef STENCILC_EMIT_MANIFEST_H
#define STENCILC_EMIT_MANIFEST_H

#include "plan/Plan.h"

#include <string>

namespace stencilc {

/// The manifest: grid, field, parameters, taps, and per kernel its options,
/// loads, stores, bytes and flops per site.
std::string printManifest(const StencilModel &model,
                          const std::vector<KernelPlan> &plans);

} // namespace stencilc

#endif
