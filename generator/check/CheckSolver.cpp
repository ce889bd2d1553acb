//===- CheckSolver.cpp - What solver 'cg' needs of the operator -----------===//
#include "check/CheckSolver.h"

#include "stencil/symbol.hpp"

#include "llvm/Support/FormatVariadic.h"

#include <array>
#include <cstdio>
#include <vector>

using namespace llvm;

namespace stencilc {
namespace {

/// `value` to 6 significant digits, as printf's %g writes it.
std::string formatNumber6(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

/// The first tap whose mirror is missing or differs, as the diagnostic.
std::string symmetryProblem(const StencilModel &model) {
  for (const Tap &tap : model.taps) {
    const Tap *mirror = findTap(model, negatedOffset(tap.offset));
    if (mirror && sameCoefficient(tap.coefficient, mirror->coefficient))
      continue;
    std::string why =
        mirror ? "tap " + formatOffset(tap.offset, model.dims) +
                     " has coefficient '" +
                     coefficientText(model, tap.coefficient) + "' but tap " +
                     formatOffset(mirror->offset, model.dims) + " has '" +
                     coefficientText(model, mirror->coefficient) + "'"
               : "tap " + formatOffset(tap.offset, model.dims) +
                     " has no mirror tap " +
                     formatOffset(negatedOffset(tap.offset), model.dims);
    return "solver 'cg' needs a symmetric operator (c(o) = c(-o)), but " +
           why +
           "; use 'solver: cgnr', which solves the normal equations "
           "A^T A x = A^T b";
  }
  return "";
}

/// Site parameters enter with factor * value >= 0, so a negative factor
/// lets a caller's values make the diagonal, and A, indefinite.
std::string siteParameterProblem(const StencilModel &model) {
  for (const Tap &tap : model.taps)
    for (const auto &[index, factor] : tap.coefficient.terms)
      if (model.parameters[index].site && factor < 0)
        return "solver 'cg' needs a positive definite operator, but site "
               "parameter '" +
               model.parameters[index].name +
               "' enters the diagonal with a negative factor; use "
               "'solver: cgnr'";
  return "";
}

/// The symbol's minimum with the default values and site parameters at 0
/// (their contract is factor * value >= 0, so 0 is the worst case).
std::string symbolProblem(const StencilModel &model) {
  std::vector<double> values;
  for (const Parameter &p : model.parameters)
    values.push_back(p.site ? 0.0 : p.defaultValue);
  std::vector<std::array<int, 4>> offsets;
  std::vector<double> weights;
  for (const Tap &tap : model.taps) {
    offsets.push_back(tap.offset);
    weights.push_back(tap.coefficient.evaluate(values));
  }
  stencil::SymbolMinimum minimum =
      stencil::symbol_minimum(model.dims, offsets, weights);
  std::array<int, kMaxDims> boundary{};
  for (int axis = 0; axis < model.dims; ++axis)
    boundary[axis] = static_cast<int>(model.boundaries[axis]);
  if (stencil::symbol_positive_definite(model.dims, offsets, weights, minimum,
                                        boundary.data()))
    return "";
  const bool periodic = model.anyWraps() && model.uniformBoundary() &&
                        model.boundaries[0] == Boundary::Periodic;
  std::string theta;
  for (int axis = 0; axis < model.dims; ++axis)
    theta += (axis ? ", " : "") + formatv("{0:f3}", minimum.theta[axis]).str();
  return std::string("solver 'cg' needs a positive definite operator, but "
                     "the symbol sum_o c_o cos(theta . o) ") +
         (periodic ? "must be positive on a periodic grid and reaches "
          : model.anyWraps()
              ? "must be positive at the momenta the boundaries (" +
                    boundaryText(model) + ") allow, and reaches "
              : "reaches ") +
         formatNumber6(minimum.value) + " at theta = (" + theta +
         ") with the parameters' default values; use 'solver: cgnr', or add "
         "a positive shift (mass) to the centre tap";
}

} // namespace

std::string cgOperatorProblem(const StencilModel &model) {
  if (std::string problem = symmetryProblem(model); !problem.empty())
    return problem;
  if (std::string problem = siteParameterProblem(model); !problem.empty())
    return problem;
  return symbolProblem(model);
}

} // namespace stencilc
