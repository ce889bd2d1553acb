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

} // namespace testing
} // namespace stencilc
