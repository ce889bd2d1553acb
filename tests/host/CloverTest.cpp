// The clover term (stencil/clover.hpp) on random and smooth SU(3) gauge
// fields: it vanishes on the unit gauge, is Hermitian, commutes with
// gamma_5 (two chiral blocks), transforms covariantly, its L D L^dagger
// inverse undoes it on the parity asked for, a field strength built
// independently here from the plaquettes agrees with it, and a block that
// cannot be inverted is refused naming the site.
#include "HostFixtures.h"
#include "WilsonReference.h"

#include "stencil/clover.hpp"
#include "stencil/gauge.hpp"
#include "stencil/random.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <string>
#include <vector>

using namespace stencilc::testing;

namespace {

double maxDifference(const std::vector<double> &a, const std::vector<double> &b) {
  double d = 0.0;
  for (size_t k = 0; k < a.size(); ++k)
    d = std::max(d, std::fabs(a[k] - b[k]));
  return d;
}

stencil::GaugeField randomGauge(const int (&n)[4], std::uint64_t seed) {
  stencil::Random random(seed);
  return stencilc::testing::randomGauge(n, random);
}

TEST(Clover, VanishesOnTheUnitGauge) {
  const int n[4] = {3, 2, 3, 4};
  stencil::GaugeField U;
  ASSERT_TRUE(stencil::GaugeField::create(4, n, 3, U).ok());
  stencil::CloverField A;
  ASSERT_TRUE(stencil::CloverField::create(U, 0.25, 1.7, A).ok());
  EXPECT_EQ(A.reals_per_block(), 36);
  for (std::int64_t x = 0; x < A.sites(); ++x)
    for (int chirality = 0; chirality < 2; ++chirality) {
      const std::vector<Complex> b = A.dense_block(x, chirality);
      for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j)
          EXPECT_EQ(b[i * 6 + j], i == j ? Complex(4.25) : Complex(0.0));
    }
}

TEST(Clover, IsHermitianAndChiral) {
  const int n[4] = {3, 4, 3, 4};
  const stencil::GaugeField U = randomGauge(n, 51);
  stencil::CloverField A;
  ASSERT_TRUE(stencil::CloverField::create(U, 0.1, 1.3, A).ok());
  stencil::Random random(52);
  const std::int64_t values = U.sites() * 24;
  const std::vector<double> phi = randomReals(random, values),
                            psi = randomReals(random, values);
  std::vector<double> aphi, apsi;
  ASSERT_TRUE(A.apply(phi, aphi).ok());
  ASSERT_TRUE(A.apply(psi, apsi).ok());
  const Complex left = innerProduct(phi, apsi), right = innerProduct(aphi, psi);
  EXPECT_LT(std::abs(left - right), 1e-13 * std::abs(left));
  // Chirality: a spinor with only spins 0 and 1 stays so (A commutes with
  // gamma_5), and the field is far from the unit gauge.
  std::vector<double> upper = psi;
  for (std::int64_t x = 0; x < U.sites(); ++x)
    for (int k = 12; k < 24; ++k)
      upper[x * 24 + k] = 0.0;
  std::vector<double> aupper;
  ASSERT_TRUE(A.apply(upper, aupper).ok());
  double lower = 0.0, offDiagonal = 0.0;
  for (std::int64_t x = 0; x < U.sites(); ++x)
    for (int k = 0; k < 24; ++k) {
      if (k >= 12)
        lower = std::max(lower, std::fabs(aupper[x * 24 + k]));
      else
        offDiagonal = std::max(
            offDiagonal, std::fabs(aupper[x * 24 + k] - 4.1 * upper[x * 24 + k]));
    }
  EXPECT_EQ(lower, 0.0);
  EXPECT_GT(offDiagonal, 0.1);
}

TEST(Clover, IsGaugeCovariant) {
  // A[U^g](x) = g(x) A[U](x) g(x)^dagger on each spin's colour vector.
  const int n[4] = {3, 3, 4, 3};
  stencil::GaugeField U = randomGauge(n, 53);
  stencil::Random random(54);
  const std::vector<double> g = stencil::random_gauge_transform(U, random);
  stencil::GaugeField Ug = U;
  ASSERT_TRUE(stencil::gauge_transform_links(g, Ug).ok());
  stencil::CloverField A, Ag;
  ASSERT_TRUE(stencil::CloverField::create(U, 0.2, 1.1, A).ok());
  ASSERT_TRUE(stencil::CloverField::create(Ug, 0.2, 1.1, Ag).ok());
  std::vector<double> psi = randomReals(random, U.sites() * 24);
  std::vector<double> gpsi = psi, left, right;
  ASSERT_TRUE(stencil::gauge_transform_vectors(g, U, 4, gpsi).ok());
  ASSERT_TRUE(Ag.apply(gpsi, left).ok());
  ASSERT_TRUE(A.apply(psi, right).ok());
  ASSERT_TRUE(stencil::gauge_transform_vectors(g, U, 4, right).ok());
  EXPECT_LT(maxDifference(left, right), 1e-13);
}

TEST(Clover, AgreesWithAFieldStrengthBuiltHere) {
  // An abelian check: U(1) x identity links, U_mu(x) = e^{i theta_mu(x)}
  // times the 3 x 3 identity. Then Q_mu,nu is e^{i phi} summed over the
  // four leaves (phi each leaf's plaquette angle), Fhat = i sum sin(phi) / 4,
  // and A = 4 + m + c_sw (i/2) sum_{mu<nu} sigma_mu,nu Fhat_mu,nu.
  const int n[4] = {3, 4, 3, 4};
  stencil::GaugeField U;
  ASSERT_TRUE(stencil::GaugeField::create(4, n, 3, U).ok());
  stencil::Random random(55);
  std::vector<double> theta(U.sites() * 4);
  for (double &t : theta)
    t = random.uniform(-1.0, 1.0);
  for (std::int64_t x = 0; x < U.sites(); ++x)
    for (int mu = 0; mu < 4; ++mu) {
      double *u = U.link(x, mu);
      std::fill(u, u + 18, 0.0);
      for (int i = 0; i < 3; ++i) {
        u[2 * (i * 3 + i)] = std::cos(theta[x * 4 + mu]);
        u[2 * (i * 3 + i) + 1] = std::sin(theta[x * 4 + mu]);
      }
    }
  const double mass = 0.3, csw = 1.9;
  stencil::CloverField A;
  ASSERT_TRUE(stencil::CloverField::create(U, mass, csw, A).ok());
  auto angle = [&](std::int64_t x, int mu, int nu) {
    // The plaquette angle of the leaf with corner x, mu then nu.
    return theta[x * 4 + mu] + theta[U.neighbour(x, mu, 1) * 4 + nu] -
           theta[U.neighbour(x, nu, 1) * 4 + mu] - theta[x * 4 + nu];
  };
  double worst = 0.0;
  for (std::int64_t x = 0; x < U.sites(); ++x) {
    // The 4 x 4 spin matrix (colour identity).
    std::vector<Complex> spin(16, 0.0);
    for (int s = 0; s < 4; ++s)
      spin[s * 5] = 4.0 + mass;
    for (int mu = 0; mu < 4; ++mu)
      for (int nu = mu + 1; nu < 4; ++nu) {
        const std::int64_t xm = U.neighbour(x, mu, -1),
                           xn = U.neighbour(x, nu, -1),
                           xmn = U.neighbour(xm, nu, -1);
        const double f = (std::sin(angle(x, mu, nu)) + std::sin(angle(xm, mu, nu)) +
                          std::sin(angle(xmn, mu, nu)) + std::sin(angle(xn, mu, nu))) /
                         4.0; // Fhat = i f
        const SpinMatrix a = diracGamma(mu), b = diracGamma(nu);
        for (int s = 0; s < 4; ++s)
          for (int t = 0; t < 4; ++t) {
            Complex commutator = 0.0;
            for (int k = 0; k < 4; ++k)
              commutator += a[s * 4 + k] * b[k * 4 + t] - b[s * 4 + k] * a[k * 4 + t];
            const Complex sigma = Complex(0.0, 0.5) * commutator;
            spin[s * 4 + t] += csw * Complex(0.0, 0.5) * sigma * Complex(0.0, f);
          }
      }
    for (int chirality = 0; chirality < 2; ++chirality) {
      const std::vector<Complex> b = A.dense_block(x, chirality);
      for (int s = 0; s < 2; ++s)
        for (int t = 0; t < 2; ++t)
          for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
              const Complex expected =
                  i == j ? spin[(2 * chirality + s) * 4 + 2 * chirality + t]
                         : Complex(0.0);
              worst = std::max(worst, std::abs(b[(s * 3 + i) * 6 + t * 3 + j] -
                                               expected));
            }
    }
  }
  EXPECT_LT(worst, 1e-14);
  std::printf("[ info     ] clover term vs an abelian field strength: %.2e\n",
              worst);
}

TEST(Clover, InverseUndoesItOnOneParity) {
  const int n[4] = {4, 3, 4, 2};
  const stencil::GaugeField U = randomGauge(n, 56);
  stencil::CloverField A, inverse;
  ASSERT_TRUE(stencil::CloverField::create(U, 0.05, 1.5, A).ok());
  ASSERT_TRUE(A.invert(1, inverse).ok());
  stencil::Random random(57);
  const std::vector<double> psi = randomReals(random, U.sites() * 24);
  std::vector<double> apsi, back;
  ASSERT_TRUE(A.apply(psi, apsi).ok());
  ASSERT_TRUE(inverse.apply(apsi, back).ok());
  double odd = 0.0, evenChanged = 0.0;
  for (std::int64_t x = 0; x < U.sites(); ++x) {
    std::int64_t rest = x;
    int parity = 0;
    for (int mu = 0; mu < 4; ++mu) {
      parity += static_cast<int>(rest % n[mu]);
      rest /= n[mu];
    }
    for (int k = 0; k < 24; ++k) {
      const double v = back[x * 24 + k];
      if (parity % 2)
        odd = std::max(odd, std::fabs(v - psi[x * 24 + k]));
      else // even sites keep A: A A psi
        evenChanged = std::max(evenChanged, std::fabs(v - psi[x * 24 + k]));
    }
  }
  EXPECT_LT(odd, 1e-13);
  EXPECT_GT(evenChanged, 1.0);
  std::printf("[ info     ] clover inverse times clover on odd sites: "
              "identity to %.2e\n", odd);
}

TEST(Clover, RefusesWhatCannotBeInverted) {
  const int n[4] = {2, 3, 2, 2};
  stencil::GaugeField U;
  ASSERT_TRUE(stencil::GaugeField::create(4, n, 3, U).ok());
  stencil::CloverField A, inverse;
  // m = -4 on the unit gauge: A = 0.
  ASSERT_TRUE(stencil::CloverField::create(U, -4.0, 1.0, A).ok());
  const stencil::Status status = A.invert(-1, inverse);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("the clover term is not invertible at site "
                                  "0 (0, 0, 0, 0), chirality 0: pivot 0"),
            std::string::npos)
      << status.message();
  EXPECT_FALSE(A.invert(2, inverse).ok());
  // Other shapes.
  stencil::GaugeField three;
  const int m[3] = {2, 2, 2};
  ASSERT_TRUE(stencil::GaugeField::create(3, m, 3, three).ok());
  const stencil::Status dims = stencil::CloverField::create(three, 0, 1, A);
  EXPECT_NE(dims.message().find("needs a 4-D gauge field, not 3-D"),
            std::string::npos);
  std::vector<double> wrong(5), out;
  ASSERT_TRUE(stencil::CloverField::create(U, 0.1, 1.0, A).ok());
  const stencil::Status size = A.apply(wrong, out);
  EXPECT_NE(size.message().find("the spinor field has 5 reals, not the 576"),
            std::string::npos)
      << size.message();
  EXPECT_FALSE(stencil::CloverField::create(U, NAN, 1.0, A).ok());
}

} // namespace
