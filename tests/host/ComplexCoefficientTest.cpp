// Complex coefficient fields on the host backend: the magnetic (U(1))
// Laplacian's Hermiticity, gauge covariance and known spectrum (plane waves
// under a uniform vector potential), the adjoint kernel of a non-Hermitian
// stencil as the conjugate transpose, CG and Schur-complement CG with the
// runtime's dominance check, and the runtime's refusals. References are
// std::complex loops written here; tests/support/Reference.cpp checks every
// test spec's kernels value by value (HostKernelsTest).
#include "HostFixtures.h"

#include "stencil/blas.hpp"
#include "stencil/device.hpp"
#include "stencil/field.hpp"
#include "stencil/operator.hpp"
#include "stencil/random.hpp"
#include "stencil/solver.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

using namespace stencil;
using namespace stencilc::testing;

namespace {

const KernelInfo &kernel(const std::string &name) {
  return stencilc::testing::kernelNamed(name);
}

/// Site index (x fastest) of coordinates on `extents`.
std::int64_t siteOf(const std::vector<int> &extents,
                    const std::vector<int> &x) {
  std::int64_t index = 0;
  for (int axis = static_cast<int>(extents.size()) - 1; axis >= 0; --axis)
    index = index * extents[axis] + x[axis];
  return index;
}

std::vector<int> coordinatesOf(const std::vector<int> &extents,
                               std::int64_t site) {
  std::vector<int> x(extents.size());
  for (size_t axis = 0; axis < extents.size(); ++axis) {
    x[axis] = static_cast<int>(site % extents[axis]);
    site /= extents[axis];
  }
  return x;
}

/// The site one step along `axis` (periodic).
std::int64_t stepped(const std::vector<int> &extents, std::int64_t site,
                     int axis, int step) {
  std::vector<int> x = coordinatesOf(extents, site);
  const int n = extents[axis];
  x[axis] = ((x[axis] + step) % n + n) % n;
  return siteOf(extents, x);
}

/// An operator whose complex site parameters hold given values.
struct ComplexOp {
  StencilOperator A;
  std::vector<std::unique_ptr<Field>> fields;
  Field links;

  Status create(const KernelInfo &info, const std::vector<int> &extents) {
    return StencilOperator::create(info, extents.data(), A);
  }
  /// Site parameter `name` from values in the host order: complex ones as
  /// pairs, real ones one per site.
  Status set(const std::string &name, const std::vector<double> &values) {
    Lattice lattice;
    STENCIL_TRY(A.site_lattice(name, lattice));
    fields.push_back(std::make_unique<Field>());
    STENCIL_TRY(Field::create(lattice, *fields.back()));
    STENCIL_TRY(fields.back()->upload_values(values.data(), values.size()));
    return A.set_site_parameter(name, *fields.back());
  }
  std::vector<Complex> apply(const std::vector<Complex> &in,
                             bool adjoint = false) {
    return applyToComplex(A, in, adjoint);
  }
};

std::vector<Complex> randomPhases(Random &random, std::int64_t count) {
  std::vector<Complex> values(count);
  for (Complex &v : values)
    v = std::polar(1.0, random.uniform(-M_PI, M_PI));
  return values;
}

const std::vector<int> kMagneticExtents = {9, 7}; // odd; the tile is 3 along y

TEST(ComplexCoefficients, MagneticLaplacianIsHermitian) {
  const KernelInfo &info = kernel("t_cx2d_magnetic_cg");
  EXPECT_TRUE(info.symmetric); // structurally: conj(a@-x) mirrors a
  ComplexOp op;
  ASSERT_OK(op.create(info, kMagneticExtents));
  Random random(11);
  const std::int64_t sites = op.A.lattice().sites();
  // Any complex values: Hermiticity is structural, not a property of phases.
  ASSERT_OK(op.set("ax", interleave(randomComplex(random, sites))));
  ASSERT_OK(op.set("ay", interleave(randomComplex(random, sites))));
  const std::vector<Complex> phi = randomComplex(random, sites),
                             psi = randomComplex(random, sites);
  const Complex left = innerProduct(phi, op.apply(psi));
  const Complex right = innerProduct(op.apply(phi), psi);
  EXPECT_LT(std::abs(left - right), 1e-12 * std::abs(left))
      << left << " " << right;
  EXPECT_GT(std::abs(left.imag()), 1e-3); // a genuinely complex product
}

TEST(ComplexCoefficients, MagneticLaplacianIsGaugeCovariant) {
  // psi -> g psi, a_mu(x) -> g(x) a_mu(x) conj(g(x + mu)) with g(x) a phase:
  // A[a^g] (g psi) = g (A[a] psi).
  const std::vector<int> &n = kMagneticExtents;
  ComplexOp op, transformed;
  ASSERT_OK(op.create(kernel("t_cx2d_magnetic_cg"), n));
  ASSERT_OK(transformed.create(kernel("t_cx2d_magnetic_cg"), n));
  Random random(12);
  const std::int64_t sites = op.A.lattice().sites();
  const std::vector<Complex> g = randomPhases(random, sites);
  const char *names[] = {"ax", "ay"};
  for (int mu = 0; mu < 2; ++mu) {
    const std::vector<Complex> a = randomPhases(random, sites);
    std::vector<Complex> ag(sites);
    for (std::int64_t s = 0; s < sites; ++s)
      ag[s] = g[s] * a[s] * std::conj(g[stepped(n, s, mu, +1)]);
    ASSERT_OK(op.set(names[mu], interleave(a)));
    ASSERT_OK(transformed.set(names[mu], interleave(ag)));
  }
  const std::vector<Complex> psi = randomComplex(random, sites);
  std::vector<Complex> gpsi(sites);
  for (std::int64_t s = 0; s < sites; ++s)
    gpsi[s] = g[s] * psi[s];
  const std::vector<Complex> left = transformed.apply(gpsi);
  std::vector<Complex> right = op.apply(psi);
  for (std::int64_t s = 0; s < sites; ++s)
    right[s] *= g[s];
  EXPECT_LT(relativeDistance(left, right), 1e-13);
}

TEST(ComplexCoefficients, UniformPotentialShiftsThePlaneWaveSpectrum) {
  // a_mu = e^{i theta_mu} everywhere: e^{i p.x} is an eigenvector with
  // eigenvalue 4 + mass - 2 sum_mu cos(p_mu + theta_mu).
  const std::vector<int> &n = kMagneticExtents;
  ComplexOp op;
  ASSERT_OK(op.create(kernel("t_cx2d_magnetic_cg"), n));
  const double mass = 0.25, theta[2] = {0.7, -1.3};
  ASSERT_OK(op.A.set_parameter("mass", mass));
  const std::int64_t sites = op.A.lattice().sites();
  ASSERT_OK(op.set("ax", interleave(std::vector<Complex>(
                              sites, std::polar(1.0, theta[0])))));
  ASSERT_OK(op.set("ay", interleave(std::vector<Complex>(
                              sites, std::polar(1.0, theta[1])))));
  for (int kx : {0, 1, 4})
    for (int ky : {0, 2, 6}) {
      const double p[2] = {2 * M_PI * kx / n[0], 2 * M_PI * ky / n[1]};
      std::vector<Complex> wave(sites);
      for (std::int64_t s = 0; s < sites; ++s) {
        const std::vector<int> x = coordinatesOf(n, s);
        wave[s] = std::polar(1.0, p[0] * x[0] + p[1] * x[1]);
      }
      const double lambda = 4 + mass - 2 * std::cos(p[0] + theta[0]) -
                            2 * std::cos(p[1] + theta[1]);
      std::vector<Complex> expected = wave;
      for (Complex &v : expected)
        v *= lambda;
      EXPECT_LT(relativeDistance(op.apply(wave), expected), 1e-13)
          << "k = (" << kx << ", " << ky << "), lambda " << lambda;
    }
}

TEST(ComplexCoefficients, AdjointKernelIsTheConjugateTranspose) {
  // A non-Hermitian stencil (complex diagonal, complex fields on link and
  // plain taps): <phi, A psi> = <A^dagger phi, psi> on the interior.
  const KernelInfo &info = kernel("t_cx3d_asym_links_aosoa");
  EXPECT_FALSE(info.symmetric);
  const std::vector<int> n = {4, 7, 6}; // y Dirichlet; blocks of 4 sites
  ComplexOp op;
  ASSERT_OK(op.create(info, n));
  Random random(13);
  const std::int64_t sites = op.A.lattice().sites();
  ASSERT_OK(op.set("d", interleave(randomComplex(random, sites))));
  ASSERT_OK(op.set("c", interleave(randomComplex(random, sites))));
  ASSERT_OK(op.set("k", randomReals(random, sites, 0.0, 2.0)));
  ASSERT_OK(set_random_links(op.A, random, op.links));
  const std::int64_t values = op.A.lattice().values() / 2;
  std::vector<Complex> phi = randomComplex(random, values),
                       psi = randomComplex(random, values);
  // Zero on the halo (y = 0 and y = 6): A acts on the interior unknowns.
  const int perSite = static_cast<int>(values / sites);
  for (std::int64_t s = 0; s < sites; ++s) {
    const int y = coordinatesOf(n, s)[1];
    if (y == 0 || y == n[1] - 1)
      for (int c = 0; c < perSite; ++c)
        phi[s * perSite + c] = psi[s * perSite + c] = 0.0;
  }
  const Complex left = innerProduct(phi, op.apply(psi));
  const Complex right = innerProduct(op.apply(phi, true), psi);
  EXPECT_LT(std::abs(left - right), 1e-12 * std::abs(left))
      << left << " " << right;
  // And A is not Hermitian: A^dagger differs from A.
  EXPECT_GT(relativeDistance(op.apply(psi, true), op.apply(psi)), 1e-2);
}

/// b = A u* for a random u* (zero on the halo); solves it on the whole
/// lattice and, with even/odd storage, on the Schur complement.
struct Solved {
  SolveReport whole, schur;
  double wholeError = 0.0, schurError = 0.0; ///< ||x - u*|| / ||u*||
};

void solveManufactured(ComplexOp &op, Random &random, Method method,
                       double tolerance, Solved &out) {
  Field exact, b, xWhole, xSchur;
  for (Field *f : {&exact, &b, &xWhole, &xSchur})
    ASSERT_OK(Field::create(op.A.lattice(), *f));
  std::vector<double> u(op.A.lattice().values());
  for (double &v : u)
    v = random.uniform(-1.0, 1.0);
  ASSERT_OK(exact.upload_values(u.data(), u.size()));
  ASSERT_OK(set_halo(exact, 0.0));
  ASSERT_OK(exact.download_values(u.data(), u.size()));
  ASSERT_OK(op.A.apply(b, exact));
  SolveOptions options;
  options.method = method;
  options.tolerance = tolerance;
  ASSERT_OK(solve(op.A, b, xWhole, options, out.whole));
  EXPECT_TRUE(out.whole.converged) << out.whole.message;
  out.wholeError = relativeError(xWhole, u);
  if (!op.A.info().even_odd)
    return;
  ASSERT_OK(solve_even_odd(op.A, b, xSchur, options, out.schur));
  EXPECT_TRUE(out.schur.converged) << out.schur.message;
  out.schurError = relativeError(xSchur, u);
}

TEST(ComplexCoefficients, CgSolvesTheMagneticLaplacian) {
  ComplexOp op;
  ASSERT_OK(op.create(kernel("t_cx2d_magnetic_cg"), {15, 11}));
  Random random(14);
  const std::int64_t sites = op.A.lattice().sites();
  ASSERT_OK(op.set("ax", interleave(randomPhases(random, sites))));
  ASSERT_OK(op.set("ay", interleave(randomPhases(random, sites))));
  ASSERT_OK(op.A.check_spd());
  Solved solved;
  solveManufactured(op, random, Method::CG, 1e-12, solved);
  EXPECT_LT(solved.wholeError, 1e-10);
  std::printf("[ info     ] t_cx2d_magnetic_cg CG: %d iterations, residual "
              "%.2e, error %.2e\n",
              solved.whole.iterations, solved.whole.true_relative_residual,
              solved.wholeError);
}

TEST(ComplexCoefficients, SchurCgSolvesTheEvenOddPhases) {
  ComplexOp op; // z Dirichlet (odd), y antiperiodic
  ASSERT_OK(op.create(kernel("t_eo_cx3d_phases_soa_cg"), {8, 6, 7}));
  Random random(15);
  const std::int64_t sites = op.A.lattice().sites();
  ASSERT_OK(op.set("s", randomReals(random, sites, 0.0, 1.0)));
  for (const char *name : {"ax", "ay", "az"})
    ASSERT_OK(op.set(name, interleave(randomPhases(random, sites))));
  Solved solved;
  solveManufactured(op, random, Method::CG, 1e-11, solved);
  EXPECT_LT(solved.schur.iterations, solved.whole.iterations);
  EXPECT_LT(solved.wholeError, 1e-9);
  EXPECT_LT(solved.schurError, 1e-9);
  std::printf("[ info     ] t_eo_cx3d_phases_soa_cg: CG %d iterations on A, "
              "%d on the Schur complement, error %.2e\n",
              solved.whole.iterations, solved.schur.iterations,
              solved.schurError);
}

TEST(ComplexCoefficients, SchurCgnrSolvesANonHermitianEvenOddStencil) {
  // The adjoint hopping kernels conjugate the complex fields: CGNR on the
  // Schur complement needs S^dagger, and reaches the same solution.
  const KernelInfo &info = kernel("t_eo_cx2d_drift_aosoa_cgnr");
  ASSERT_FALSE(info.symmetric);
  ComplexOp op;
  ASSERT_OK(op.create(info, {12, 10}));
  Random random(18);
  const std::int64_t sites = op.A.lattice().sites();
  ASSERT_OK(op.set("s", randomReals(random, sites, 0.0, 1.0)));
  for (const char *name : {"a", "b"}) {
    std::vector<Complex> values = randomComplex(random, sites);
    for (Complex &v : values)
      v *= 0.5;
    ASSERT_OK(op.set(name, interleave(values)));
  }
  Solved solved;
  solveManufactured(op, random, Method::CGNR, 1e-11, solved);
  EXPECT_LT(solved.wholeError, 1e-9);
  EXPECT_LT(solved.schurError, 1e-9);
  std::printf("[ info     ] t_eo_cx2d_drift_aosoa_cgnr: CGNR %d iterations on "
              "A, %d on the Schur complement, error %.2e\n",
              solved.whole.iterations, solved.schur.iterations,
              solved.schurError);
}

TEST(ComplexCoefficients, CgRefusesCouplingsLargerThanTheDiagonal) {
  // |a| = 3 on every link: each row's couplings sum to 12 > 4 + mass.
  const std::vector<int> &n = kMagneticExtents;
  ComplexOp op;
  ASSERT_OK(op.create(kernel("t_cx2d_magnetic_cg"), n));
  Random random(16);
  const std::int64_t sites = op.A.lattice().sites();
  std::vector<Complex> big = randomPhases(random, sites);
  for (Complex &v : big)
    v *= 3.0;
  ASSERT_OK(op.set("ax", interleave(big)));
  ASSERT_OK(op.set("ay", interleave(randomPhases(random, sites))));
  expectFailure(op.A.check_spd(),
                {"t_cx2d_magnetic_cg is not diagonally dominant at site",
                 "use CGNR"});
  expectFailure(solveWithCg(op.A), {"not diagonally dominant"});
}

TEST(ComplexCoefficients, WrongFieldShapesAreRefused) {
  ComplexOp op;
  ASSERT_OK(op.create(kernel("t_cx3d_asym_links_aosoa"), {4, 5, 4}));
  // A real (one value per site) array for a complex field.
  Field real;
  ASSERT_OK(Field::create(op.A.site_lattice(), real));
  expectFailure(op.A.set_site_parameter("c", real),
                {"site parameter 'c'"});
  // site_lattice() of a name that is not a site parameter.
  Lattice lattice;
  expectFailure(op.A.site_lattice("h", lattice),
                {"has no site parameter named 'h'"});
  expectFailure(op.A.site_lattice("nope", lattice),
                {"has no site parameter named 'nope'"});
  // A complex pair array for a real field.
  ASSERT_OK(op.A.site_lattice("c", lattice));
  EXPECT_EQ(lattice.components, 2);
  Field pairs;
  ASSERT_OK(Field::create(lattice, pairs));
  expectFailure(op.A.set_site_parameter("k", pairs), {"site parameter 'k'"});
  // Jacobi divides by the diagonal, which here is complex.
  Random random(17);
  std::vector<std::unique_ptr<Field>> fields;
  ASSERT_OK(stencilc::testing::attachRandomSiteParameters(op.A, random, 0.5,
                                                          1.0, fields));
  Field diagonal;
  ASSERT_OK(Field::create(op.A.lattice(), diagonal));
  expectFailure(op.A.diagonal(diagonal),
                {"t_cx3d_asym_links_aosoa: the diagonal at site",
                 "is complex (imaginary part", "Jacobi preconditioning "
                 "divides by a real diagonal only"});
}

} // namespace
