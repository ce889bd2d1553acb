// Solves -(u_xx + u_yy) = f on the unit square with u = 0 on the boundary,
// for the exact solution u = g(x) g(y), g(s) = e^s sin(pi s), with the
// generated poisson2d operator and the runtime's CG, on two grids. The
// discretisation error must fall by about 4 when h halves (second order);
// the exit status is 0 only then.
#include "poisson2d.hpp"

#include "stencil/device.hpp"
#include "stencil/field.hpp"
#include "stencil/operator.hpp"
#include "stencil/solver.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace {

const double pi = std::acos(-1.0);
double g(double s) { return std::exp(s) * std::sin(pi * s); }
/// g''
double g2(double s) {
  return std::exp(s) *
         ((1 - pi * pi) * std::sin(pi * s) + 2 * pi * std::cos(pi * s));
}

struct Result {
  bool failed = true; ///< a runtime error, already printed
  bool ok = false;
  int iterations = 0;
  double error = 0.0; ///< max |u_h - u| over the interior
};

#define CHECK(call)                                                            \
  do {                                                                         \
    stencil::Status status_ = (call);                                          \
    if (!status_.ok()) {                                                       \
      std::fprintf(stderr, "poisson2d: %s\n", status_.message().c_str());      \
      return Result();                                                         \
    }                                                                          \
  } while (0)

/// n interior points per axis, plus the one-site halo the spec implies.
Result solveOn(int n) {
  const double h = 1.0 / (n + 1);
  const int extents[2] = {n + 2, n + 2};
  stencil::StencilOperator A;
  CHECK(stencil::StencilOperator::create(stencilc_kernels::poisson2d::info(),
                                         extents, A));
  std::printf("  %d x %d: kernels: %s\n", n + 2, n + 2,
              A.kernel_choice().c_str());
  CHECK(A.set_parameter("inv_h2", 1.0 / (h * h)));
  stencil::Field b, x;
  CHECK(stencil::Field::create(A.lattice(), b));
  CHECK(stencil::Field::create(A.lattice(), x));
  std::vector<double> f(A.lattice().values(), 0.0);
  for (int j = 1; j <= n; ++j)
    for (int i = 1; i <= n; ++i)
      f[j * (n + 2) + i] =
          -(g2(i * h) * g(j * h) + g(i * h) * g2(j * h));
  CHECK(b.upload_values(f.data(), f.size()));

  stencil::SolveOptions options;
  options.tolerance = 1e-10;
  stencil::SolveReport report;
  CHECK(stencil::solve(A, b, x, options, report));
  std::vector<double> u(A.lattice().values());
  CHECK(x.download_values(u.data(), u.size()));
  Result result;
  result.failed = false;
  result.ok = report.converged;
  result.iterations = report.iterations;
  for (int j = 1; j <= n; ++j)
    for (int i = 1; i <= n; ++i)
      result.error = std::max(
          result.error, std::fabs(u[j * (n + 2) + i] - g(i * h) * g(j * h)));
  return result;
}

} // namespace

int main() {
  std::printf("poisson2d: %s on %s\n", stencil::backend_name().c_str(),
              stencil::device_name().c_str());
  Result coarse = solveOn(63);
  if (coarse.failed)
    return 1;
  Result fine = solveOn(127);
  if (fine.failed)
    return 1;
  for (const auto &[n, r] : {std::pair{63, coarse}, std::pair{127, fine}})
    std::printf("  %3d x %-3d  CG %s in %4d iterations, max error %.3e\n", n,
                n, r.ok ? "converged" : "did NOT converge", r.iterations,
                r.error);
  const double order = std::log2(coarse.error / fine.error);
  std::printf("  observed order of accuracy %.2f (expected 2)\n", order);
  return coarse.ok && fine.ok && order > 1.8 && order < 2.2 ? 0 : 1;
}
