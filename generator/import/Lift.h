//===- Lift.h - Symbolic evaluation of one function into taps ---*- C++ -*-===//
#ifndef STENCILC_IMPORT_LIFT_H
#define STENCILC_IMPORT_LIFT_H

#include "import/Import.h"

#include <optional>

namespace clang {
class ASTContext;
class FunctionDecl;
} // namespace clang

namespace stencilc {
namespace import {

/// Evaluates `function`'s body (a definition, not a dependent template) and
/// derives the stencil it computes. Problems are reported through the
/// context's DiagnosticsEngine at their source location; nullopt after the
/// first error.
std::optional<ImportedStencil> liftStencil(clang::ASTContext &context,
                                           const clang::FunctionDecl &function,
                                           const ImportOptions &options);

} // namespace import
} // namespace stencilc

#endif
