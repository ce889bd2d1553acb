// Coefficient fields off the diagonal: the shipped poisson3d_varcoeff
// (-div(k grad u) with face coefficients) against a reference written
// straight from the finite-volume formula, a manufactured solution that
// must converge at second order, symmetry, and CG's refusals when the
// fields cannot make A positive definite.
#include "HostFixtures.h"
#include "KernelRegistry.h"

#include "stencil/coefficients.hpp"
#include "stencil/operator.hpp"
#include "stencil/solver.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <vector>

using namespace stencil;

namespace {

const KernelInfo &varcoeff() {
  return stencilc::testing::kernelNamed("poisson3d_varcoeff");
}

/// Host-order index of (x, y, z) on an n[0] x n[1] x n[2] lattice.
struct Grid {
  int n[3];
  long long sites() const { return 1LL * n[0] * n[1] * n[2]; }
  long long at(int x, int y, int z) const {
    return x + 1LL * n[0] * (y + 1LL * n[1] * z);
  }
  bool interior(int x, int y, int z) const {
    return x > 0 && y > 0 && z > 0 && x < n[0] - 1 && y < n[1] - 1 &&
           z < n[2] - 1;
  }
};

/// The three face-coefficient fields and the operator that reads them.
struct FaceProblem {
  Grid grid;
  StencilOperator A;
  Field k[3];
  std::vector<double> host[3];

  void create(const Grid &g, const std::vector<double> (&values)[3]) {
    grid = g;
    ASSERT_TRUE(StencilOperator::create(varcoeff(), grid.n, A).ok());
    const char *names[3] = {"kx", "ky", "kz"};
    for (int a = 0; a < 3; ++a) {
      host[a] = values[a];
      ASSERT_TRUE(Field::create(A.site_lattice(), k[a]).ok());
      ASSERT_TRUE(k[a].upload_values(host[a].data(), host[a].size()).ok());
      ASSERT_TRUE(A.set_site_parameter(names[a], k[a]).ok());
    }
  }

  /// (A u)_x from the finite-volume formula, over interior sites; the
  /// halo of u supplies boundary values, as for the kernel.
  std::vector<double> reference(const std::vector<double> &u) const {
    std::vector<double> out(grid.sites(), 0.0);
    for (int z = 1; z < grid.n[2] - 1; ++z)
      for (int y = 1; y < grid.n[1] - 1; ++y)
        for (int x = 1; x < grid.n[0] - 1; ++x) {
          const long long s = grid.at(x, y, z);
          const long long up[3] = {grid.at(x + 1, y, z), grid.at(x, y + 1, z),
                                   grid.at(x, y, z + 1)};
          const long long down[3] = {grid.at(x - 1, y, z),
                                     grid.at(x, y - 1, z),
                                     grid.at(x, y, z - 1)};
          double sum = 0.0;
          for (int a = 0; a < 3; ++a)
            sum += host[a][s] * (u[s] - u[up[a]]) +
                   host[a][down[a]] * (u[s] - u[down[a]]);
          out[s] = sum;
        }
    return out;
  }
};

std::vector<double> randomValues(Random &random, long long count, double low,
                                 double high) {
  std::vector<double> values(count);
  for (double &v : values)
    v = random.uniform(low, high);
  return values;
}

TEST(VariableCoefficients, KernelMatchesTheFiniteVolumeFormula) {
  Random random(17);
  for (const Grid grid : {Grid{{19, 14, 11}}, Grid{{7, 23, 5}}}) {
    FaceProblem p;
    std::vector<double> k[3];
    for (auto &field : k)
      field = randomValues(random, grid.sites(), 0.1, 3.0);
    p.create(grid, k);
    // Random input, boundary values included; output poisoned.
    std::vector<double> u = randomValues(random, grid.sites(), -1.0, 1.0);
    const double poison = std::numeric_limits<double>::quiet_NaN();
    std::vector<double> poisoned(grid.sites(), poison);
    Field in, out;
    ASSERT_TRUE(Field::create(p.A.lattice(), in).ok());
    ASSERT_TRUE(Field::create(p.A.lattice(), out).ok());
    ASSERT_TRUE(in.upload_values(u.data(), u.size()).ok());
    ASSERT_TRUE(out.upload_values(poisoned.data(), poisoned.size()).ok());
    ASSERT_TRUE(p.A.apply(out, in).ok());
    std::vector<double> got(grid.sites());
    ASSERT_TRUE(out.download_values(got.data(), got.size()).ok());
    const std::vector<double> want = p.reference(u);
    double worst = 0.0;
    for (int z = 0; z < grid.n[2]; ++z)
      for (int y = 0; y < grid.n[1]; ++y)
        for (int x = 0; x < grid.n[0]; ++x) {
          const long long s = grid.at(x, y, z);
          if (!grid.interior(x, y, z)) {
            EXPECT_TRUE(std::isnan(got[s])) << "halo written at " << s;
            continue;
          }
          worst = std::max(worst, std::fabs(got[s] - want[s]) /
                                      (1.0 + std::fabs(want[s])));
        }
    EXPECT_LT(worst, 1e-12);
  }
}

TEST(VariableCoefficients, OperatorIsSymmetric) {
  Random random(5);
  const Grid grid{{13, 10, 9}};
  FaceProblem p;
  std::vector<double> k[3];
  for (auto &field : k)
    field = randomValues(random, grid.sites(), 0.1, 3.0);
  p.create(grid, k);
  Field phi, psi, aphi, apsi;
  for (Field *f : {&phi, &psi, &aphi, &apsi})
    ASSERT_TRUE(Field::create(p.A.lattice(), *f).ok());
  for (Field *f : {&phi, &psi}) {
    std::vector<double> v = randomValues(random, grid.sites(), -1.0, 1.0);
    ASSERT_TRUE(f->upload_values(v.data(), v.size()).ok());
    ASSERT_TRUE(set_halo(*f, 0.0).ok());
  }
  ASSERT_TRUE(p.A.apply(aphi, phi).ok());
  ASSERT_TRUE(p.A.apply(apsi, psi).ok());
  Reducer reducer;
  double left = 0.0, right = 0.0;
  ASSERT_TRUE(reducer.dot(phi, apsi, left).ok());
  ASSERT_TRUE(reducer.dot(aphi, psi, right).ok());
  EXPECT_NEAR(left, right, 1e-12 * std::fabs(left));
  EXPECT_TRUE(p.A.symmetric());
}

/// -div(k grad u) = f on the unit cube, u = 0 on its faces:
/// u = sin(pi x) sin(pi y) sin(pi z), k = 1 + x + 2y + 3z.
double exactU(double x, double y, double z) {
  return std::sin(M_PI * x) * std::sin(M_PI * y) * std::sin(M_PI * z);
}
double conductivity(double x, double y, double z) {
  return 1.0 + x + 2.0 * y + 3.0 * z;
}
double source(double x, double y, double z) {
  const double s[3] = {std::sin(M_PI * x), std::sin(M_PI * y),
                       std::sin(M_PI * z)};
  const double c[3] = {std::cos(M_PI * x), std::cos(M_PI * y),
                       std::cos(M_PI * z)};
  // -k lap u - grad k . grad u, with grad k = (1, 2, 3).
  const double gradU[3] = {M_PI * c[0] * s[1] * s[2], M_PI * s[0] * c[1] * s[2],
                           M_PI * s[0] * s[1] * c[2]};
  return conductivity(x, y, z) * 3.0 * M_PI * M_PI * s[0] * s[1] * s[2] -
         (gradU[0] + 2.0 * gradU[1] + 3.0 * gradU[2]);
}

/// The max-norm error of the discrete solution with `interior` unknowns per
/// axis (h = 1 / (interior + 1)), solved with CG (and Jacobi-PCG, which must
/// agree).
double solveManufactured(int interior, Preconditioner preconditioner) {
  const int n = interior + 2;
  const double h = 1.0 / (interior + 1);
  const Grid grid{{n, n, n}};
  std::vector<double> k[3];
  std::vector<double> b(grid.sites(), 0.0), exact(grid.sites(), 0.0);
  for (auto &field : k)
    field.assign(grid.sites(), 0.0);
  for (int z = 0; z < n; ++z)
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) {
        const long long s = grid.at(x, y, z);
        const double px = x * h, py = y * h, pz = z * h;
        // The face above the site along each axis, divided by h^2.
        k[0][s] = conductivity(px + h / 2, py, pz) / (h * h);
        k[1][s] = conductivity(px, py + h / 2, pz) / (h * h);
        k[2][s] = conductivity(px, py, pz + h / 2) / (h * h);
        if (grid.interior(x, y, z)) {
          b[s] = source(px, py, pz);
          exact[s] = exactU(px, py, pz);
        }
      }
  FaceProblem p;
  p.create(grid, k);
  Field bf, xf;
  EXPECT_TRUE(Field::create(p.A.lattice(), bf).ok());
  EXPECT_TRUE(Field::create(p.A.lattice(), xf).ok());
  EXPECT_TRUE(bf.upload_values(b.data(), b.size()).ok());
  SolveOptions options;
  options.tolerance = 1e-12;
  options.max_iterations = 5000;
  options.preconditioner = preconditioner;
  SolveReport report;
  Status status = solve(p.A, bf, xf, options, report);
  EXPECT_TRUE(status.ok()) << status.message();
  EXPECT_TRUE(report.converged) << report.message;
  std::vector<double> x(grid.sites());
  EXPECT_TRUE(xf.download_values(x.data(), x.size()).ok());
  double worst = 0.0;
  for (long long s = 0; s < grid.sites(); ++s)
    worst = std::max(worst, std::fabs(x[s] - exact[s]));
  return worst;
}

TEST(VariableCoefficients, ManufacturedSolutionConvergesAtSecondOrder) {
  const double coarse = solveManufactured(11, Preconditioner::None);
  const double fine = solveManufactured(23, Preconditioner::None);
  // h halves (1/12 -> 1/24): second order divides the error by 4.
  const double order = std::log2(coarse / fine);
  std::printf("[ info     ] max error %.3e (h = 1/12), %.3e (h = 1/24): "
              "order %.3f\n",
              coarse, fine, order);
  EXPECT_LT(coarse, 1e-2);
  EXPECT_GT(order, 1.9);
  EXPECT_LT(order, 2.1);
  // Jacobi preconditioning reads the same diagonal, shifted fields included.
  EXPECT_NEAR(solveManufactured(11, Preconditioner::Jacobi), coarse,
              1e-9 * coarse);
}

TEST(VariableCoefficients, HostCoefficientsReadShiftedFields) {
  Random random(3);
  const Grid grid{{6, 5, 4}};
  FaceProblem p;
  std::vector<double> k[3];
  for (auto &field : k)
    field = randomValues(random, grid.sites(), 0.1, 3.0);
  p.create(grid, k);
  HostCoefficients c;
  ASSERT_TRUE(p.A.host_coefficients(c).ok());
  const HostCoefficients::Coordinates x = {2, 3, 1, 0};
  const long long s = grid.at(2, 3, 1);
  const double centre = k[0][s] + k[0][grid.at(1, 3, 1)] + k[1][s] +
                        k[1][grid.at(2, 2, 1)] + k[2][s] +
                        k[2][grid.at(2, 3, 0)];
  EXPECT_DOUBLE_EQ(c.at(varcoeff().centre_tap, x), centre);
  EXPECT_TRUE(c.off_diagonal_fields());
}

/// CG on the face-coefficient operator with `k` everywhere but `low` inside
/// the box [lo, hi)^3 of sites: the status of the solve.
Status solveWithFields(double value, double low, int lo, int hi) {
  const Grid grid{{9, 8, 7}};
  std::vector<double> k[3];
  for (auto &field : k) {
    field.assign(grid.sites(), value);
    for (int z = 0; z < grid.n[2]; ++z)
      for (int y = 0; y < grid.n[1]; ++y)
        for (int x = 0; x < grid.n[0]; ++x)
          if (x >= lo && x < hi && y >= lo && y < hi && z >= lo && z < hi)
            field[grid.at(x, y, z)] = low;
  }
  FaceProblem p;
  p.create(grid, k);
  Field b, x;
  EXPECT_TRUE(Field::create(p.A.lattice(), b).ok());
  EXPECT_TRUE(Field::create(p.A.lattice(), x).ok());
  EXPECT_TRUE(b.fill(1.0).ok());
  SolveOptions options;
  SolveReport report;
  return solve(p.A, b, x, options, report);
}

TEST(VariableCoefficients, CgRefusesFieldsThatBreakDefiniteness) {
  EXPECT_TRUE(solveWithFields(1.0, 1.0, 0, 0).ok());
  // A negative coefficient somewhere: rows there are not dominant.
  Status negative = solveWithFields(1.0, -0.5, 3, 5);
  ASSERT_FALSE(negative.ok());
  EXPECT_NE(negative.message().find("is not diagonally dominant at site"),
            std::string::npos)
      << negative.message();
  EXPECT_NE(negative.message().find("use CGNR"), std::string::npos);
  // Zero everywhere: no row is strictly dominant (A = 0).
  Status zero = solveWithFields(0.0, 0.0, 0, 0);
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.message().find("is strictly diagonally dominant"),
            std::string::npos)
      << zero.message();
  // Zero faces around an inner box cut it off from the boundary: the
  // sites inside float, and A is singular.
  const Grid grid{{9, 8, 7}};
  std::vector<double> k[3];
  for (auto &field : k)
    field.assign(grid.sites(), 1.0);
  // Faces of the single site (3, 3, 3): kx at (3,3,3) and (2,3,3), ...
  for (int a = 0; a < 3; ++a) {
    int c[3] = {3, 3, 3};
    k[a][grid.at(c[0], c[1], c[2])] = 0.0;
    c[a] -= 1;
    k[a][grid.at(c[0], c[1], c[2])] = 0.0;
  }
  FaceProblem p;
  p.create(grid, k);
  Field b, x;
  ASSERT_TRUE(Field::create(p.A.lattice(), b).ok());
  ASSERT_TRUE(Field::create(p.A.lattice(), x).ok());
  SolveOptions options;
  SolveReport report;
  Status isolated = solve(p.A, b, x, options, report);
  ASSERT_FALSE(isolated.ok());
  EXPECT_NE(isolated.message().find("site (3, 3, 3)"), std::string::npos)
      << isolated.message();
}

TEST(VariableCoefficients, FieldsOfTheWrongSizeAreRefused) {
  StencilOperator A;
  const int extents[3] = {9, 8, 7};
  ASSERT_TRUE(StencilOperator::create(varcoeff(), extents, A).ok());
  Lattice wrong = A.site_lattice();
  wrong.extents[0] = 10;
  Field k;
  ASSERT_TRUE(Field::create(wrong, k).ok());
  Status status = A.set_site_parameter("kx", k);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("kx"), std::string::npos) << status.message();
  // A missing field is named at the first use.
  Field in, out;
  ASSERT_TRUE(Field::create(A.lattice(), in).ok());
  ASSERT_TRUE(Field::create(A.lattice(), out).ok());
  Status missing = A.apply(out, in);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("'kx' has no array"), std::string::npos)
      << missing.message();
}

} // namespace
