#include "WilsonReference.h"

namespace stencilc {
namespace testing {

SpinMatrix diracGamma(int mu) {
  const Complex i(0.0, 1.0), o(0.0, 0.0), l(1.0, 0.0);
  switch (mu) {
  case 0:
    return {o, o, o, -i, o, o, -i, o, o, i, o, o, i, o, o, o};
  case 1:
    return {o, o, o, -l, o, o, l, o, o, l, o, o, -l, o, o, o};
  case 2:
    return {o, o, -i, o, o, o, o, i, i, o, o, o, o, -i, o, o};
  case 3:
    return {o, o, l, o, o, o, o, l, l, o, o, o, o, l, o, o};
  default:
    return {l, o, o, o, o, l, o, o, o, o, -l, o, o, o, o, -l};
  }
}

SpinorField wilsonApply(const stencil::GaugeField &U,
                        const std::array<bool, 4> &antiperiodic, double mass,
                        const SpinorField &psi) {
  const int n = U.colours();
  const int perSite = 4 * n;
  const std::int64_t sites = U.sites();
  SpinorField out(psi.size(), 0.0);
  auto link = [&](std::int64_t site, int mu, int i, int j) {
    const double *u = U.link(site, mu);
    return Complex(u[2 * (i * n + j)], u[2 * (i * n + j) + 1]);
  };
  for (std::int64_t x = 0; x < sites; ++x) {
    // Coordinates, to know when a step crosses the wrap.
    int c[4];
    std::int64_t rest = x;
    for (int mu = 0; mu < 4; ++mu) {
      c[mu] = static_cast<int>(rest % U.extents()[mu]);
      rest /= U.extents()[mu];
    }
    for (int k = 0; k < perSite; ++k)
      out[x * perSite + k] = (mass + 4.0) * psi[x * perSite + k];
    for (int mu = 0; mu < 4; ++mu) {
      const SpinMatrix g = diracGamma(mu);
      const std::int64_t forward = U.neighbour(x, mu, +1);
      const std::int64_t backward = U.neighbour(x, mu, -1);
      const double forwardSign =
          antiperiodic[mu] && c[mu] == U.extents()[mu] - 1 ? -1.0 : 1.0;
      const double backwardSign = antiperiodic[mu] && c[mu] == 0 ? -1.0 : 1.0;
      for (int s = 0; s < 4; ++s)
        for (int a = 0; a < n; ++a) {
          Complex sum = 0.0;
          for (int t = 0; t < 4; ++t) {
            const Complex minus = (s == t ? 1.0 : 0.0) - g[s * 4 + t];
            const Complex plus = (s == t ? 1.0 : 0.0) + g[s * 4 + t];
            for (int b = 0; b < n; ++b) {
              sum += forwardSign * minus * link(x, mu, a, b) *
                     psi[forward * perSite + t * n + b];
              sum += backwardSign * plus * std::conj(link(backward, mu, b, a)) *
                     psi[backward * perSite + t * n + b];
            }
          }
          out[x * perSite + s * n + a] -= 0.5 * sum;
        }
    }
  }
  return out;
}

SpinorField gamma5Times(const SpinorField &psi, int colours) {
  const SpinMatrix g5 = diracGamma(4);
  const int perSite = 4 * colours;
  SpinorField out(psi.size(), 0.0);
  for (size_t x = 0; x < psi.size() / perSite; ++x)
    for (int s = 0; s < 4; ++s)
      for (int t = 0; t < 4; ++t)
        for (int c = 0; c < colours; ++c)
          out[x * perSite + s * colours + c] +=
              g5[s * 4 + t] * psi[x * perSite + t * colours + c];
  return out;
}

SpinorField cloverTermApply(const stencil::GaugeField &U, double csw,
                            const SpinorField &psi) {
  const int n = U.colours();
  using Matrix = std::vector<Complex>; // n x n, row-major
  auto link = [&](std::int64_t site, int mu) {
    Matrix m(n * n);
    const double *u = U.link(site, mu);
    for (int k = 0; k < n * n; ++k)
      m[k] = Complex(u[2 * k], u[2 * k + 1]);
    return m;
  };
  auto dag = [&](const Matrix &a) {
    Matrix m(n * n);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        m[i * n + j] = std::conj(a[j * n + i]);
    return m;
  };
  auto mul = [&](const Matrix &a, const Matrix &b) {
    Matrix m(n * n, 0.0);
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < n; ++k)
        for (int j = 0; j < n; ++j)
          m[i * n + j] += a[i * n + k] * b[k * n + j];
    return m;
  };
  auto step = [&](std::int64_t x, int mu, int by) {
    return U.neighbour(x, mu, by);
  };
  SpinorField out(psi.size(), 0.0);
  for (std::int64_t x = 0; x < U.sites(); ++x)
    for (int mu = 0; mu < 4; ++mu)
      for (int nu = 0; nu < 4; ++nu) {
        if (mu == nu)
          continue;
        const std::int64_t xm = step(x, mu, -1), xn = step(x, nu, -1);
        // The leaves at x in the (mu, nu) plane, each a closed loop from x.
        const Matrix leaves[4] = {
            mul(mul(link(x, mu), link(step(x, mu, 1), nu)),
                mul(dag(link(step(x, nu, 1), mu)), dag(link(x, nu)))),
            mul(mul(link(x, nu), dag(link(step(xm, nu, 1), mu))),
                mul(dag(link(xm, nu)), link(xm, mu))),
            mul(mul(dag(link(xm, mu)), dag(link(step(xm, nu, -1), nu))),
                mul(link(step(xm, nu, -1), mu), link(xn, nu))),
            mul(mul(dag(link(xn, nu)), link(xn, mu)),
                mul(link(step(xn, mu, 1), nu), dag(link(x, mu))))};
        Matrix f(n * n, 0.0);
        for (const Matrix &leaf : leaves) {
          const Matrix d = dag(leaf);
          for (int k = 0; k < n * n; ++k)
            f[k] += (leaf[k] - d[k]) / 8.0;
        }
        const SpinMatrix a = diracGamma(mu), b = diracGamma(nu);
        for (int s = 0; s < 4; ++s)
          for (int t = 0; t < 4; ++t) {
            Complex commutator = 0.0;
            for (int k = 0; k < 4; ++k)
              commutator += a[s * 4 + k] * b[k * 4 + t] -
                            b[s * 4 + k] * a[k * 4 + t];
            const Complex weight =
                csw * Complex(0.0, 0.25) * Complex(0.0, 0.5) * commutator;
            if (weight == 0.0)
              continue;
            for (int i = 0; i < n; ++i)
              for (int j = 0; j < n; ++j)
                out[x * 4 * n + s * n + i] +=
                    weight * f[i * n + j] * psi[x * 4 * n + t * n + j];
          }
      }
  return out;
}

} // namespace testing
} // namespace stencilc
