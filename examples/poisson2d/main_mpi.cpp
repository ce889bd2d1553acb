// The distributed variant of main.cpp (built when the stencilc package has
// MPI): the same Poisson problem on the ranks of mpirun, each holding a
// block of the grid (the spec's grid.split lists x and y), solved with the
// runtime's CG and checked like main.cpp: the discretisation error must
// fall by about 4 when h halves. Rank 0 prints; the exit status is every
// rank's.
//   mpirun -np 4 poisson2d_mpi
#include "poisson2d.hpp"

#include "stencil/comm.hpp"
#include "stencil/device.hpp"
#include "stencil/field.hpp"
#include "stencil/operator.hpp"
#include "stencil/scatter.hpp"
#include "stencil/solver.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace {

const double pi = std::acos(-1.0);
double g(double s) { return std::exp(s) * std::sin(pi * s); }
double g2(double s) {
  return std::exp(s) *
         ((1 - pi * pi) * std::sin(pi * s) + 2 * pi * std::cos(pi * s));
}

struct Result {
  bool ok = false;
  int iterations = 0;
  double error = 0.0; ///< max |u_h - u| over the interior
};

/// n interior points per axis on the job's ranks; any rank's error ends the
/// whole job with its message.
Result solveOn(const stencil::Communicator &world, int n) {
  auto check = [&](const stencil::Status &status) {
    if (!status.ok())
      world.abort("poisson2d_mpi: " + status.message(), 1);
  };
  const stencil::KernelInfo &info = stencilc_kernels::poisson2d::info();
  const double h = 1.0 / (n + 1);
  const int extents[2] = {n + 2, n + 2};
  const int interior[2] = {n, n};
  const bool split[2] = {info.distributed->split[0],
                         info.distributed->split[1]};
  stencil::ProcessGrid grid;
  check(stencil::choose_process_grid(world.size(), 2, interior, split,
                                     info.shape.reach, false, grid));
  stencil::StencilOperator A;
  check(stencil::StencilOperator::create_distributed(info, extents, world,
                                                     grid, A));
  check(A.set_parameter("inv_h2", 1.0 / (h * h)));
  const stencil::Decomposition &d = *A.decomposition();
  std::printf("  %d x %d on %d ranks, process grid %s\n", n + 2, n + 2,
              world.size(), grid.text().c_str());
  // The whole right-hand side, every rank alike; each uploads its block.
  std::vector<double> f((n + 2) * (n + 2), 0.0);
  for (int j = 1; j <= n; ++j)
    for (int i = 1; i <= n; ++i)
      f[j * (n + 2) + i] = -(g2(i * h) * g(j * h) + g(i * h) * g2(j * h));
  stencil::Field b, x;
  check(stencil::Field::create(A.lattice(), b));
  check(stencil::Field::create(A.lattice(), x));
  check(stencil::scatter_field(d, f.data(), static_cast<std::int64_t>(f.size()),
                               b));
  stencil::SolveOptions options;
  options.tolerance = 1e-10;
  stencil::SolveReport report;
  check(stencil::solve(A, b, x, options, report));
  std::vector<double> u;
  check(stencil::gather_field(d, x, u)); // on rank 0
  Result result;
  result.ok = report.converged;
  result.iterations = report.iterations;
  if (world.rank() == 0)
    for (int j = 1; j <= n; ++j)
      for (int i = 1; i <= n; ++i)
        result.error = std::max(
            result.error, std::fabs(u[j * (n + 2) + i] - g(i * h) * g(j * h)));
  return result;
}

} // namespace

int main(int argc, char **argv) {
  stencil::MpiSession session(argc, argv);
  const stencil::Communicator world = stencil::Communicator::world();
  if (!stencil::use_local_device(world).ok())
    world.abort("poisson2d_mpi: no device for this rank", 1);
  if (world.rank() == 0)
    std::printf("poisson2d_mpi: %s on %s\n", stencil::backend_name().c_str(),
                stencil::device_name().c_str());
  else
    std::fclose(stdout); // one report
  const Result coarse = solveOn(world, 64);
  const Result fine = solveOn(world, 128);
  for (const auto &[n, r] : {std::pair{64, coarse}, std::pair{128, fine}})
    std::printf("  %3d x %-3d  CG %s in %4d iterations, max error %.3e\n", n,
                n, r.ok ? "converged" : "did NOT converge", r.iterations,
                r.error);
  double order = world.rank() == 0 ? std::log2(coarse.error / fine.error) : 0;
  if (!world.max(order).ok())
    world.abort("poisson2d_mpi: the ranks could not agree", 1);
  std::printf("  observed order of accuracy %.2f (expected 2)\n", order);
  return coarse.ok && fine.ok && order > 1.8 && order < 2.2 ? 0 : 1;
}
