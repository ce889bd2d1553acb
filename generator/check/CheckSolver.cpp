//===- CheckSolver.cpp - What solver 'cg' needs of the operator -----------===//
#include "check/CheckSolver.h"

#include "stencil/symbol.hpp"

#include "llvm/Support/FormatVariadic.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <map>
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
    if (!mirror) {
      return "solver 'cg' needs a symmetric operator, but tap " +
             formatOffset(tap.offset, model.dims) + " has no mirror tap " +
             formatOffset(negatedOffset(tap.offset), model.dims) +
             "; use 'solver: cgnr', which solves the normal equations "
             "A^T A x = A^T b";
    }
    if (mirror->spin != tap.spin)
      return "solver 'cg' needs a Hermitian operator, but tap " +
             formatOffset(tap.offset, model.dims) + " multiplies by " +
             (tap.spin ? spinProjectorText(tap) : std::string("no spin projector")) +
             " and its mirror " + formatOffset(mirror->offset, model.dims) +
             " by " +
             (mirror->spin ? spinProjectorText(*mirror)
                           : std::string("none")) +
             " (Wilson fermions are gamma_5-Hermitian, not Hermitian); use "
             "'solver: cgnr', which solves the normal equations "
             "A^dagger A x = A^dagger b";
    if (mirror->link != tap.link)
      return "solver 'cg' needs a Hermitian operator, but tap " +
             formatOffset((tap.link ? tap : *mirror).offset, model.dims) +
             " multiplies by the link '" + model.links.name +
             "' and its mirror " +
             formatOffset((tap.link ? *mirror : tap).offset, model.dims) +
             " does not (the mirror must multiply by the same link, "
             "daggered); use 'solver: cgnr'";
    const Coefficient adjoint =
        adjointCoefficient(model, mirror->coefficient, tap.offset);
    if (sameCoefficient(tap.coefficient, adjoint))
      continue;
    std::string mirrorText = coefficientText(model, mirror->coefficient);
    if (hasComplexCoefficients(model))
      return "solver 'cg' needs a Hermitian operator (A_x,x+o = "
             "conj(A_x+o,x)), but tap " +
             formatOffset(tap.offset, model.dims) + " has coefficient '" +
             coefficientText(model, tap.coefficient) + "' and tap " +
             formatOffset(mirror->offset, model.dims) + " has '" +
             mirrorText + "', whose conjugate at the neighbour x + " +
             formatOffset(tap.offset, model.dims) + " is '" +
             coefficientText(model, adjoint) +
             "'; use 'solver: cgnr', which solves the normal equations "
             "A^dagger A x = A^dagger b";
    // Real coefficients: the adjoint's is the mirror's read from there.
    std::string seenText = coefficientText(model, adjoint);
    return "solver 'cg' needs a symmetric operator (A_x,x+o = A_x+o,x), but "
           "tap " +
           formatOffset(tap.offset, model.dims) + " has coefficient '" +
           coefficientText(model, tap.coefficient) + "' and tap " +
           formatOffset(mirror->offset, model.dims) + " has '" + mirrorText +
           "'" +
           (seenText == mirrorText
                ? ""
                : ", which at the neighbour x + " +
                      formatOffset(tap.offset, model.dims) + " reads '" +
                      seenText + "'") +
           "; use 'solver: cgnr', which solves the normal equations "
           "A^T A x = A^T b";
  }
  return "";
}

/// Centre-only site parameters enter the diagonal with factor * value >= 0,
/// so a negative factor lets a caller's values make A indefinite.
std::string siteParameterProblem(const StencilModel &model) {
  for (const Tap &tap : model.taps)
    for (const CoefficientTerm &term : tap.coefficient.terms)
      if (model.parameters[term.parameter].site && term.factor < 0)
        return "solver 'cg' needs a positive definite operator, but site "
               "parameter '" +
               model.parameters[term.parameter].name +
               "' enters the diagonal with a negative factor; use "
               "'solver: cgnr'";
  return "";
}

/// The taps at the parameters' default values with every site parameter at
/// 0: the constant-coefficient stencil whose symbol the checks judge.
struct DefaultStencil {
  std::vector<std::array<int, 4>> offsets;
  std::vector<double> weights;
  stencil::SymbolMinimum minimum;
};

/// With link taps every off-centre tap enters as -|c|: with unitary links,
/// <psi, A psi> >= <|psi|, A' |psi|> where A' has those real couplings (the
/// diamagnetic inequality: |c psi(x)^dagger U psi(x + o)| <= |c| |psi(x)|
/// |psi(x + o)|, which a plain tap with c > 0 needs too), so A' > 0 proves
/// A > 0 for every unitary gauge field. |psi| carries no antiperiodic sign
/// (a link can absorb it), so A' is judged as if every such axis were
/// periodic (linkBoundary).
DefaultStencil defaultStencil(const StencilModel &model) {
  std::vector<double> values;
  for (const Parameter &p : model.parameters)
    values.push_back(p.site ? 0.0 : p.defaultValue);
  DefaultStencil s;
  for (const Tap &tap : model.taps) {
    s.offsets.push_back(tap.offset);
    const double weight = tap.coefficient.evaluate(values);
    const bool bounded = model.hasLinkTaps() && tap.offset != Offset{};
    s.weights.push_back(bounded ? -std::abs(weight) : weight);
  }
  s.minimum = stencil::symbol_minimum(model.dims, s.offsets, s.weights);
  return s;
}

/// The symbol's minimum with the default values and site parameters at 0
/// (their contract is factor * value >= 0, so 0 is the worst case).
std::string symbolProblem(const StencilModel &model) {
  const DefaultStencil stencil = defaultStencil(model);
  const auto &[offsets, weights, minimum] = stencil;
  std::array<int, kMaxDims> boundary{};
  for (int axis = 0; axis < model.dims; ++axis)
    boundary[axis] = static_cast<int>(
        model.hasLinkTaps() && model.boundaries[axis] == Boundary::Antiperiodic
            ? Boundary::Periodic
            : model.boundaries[axis]);
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
         ") with the parameters' default values" +
         (model.hasLinkTaps()
              ? " (off-centre taps counted as -|c| and antiperiodic axes as "
                "periodic: the bound that holds for every unitary gauge field)"
              : "") +
         "; use 'solver: cgnr', or add a positive shift (mass) to the centre "
         "tap";
}

} // namespace

std::string fieldDefinitenessGap(const StencilModel &model) {
  // A complex coupling has no sign; only its modulus against the diagonal
  // can be judged, from the values.
  for (const Tap &tap : model.taps)
    for (const CoefficientTerm &term : tap.coefficient.terms)
      if (model.parameters[term.parameter].complex)
        return "field '" + model.parameters[term.parameter].name +
               "' is complex (its couplings' moduli are compared with the "
               "diagonal)";
  // Off the centre, a field term must be a coupling -f * k <= 0.
  for (const Tap &tap : model.taps) {
    if (tap.offset == Offset{})
      continue;
    for (const CoefficientTerm &term : tap.coefficient.terms)
      if (model.parameters[term.parameter].site && term.factor > 0)
        return "field '" + model.parameters[term.parameter].name +
               shiftText(term.shift) + "' enters the tap at " +
               formatOffset(tap.offset, model.dims) +
               " with a positive factor (a positive off-diagonal entry)";
  }
  // Each field value's share of a row sum must be >= 0: then the field part
  // is diagonally dominant with non-positive couplings.
  std::map<std::pair<int, Offset>, double> rowSum;
  for (const Tap &tap : model.taps)
    for (const CoefficientTerm &term : tap.coefficient.terms)
      if (model.parameters[term.parameter].site)
        rowSum[{term.parameter, term.shift}] += term.factor;
  for (const auto &[key, sum] : rowSum)
    if (sum < 0)
      return "the diagonal does not dominate the couplings of field '" +
             model.parameters[key.first].name + shiftText(key.second) +
             "' (its factors sum to " + formatNumber6(sum) +
             " over the taps of a row)";
  const stencil::SymbolMinimum minimum = defaultStencil(model).minimum;
  if (minimum.value < -1e-12)
    return "the taps' constant part (the fields at 0) has the symbol "
           "minimum " +
           formatNumber6(minimum.value) + " with the default values";
  return "";
}

std::string cgOperatorProblem(const StencilModel &model) {
  if (std::string problem = symmetryProblem(model); !problem.empty())
    return problem;
  // (1 +/- gamma) has norm 2: the diamagnetic bound below does not hold.
  if (hasSpinTaps(model))
    return "solver 'cg': positive definiteness of an operator with spin "
           "projectors cannot be proved; use 'solver: cgnr'";
  // Off-diagonal fields are judged from their values (the runtime's check
  // before each solve); the spec decides only whether that check is certain
  // to pass for positive fields (fieldDefinitenessGap).
  if (hasOffCentreFields(model) || hasComplexCoefficients(model))
    return "";
  if (std::string problem = siteParameterProblem(model); !problem.empty())
    return problem;
  return symbolProblem(model);
}

} // namespace stencilc
