//===- Model.cpp - The validated stencil model ----------------------------===//
//
// Names, text and small analyses of the StencilModel (check/Model.h) that
// every later stage shares; the checker itself lives in Check.cpp.
//
//===----------------------------------------------------------------------===//
#include "check/Model.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdlib>

using namespace llvm;

namespace stencilc {

const char *axisName(int axis) {
  static const char *const names[kMaxDims] = {"x", "y", "z", "t"};
  return names[axis];
}

std::string formatOffset(const Offset &offset, int dims) {
  std::string text = "(";
  for (int axis = 0; axis < dims; ++axis) {
    if (axis)
      text += ", ";
    text += std::to_string(offset[axis]);
  }
  return text + ")";
}

const char *boundaryName(Boundary boundary) {
  switch (boundary) {
  case Boundary::Dirichlet:
    return "dirichlet";
  case Boundary::Periodic:
    return "periodic";
  case Boundary::Antiperiodic:
    return "antiperiodic";
  }
  return "?";
}

const char *precisionName(Precision precision) {
  switch (precision) {
  case Precision::Float:
    return "float";
  case Precision::Double:
    return "double";
  case Precision::BFloat16:
    return "bf16";
  }
  return "?";
}

const char *loadOrderName(LoadOrder order) {
  switch (order) {
  case LoadOrder::AsWritten:
    return "as-written";
  case LoadOrder::Ascending:
    return "ascending";
  case LoadOrder::Explicit:
    return "explicit";
  }
  return "?";
}

const char *layoutOrderName(LayoutOrder order) {
  switch (order) {
  case LayoutOrder::SiteMajor:
    return "aos";
  case LayoutOrder::ComponentMajor:
    return "soa";
  case LayoutOrder::Blocked:
    return "aosoa";
  }
  return "?";
}

const char *exchangeTransportName(ExchangeTransport transport) {
  switch (transport) {
  case ExchangeTransport::Auto:
    return "auto";
  case ExchangeTransport::Peer:
    return "peer";
  case ExchangeTransport::Staged:
    return "staged";
  case ExchangeTransport::GpuAware:
    return "gpu-aware";
  }
  return "?";
}

const char *solverName(Solver solver) {
  switch (solver) {
  case Solver::None:
    return "none";
  case Solver::CG:
    return "cg";
  case Solver::CGNR:
    return "cgnr";
  }
  return "?";
}

void Coefficient::addTerm(int parameter, double factor, const Offset &shift,
                          bool conjugate) {
  auto same = llvm::find_if(terms, [&](const CoefficientTerm &t) {
    return t.parameter == parameter && t.shift == shift &&
           t.conjugate == conjugate;
  });
  if (same == terms.end()) {
    terms.push_back({parameter, factor, shift, conjugate});
    return;
  }
  same->factor += factor;
  if (same->factor == 0.0)
    terms.erase(same);
}

bool sameCoefficient(const Coefficient &a, const Coefficient &b) {
  if (a.constant != b.constant || a.terms.size() != b.terms.size())
    return false;
  for (const CoefficientTerm &term : a.terms)
    if (!llvm::is_contained(b.terms, term))
      return false;
  return true;
}

Coefficient shiftedCoefficient(const StencilModel &model, const Coefficient &c,
                               const Offset &delta) {
  Coefficient result = c;
  for (CoefficientTerm &term : result.terms)
    if (model.parameters[term.parameter].site)
      for (int axis = 0; axis < kMaxDims; ++axis)
        term.shift[axis] += delta[axis];
  return result;
}

const Tap *findTap(const StencilModel &model, const Offset &offset) {
  for (const Tap &tap : model.taps)
    if (tap.offset == offset)
      return &tap;
  return nullptr;
}

Offset negatedOffset(const Offset &offset) {
  Offset result;
  for (int axis = 0; axis < kMaxDims; ++axis)
    result[axis] = -offset[axis];
  return result;
}

Coefficient conjugatedCoefficient(const StencilModel &model,
                                  const Coefficient &c) {
  Coefficient result = c;
  for (CoefficientTerm &term : result.terms)
    if (model.parameters[term.parameter].complex)
      term.conjugate = !term.conjugate;
  return result;
}

bool isComplexCoefficient(const StencilModel &model, const Coefficient &c) {
  return llvm::any_of(c.terms, [&](const CoefficientTerm &term) {
    return model.parameters[term.parameter].complex;
  });
}

bool hasComplexCoefficients(const StencilModel &model) {
  return llvm::any_of(model.taps, [&](const Tap &tap) {
    return isComplexCoefficient(model, tap.coefficient);
  });
}

Coefficient adjointCoefficient(const StencilModel &model,
                               const Coefficient &mirror,
                               const Offset &offset) {
  return conjugatedCoefficient(model,
                               shiftedCoefficient(model, mirror, offset));
}

bool isSymmetric(const StencilModel &model) {
  // A link tap's mirror multiplies by the same lattice link, daggered: the
  // pair is Hermitian exactly when the coefficients pair up as the adjoint
  // asks.
  for (const Tap &tap : model.taps) {
    const Tap *mirror = findTap(model, negatedOffset(tap.offset));
    if (!mirror || mirror->link != tap.link || mirror->spin != tap.spin ||
        !sameCoefficient(tap.coefficient,
                         adjointCoefficient(model, mirror->coefficient,
                                            tap.offset)))
      return false;
  }
  return true;
}

StencilModel transposedModel(const StencilModel &model) {
  // A link tap o multiplies by the link between x and x + o; A^dagger's tap
  // -o, seen from x + o, multiplies by the same lattice link, daggered. That
  // is what a link tap at -o does (U_mu(x - mu)^dagger for -o = -mu, U_mu(x)
  // for -o = +mu), so the link flag stays with the tap as its offset flips.
  // Real coefficients are their own conjugates; complex fields flip. A
  // spin projector is Hermitian and commutes with the link, so it too stays
  // with the tap: (w P U)^dagger = conj(w) U^dagger P.
  StencilModel result = model;
  for (Tap &tap : result.taps) {
    tap.offset = negatedOffset(tap.offset);
    tap.coefficient = adjointCoefficient(model, tap.coefficient, tap.offset);
  }
  computeReach(result);
  return result;
}

StencilModel splitKernelsModel(const StencilModel &model) {
  StencilModel result = model;
  result.name = model.name + "_split";
  result.split.fill(false);
  result.rankKernels = true;
  // Their halo, the reach, holds every read: the checker keeps coefficient
  // fields within it along split axes (checkFieldReach).
  for (int axis = 0; axis < model.dims; ++axis)
    if (model.split[axis] && model.wraps(axis))
      result.boundaries[axis] = Boundary::Dirichlet;
  return result;
}

std::string blockShapeText(const StencilModel &model) {
  std::string text;
  for (int axis = 0; axis < model.dims; ++axis)
    text += (axis ? "x" : "") + std::to_string(model.kernel.block[axis]);
  return text;
}

StencilModel innerKernelsModel(const StencilModel &model) {
  StencilModel inner = model;
  inner.name = model.name + "_inner";
  const std::string tagged = "_" + model.deviceTag;
  if (!model.deviceTag.empty() && StringRef(model.name).endswith(tagged))
    inner.name = model.name.substr(0, model.name.size() - tagged.size()) +
                 "_inner" + tagged;
  inner.deviceTag.clear();
  inner.precision = model.innerPrecision;
  // Narrower values, the same bytes per access: a written width of 2 means
  // 16-byte loads of double, which 4-byte pairs of bfloat16 would not be.
  if (!model.groupsSitesAlongX() && model.kernel.vectorWidth > 1) {
    int width = model.kernel.vectorWidth * model.elementBytes() /
                inner.elementBytes();
    while (width > model.kernel.vectorWidth &&
           model.componentsPerThread() % width != 0)
      width /= 2;
    inner.kernel.vectorWidth = width;
  }
  inner.hasInner = false;
  inner.storageOfOuter = true;
  inner.split.fill(false); // the inner solve runs on one rank
  inner.rankKernels = false;
  inner.alongX = model.innerAlongX;
  inner.largeAlongX.reset();
  inner.innerAlongX.reset();
  inner.foldPass = model.innerFoldPass;
  inner.innerFoldPass.reset();
  return inner;
}

StencilModel plannerKernelsModel(const StencilModel &model,
                                 const KernelOptions &kernel,
                                 std::string name) {
  StencilModel variant = model;
  variant.kernel = kernel;
  variant.alongX.reset();
  variant.largeAlongX.reset();
  variant.innerAlongX.reset();
  variant.foldPass.reset();
  variant.innerFoldPass.reset();
  variant.name = std::move(name);
  variant.hasInner = false;
  variant.split.fill(false);
  variant.rankKernels = false;
  return variant;
}

StencilModel alongXVariantModel(const StencilModel &model) {
  return plannerKernelsModel(model, *model.alongX,
                        model.name + "_x" +
                            std::to_string(model.alongX->vectorWidth));
}

StencilModel largeAlongXVariantModel(const StencilModel &model) {
  return plannerKernelsModel(
      model, *model.largeAlongX,
      model.name + "_x" + std::to_string(model.largeAlongX->vectorWidth) +
          "_march");
}

StencilModel foldPassVariantModel(const StencilModel &model) {
  return plannerKernelsModel(model, *model.foldPass, model.name + "_fold");
}

std::string shiftText(const Offset &shift) {
  std::string text;
  for (int axis = 0; axis < kMaxDims; ++axis) {
    if (shift[axis] == 0)
      continue;
    text += shift[axis] < 0 ? "-" : "+";
    if (std::abs(shift[axis]) != 1)
      text += std::to_string(std::abs(shift[axis]));
    text += axisName(axis);
  }
  return text.empty() ? text : "@" + text;
}

bool hasOffCentreFields(const StencilModel &model) {
  for (const Tap &tap : model.taps)
    for (const CoefficientTerm &term : tap.coefficient.terms)
      if (model.parameters[term.parameter].site &&
          (tap.offset != Offset{} || term.shift != Offset{}))
        return true;
  return false;
}

int linkAxis(const Tap &tap) {
  for (int axis = 0; axis < kMaxDims; ++axis)
    if (tap.offset[axis] != 0)
      return axis;
  return 0;
}

bool isForwardLink(const Tap &tap) { return tap.offset[linkAxis(tap)] > 0; }

bool hasSpinTaps(const StencilModel &model) {
  return llvm::any_of(model.taps, [](const Tap &tap) { return tap.spin != 0; });
}

std::string spinProjectorText(const Tap &tap) {
  return std::string("(1 ") + (tap.spin < 0 ? "-" : "+") + " gamma_" +
         axisName(linkAxis(tap)) + ")";
}

const char *linkCompressionName(LinkCompression compression) {
  return compression == LinkCompression::TwoRows ? "two_rows" : "none";
}

std::string valuesText(const StencilModel &model) {
  if (!model.complexValues)
    return std::to_string(model.components) + " " + model.valueType() +
           (model.components == 1 ? "" : "s");
  std::string shape;
  for (int extent : model.shape)
    shape += (shape.empty() ? "" : " x ") + std::to_string(extent);
  const int count = model.components / 2;
  return std::to_string(count) + " complex " + model.valueType() +
         (count == 1 ? "" : "s") + " (shape " + shape + ")";
}

int siteParameterCount(const StencilModel &model) {
  return static_cast<int>(llvm::count_if(
      model.parameters, [](const Parameter &p) { return p.site; }));
}

int siteParameterReals(const StencilModel &model) {
  int reals = 0;
  for (const Parameter &p : model.parameters)
    reals += p.site ? p.realsPerSite() : 0;
  return reals;
}

int centreTapIndex(const StencilModel &model) {
  for (size_t t = 0; t < model.taps.size(); ++t)
    if (model.taps[t].offset == Offset{})
      return static_cast<int>(t);
  return -1;
}

std::string shortestNumberText(double value) {
  std::string text;
  raw_string_ostream os(text);
  os << format("%.17g", value);
  os.flush();
  // Shortest text that reads back to the same double.
  for (int digits = 1; digits <= 17; ++digits) {
    std::string candidate;
    raw_string_ostream cs(candidate);
    cs << format("%.*g", digits, value);
    cs.flush();
    if (std::strtod(candidate.c_str(), nullptr) == value)
      return candidate;
  }
  return text;
}

std::string linearText(
    double constant,
    const std::vector<std::pair<std::string, double>> &terms) {
  std::string text;
  auto append = [&](double factor, const std::string &name) {
    bool negative = factor < 0;
    double magnitude = negative ? -factor : factor;
    std::string term = name.empty() ? shortestNumberText(magnitude)
                       : magnitude == 1.0
                           ? name
                           : shortestNumberText(magnitude) + " * " + name;
    if (text.empty())
      text = (negative ? "-" : "") + term;
    else
      text += (negative ? " - " : " + ") + term;
  };
  if (constant != 0.0 || terms.empty())
    append(constant, "");
  for (const auto &[name, factor] : terms)
    append(factor, name);
  return text;
}

std::string coefficientText(const StencilModel &model,
                            const Coefficient &coefficient) {
  std::vector<std::pair<std::string, double>> terms;
  for (const CoefficientTerm &term : coefficient.terms) {
    std::string read =
        model.parameters[term.parameter].name + shiftText(term.shift);
    terms.push_back({term.conjugate ? "conj(" + read + ")" : read,
                     term.factor});
  }
  return linearText(coefficient.constant, terms);
}

std::string boundaryText(const StencilModel &model) {
  if (model.uniformBoundary())
    return boundaryName(model.boundaries[0]);
  std::string text;
  for (int axis = 0; axis < model.dims; ++axis)
    text += std::string(axis ? ", " : "") + boundaryName(model.boundaries[axis]);
  return text;
}

void computeReach(StencilModel &model) {
  model.reach.fill(0);
  for (const Tap &tap : model.taps)
    for (int axis = 0; axis < model.dims; ++axis)
      model.reach[axis] = std::max(model.reach[axis], std::abs(tap.offset[axis]));
}

void tapHalo(const StencilModel &model, Offset &below, Offset &above) {
  below.fill(0);
  above.fill(0);
  for (const Tap &tap : model.taps)
    for (int axis = 0; axis < model.dims; ++axis) {
      below[axis] = std::max(below[axis], -tap.offset[axis]);
      above[axis] = std::max(above[axis], tap.offset[axis]);
    }
}

const char *stagingName(Staging staging) {
  return staging == Staging::Shared ? "shared" : "registers";
}

std::string tileSummary(int axis, int factor) {
  // "tile x x 1" read as a typo.
  if (factor == 1)
    return "no tile";
  return std::string("tile ") + axisName(axis) + " x " + std::to_string(factor);
}

std::string tileSummary(const KernelOptions &k) {
  if (k.march)
    return std::string("marching along ") + axisName(k.tileAxis);
  return tileSummary(k.tileAxis, k.tileFactor);
}

std::string slabText(int slab) {
  return slab == KernelOptions::kSlabAuto ? "auto" : std::to_string(slab);
}

} // namespace stencilc
