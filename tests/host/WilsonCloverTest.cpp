// The generated Wilson-clover operator (tests/specs/t_clover4d_eo_*.yaml)
// on the host backend: against the independent naive reference
// (wilsonApply + cloverTermApply: dense gammas, full links, dense clover
// leaves), gamma_5-hermiticity of its adjoint kernels, gauge covariance,
// free plane waves on the unit gauge (where the clover term vanishes),
// the even/odd CGNR solve against the whole-lattice one with the clover
// inverse fused into the hopping kernels and apart from them, and the
// refusals: a block that cannot be inverted, odd extents, wrong shapes,
// stale clover arrays, a missing inverse.
#include "HostFixtures.h"
#include "WilsonReference.h"

#include "stencil/clover.hpp"
#include "stencil/even_odd.hpp"
#include "stencil/gauge.hpp"
#include "stencil/operator.hpp"
#include "stencil/random.hpp"
#include "stencil/solver.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <string>

using namespace stencilc::testing;

namespace {

/// A generated Wilson-clover operator with its links and clover arrays
/// from the gauge field U (random SU(3) unless given).
struct GeneratedClover {
  stencil::GaugeField U;
  stencil::Random random;
  stencil::StencilOperator A;
  stencil::Field links;
  stencil::StencilOperator::CloverArrays clover;

  GeneratedClover(const std::string &name, const int (&extents)[4],
                  std::uint64_t seed, double mass, double csw)
      : random(seed) {
    U = randomGauge(extents, random);
    attach(name, mass, csw);
  }
  GeneratedClover(const std::string &name, const stencil::GaugeField &gauge,
                  double mass, double csw)
      : random(7), U(gauge) {
    attach(name, mass, csw);
  }
  void attach(const std::string &name, double mass, double csw) {
    const stencil::KernelInfo &info = kernelNamed(name);
    ASSERT_OK(stencil::StencilOperator::create(info, U.extents(), A));
    ASSERT_OK(A.set_parameter("mass", mass));
    ASSERT_OK(A.set_parameter(info.param_names[1], // csw or kappa_csw
                              std::string(info.param_names[1]) == "csw"
                                  ? csw
                                  : csw / 2.0));
    ASSERT_OK(A.upload_links(U, links));
    ASSERT_OK(A.set_links(links));
    ASSERT_OK(A.upload_clover(U, clover, 1));
    ASSERT_OK(A.set_clover(clover));
  }
  SpinorField apply(const SpinorField &psi, bool adjoint = false) {
    return applyToComplex(A, psi, adjoint);
  }
};

/// The naive Wilson-clover operator: hopping and mass, plus the clover term.
SpinorField naive(const stencil::GaugeField &U,
                  const std::array<bool, 4> &antiperiodic, double mass,
                  double csw, const SpinorField &psi) {
  SpinorField out = wilsonApply(U, antiperiodic, mass, psi);
  const SpinorField c = cloverTermApply(U, csw, psi);
  for (size_t k = 0; k < out.size(); ++k)
    out[k] += c[k];
  return out;
}

TEST(WilsonCloverKernels, GeneratedOperatorMatchesTheNaiveReference) {
  struct Case {
    const char *name;
    int extents[4];
    std::array<bool, 4> antiperiodic;
    double tolerance;
  };
  // Site-major double; aosoa float with two-row links (blocks of 8 and 16
  // sites need 32 sites per parity).
  const Case cases[] = {
      {"t_clover4d_eo_f64", {4, 6, 2, 6}, {false, false, false, true}, 1e-12},
      {"t_clover4d_eo_f64", {6, 2, 4, 4}, {false, false, false, true}, 1e-12},
      {"t_clover4d_eo_aosoa_f32", {4, 4, 4, 6}, {true, true, true, true}, 1e-5},
      // Double in blocks of 8 sites, pairs of values per load.
      {"t_mixed_clover4d_eo_aosoa_v2",
       {4, 6, 2, 6},
       {false, false, false, true},
       1e-12},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.name);
    const double mass = 0.15, csw = 1.25;
    GeneratedClover op(c.name, c.extents, 61, mass, csw);
    const SpinorField psi = randomComplex(op.random, op.U.sites() * 12);
    const SpinorField expected = naive(op.U, c.antiperiodic, mass, csw, psi);
    const double d = relativeDistance(op.apply(psi), expected);
    EXPECT_LT(d, c.tolerance);
    // The clover term is not negligible here.
    EXPECT_GT(relativeDistance(wilsonApply(op.U, c.antiperiodic, mass, psi),
                               expected),
              1e-2);
    // gamma_5-hermiticity: the adjoint kernels are gamma_5 M gamma_5.
    const SpinorField g5Mg5 = gamma5Times(
        naive(op.U, c.antiperiodic, mass, csw, gamma5Times(psi, 3)), 3);
    const double a = relativeDistance(op.apply(psi, true), g5Mg5);
    EXPECT_LT(a, c.tolerance);
    std::printf("[ info     ] %s vs the naive Wilson-clover loops: %.2e; "
                "adjoint vs gamma_5 M gamma_5: %.2e\n",
                c.name, d, a);
  }
}

TEST(WilsonCloverKernels, FreePlaneWavesHaveTheWilsonSymbol) {
  // Unit links: the clover term vanishes, and e^{i p.x} chi is an
  // eigenvector with the matrix m + sum (1 - cos p) + i sum gamma sin p,
  // time antiperiodic (p_t = (2k + 1) pi / n_t).
  const int n[4] = {4, 6, 2, 6};
  stencil::GaugeField unit;
  ASSERT_OK(stencil::GaugeField::create(4, n, 3, unit));
  const double mass = 0.3;
  GeneratedClover op("t_clover4d_eo_f64", unit, mass, 1.7);
  double worst = 0.0;
  for (const std::array<int, 4> &k :
       std::vector<std::array<int, 4>>{{0, 0, 0, 0}, {1, 2, 1, 0},
                                       {3, 5, 0, 4}}) {
    double p[4];
    for (int mu = 0; mu < 4; ++mu)
      p[mu] = (mu == 3 ? 2 * k[mu] + 1 : 2 * k[mu]) * M_PI / n[mu];
    const SpinorField chi = randomComplex(op.random, 12);
    SpinorField symbolChi(12, 0.0);
    double diagonal = mass;
    for (int mu = 0; mu < 4; ++mu)
      diagonal += 1.0 - std::cos(p[mu]);
    for (int s = 0; s < 4; ++s)
      for (int c = 0; c < 3; ++c) {
        Complex v = diagonal * chi[s * 3 + c];
        for (int mu = 0; mu < 4; ++mu) {
          const SpinMatrix g = diracGamma(mu);
          for (int t = 0; t < 4; ++t)
            v += Complex(0.0, std::sin(p[mu])) * g[s * 4 + t] * chi[t * 3 + c];
        }
        symbolChi[s * 3 + c] = v;
      }
    SpinorField wave(unit.sites() * 12), expected(wave.size());
    for (std::int64_t x = 0; x < unit.sites(); ++x) {
      std::int64_t rest = x;
      double phase = 0.0;
      for (int mu = 0; mu < 4; ++mu) {
        phase += p[mu] * static_cast<double>(rest % n[mu]);
        rest /= n[mu];
      }
      for (int j = 0; j < 12; ++j) {
        wave[x * 12 + j] = std::polar(1.0, phase) * chi[j];
        expected[x * 12 + j] = std::polar(1.0, phase) * symbolChi[j];
      }
    }
    const double d = relativeDistance(op.apply(wave), expected);
    EXPECT_LT(d, 1e-13);
    worst = std::max(worst, d);
  }
  std::printf("[ info     ] free Wilson-clover plane waves: %.2e\n", worst);
}

TEST(WilsonCloverKernels, AreGaugeCovariant) {
  // M[U^g] (g psi) = g M[U] psi, the clover term recomputed from U^g.
  const int n[4] = {4, 2, 4, 6};
  stencil::Random random(62);
  const stencil::GaugeField U = randomGauge(n, random);
  const std::vector<double> g = stencil::random_gauge_transform(U, random);
  stencil::GaugeField Ug = U;
  ASSERT_OK(stencil::gauge_transform_links(g, Ug));
  GeneratedClover plain("t_clover4d_eo_f64", U, 0.1, 1.4);
  GeneratedClover rotated("t_clover4d_eo_f64", Ug, 0.1, 1.4);
  auto transformed = [&](const SpinorField &f) {
    std::vector<double> reals = interleave(f);
    EXPECT_TRUE(stencil::gauge_transform_vectors(g, U, 4, reals).ok());
    return pairsOf(reals);
  };
  const SpinorField psi = randomComplex(random, U.sites() * 12);
  const double d = relativeDistance(rotated.apply(transformed(psi)),
                                    transformed(plain.apply(psi)));
  EXPECT_LT(d, 1e-13);
  std::printf("[ info     ] Wilson-clover gauge covariance: %.2e\n", d);
}

TEST(WilsonCloverKernels, EvenOddSolveEqualsTheWholeSolve) {
  // CGNR on the Schur complement A_ee - D_eo A_oo^-1 D_oe (the inverse in
  // the hopping kernels' epilogue, then in the clover kernel), the odd
  // sites reconstructed, the true residual of M x = b recomputed: the same
  // solution as CGNR on M, in fewer iterations.
  const int n[4] = {4, 4, 4, 6};
  for (const char *name : {"t_clover4d_eo_f64", "t_clover4d_eo_aosoa_f32",
                           "t_mixed_clover4d_eo_aosoa_v2"}) {
    SCOPED_TRACE(name);
    GeneratedClover op(name, n, 63, 0.2, 1.0);
    const bool single = op.A.info().element_bytes == 4;
    stencil::Field exact, b, xWhole, xFused, xApart;
    for (stencil::Field *f : {&exact, &b, &xWhole, &xFused, &xApart})
      ASSERT_OK(stencil::Field::create(op.A.lattice(), *f));
    std::vector<double> u(op.A.lattice().values());
    for (double &v : u)
      v = op.random.uniform(-1.0, 1.0);
    ASSERT_OK(exact.upload_values(u.data(), u.size()));
    ASSERT_OK(op.A.apply(b, exact));
    stencil::SolveOptions options;
    options.method = stencil::Method::CGNR;
    options.tolerance = single ? 1e-6 : 1e-11;
    options.max_iterations = 5000;
    stencil::SolveReport whole, fused, apart;
    ASSERT_OK(stencil::solve(op.A, b, xWhole, options, whole));
    ASSERT_OK(stencil::solve_even_odd(op.A, b, xFused, options, fused));
    options.clover_placement = stencil::CloverPlacement::SiteKernel;
    ASSERT_OK(stencil::solve_even_odd(op.A, b, xApart, options, apart));
    for (const stencil::SolveReport *r : {&whole, &fused, &apart}) {
      EXPECT_TRUE(r->converged) << r->message;
      EXPECT_LT(r->true_relative_residual, 10 * options.tolerance);
    }
    EXPECT_LT(fused.iterations, whole.iterations);
    // The placements compute the same iterates up to rounding.
    EXPECT_LE(std::abs(fused.iterations - apart.iterations), 1);
    const double bound = single ? 1e-4 : 1e-9;
    EXPECT_LT(relativeError(xWhole, u), bound);
    EXPECT_LT(relativeError(xFused, u), bound);
    EXPECT_LT(relativeError(xApart, u), bound);
    std::printf("[ info     ] %s CGNR: %d iterations on M, %d on the Schur "
                "complement (clover fused), %d (clover kernel); true "
                "residual %.2e\n",
                name, whole.iterations, fused.iterations, apart.iterations,
                fused.true_relative_residual);
  }
}

TEST(WilsonCloverKernels, BadInputIsRefusedClearly) {
  const int n[4] = {4, 2, 2, 4};
  const stencil::KernelInfo &info = kernelNamed("t_clover4d_eo_f64");
  // A block that cannot be inverted: on the unit gauge A = 4 + m, zero for
  // m = -4.
  {
    stencil::GaugeField unit;
    ASSERT_OK(stencil::GaugeField::create(4, n, 3, unit));
    stencil::StencilOperator A;
    ASSERT_OK(stencil::StencilOperator::create(info, n, A));
    ASSERT_OK(A.set_parameter("mass", -4.0));
    stencil::StencilOperator::CloverArrays arrays;
    expectFailure(A.upload_clover(unit, arrays, 1), {"not invertible"});
  }
  // Odd extents where the checkerboard needs even ones: refused when the
  // operator is made on them, naming the extent (before, with the first
  // field made on them).
  {
    const int odd[4] = {4, 3, 2, 4};
    stencil::StencilOperator A;
    expectFailure(stencil::StencilOperator::create(info, odd, A),
                  {"t_clover4d_eo_f64: extent ny = 3 is odd"});
    EXPECT_FALSE(A.created());
  }
  GeneratedClover op("t_clover4d_eo_f64", n, 64, 0.1, 1.0);
  // A gauge field of other extents.
  {
    const int other[4] = {4, 2, 2, 6};
    stencil::Random random(1);
    const stencil::GaugeField V = randomGauge(other, random);
    stencil::StencilOperator::CloverArrays arrays;
    expectFailure(op.A.upload_clover(V, arrays, 1), {"extent along axis 3"});
  }
  // A parameter that enters the clover term changed since it was computed.
  {
    stencil::Field x, y;
    ASSERT_OK(stencil::Field::create(op.A.lattice(), x));
    ASSERT_OK(stencil::Field::create(op.A.lattice(), y));
    ASSERT_OK(op.A.set_parameter("csw", 1.5));
    expectFailure(op.A.apply(y, x), {"compute it again"});
    ASSERT_OK(op.A.set_parameter("csw", 1.0));
    ASSERT_OK(op.A.apply(y, x));
  }
  // The inverse on the wrong parity for the Schur complement on even sites.
  {
    stencil::StencilOperator::CloverArrays even;
    ASSERT_OK(op.A.upload_clover(op.U, even, 0));
    ASSERT_OK(op.A.set_clover(even));
    stencil::SchurComplement S;
    expectFailure(stencil::SchurComplement::create(op.A, S), {"inverse on the odd sites"});
    stencil::Field xe, yo;
    ASSERT_OK(stencil::Field::create(op.A.lattice().half(0), xe));
    ASSERT_OK(stencil::Field::create(op.A.lattice().half(1), yo));
    expectFailure(op.A.hop(stencil::StencilOperator::Hop::EvenToOdd, false, yo,
                           xe, stencil::kInverseDiagonalHop), {"computed on the even sites"});
    ASSERT_OK(op.A.set_clover(op.clover));
  }
  // Jacobi has no scalar diagonal to divide by.
  {
    stencil::Field d;
    ASSERT_OK(stencil::Field::create(op.A.lattice(), d));
    expectFailure(op.A.diagonal(d), {"the diagonal is the clover term"});
  }
}

} // namespace
