// stencil/symbol.hpp - the Fourier symbol of a constant-coefficient stencil,
// s(theta) = sum_o c_o cos(theta . o), and its minimum over theta.
//
// For a symmetric stencil the symbol is real and bounds the operator's
// spectrum: along periodic and antiperiodic axes the eigenvalues are its
// values at the lattice momenta (2 pi k / n, and (2k + 1) pi / n); a
// Dirichlet section (halo held at zero) has its spectrum inside
// (min s, max s) and is positive definite when s >= 0 and s is not
// identically zero. Used by the generator's spec check and by the runtime's
// check of the actual parameter values before CG.
#ifndef STENCIL_SYMBOL_HPP
#define STENCIL_SYMBOL_HPP

#include <array>
#include <cmath>
#include <limits>
#include <vector>

namespace stencil {

struct SymbolMinimum {
  double value = 0.0;
  std::array<double, 4> theta{}; ///< where it is reached
  double scale = 0.0;            ///< sum of |c_o|, for tolerances
};

/// Minimum over theta in [-pi, pi]^dims: a grid sample, then a pattern
/// search around the best sample. offsets[t] holds 4 entries.
inline SymbolMinimum symbol_minimum(int dims,
                                    const std::vector<std::array<int, 4>> &offsets,
                                    const std::vector<double> &weights) {
  auto symbol = [&](const std::array<double, 4> &theta) {
    double sum = 0.0;
    for (size_t t = 0; t < offsets.size(); ++t) {
      double phase = 0.0;
      for (int axis = 0; axis < dims; ++axis)
        phase += theta[axis] * offsets[t][axis];
      sum += weights[t] * std::cos(phase);
    }
    return sum;
  };
  static const int points_per_axis[5] = {1, 4096, 256, 64, 24};
  const int n = points_per_axis[dims];
  const double pi = 3.14159265358979323846;
  SymbolMinimum best;
  best.value = std::numeric_limits<double>::infinity();
  for (double w : weights)
    best.scale += std::fabs(w);
  long long total = 1;
  for (int axis = 0; axis < dims; ++axis)
    total *= n;
  for (long long index = 0; index < total; ++index) {
    std::array<double, 4> theta{};
    long long rest = index;
    for (int axis = 0; axis < dims; ++axis) {
      theta[axis] = -pi + 2 * pi * static_cast<double>(rest % n) / n;
      rest /= n;
    }
    double value = symbol(theta);
    if (value < best.value) {
      best.value = value;
      best.theta = theta;
    }
  }
  for (double step = 2 * pi / n; step > 1e-9; step /= 2)
    for (bool improved = true; improved;) {
      improved = false;
      for (int axis = 0; axis < dims; ++axis)
        for (double sign : {-1.0, 1.0}) {
          std::array<double, 4> theta = best.theta;
          theta[axis] += sign * step;
          double value = symbol(theta);
          if (value < best.value - 1e-15) {
            best.value = value;
            best.theta = theta;
            improved = true;
          }
        }
    }
  return best;
}

/// Whether a symmetric stencil whose symbol has this minimum is positive
/// definite on a lattice with these boundaries (`boundary[axis]`: 0
/// Dirichlet, 1 periodic, 2 antiperiodic, as stencil::Boundary; `reach`
/// the stencil's reach per axis), for every lattice size:
///   - a positive minimum suffices;
///   - a negative one fails (large lattices reach every momentum);
///   - a zero minimum is an eigenvalue only if its momentum theta* is one
///     of the lattice's: along a periodic axis 2 pi k / n (theta = 0 for
///     every n), along an antiperiodic axis (2k + 1) pi / n (never 0, so a
///     zero at theta_axis = 0 is never reached), and never along a Dirichlet
///     axis the stencil reaches across (the spectrum of its Toeplitz
///     section lies strictly inside the symbol's range). A zero elsewhere
///     than 0 along a wrapped axis may be reached for some n: not definite.
inline bool symbol_positive_definite(const SymbolMinimum &minimum, int dims,
                                     const int *boundary, const int *reach) {
  const double tolerance = 1e-12 * (minimum.scale > 0 ? minimum.scale : 1.0);
  if (minimum.scale == 0.0)
    return false;
  if (minimum.value > tolerance)
    return true;
  if (minimum.value < -tolerance)
    return false;
  for (int axis = 0; axis < dims; ++axis) {
    const bool atZero = std::fabs(minimum.theta[axis]) < 1e-6;
    if (boundary[axis] == 0 && reach[axis] > 0)
      return true;
    if (boundary[axis] == 2 && atZero)
      return true;
  }
  return false;
}

} // namespace stencil

#endif
