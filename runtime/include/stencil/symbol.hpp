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

/// One axis' part of a stencil whose off-centre taps each lie on an axis:
/// f(theta) = sum of c_o cos(theta o) over the taps along `axis`.
inline double axis_symbol(int axis,
                          const std::vector<std::array<int, 4>> &offsets,
                          const std::vector<double> &weights, double theta) {
  double sum = 0.0;
  for (size_t t = 0; t < offsets.size(); ++t)
    if (offsets[t][axis] != 0)
      sum += weights[t] * std::cos(theta * offsets[t][axis]);
  return sum;
}

/// Along one axis alone, for a stencil whose off-centre taps each lie on an
/// axis: f(theta) = sum of c_o cos(theta o) over the taps along `axis`.
/// Returns the minimum over theta in (0, pi] of (f(theta) - f(0)) /
/// (1 - cos theta): positive exactly when f's only minimum is at theta = 0,
/// a quadratic one (a grid sample, then a pattern search around the best).
inline double axis_symbol_rise(int axis,
                               const std::vector<std::array<int, 4>> &offsets,
                               const std::vector<double> &weights) {
  auto f = [&](double theta) {
    return axis_symbol(axis, offsets, weights, theta);
  };
  const double pi = 3.14159265358979323846;
  const double f0 = f(0.0);
  auto rise = [&](double theta) {
    theta = std::fmin(pi, std::fmax(theta, 1e-6));
    return (f(theta) - f0) / (1.0 - std::cos(theta));
  };
  const int n = 4096;
  double best = std::numeric_limits<double>::infinity(), at = pi;
  for (int i = 1; i <= n; ++i) {
    const double theta = pi * i / n;
    if (const double value = rise(theta); value < best) {
      best = value;
      at = theta;
    }
  }
  for (double step = pi / n; step > 1e-12; step /= 2)
    for (bool improved = true; improved;) {
      improved = false;
      for (double sign : {-1.0, 1.0})
        if (const double value = rise(at + sign * step); value < best - 1e-18) {
          best = value;
          at = std::fmin(pi, std::fmax(at + sign * step, 1e-6));
          improved = true;
        }
    }
  return best;
}

/// What counts as zero beside a symbol's minimum: 1e-12 of the weights'
/// magnitude, for the rounding of the search and of the cosines.
inline double symbol_tolerance(const SymbolMinimum &minimum) {
  return 1e-12 * (minimum.scale > 0 ? minimum.scale : 1.0);
}

/// Whether a symmetric stencil with symbol minimum `minimum` is positive
/// definite on every lattice with these boundaries (`boundary[axis]`: 0
/// Dirichlet, 1 periodic, 2 antiperiodic, as stencil::Boundary). Over the
/// lattice momenta allowed along the axes that wrap (2 pi k / n periodic,
/// (2k + 1) pi / n antiperiodic: never 0), the quadratic form is the
/// symbol's integral against the Dirichlet axes' modes, so:
///   - a positive minimum suffices, a negative one fails;
///   - with a zero minimum, a grid that is Dirichlet along every axis is
///     definite (the symbol is not identically zero);
///   - otherwise the answer is decided only for stencils whose off-centre
///     taps each lie on one axis, s = K + sum_a f_a(theta_a) with K = min s
///     = 0: definite if some Dirichlet axis' f_a is not constant, or some
///     antiperiodic axis' f_a has its only minimum at theta = 0 (which its
///     momenta never reach); anything else is refused, since some lattice
///     size may reach the zero.
inline bool symbol_positive_definite(
    int dims, const std::vector<std::array<int, 4>> &offsets,
    const std::vector<double> &weights, const SymbolMinimum &minimum,
    const int *boundary) {
  const double tolerance = symbol_tolerance(minimum);
  if (minimum.scale == 0.0)
    return false;
  if (minimum.value > tolerance)
    return true;
  if (minimum.value < -tolerance)
    return false;
  bool allDirichlet = true;
  for (int axis = 0; axis < dims; ++axis)
    allDirichlet &= boundary[axis] == 0;
  if (allDirichlet)
    return true;
  for (const std::array<int, 4> &o : offsets) {
    int axes = 0;
    for (int axis = 0; axis < dims; ++axis)
      axes += o[axis] != 0;
    if (axes > 1)
      return false; // not separable: refuse what cannot be decided here
  }
  for (int axis = 0; axis < dims; ++axis) {
    const double rise = axis_symbol_rise(axis, offsets, weights);
    if (boundary[axis] == 0 && std::fabs(rise) > tolerance)
      return true; // a non-constant factor along a Dirichlet axis
    if (boundary[axis] == 2 && rise > 1e-9 * minimum.scale)
      return true;
  }
  return false;
}

/// For a symmetric stencil whose off-centre taps each lie on one axis
/// (s = K + sum_a f_a(theta_a)), a lower bound of its least eigenvalue on a
/// lattice of these extents (`boundary` as in symbol_positive_definite):
/// K plus, per axis, the least f_a over the momenta the axis allows. Along
/// an axis that wraps, f_a's values at its momenta are its section's
/// eigenvalues, so with no Dirichlet axis the bound is the least
/// eigenvalue itself; a Dirichlet section's lie inside f_a's range.
/// NaN for a stencil with a tap off the axes. Lattice by lattice, this
/// takes what symbol_positive_definite must refuse for some size: a
/// negative shift that antiperiodic momenta (never 0) outweigh.
inline double
separable_lattice_bound(int dims,
                        const std::vector<std::array<int, 4>> &offsets,
                        const std::vector<double> &weights, const int *boundary,
                        const int *extents) {
  double bound = 0.0;
  for (size_t t = 0; t < offsets.size(); ++t) {
    int axes = 0;
    for (int axis = 0; axis < dims; ++axis)
      axes += offsets[t][axis] != 0;
    if (axes > 1)
      return std::numeric_limits<double>::quiet_NaN();
    if (axes == 0)
      bound += weights[t];
  }
  const double pi = 3.14159265358979323846;
  for (int axis = 0; axis < dims; ++axis) {
    auto f = [&](double theta) {
      return axis_symbol(axis, offsets, weights, theta);
    };
    double least = std::numeric_limits<double>::infinity();
    if (boundary[axis] == 0) {
      // Any theta: a grid sample, then a pattern search around the best.
      const int n = 4096;
      double at = 0.0;
      for (int i = 0; i <= n; ++i)
        if (const double value = f(pi * i / n); value < least) {
          least = value;
          at = pi * i / n;
        }
      for (double step = pi / n; step > 1e-12; step /= 2)
        for (double sign : {-1.0, 1.0})
          if (const double value = f(at + sign * step); value < least) {
            least = value;
            at += sign * step;
          }
    } else {
      const int n = extents[axis];
      for (int k = 0; k < n; ++k)
        least = std::fmin(
            least, f(pi * (boundary[axis] == 2 ? 2 * k + 1 : 2 * k) / n));
    }
    bound += least;
  }
  return bound;
}

} // namespace stencil

#endif
