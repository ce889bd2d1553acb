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
/// With coefficient fields off the diagonal, CG's definiteness depends on
/// the fields' values, which the runtime checks before each solve; the
/// symmetry is still structural and checked here.
std::string cgOperatorProblem(const StencilModel &model);

/// For a model with off-centre fields: why positive fields do not make A
/// positive semi-definite by construction (the field part a weighted graph
/// Laplacian plus a non-negative diagonal, the constant part's symbol >= 0),
/// or "" when they do. A warning, not an error: the runtime's check of the
/// actual values decides.
std::string fieldDefinitenessGap(const StencilModel &model);

} // namespace stencilc

#endif
