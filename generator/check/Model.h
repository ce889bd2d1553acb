//===- Model.h - The validated stencil model -------------------*- C++ -*-===//
//
// What the checker hands to the planner: every name resolved, every default
// filled in, every invariant the later stages rely on established. Plain data
// with no source locations and no LLVM types, so that tests and tools can
// build one directly.
//
//===----------------------------------------------------------------------===//
#ifndef STENCILC_CHECK_MODEL_H
#define STENCILC_CHECK_MODEL_H

#include <array>
#include <string>
#include <utility>
#include <vector>

namespace stencilc {

constexpr int kMaxDims = 4;
/// An offset on the lattice; entries past the model's dimension are zero.
using Offset = std::array<int, kMaxDims>;

/// "x", "y", "z", "t" for axes 0..3.
const char *axisName(int axis);
/// "(-1, 0, 0)" for the first `dims` entries.
std::string formatOffset(const Offset &offset, int dims);

enum class Boundary { Dirichlet, Periodic };
enum class Precision { Float, Double };
enum class LoadOrder { AsWritten, Ascending, Explicit };

const char *boundaryName(Boundary boundary);
const char *precisionName(Precision precision);
const char *loadOrderName(LoadOrder order);

struct Parameter {
  std::string name;
  double defaultValue = 0.0;
};

/// A coefficient is `constant + sum of factor * parameters[index]`.
struct Coefficient {
  double constant = 0.0;
  std::vector<std::pair<int, double>> terms; ///< (parameter index, factor)
  bool isLiteral() const { return terms.empty(); }
  /// The value with the given parameter values.
  double evaluate(const std::vector<double> &parameterValues) const {
    double value = constant;
    for (const auto &[index, factor] : terms)
      value += factor * parameterValues[index];
    return value;
  }
};

struct Tap {
  Offset offset{};
  Coefficient coefficient;
};

struct KernelOptions {
  std::array<int, kMaxDims> block{1, 1, 1, 1}; ///< threads per axis
  int launchBounds = 0;                         ///< 0: no attribute
  int tileAxis = 0;
  int tileFactor = 1;
  LoadOrder loadOrder = LoadOrder::Ascending;
  std::string loadOrderText;   ///< the explicit order string, if any
  std::vector<int> tapOrder;   ///< explicit order: tap indices
  bool nontemporalStore = false;

  int threadsPerBlock() const {
    return block[0] * block[1] * block[2] * block[3];
  }
};

struct StencilModel {
  std::string name;
  std::string description;
  std::string specFileName; ///< file name only: generated code names no paths
  int dims = 1;
  Boundary boundary = Boundary::Dirichlet;
  Precision precision = Precision::Double;
  int components = 1;
  std::vector<Parameter> parameters;
  std::vector<Tap> taps;
  /// Reach of the stencil below and above a site along each axis: the
  /// Dirichlet halo widths, and the wrap distance for periodic grids.
  Offset reachLow{};
  Offset reachHigh{};
  KernelOptions kernel;

  int elementBytes() const { return precision == Precision::Float ? 4 : 8; }
  const char *valueType() const {
    return precision == Precision::Float ? "float" : "double";
  }
};

/// Recomputes reachLow/reachHigh from the taps.
void computeReach(StencilModel &model);

} // namespace stencilc

#endif
