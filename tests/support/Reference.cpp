#include "Reference.h"

#include "WilsonReference.h"

#include <algorithm>
#include <complex>
#include <cstdlib>

namespace stencilc {
namespace testing {

std::int64_t siteCount(const Extents &extents) {
  std::int64_t count = 1;
  for (int n : extents)
    count *= n;
  return count;
}

namespace {

std::array<int, kMaxDims> coordinates(const Extents &extents,
                                      std::int64_t site) {
  std::array<int, kMaxDims> c{};
  for (int axis = 0; axis < kMaxDims; ++axis) {
    c[axis] = static_cast<int>(site % extents[axis]);
    site /= extents[axis];
  }
  return c;
}

} // namespace

bool isUpdated(const StencilModel &model, const Extents &extents,
               std::int64_t site) {
  // The halo is as wide as the stencil's largest reach, on both sides of
  // each Dirichlet axis.
  std::array<int, kMaxDims> c = coordinates(extents, site);
  for (int axis = 0; axis < model.dims; ++axis) {
    if (model.boundaries[axis] != Boundary::Dirichlet)
      continue;
    int halo = 0;
    for (const Tap &tap : model.taps)
      halo = std::max(halo, std::abs(tap.offset[axis]));
    if (c[axis] < halo || c[axis] >= extents[axis] - halo)
      return false;
  }
  return true;
}

std::vector<double>
referenceApply(const StencilModel &model, const std::vector<double> &parameters,
               const std::vector<std::vector<double>> &siteValues,
               const Extents &extents, const std::vector<double> &in,
               bool adjoint, const std::vector<double> &links,
               const std::vector<double> &clover) {
  const int nc = model.components;
  const int n = model.links.colours;
  const std::int64_t sites = siteCount(extents);
  // The neighbour's index, and in `factor` -1 for each antiperiodic wrap
  // crossed (+1 otherwise).
  auto neighbourOf = [&](std::int64_t site, const Offset &offset, int sign,
                         double &factor) {
    std::array<int, kMaxDims> c = coordinates(extents, site);
    std::int64_t neighbour = 0;
    factor = 1.0;
    for (int axis = kMaxDims - 1; axis >= 0; --axis) {
      int n = extents[axis];
      int coordinate = c[axis] + sign * offset[axis];
      // Dirichlet axes never wrap here: updated sites keep their reach.
      int wrapped = ((coordinate % n) + n) % n;
      int crossings = coordinate >= 0 ? coordinate / n
                                      : -((-coordinate + n - 1) / n);
      if (axis < model.dims &&
          model.boundaries[axis] == Boundary::Antiperiodic && crossings % 2)
        factor = -factor;
      neighbour = neighbour * n + wrapped;
    }
    return neighbour;
  };
  // The weight of tap t at site s: a field is read at s + its shift
  // (wrapped, never negated: coefficients carry no antiperiodic sign); a
  // complex field's (re, im) pair, conjugated where the term says so.
  using Complex = std::complex<double>;
  auto weight = [&](size_t t, std::int64_t s) {
    const Coefficient &c = model.taps[t].coefficient;
    Complex value = c.constant;
    for (const CoefficientTerm &term : c.terms) {
      const std::vector<double> &field = siteValues[term.parameter];
      if (field.empty()) {
        value += term.factor * parameters[term.parameter];
        continue;
      }
      double ignored = 1.0;
      std::int64_t at = neighbourOf(s, term.shift, +1, ignored);
      Complex v = model.parameters[term.parameter].complex
                      ? Complex(field[2 * at], field[2 * at + 1])
                      : Complex(field[at], 0.0);
      value += term.factor * (term.conjugate ? std::conj(v) : v);
    }
    return value;
  };
  // The N x N block that tap t puts between `site` and its neighbour: the
  // identity, U_mu(site), or U_mu(site - mu)^dagger, as complex numbers.
  auto block = [&](size_t t, std::int64_t s) {
    std::vector<Complex> b(n * n, 0.0);
    const Tap &tap = model.taps[t];
    if (!tap.link) {
      for (int i = 0; i < n; ++i)
        b[i * n + i] = 1.0;
      return b;
    }
    int mu = 0;
    while (tap.offset[mu] == 0)
      ++mu;
    const bool forward = tap.offset[mu] > 0;
    Offset back{};
    back[mu] = -1;
    double ignored = 1.0;
    const std::int64_t from = forward ? s : neighbourOf(s, back, +1, ignored);
    const double *u = links.data() + (from * model.dims + mu) * 2 * n * n;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        b[i * n + j] = forward ? Complex(u[2 * (i * n + j)], u[2 * (i * n + j) + 1])
                               : std::conj(Complex(u[2 * (j * n + i)],
                                                   u[2 * (j * n + i) + 1]));
    return b;
  };
  // out[site] += w P B v over each colour vector v of in[j] (B^dagger when
  // `conjugate`; B is the identity without a link, a plain tap on a complex
  // field taking its values one complex number at a time). P mixes the 4
  // spins of each spinor as (1 + s gamma_mu) for a spin-projected tap, and
  // is the identity otherwise; it is Hermitian, so the adjoint's is the same.
  std::vector<double> out(in.size(), 0.0);
  auto addBlock = [&](std::int64_t site, std::int64_t j, Complex w, size_t t,
                      std::int64_t blockSite, bool conjugate) {
    const Tap &tap = model.taps[t];
    const int bn = tap.link ? n : 1;
    const std::vector<Complex> b =
        tap.link ? block(t, blockSite) : std::vector<Complex>{1.0};
    const int vectors = nc / (2 * bn);
    std::vector<Complex> bv(vectors * bn, 0.0);
    for (int v = 0; v < vectors; ++v)
      for (int i = 0; i < bn; ++i)
        for (int k = 0; k < bn; ++k) {
          const Complex entry = conjugate ? std::conj(b[k * bn + i]) : b[i * bn + k];
          const std::int64_t e = j * nc + v * 2 * bn + 2 * k;
          bv[v * bn + i] += entry * Complex(in[e], in[e + 1]);
        }
    const int group = tap.spin != 0 ? 4 : 1;
    const SpinMatrix g = diracGamma(tap.spin != 0 ? linkAxis(tap) : 0);
    auto projector = [&](int row, int col) {
      return (row == col ? 1.0 : 0.0) +
             (tap.spin != 0 ? double(tap.spin) * g[row * 4 + col] : 0.0);
    };
    for (int v = 0; v < vectors; ++v)
      for (int i = 0; i < bn; ++i) {
        const int first = v / group * group, row = v % group;
        Complex sum = 0.0;
        for (int col = 0; col < group; ++col)
          sum += projector(row, col) * bv[(first + col) * bn + i];
        sum *= w;
        out[site * nc + v * 2 * bn + 2 * i] += sum.real();
        out[site * nc + v * 2 * bn + 2 * i + 1] += sum.imag();
      }
  };
  // The clover tap: the site's 4N x 4N matrix, rebuilt entry by entry from
  // the compact chiral blocks (row r, column c of one block: the real
  // diagonal, a stored lower entry, or the conjugate of the mirrored one).
  auto cloverEntry = [&](std::int64_t s, int row, int col) -> Complex {
    const int rows = 2 * n;
    if (row / rows != col / rows)
      return 0.0; // chirality blocks do not mix
    const double *a = clover.data() + s * 8 * n * n + row / rows * 4 * n * n;
    const int r = row % rows, c = col % rows;
    if (r == c)
      return a[r];
    const int hi = std::max(r, c), lo = std::min(r, c);
    const int k = rows + 2 * (hi * (hi - 1) / 2 + lo);
    const Complex lower(a[k], a[k + 1]);
    return r > c ? lower : std::conj(lower);
  };
  for (std::int64_t site = 0; site < sites; ++site) {
    if (!isUpdated(model, extents, site))
      continue;
    for (size_t t = 0; t < model.taps.size(); ++t) {
      if (model.taps[t].clover) {
        const int values = nc / 2;
        for (int row = 0; row < values; ++row) {
          Complex sum = 0.0;
          for (int col = 0; col < values; ++col) {
            const Complex entry = adjoint
                                      ? std::conj(cloverEntry(site, col, row))
                                      : cloverEntry(site, row, col);
            sum += entry * Complex(in[site * nc + 2 * col],
                                   in[site * nc + 2 * col + 1]);
          }
          out[site * nc + 2 * row] += sum.real();
          out[site * nc + 2 * row + 1] += sum.imag();
        }
        continue;
      }
      if (model.complexValues) {
        double sign = 1.0;
        const std::int64_t j =
            neighbourOf(site, model.taps[t].offset, adjoint ? -1 : +1, sign);
        if (!adjoint) {
          // (A x)_i = sum_t w_t(i) B_t(i) x_{i + o_t}
          addBlock(site, j, sign * weight(t, site), t, site, false);
        } else if (isUpdated(model, extents, j)) {
          // (A^dagger x)_i = sum_j (A_ji)^dagger x_j, A_ji = w_t(j) B_t(j).
          addBlock(site, j, sign * std::conj(weight(t, j)), t, j, true);
        }
        continue;
      }
      if (!adjoint) {
        // (A x)_i = sum_t c_t(i) x_{i + o_t}
        double sign = 1.0;
        std::int64_t j = neighbourOf(site, model.taps[t].offset, +1, sign);
        for (int k = 0; k < nc; ++k)
          out[site * nc + k] += sign * weight(t, site).real() * in[j * nc + k];
      } else {
        // (A^T x)_i = sum_j A_ji x_j = sum_t c_t(j) x_j with j = i - o_t,
        // over interior j only (x is zero on the halo).
        // An antiperiodic wrap gives A_ji the same sign in both
        // directions.
        double sign = 1.0;
        std::int64_t j = neighbourOf(site, model.taps[t].offset, -1, sign);
        if (!isUpdated(model, extents, j))
          continue;
        for (int k = 0; k < nc; ++k)
          out[site * nc + k] += sign * weight(t, j).real() * in[j * nc + k];
      }
    }
  }
  return out;
}

} // namespace testing
} // namespace stencilc
