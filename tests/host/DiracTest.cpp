// The Dirac conventions of Wilson-type stencils: stencil/dirac.hpp's
// DeGrand-Rossi gamma matrices against the Clifford algebra and against
// the reference's own transcription, and the naive Wilson reference
// (tests/support/WilsonReference.cpp) against the physics it must satisfy:
// the free field's plane waves with the known symbol (periodic and
// antiperiodic momenta), gamma_5-hermiticity and gauge covariance on random
// SU(3) links. Generated Wilson kernels are checked against this reference.
#include "HostFixtures.h"
#include "WilsonReference.h"

#include "stencil/dirac.hpp"
#include "stencil/field.hpp"
#include "stencil/gauge.hpp"
#include "stencil/link_algebra.hpp"
#include "stencil/operator.hpp"
#include "stencil/random.hpp"
#include "stencil/solver.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstdio>
#include <vector>

using namespace stencilc::testing;

namespace {

SpinMatrix times(const SpinMatrix &a, const SpinMatrix &b) {
  SpinMatrix c{};
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 4; ++k)
        c[i * 4 + j] += a[i * 4 + k] * b[k * 4 + j];
  return c;
}

/// The dense matrix of stencil::gamma_entry(mu, .).
SpinMatrix fromEntries(int mu) {
  SpinMatrix m{};
  for (int row = 0; row < 4; ++row) {
    const stencil::GammaEntry e = stencil::gamma_entry(mu, row);
    double re = 1.0, im = 0.0;
    stencil::times_i_power(e.phase, re, im);
    m[row * 4 + e.column] = Complex(re, im);
  }
  return m;
}

double distance(const SpinMatrix &a, const SpinMatrix &b) {
  double d = 0.0;
  for (int k = 0; k < 16; ++k)
    d = std::max(d, std::abs(a[k] - b[k]));
  return d;
}

TEST(Dirac, GammaMatricesFormTheCliffordAlgebra) {
  SpinMatrix identity{};
  for (int i = 0; i < 4; ++i)
    identity[i * 5] = 1.0;
  for (int mu = 0; mu <= stencil::kGamma5; ++mu) {
    const SpinMatrix g = fromEntries(mu);
    // The runtime's sparse form equals the reference's dense transcription.
    EXPECT_EQ(distance(g, diracGamma(mu)), 0.0) << "gamma " << mu;
    // Hermitian.
    SpinMatrix dagger{};
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j)
        dagger[i * 4 + j] = std::conj(g[j * 4 + i]);
    EXPECT_EQ(distance(g, dagger), 0.0) << "gamma " << mu;
    for (int nu = 0; nu <= stencil::kGamma5; ++nu) {
      const SpinMatrix h = fromEntries(nu);
      SpinMatrix anticommutator = times(g, h);
      const SpinMatrix other = times(h, g);
      for (int k = 0; k < 16; ++k)
        anticommutator[k] += other[k];
      SpinMatrix expected{};
      if (mu == nu)
        for (int k = 0; k < 16; ++k)
          expected[k] = 2.0 * identity[k];
      EXPECT_EQ(distance(anticommutator, expected), 0.0)
          << "{gamma " << mu << ", gamma " << nu << "}";
    }
  }
  const SpinMatrix product =
      times(times(fromEntries(0), fromEntries(1)),
            times(fromEntries(2), fromEntries(3)));
  EXPECT_EQ(distance(product, fromEntries(stencil::kGamma5)), 0.0)
      << "gamma_5 = gamma_x gamma_y gamma_z gamma_t";
}

TEST(Dirac, TimesIPowerRotatesByQuarterTurns) {
  for (int phase = 0; phase < 4; ++phase) {
    double re = 0.3, im = -1.7;
    stencil::times_i_power(phase, re, im);
    const Complex expected = std::pow(Complex(0.0, 1.0), phase) *
                             Complex(0.3, -1.7);
    EXPECT_NEAR(re, expected.real(), 1e-15);
    EXPECT_NEAR(im, expected.imag(), 1e-15);
  }
}

template <bool Dagger, int Mu, int Sign>
double projectedProductError(stencil::Random &random) {
  // (1 + s gamma_mu) L v with dense matrices against the projected form.
  stencil::GaugeField one;
  const int n1[1] = {1};
  EXPECT_TRUE(stencil::GaugeField::create(1, n1, 3, one).ok());
  one.set_random(random);
  stencil::LinkMatrix<double, 3> u;
  for (int k = 0; k < 18; ++k)
    u.v[k] = one.link(0, 0)[k];
  double v[24], acc[24];
  for (double &x : v)
    x = random.uniform(-1.0, 1.0);
  for (double &x : acc)
    x = random.uniform(-1.0, 1.0);
  double expected[24];
  const SpinMatrix g = diracGamma(Mu);
  const double w = 0.7;
  for (int s = 0; s < 4; ++s)
    for (int a = 0; a < 3; ++a) {
      Complex sum = 0.0;
      for (int t = 0; t < 4; ++t)
        for (int b = 0; b < 3; ++b) {
          const Complex p = (s == t ? 1.0 : 0.0) + double(Sign) * g[s * 4 + t];
          const Complex l =
              Dagger ? std::conj(Complex(u.v[2 * (b * 3 + a)], u.v[2 * (b * 3 + a) + 1]))
                     : Complex(u.v[2 * (a * 3 + b)], u.v[2 * (a * 3 + b) + 1]);
          sum += p * l * Complex(v[2 * (t * 3 + b)], v[2 * (t * 3 + b) + 1]);
        }
      expected[2 * (s * 3 + a)] = acc[2 * (s * 3 + a)] + w * sum.real();
      expected[2 * (s * 3 + a) + 1] = acc[2 * (s * 3 + a) + 1] + w * sum.imag();
    }
  stencil::spin_link_times<false, Dagger, Mu, Sign>(acc, w, u, v);
  double error = 0.0;
  for (int k = 0; k < 24; ++k)
    error = std::max(error, std::fabs(acc[k] - expected[k]));
  return error;
}

TEST(Dirac, ProjectedLinkProductsEqualTheDenseProducts) {
  stencil::Random random(40);
  double worst = 0.0;
  worst = std::max(worst, projectedProductError<false, 0, -1>(random));
  worst = std::max(worst, projectedProductError<true, 0, 1>(random));
  worst = std::max(worst, projectedProductError<false, 1, 1>(random));
  worst = std::max(worst, projectedProductError<true, 1, -1>(random));
  worst = std::max(worst, projectedProductError<false, 2, -1>(random));
  worst = std::max(worst, projectedProductError<true, 2, 1>(random));
  worst = std::max(worst, projectedProductError<false, 3, 1>(random));
  worst = std::max(worst, projectedProductError<true, 3, -1>(random));
  EXPECT_LT(worst, 1e-14);
}

TEST(WilsonReference, FreePlaneWavesHaveTheKnownSymbol) {
  // Unit links: psi(x) = e^{i p.x} chi is an eigenvector of the matrix
  // m + sum_mu (1 - cos p_mu) + i sum_mu gamma_mu sin p_mu acting on chi.
  // Time antiperiodic: p_t = (2k + 1) pi / n_t; the others periodic.
  const int n[4] = {5, 3, 4, 6};
  const int colours = 3;
  stencil::GaugeField U;
  ASSERT_TRUE(stencil::GaugeField::create(4, n, colours, U).ok());
  const std::array<bool, 4> antiperiodic = {false, false, false, true};
  const double mass = 0.3;
  stencil::Random random(41);
  const int perSite = 4 * colours;
  const std::vector<std::array<int, 4>> momenta = {
      {0, 0, 0, 0}, {1, 0, 0, 0}, {2, 1, 3, 2}, {4, 2, 1, 5}};
  double worst = 0.0;
  for (const std::array<int, 4> &k : momenta) {
    double p[4];
    for (int mu = 0; mu < 4; ++mu)
      p[mu] = (antiperiodic[mu] ? (2 * k[mu] + 1) : 2 * k[mu]) * M_PI / n[mu];
    const SpinorField chi = randomComplex(random, perSite);
    // The symbol times chi.
    SpinorField symbolChi(perSite, 0.0);
    double diagonal = mass;
    for (int mu = 0; mu < 4; ++mu)
      diagonal += 1.0 - std::cos(p[mu]);
    for (int s = 0; s < 4; ++s)
      for (int c = 0; c < colours; ++c) {
        Complex v = diagonal * chi[s * colours + c];
        for (int mu = 0; mu < 4; ++mu) {
          const SpinMatrix g = diracGamma(mu);
          for (int t = 0; t < 4; ++t)
            v += Complex(0.0, std::sin(p[mu])) * g[s * 4 + t] *
                 chi[t * colours + c];
        }
        symbolChi[s * colours + c] = v;
      }
    SpinorField wave(U.sites() * perSite), expected(wave.size());
    for (std::int64_t x = 0; x < U.sites(); ++x) {
      std::int64_t rest = x;
      double phase = 0.0;
      for (int mu = 0; mu < 4; ++mu) {
        phase += p[mu] * static_cast<double>(rest % n[mu]);
        rest /= n[mu];
      }
      for (int k2 = 0; k2 < perSite; ++k2) {
        wave[x * perSite + k2] = std::polar(1.0, phase) * chi[k2];
        expected[x * perSite + k2] = std::polar(1.0, phase) * symbolChi[k2];
      }
    }
    const double d =
        relativeDistance(wilsonApply(U, antiperiodic, mass, wave), expected);
    EXPECT_LT(d, 1e-13) << "momentum (" << k[0] << ", " << k[1] << ", "
                        << k[2] << ", " << k[3] << ")";
    worst = std::max(worst, d);
  }
  std::printf("[ info     ] free Wilson plane waves: worst relative "
              "difference %.2e\n", worst);
}

TEST(WilsonReference, IsGamma5Hermitian) {
  // M^dagger = gamma_5 M gamma_5: <phi, M psi> = <gamma_5 M gamma_5 phi, psi>.
  const int n[4] = {3, 4, 5, 4};
  stencil::Random random(42);
  const stencil::GaugeField U = randomGauge(n, random);
  const std::array<bool, 4> antiperiodic = {false, true, false, true};
  const std::int64_t values = U.sites() * 12;
  const SpinorField phi = randomComplex(random, values),
                    psi = randomComplex(random, values);
  const Complex left = innerProduct(phi, wilsonApply(U, antiperiodic, 0.1, psi));
  const SpinorField g5Mg5phi =
      gamma5Times(wilsonApply(U, antiperiodic, 0.1, gamma5Times(phi, 3)), 3);
  const Complex right = innerProduct(g5Mg5phi, psi);
  EXPECT_LT(std::abs(left - right), 1e-13 * std::abs(left))
      << left << " " << right;
  // And M itself is not Hermitian.
  const Complex swapped = innerProduct(wilsonApply(U, antiperiodic, 0.1, phi), psi);
  EXPECT_GT(std::abs(left - swapped), 1e-3 * std::abs(left));
}

TEST(WilsonReference, IsGaugeCovariant) {
  // M[U^g] (g psi) = g (M[U] psi), g acting on each spin's colour vector.
  const int n[4] = {3, 3, 4, 5};
  stencil::Random random(43);
  const stencil::GaugeField U = randomGauge(n, random);
  const std::array<bool, 4> antiperiodic = {false, false, false, true};
  const std::vector<double> g = stencil::random_gauge_transform(U, random);
  stencil::GaugeField Ug = U;
  ASSERT_TRUE(stencil::gauge_transform_links(g, Ug).ok());
  const SpinorField psi = randomComplex(random, U.sites() * 12);
  auto transformed = [&](const SpinorField &f) {
    std::vector<double> reals = interleave(f);
    EXPECT_TRUE(stencil::gauge_transform_vectors(g, U, 4, reals).ok());
    return pairsOf(reals);
  };
  const SpinorField left = wilsonApply(Ug, antiperiodic, 0.2, transformed(psi));
  const SpinorField right = transformed(wilsonApply(U, antiperiodic, 0.2, psi));
  EXPECT_LT(relativeDistance(left, right), 1e-13);
}

/// The generated Wilson operator of `name` with `mass` on random SU(3)
/// links U drawn from `seed`.
struct GeneratedWilson {
  stencil::GaugeField U;
  stencil::Random random;
  stencil::StencilOperator A;
  stencil::Field links;

  GeneratedWilson(const std::string &name, const int (&extents)[4],
                  std::uint64_t seed, double mass)
      : random(seed) {
    U = randomGauge(extents, random);
    EXPECT_TRUE(stencil::StencilOperator::create(
                    stencilc::testing::kernelNamed(name), U.extents(), A)
                    .ok());
    EXPECT_TRUE(A.upload_links(U, links).ok());
    EXPECT_TRUE(A.set_links(links).ok());
    EXPECT_TRUE(A.set_parameter("mass", mass).ok());
  }
  SpinorField apply(const SpinorField &psi, bool adjoint = false) {
    return applyToComplex(A, psi, adjoint);
  }
};

TEST(WilsonKernels, GeneratedOperatorMatchesTheReference) {
  // Spin-projected hopping in the generated kernel against plain loops with
  // dense gamma matrices, on random SU(3) links, antiperiodic time.
  GeneratedWilson op("t_wilson4d_eo_f64", {4, 6, 2, 6}, 44, 0.15);
  const stencil::GaugeField &U = op.U;
  const std::array<bool, 4> antiperiodic = {false, false, false, true};
  const SpinorField psi = randomComplex(op.random, U.sites() * 12);
  const double d = relativeDistance(op.apply(psi),
                                    wilsonApply(U, antiperiodic, 0.15, psi));
  EXPECT_LT(d, 1e-13);
  // The adjoint kernel is gamma_5 M gamma_5 (gamma_5-hermiticity).
  const SpinorField adjoint = op.apply(psi, true);
  const SpinorField g5Mg5 =
      gamma5Times(wilsonApply(U, antiperiodic, 0.15, gamma5Times(psi, 3)), 3);
  const double a = relativeDistance(adjoint, g5Mg5);
  EXPECT_LT(a, 1e-13);
  std::printf("[ info     ] t_wilson4d_eo_f64 vs the naive Wilson loops: "
              "%.2e; adjoint vs gamma_5 M gamma_5: %.2e\n", d, a);
}

TEST(WilsonKernels, SchurCgnrSolvesTheWilsonSystem) {
  // CG on the normal equations of the even/odd Schur complement, the odd
  // sites reconstructed, against CGNR on the whole lattice.
  GeneratedWilson op("t_wilson4d_eo_f64", {4, 4, 4, 6}, 45, 0.2);
  stencil::Random &random = op.random;
  stencil::Field exact, b, xWhole, xSchur;
  for (stencil::Field *f : {&exact, &b, &xWhole, &xSchur})
    ASSERT_TRUE(stencil::Field::create(op.A.lattice(), *f).ok());
  std::vector<double> u(op.A.lattice().values());
  for (double &v : u)
    v = random.uniform(-1.0, 1.0);
  ASSERT_TRUE(exact.upload_values(u.data(), u.size()).ok());
  ASSERT_TRUE(op.A.apply(b, exact).ok());
  stencil::SolveOptions options;
  options.method = stencil::Method::CGNR;
  options.tolerance = 1e-10;
  options.max_iterations = 5000;
  stencil::SolveReport whole, schur;
  ASSERT_TRUE(stencil::solve(op.A, b, xWhole, options, whole).ok());
  ASSERT_TRUE(stencil::solve_even_odd(op.A, b, xSchur, options, schur).ok());
  EXPECT_TRUE(whole.converged) << whole.message;
  EXPECT_TRUE(schur.converged) << schur.message;
  EXPECT_LT(schur.iterations, whole.iterations);
  EXPECT_LT(relativeError(xWhole, u), 1e-8);
  EXPECT_LT(relativeError(xSchur, u), 1e-8);
  std::printf("[ info     ] t_wilson4d_eo_f64 CGNR: %d iterations on M, %d on "
              "the Schur complement\n",
              whole.iterations, schur.iterations);
}

} // namespace
