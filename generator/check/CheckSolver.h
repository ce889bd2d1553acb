//===- CheckSolver.h - What solver 'cg' needs of the operator --*- C++ -*-===//
//
// Internal to the checker: the operator analysis behind `solver: cg`, kept
// apart from the spec's other rules because it reasons about the operator
// (its mirror taps and its symbol) rather than about what was written.
//
//===----------------------------------------------------------------------===//
#ifndef STENCILC_CHECK_CHECKSOLVER_H
#define STENCILC_CHECK_CHECKSOLVER_H

#include "check/Model.h"

#include <string>

namespace stencilc {

/// Why CG cannot solve with `model`'s operator, as a whole diagnostic
/// ("solver 'cg' needs a symmetric operator ..."), or "" when it can. CG
/// needs A symmetric and positive definite; definiteness is judged from the
/// symbol with the parameters' default values and site parameters at 0.
/// The taps must be valid.
std::string cgOperatorProblem(const StencilModel &model);

} // namespace stencilc

#endif
