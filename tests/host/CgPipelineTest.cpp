// CG with its scalars on the device (runtime/src/cg_scalars.hpp and the
// solvers' pipelined loop): the finishing steps on known partial sums, the
// host's view of queued iterations, and solves that stop at the cap.
#include "HostFixtures.h"

#include "../../runtime/src/cg_scalars.hpp"
#include "stencil/blas.hpp"
#include "stencil/operator.hpp"
#include "stencil/random.hpp"
#include "stencil/solver.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

using namespace stencil;
using stencilc::testing::attachRandomSiteParameters;
using stencilc::testing::expectFailure;
using stencilc::testing::randomReals;

namespace {

TEST(CgScalars, AlphaAndBetaFromThePartials) {
  CgScalars scalars;
  ASSERT_OK(scalars.start(6.0));
  EXPECT_EQ(*scalars.beta(), 0.0); // the first pass's p' is r
  const double pq[] = {1.5, 0.25, 1.25};   // p.Ap = 3
  ASSERT_OK(scalars.finish_alpha(pq, 3));
  EXPECT_DOUBLE_EQ(*scalars.alpha(), 2.0); // 6 / 3
  const double rr[] = {0.5, 1.0};          // ||r'||^2 = 1.5
  ASSERT_OK(scalars.finish_beta(rr, 2, 1));
  EXPECT_DOUBLE_EQ(*scalars.beta(), 0.25); // 1.5 / 6
  CgSums sums;
  // The sums are the host's once marked sent (behind the kernel, or behind
  // a launch graph that replays it).
  expectFailure(scalars.sums(1, sums), {"iteration 1", "not queued"});
  ASSERT_OK(scalars.sent(1));
  ASSERT_OK(scalars.sums(1, sums));
  EXPECT_DOUBLE_EQ(sums.pq, 3.0);
  EXPECT_DOUBLE_EQ(sums.rr, 1.5);
  // The next iteration's alpha uses the new ||r||^2.
  const double pq2[] = {0.75};
  ASSERT_OK(scalars.finish_alpha(pq2, 1));
  EXPECT_DOUBLE_EQ(*scalars.alpha(), 2.0); // 1.5 / 0.75
}

TEST(CgScalars, ABrokenDownIterationHasAlphaZero) {
  CgScalars scalars;
  ASSERT_OK(scalars.start(2.0));
  const double negative[] = {-1.0, 0.5};
  ASSERT_OK(scalars.finish_alpha(negative, 2));
  EXPECT_EQ(*scalars.alpha(), 0.0); // x and r stay as they were
  const double rr[] = {2.0};
  ASSERT_OK(scalars.finish_beta(rr, 1, 1));
  ASSERT_OK(scalars.sent(1));
  CgSums sums;
  ASSERT_OK(scalars.sums(1, sums));
  EXPECT_DOUBLE_EQ(sums.pq, -0.5); // the host sees the breakdown
}

TEST(CgScalars, DotPartialsAndXpayReadTheDevice) {
  // The pipelined loop's passes without the fold kernel: p.q left as
  // partials for the device's finish, and p = r + beta p with beta read
  // from device memory; against the host-scalar operations on odd-sized,
  // random fields, both precisions.
  for (const int bytes : {4, 8}) {
    SCOPED_TRACE(bytes);
    Lattice lattice;
    lattice.dims = 3;
    lattice.extents[0] = 7;
    lattice.extents[1] = 5;
    lattice.extents[2] = 3;
    lattice.components = 3;
    lattice.element_bytes = bytes;
    Field p, q, r, expected;
    for (Field *f : {&p, &q, &r, &expected})
      ASSERT_OK(Field::create(lattice, *f));
    Random random(11);
    for (Field *f : {&p, &q, &r}) {
      const std::vector<double> v = randomReals(random, lattice.values());
      ASSERT_OK(f->upload_values(v.data(), v.size()));
    }
    Reducer reducer;
    double dot = 0.0;
    ASSERT_OK(reducer.dot(p, q, dot));
    std::int64_t count = 0;
    ASSERT_OK(reducer.dot_partials(p, q, count));
    double fromPartials = 0.0;
    ASSERT_OK(reducer.sum_block_partials(count, fromPartials));
    EXPECT_NEAR(fromPartials, dot, 1e-12 * (1.0 + std::abs(dot)));
    ASSERT_NE(dot, 0.0);

    ASSERT_OK(expected.copy_from(p));
    ASSERT_OK(xpay(r, -0.375, expected));
    const double *beta = nullptr;
    ASSERT_OK(reducer.device_scalar(-0.375, beta));
    ASSERT_OK(xpay_from_device(r, beta, p));
    std::vector<double> got(lattice.values()), want(lattice.values());
    ASSERT_OK(p.download_values(got.data(), got.size()));
    ASSERT_OK(expected.download_values(want.data(), want.size()));
    EXPECT_EQ(got, want);
  }
  Field a;
  Lattice lattice;
  lattice.dims = 1;
  lattice.extents[0] = 4;
  ASSERT_OK(Field::create(lattice, a));
  expectFailure(xpay_from_device(a, nullptr, a), {"null a"});
}

TEST(CgScalars, TheHostReadsOnlyQueuedIterations) {
  CgScalars scalars;
  CgSums sums;
  expectFailure(scalars.finish_alpha(nullptr, 0), {"before start()"});
  ASSERT_OK(scalars.start(1.0));
  expectFailure(scalars.sums(1, sums), {"iteration 1", "not queued"});
  const double one[] = {1.0};
  for (int iteration = 1; iteration <= 3; ++iteration) {
    ASSERT_OK(scalars.finish_alpha(one, 1));
    ASSERT_OK(scalars.finish_beta(one, 1, iteration));
    ASSERT_OK(scalars.sent(iteration));
  }
  expectFailure(scalars.sent(-1), {"no iteration -1"});
  // Two slots: iteration 3 took iteration 1's.
  expectFailure(scalars.sums(1, sums), {"iteration 1", "overwritten"});
  ASSERT_OK(scalars.sums(2, sums));
  ASSERT_OK(scalars.sums(3, sums));
  // A reliable update's restart sets ||r||^2 and beta.
  ASSERT_OK(scalars.restart(9.0, 0.5));
  EXPECT_DOUBLE_EQ(*scalars.beta(), 0.5);
  const double three[] = {3.0};
  ASSERT_OK(scalars.finish_alpha(three, 1));
  EXPECT_DOUBLE_EQ(*scalars.alpha(), 3.0);
}

/// The pipelined loop keeps up to two iterations queued ahead of the host;
/// at the iteration cap it stops exactly there, in double and in the inner
/// loop of mixed precision, with one residual per iteration, and x holds
/// every step's update (the fold passes take x's update a step late, the
/// solve adds the last): its true residual is the recurrence's.
TEST(CgPipeline, StopsAtTheIterationCap) {
  const KernelInfo &info = stencilc::testing::kernelNamed("laplacian3d_f64");
  const std::vector<int> extents{19, 17, 21};
  StencilOperator A;
  ASSERT_OK(StencilOperator::create(info, extents.data(), A));
  Random random(7);
  std::vector<std::unique_ptr<Field>> sites;
  ASSERT_OK(attachRandomSiteParameters(A, random, 0.0, 1000.0, sites));
  Field b;
  ASSERT_OK(Field::create(A.lattice(), b));
  std::vector<double> values(A.lattice().values());
  for (double &v : values)
    v = random.uniform(-1.0, 1.0);
  ASSERT_OK(b.upload_values(values.data(), values.size()));
  ASSERT_OK(set_halo(b, 0.0));
  for (bool mixed : {false, true})
    for (int cap : {1, 2, 5}) {
      SCOPED_TRACE(std::string(mixed ? "mixed" : "double") + ", cap " +
                   std::to_string(cap));
      Field x;
      ASSERT_OK(Field::create(A.lattice(), x));
      ASSERT_OK(fill(x, 0.0));
      SolveOptions options;
      options.tolerance = 1e-12;
      options.max_iterations = cap;
      options.mixed_precision = mixed;
      SolveReport report;
      ASSERT_OK(solve(A, b, x, options, report));
      EXPECT_TRUE(report.folded);
      EXPECT_EQ(report.launches, "kernels launched one by one (the host "
                                 "backend has no launch graphs)");
      EXPECT_FALSE(report.converged);
      EXPECT_EQ(report.iterations, cap);
      EXPECT_EQ(report.residual_history.size(),
                static_cast<size_t>(cap) + 1);
      // CG's residual falls on this operator from the first iteration.
      EXPECT_LT(report.residual_history.back(),
                report.residual_history.front());
      // One step short, x's residual would be the last iteration's but one.
      EXPECT_NEAR(report.true_relative_residual,
                  report.residual_history.back(),
                  1e-6 * report.residual_history.back());
    }
}

/// Timed operations (SolveOptions::time_kernels) put an event pair around
/// each pass, which a launch graph would hide: the folded loop launches
/// them one by one, says so, and times each pass of every iteration.
TEST(CgPipeline, TimedOperationsRunOneByOne) {
  const KernelInfo &info = stencilc::testing::kernelNamed("laplacian3d_f64");
  const std::vector<int> extents{15, 13, 11};
  StencilOperator A;
  ASSERT_OK(StencilOperator::create(info, extents.data(), A));
  Field b, x;
  ASSERT_OK(Field::create(A.lattice(), b));
  ASSERT_OK(Field::create(A.lattice(), x));
  Random random(5);
  const std::vector<double> values = randomReals(random, A.lattice().values());
  ASSERT_OK(b.upload_values(values.data(), values.size()));
  ASSERT_OK(set_halo(b, 0.0));
  ASSERT_OK(fill(x, 0.0));
  SolveOptions options;
  options.time_kernels = true;
  SolveReport report;
  ASSERT_OK(solve(A, b, x, options, report));
  EXPECT_TRUE(report.converged);
  EXPECT_TRUE(report.folded);
  EXPECT_EQ(report.launches,
            "kernels launched one by one (each operation timed)");
  // Every queued iteration's two passes (the pipeline may queue one past
  // convergence), and the last step's x update once.
  long fold = 0, residual = 0, last = 0;
  for (const KernelStats &k : report.kernels) {
    if (k.name == "stencil apply + dot, p = r + beta p and x folded in")
      fold = k.calls;
    else if (k.name == "r update + norm2")
      residual = k.calls;
    else if (k.name == "x update (the last step's)")
      last = k.calls;
  }
  // Turned off for one solve, the report says so (the host backend's
  // reason otherwise: it has no graphs).
  options.time_kernels = false;
  options.launch_graphs = false;
  ASSERT_OK(fill(x, 0.0));
  SolveReport off;
  ASSERT_OK(solve(A, b, x, options, off));
  EXPECT_EQ(off.launches,
            "kernels launched one by one (SolveOptions::launch_graphs off)");
  EXPECT_EQ(off.iterations, report.iterations);
  EXPECT_GE(fold, report.iterations);
  EXPECT_LE(fold, report.iterations + 1);
  EXPECT_EQ(residual, fold);
  EXPECT_EQ(last, 1);
}

/// CG on a bfloat16 operator itself (create_inner), x in bfloat16 too: the
/// fold kernel takes x only in the arithmetic type, so the update pass keeps
/// x's update there (as before the fold took it).
TEST(CgPipeline, Bf16FieldsKeepXInTheUpdatePass) {
  const KernelInfo &info =
      stencilc::testing::kernelNamed("laplacian3d_f64_bf16");
  const std::vector<int> extents{13, 11, 9};
  StencilOperator A, inner;
  ASSERT_OK(StencilOperator::create(info, extents.data(), A));
  ASSERT_OK(A.create_inner(inner));
  ASSERT_EQ(inner.lattice().element_bytes, 2);
  Field b, x;
  ASSERT_OK(Field::create(inner.lattice(), b));
  ASSERT_OK(Field::create(inner.lattice(), x));
  Random random(3);
  const std::vector<double> values =
      randomReals(random, inner.lattice().values());
  ASSERT_OK(b.upload_values(values.data(), values.size()));
  ASSERT_OK(set_halo(b, 0.0));
  ASSERT_OK(fill(x, 0.0));
  SolveOptions options;
  options.tolerance = 1e-12;
  options.max_iterations = 4;
  SolveReport report;
  ASSERT_OK(solve(inner, b, x, options, report));
  EXPECT_TRUE(report.folded);
  EXPECT_EQ(report.iterations, 4);
  // bfloat16 rounding: x's residual near the recurrence's, both fallen.
  EXPECT_LT(report.true_relative_residual, 0.9);
  EXPECT_NEAR(report.true_relative_residual, report.residual_history.back(),
              0.1 * report.residual_history.back());
}

} // namespace
