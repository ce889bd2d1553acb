// The runtime on the host backend: fields, BLAS-1, operators and the
// solvers on manufactured solutions, and every error the solver promises.
#include "HostFixtures.h"

#include "stencil/bfloat16.hpp"
#include "stencil/blas.hpp"
#include "stencil/field.hpp"
#include "stencil/operator.hpp"
#include "stencil/random.hpp"
#include "stencil/solver.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

using namespace stencil;
using stencilc::testing::attachRandomSiteParameters;
using stencilc::testing::expectFailure;
using stencilc::testing::expectFoldPassMatchesItsDefinition;
using stencilc::testing::kernelsWithPlannerVariants;

namespace {

const KernelInfo &kernel(const std::string &name) {
  return stencilc::testing::kernelNamed(name);
}

/// A problem with a known solution: b = A u*, u* random on the interior.
struct Manufactured {
  StencilOperator A;
  Field exact, b, x;
  std::vector<std::unique_ptr<Field>> sites;

  void setUp(const KernelInfo &info, std::vector<int> extents,
             double siteLow = 0.0, double siteHigh = 1000.0) {
    ASSERT_OK(StencilOperator::create(info, extents.data(), A));
    Random random(99);
    ASSERT_OK(attachRandomSiteParameters(A, random, siteLow, siteHigh, sites));
    for (Field *f : {&exact, &b, &x})
      ASSERT_OK(Field::create(A.lattice(), *f));
    std::vector<double> values(A.lattice().values());
    for (double &v : values)
      v = random.uniform(-1.0, 1.0);
    ASSERT_OK(exact.upload_values(values.data(), values.size()));
    ASSERT_OK(set_halo(exact, 0.0));
    ASSERT_OK(A.apply(b, exact));
  }

  double error() {
    Field difference;
    EXPECT_TRUE(Field::create(A.lattice(), difference).ok());
    EXPECT_TRUE(difference.copy_from(x).ok());
    EXPECT_TRUE(axpy(-1.0, exact, difference).ok());
    Reducer reducer;
    double e = 0.0, u = 0.0;
    EXPECT_TRUE(reducer.norm2(difference, e).ok());
    EXPECT_TRUE(reducer.norm2(exact, u).ok());
    return e / u;
  }
};

SolveReport solveWith(Manufactured &problem, Method method,
                      Preconditioner preconditioner, double tol = 1e-11,
                      int cap = 20000) {
  SolveOptions options;
  options.method = method;
  options.preconditioner = preconditioner;
  options.tolerance = tol;
  options.max_iterations = cap;
  SolveReport report;
  Status status = solve(problem.A, problem.b, problem.x, options, report);
  EXPECT_TRUE(status.ok()) << status.message();
  return report;
}

TEST(Solver, CgFindsTheManufacturedSolution) {
  for (const char *name :
       {"laplacian3d_f64", "laplacian3d_13pt_o4", "laplacian4d_periodic"}) {
    SCOPED_TRACE(name);
    Manufactured problem;
    const KernelInfo &info = kernel(name);
    problem.setUp(info, info.shape.dims == 4 ? std::vector<int>{6, 5, 7, 9}
                                             : std::vector<int>{21, 17, 19});
    SolveReport report = solveWith(problem, Method::CG, Preconditioner::None);
    EXPECT_TRUE(report.converged) << report.message;
    EXPECT_LT(problem.error(), 1e-8);
    EXPECT_LT(report.true_relative_residual, 1e-10);
    EXPECT_EQ(report.residual_history.size(),
              static_cast<size_t>(report.iterations) + 1);
    EXPECT_GT(report.bytes_per_iteration, 0.0);
  }
}

/// `extents` (their first info.shape.dims) made whole groups of sites along x
/// per row and, in subdomain layouts, whole subdomains.
std::vector<int> fittedToLayout(const KernelInfo &info,
                                std::vector<int> extents) {
  extents.resize(info.shape.dims);
  extents[0] += (info.shape.x_width - extents[0] % info.shape.x_width) %
                info.shape.x_width;
  for (int axis = 0; axis < info.shape.dims; ++axis) {
    const int sub = info.layout.sub[axis];
    extents[axis] += (sub - extents[axis] % sub) % sub;
  }
  return extents;
}

// CG's fused stencil-and-dot kernel: every whole-lattice CG spec with blocks
// of whole wavefronts has one, and it computes apply() and in . out.
TEST(FusedCg, ApplyDotEqualsApplyThenDot) {
  int checked = 0;
  for (const auto &entry : kernelsWithPlannerVariants()) {
    const KernelInfo &info = *entry.info;
    if (!info.apply_dot)
      continue;
    SCOPED_TRACE(info.name);
    ++checked;
    // Sizes that are not multiples of the block or the tile (in 4-D, ones
    // the blocked and subdomain layouts accept); nx odd where the kernels
    // take it, so that a spec runs its own kernels, not its groups along x
    // (those run as entries of their own, nx rounded to their group).
    const std::vector<int> extents = fittedToLayout(
        info, info.shape.dims == 4 ? std::vector<int>{7, 8, 4, 6}
                                   : std::vector<int>{37, 29, 23});
    StencilOperator A;
    ASSERT_OK(StencilOperator::create(info, extents.data(), A));
    Random random(7);
    std::vector<std::unique_ptr<Field>> sites;
    ASSERT_OK(attachRandomSiteParameters(A, random, 0.0, 1.0, sites));
    Field links;
    StencilOperator::CloverArrays clover;
    ASSERT_OK(stencil::set_random_links(A, random, links, &clover));
    Field in, out, reference;
    for (Field *f : {&in, &out, &reference})
      ASSERT_OK(Field::create(A.lattice(), *f));
    std::vector<double> values(A.lattice().values());
    for (double &v : values)
      v = random.uniform(-1.0, 1.0);
    ASSERT_OK(in.upload_values(values.data(), values.size()));
    ASSERT_OK(A.apply(reference, in));
    Reducer reducer;
    double fused = 0.0, expected = 0.0;
    ASSERT_OK(A.apply_dot(out, in, reducer, fused));
    // The halo of `out` is never written: compare the interior's dot.
    ASSERT_OK(set_halo(in, 0.0));
    ASSERT_OK(reducer.dot(in, reference, expected));
    std::vector<double> got(values.size()), want(values.size());
    ASSERT_OK(out.download_values(got.data(), got.size()));
    ASSERT_OK(reference.download_values(want.data(), want.size()));
    for (size_t i = 0; i < got.size(); ++i)
      if (!A.lattice().has_halo() || got[i] != 0.0)
        ASSERT_EQ(got[i], want[i]) << "value " << i;
    const double tolerance = info.element_bytes == 4 ? 1e-6 : 1e-12;
    EXPECT_NEAR(fused, expected, tolerance * std::abs(expected));
    EXPECT_NE(fused, 0.0);
  }
  EXPECT_GE(checked, 10);
}

// The fused kernel with CG's direction update folded in: every kernel that
// has it computes p' = r + beta p on the interior (the halo of p' is never
// written), A p' and p' . A p', as the update followed by apply() and a dot
// product do. Odd sizes, random r and p (halos too), outputs poisoned.
TEST(FusedCg, ApplyFoldDotEqualsTheUpdateThenApplyDot) {
  int checked = 0, vectorFields = 0;
  for (const auto &entry : kernelsWithPlannerVariants()) {
    const KernelInfo &info = *entry.info;
    if (!info.apply_fold_dot)
      continue;
    SCOPED_TRACE(info.name);
    ++checked;
    EXPECT_NE(info.apply_dot, nullptr);
    vectorFields += info.components > 1;
    // Odd extents where the layouts hold them (7 x 8 x 5 x 8: blocks of 32
    // sites too), else whole subdomains; nx odd as above.
    const std::vector<int> extents = fittedToLayout(
        info, info.shape.dims == 4 ? std::vector<int>{7, 8, 5, 8}
                                   : std::vector<int>{37, 29, 23});
    StencilOperator A;
    ASSERT_OK(StencilOperator::create(info, extents.data(), A));
    ASSERT_TRUE(A.has_apply_fold_dot());
    Random random(11);
    std::vector<std::unique_ptr<Field>> sites;
    ASSERT_OK(attachRandomSiteParameters(A, random, 0.0, 1.0, sites));
    Field links;
    ASSERT_OK(stencil::set_random_links(A, random, links));
    expectFoldPassMatchesItsDefinition(
        A, 0.8125, info.element_bytes == 4 ? 1e-5 : 1e-13, 11);
  }
  // The CG specs with blocks of whole wavefronts, their tuned variants and
  // the inner kernels: single-component and vector fields (site-major,
  // with and without vector accesses, soa, aosoa and subdomains, groups
  // along x, a site's components over several threads, links).
  EXPECT_GE(checked, 8);
  EXPECT_GE(vectorFields, 10);
}

TEST(FusedCg, FoldedDirectionRefusalsSayWhy) {
  // The kernels only ranks run keep p = r + beta p as a pass of its own:
  // both fields' halos would have to travel.
  const KernelInfo &spec = kernel("laplacian4d_vec24_aosoa");
  ASSERT_NE(spec.distributed, nullptr);
  const KernelInfo &ranks = spec.distributed->kernels();
  ASSERT_NE(&ranks, &spec);
  ASSERT_NE(ranks.apply_dot, nullptr);
  ASSERT_EQ(ranks.apply_fold_dot, nullptr);
  StencilOperator A;
  const int extents[] = {8, 6, 6, 8};
  ASSERT_OK(StencilOperator::create(ranks, extents, A));
  EXPECT_FALSE(A.has_apply_fold_dot());
  Field f[4];
  for (Field &field : f)
    ASSERT_OK(Field::create(A.lattice(), field));
  Reducer reducer;
  double result = 0.0;
  const std::string name = ranks.name;
  expectFailure(A.apply_fold_dot(f[0], f[1], f[2], f[3], 0.5, reducer, result),
                {name + " has no kernel with CG's direction update folded "
                        "in"});
  std::int64_t blocks = 0;
  expectFailure(A.fold_partial_count(blocks),
                {"fold_partial_count", name, "no fold kernel"});
  // Fields that overlap: the kernel reads two and writes two.
  StencilOperator L;
  const int small[] = {13, 11, 9};
  ASSERT_OK(StencilOperator::create(kernel("laplacian3d_f64"), small, L));
  Field g[3];
  for (Field &field : g)
    ASSERT_OK(Field::create(L.lattice(), field));
  expectFailure(L.apply_fold_dot(g[0], g[1], g[2], g[1], 0.5, reducer, result),
                {"'next_direction' and 'direction' overlap"});
  Field other;
  const int wrong[] = {13, 11, 10};
  StencilOperator M;
  ASSERT_OK(StencilOperator::create(kernel("laplacian3d_f64"), wrong, M));
  ASSERT_OK(Field::create(M.lattice(), other));
  expectFailure(L.apply_fold_dot(g[0], g[1], g[2], other, 0.5, reducer, result),
                {"apply_fold_dot: direction"});
}

TEST(FusedCg, SameIteratesAsUnfusedWithFewerBytes) {
  // Fields of one value per site and vector fields fold p = r + beta p
  // and x += alpha p into the stencil pass (9 field transfers), unless
  // SolveOptions::fold_direction is off (11).
  // Double fields: single-component, site-major vector, and component-major
  // vector with the planner's groups of 4 sites along x (nx = 24).
  struct Case {
    const char *name;
    std::vector<int> extents;
    bool groupsAlongX;
  } cases[] = {{"laplacian3d_f64", {21, 17, 19}, false},
               {"anisotropic_reaction3d", {21, 17, 19}, false},
               {"laplacian4d_vec12_f64", {6, 6, 6, 8}, false},
               {"t_bf16_vec3d_soa", {24, 17, 19}, true}};
  for (const Case &c : cases) {
    SCOPED_TRACE(c.name);
    const KernelInfo &info = kernel(c.name);
    ASSERT_NE(info.apply_dot, nullptr);
    ASSERT_NE(info.apply_fold_dot, nullptr);
    const std::vector<int> &extents = c.extents;
    Manufactured foldedProblem, fusedProblem, plainProblem;
    foldedProblem.setUp(info, extents);
    fusedProblem.setUp(info, extents);
    plainProblem.setUp(info, extents);
    EXPECT_EQ(foldedProblem.A.kernel_choice().find("a multiple of") !=
                  std::string::npos,
              c.groupsAlongX)
        << foldedProblem.A.kernel_choice();
    SolveOptions options;
    options.tolerance = 1e-11;
    SolveReport folded, fused, plain;
    ASSERT_OK(solve(foldedProblem.A, foldedProblem.b, foldedProblem.x,
                    options, folded));
    options.fold_direction = false;
    ASSERT_OK(solve(fusedProblem.A, fusedProblem.b, fusedProblem.x, options,
                    fused));
    options.fused = false;
    ASSERT_OK(solve(plainProblem.A, plainProblem.b, plainProblem.x, options,
                    plain));
    EXPECT_TRUE(folded.fused);
    EXPECT_TRUE(folded.folded);
    EXPECT_TRUE(fused.fused);
    EXPECT_FALSE(fused.folded);
    EXPECT_FALSE(plain.fused);
    // Only the folded loop's iterations go into launch graphs (on GPUs).
    EXPECT_EQ(folded.launches, "kernels launched one by one (the host backend "
                               "has no launch graphs)");
    EXPECT_EQ(fused.launches, "");
    for (SolveReport *report : {&folded, &fused}) {
      EXPECT_TRUE(report->converged);
      EXPECT_NEAR(report->iterations, plain.iterations, 1);
      EXPECT_LT(report->true_relative_residual, 1e-10);
    }
    EXPECT_LT(foldedProblem.error(), 1e-8);
    EXPECT_LT(fusedProblem.error(), 1e-8);
    // The fold changes where p is formed and x updated, not the iterates:
    // the residual histories agree to rounding (which CG amplifies as it
    // goes).
    const size_t compared = std::min<size_t>(
        30, std::min(folded.residual_history.size(),
                     fused.residual_history.size()));
    for (size_t i = 0; i < compared; ++i)
      EXPECT_NEAR(folded.residual_history[i], fused.residual_history[i],
                  1e-8 * fused.residual_history[i])
          << "iteration " << i;
    // Field transfers: the stencil's pass S (in and out on the interior, a
    // fraction f of the sites, and any coefficient field), folded S + 2f
    // (p and p') + 2f (x) + 3 (r and q), fused S + 6 + 3, unfused S + 12 and
    // the minimal S + 4f + 3, the vector operations on whole fields.
    // Folded, the first iteration (p = r) moves 2f fewer, and the solve adds
    // the last step's x += alpha p (3) once; otherwise the last one skips
    // p's update (3).
    const Lattice &lattice = fusedProblem.A.lattice();
    const double field = lattice.bytes();
    const double f = static_cast<double>(lattice.interior_sites()) /
                     static_cast<double>(lattice.sites());
    const double S = fusedProblem.A.bytes_per_apply() / field;
    const double tolerance = (2.0 * f + 3.0) / folded.iterations + 1e-9;
    EXPECT_NEAR(folded.bytes_per_iteration / field, S + 4.0 * f + 3.0,
                tolerance);
    EXPECT_NEAR(fused.bytes_per_iteration / field, S + 9.0,
                3.0 / fused.iterations + 1e-9);
    EXPECT_NEAR(plain.bytes_per_iteration / field, S + 12.0,
                3.0 / plain.iterations + 1e-9);
    EXPECT_NEAR(fused.minimal_bytes_per_iteration / field, S + 4.0 * f + 3.0,
                1e-9);
    EXPECT_LT(fused.minimal_bytes_per_iteration, fused.bytes_per_iteration);
    // Folded, every iteration after the first (p = r) moves the minimum.
    EXPECT_NEAR(folded.bytes_per_iteration,
                folded.minimal_bytes_per_iteration, tolerance * field);
    EXPECT_DOUBLE_EQ(fused.minimal_bytes_per_iteration,
                     plain.minimal_bytes_per_iteration);
  }
}

TEST(FusedCg, OperatorsWithoutTheKernelSayWhy) {
  const KernelInfo &info = kernel("advection_diffusion3d");
  ASSERT_EQ(info.apply_dot, nullptr);
  StencilOperator A;
  const int extents[] = {9, 9, 9};
  ASSERT_OK(StencilOperator::create(info, extents, A));
  Field in, out;
  ASSERT_OK(Field::create(A.lattice(), in));
  ASSERT_OK(Field::create(A.lattice(), out));
  Reducer reducer;
  double result = 0.0;
  Status status = A.apply_dot(out, in, reducer, result);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("advection_diffusion3d has no fused"),
            std::string::npos)
      << status.message();
}

TEST(Solver, JacobiPcgFindsTheManufacturedSolution) {
  Manufactured problem;
  problem.setUp(kernel("laplacian3d_f64"), {21, 17, 19});
  SolveReport report =
      solveWith(problem, Method::CG, Preconditioner::Jacobi);
  EXPECT_TRUE(report.converged);
  EXPECT_EQ(report.preconditioner, "jacobi");
  EXPECT_LT(problem.error(), 1e-8);
}

TEST(Solver, CgnrSolvesTheNonSymmetricAdvectionDiffusion) {
  Manufactured problem;
  const KernelInfo &info = kernel("advection_diffusion3d");
  ASSERT_FALSE(info.symmetric);
  problem.setUp(info, {19, 15, 17});
  SolveReport report = solveWith(problem, Method::CGNR, Preconditioner::None);
  EXPECT_TRUE(report.converged) << report.message;
  EXPECT_EQ(report.method, "cgnr");
  EXPECT_LT(problem.error(), 1e-8);
  EXPECT_LT(report.true_relative_residual, 1e-10);
}

TEST(Solver, EverySolveRefusesAMisspeltGraphSwitch) {
  // CGNR and Jacobi-preconditioned CG record no launch graph, yet a
  // misspelt STENCILC_GRAPHS is an error for them too, before x is touched.
  Manufactured problem;
  problem.setUp(kernel("anisotropic_reaction3d"), {9, 7, 5});
  std::vector<double> before(problem.A.lattice().values(), 0.25);
  ASSERT_OK(problem.x.upload_values(before.data(), before.size()));
  stencilc::testing::ScopedEnv misspelt("STENCILC_GRAPHS", "of");
  for (Method method : {Method::CGNR, Method::CG}) {
    SolveOptions options;
    options.method = method;
    if (method == Method::CG)
      options.preconditioner = Preconditioner::Jacobi;
    SolveReport report;
    const Status status =
        solve(problem.A, problem.b, problem.x, options, report);
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.message(), "STENCILC_GRAPHS='of': expected on or off");
    EXPECT_EQ(report.iterations, 0);
  }
  std::vector<double> after(before.size());
  ASSERT_OK(problem.x.download_values(after.data(), after.size()));
  EXPECT_EQ(after, before);
}

TEST(Solver, JacobiCutsIterationsWhenTheDiagonalVaries) {
  Manufactured plain, preconditioned;
  plain.setUp(kernel("anisotropic_reaction3d"), {24, 20, 22});
  preconditioned.setUp(kernel("anisotropic_reaction3d"), {24, 20, 22});
  SolveReport cg = solveWith(plain, Method::CG, Preconditioner::None);
  SolveReport pcg =
      solveWith(preconditioned, Method::CG, Preconditioner::Jacobi);
  EXPECT_TRUE(cg.converged);
  EXPECT_TRUE(pcg.converged);
  EXPECT_LT(plain.error(), 1e-8);
  EXPECT_LT(preconditioned.error(), 1e-8);
  EXPECT_LT(pcg.iterations * 2, cg.iterations)
      << "CG " << cg.iterations << ", Jacobi-PCG " << pcg.iterations;
  RecordProperty("cg_iterations", cg.iterations);
  RecordProperty("jacobi_iterations", pcg.iterations);
}

TEST(Solver, FloatFieldsConvergeToFloatAccuracy) {
  Manufactured problem;
  problem.setUp(kernel("laplacian3d_f32"), {21, 17, 19});
  SolveReport report =
      solveWith(problem, Method::CG, Preconditioner::None, 1e-5);
  EXPECT_TRUE(report.converged);
  EXPECT_LT(problem.error(), 1e-3);
}

// Mixed-precision CG with reliable updates (SolveOptions::mixed_precision):
// the float kernels of specs that declare inner_precision, the solution and
// residual corrected in double.

/// The values of `low` (a lower-precision field) converted to `high`'s
/// lattice and of `high` itself, both with their halos set to 0 first.
void interiorValues(const Field &low, Field &high,
                    std::vector<double> &lowValues,
                    std::vector<double> &highValues) {
  Field back;
  ASSERT_OK(Field::create(high.lattice(), back));
  ASSERT_OK(convert(low, back));
  ASSERT_OK(set_halo(back, 0.0));
  ASSERT_OK(set_halo(high, 0.0));
  highValues.assign(high.lattice().values(), 0.0);
  lowValues.assign(highValues.size(), 0.0);
  ASSERT_OK(high.download_values(highValues.data(), highValues.size()));
  ASSERT_OK(back.download_values(lowValues.data(), lowValues.size()));
}

TEST(MixedPrecision, InnerOperatorIsTheStencilInFloat) {
  // The generated float kernels with the converted site parameters apply
  // the same operator to float rounding: checked against the double one on
  // the same random input (odd extents, poisoned outputs).
  for (const char *name : {"laplacian3d_f64", "t_eo_mixed3d_site"}) {
    SCOPED_TRACE(name);
    Manufactured problem;
    problem.setUp(kernel(name), {14, 11, 12}, 0.5, 4.0);
    StencilOperator inner;
    ASSERT_OK(problem.A.create_inner(inner));
    EXPECT_EQ(inner.lattice().element_bytes, 4);
    EXPECT_NE(std::string(inner.info().name).find("_inner"),
              std::string::npos);
    Field x32, y32, y64;
    ASSERT_OK(Field::create(inner.lattice(), x32));
    ASSERT_OK(Field::create(inner.lattice(), y32));
    ASSERT_OK(Field::create(problem.A.lattice(), y64));
    ASSERT_OK(convert(problem.exact, x32));
    ASSERT_OK(y32.fill(std::nan("")));
    ASSERT_OK(y64.fill(std::nan("")));
    ASSERT_OK(inner.apply(y32, x32));
    ASSERT_OK(problem.A.apply(y64, problem.exact));
    std::vector<double> a, b;
    ASSERT_NO_FATAL_FAILURE(interiorValues(y32, y64, b, a));
    double diff = 0.0, norm = 0.0;
    for (size_t i = 0; i < a.size(); ++i) {
      ASSERT_TRUE(std::isfinite(a[i]) && std::isfinite(b[i])) << i;
      diff += (a[i] - b[i]) * (a[i] - b[i]);
      norm += a[i] * a[i];
    }
    EXPECT_GT(norm, 1.0);
    EXPECT_LT(std::sqrt(diff / norm), 1e-6);
    EXPECT_GT(std::sqrt(diff / norm), 0.0); // float, not double, arithmetic
  }
}

/// CG (or CG on the Schur complement with `evenOdd`) to 1e-10 on
/// `problem`, in double into `plain` and mixed precision into `mixed`
/// (the solution left in problem.x).
void solveDoubleAndMixed(Manufactured &problem, bool evenOdd,
                         SolveReport &plain, SolveReport &mixed) {
  SolveOptions options;
  options.tolerance = 1e-10;
  Field xPlain;
  ASSERT_OK(Field::create(problem.A.lattice(), xPlain));
  ASSERT_OK(evenOdd ? solve_even_odd(problem.A, problem.b, xPlain, options,
                                     plain)
                    : solve(problem.A, problem.b, xPlain, options, plain));
  ASSERT_TRUE(plain.converged);
  options.mixed_precision = true;
  ASSERT_OK(problem.x.fill(0.0));
  ASSERT_OK(evenOdd
                ? solve_even_odd(problem.A, problem.b, problem.x, options,
                                 mixed)
                : solve(problem.A, problem.b, problem.x, options, mixed));
}

TEST(MixedPrecision, ReachesDoubleAccuracyInAboutTheDoubleIterations) {
  struct Case {
    const char *name;
    std::vector<int> extents;
    bool evenOdd;
  } cases[] = {{"laplacian3d_f64", {23, 19, 17}, false},
               {"t_eo_mixed3d_site", {14, 11, 12}, false},
               {"t_eo_mixed3d_site", {14, 11, 12}, true}};
  for (const Case &c : cases) {
    SCOPED_TRACE(std::string(c.name) + (c.evenOdd ? " even/odd" : ""));
    Manufactured problem;
    problem.setUp(kernel(c.name), c.extents, 0.5, 4.0);
    SolveReport plain, mixed;
    solveDoubleAndMixed(problem, c.evenOdd, plain, mixed);
    if (HasFatalFailure())
      return;
    EXPECT_TRUE(mixed.converged) << mixed.message;
    EXPECT_EQ(mixed.inner_precision, "float");
    // The Laplacian's float kernels fold p = r + beta p in (one value per
    // site); the even/odd spec has no fused kernels. Without the fold the
    // same iterations and reliable updates.
    const bool folds = std::string(c.name) == "laplacian3d_f64";
    EXPECT_EQ(mixed.folded, folds);
    // The same mixed solve with the fold or the device scalars turned off.
    auto mixedWith = [&](bool fold, bool deviceScalars, SolveReport &report) {
      Field x;
      ASSERT_OK(Field::create(problem.A.lattice(), x));
      SolveOptions options;
      options.tolerance = 1e-10;
      options.mixed_precision = true;
      options.fold_direction = fold;
      options.device_scalars = deviceScalars;
      ASSERT_OK(c.evenOdd
                    ? solve_even_odd(problem.A, problem.b, x, options, report)
                    : solve(problem.A, problem.b, x, options, report));
    };
    // Such a solve converges in the same iterations and reliable updates.
    auto expectLikeMixed = [&](const SolveReport &other) {
      EXPECT_TRUE(other.converged);
      EXPECT_NEAR(other.iterations, mixed.iterations, 1);
      EXPECT_NEAR(other.reliable_updates, mixed.reliable_updates, 1);
    };
    if (folds) {
      SolveReport unfolded;
      mixedWith(false, true, unfolded);
      EXPECT_FALSE(unfolded.folded);
      expectLikeMixed(unfolded);
    }
    // The inner CG keeps its scalars on the device as double CG does (the
    // fold, or passes of their own for the operators without fused
    // kernels); with them on the host, the same iterations and updates.
    EXPECT_TRUE(mixed.device_scalars);
    // On GPUs its iterations replay launch graphs; the host has none.
    EXPECT_EQ(mixed.launches, "kernels launched one by one (the host "
                              "backend has no launch graphs)");
    {
      SolveReport hostScalars;
      mixedWith(false, false, hostScalars);
      // The fused loop (the Laplacian) waits for its sums either way.
      EXPECT_FALSE(hostScalars.device_scalars);
      expectLikeMixed(hostScalars);
      EXPECT_LT(hostScalars.true_relative_residual, 1e-10);
    }
    EXPECT_GE(mixed.reliable_updates, 2);
    // The true residual, recomputed in double, meets the tolerance: float
    // alone would stall near 1e-7.
    EXPECT_LT(mixed.true_relative_residual, 1e-10);
    EXPECT_LT(problem.error(), 1e-7);
    EXPECT_LE(mixed.iterations, plain.iterations * 5 / 4 + 2);
    EXPECT_EQ(mixed.residual_history.size(),
              static_cast<size_t>(mixed.iterations) + 1);
    std::printf("[ info     ] %s%s: %d iterations double, %d mixed (%d "
                "reliable updates)\n",
                c.name, c.evenOdd ? " even/odd" : "", plain.iterations,
                mixed.iterations, mixed.reliable_updates);
  }
}

/// `got` (a bfloat16 field's values, widened) against `want` (the double
/// kernel's): at most one bfloat16 step apart (the float sum within float
/// rounding of a tie may round the other way), and rounded as the double
/// value rounds at more than `exactPercent` percent of the values. Both
/// fields' halos set to 0 first.
void expectOneBf16StepApart(Field &got16, Field &want64, int exactPercent) {
  std::vector<double> want, got;
  ASSERT_NO_FATAL_FAILURE(interiorValues(got16, want64, got, want));
  size_t exact = 0, nonzero = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_TRUE(std::isfinite(got[i])) << "value " << i;
    if (want[i] == 0.0) {
      ASSERT_EQ(got[i], 0.0) << "value " << i;
      continue;
    }
    ++nonzero;
    const double ulp = std::ldexp(1.0, std::ilogb(std::fabs(want[i])) - 7);
    ASSERT_LE(std::fabs(got[i] - want[i]), ulp)
        << "value " << i << ": " << got[i] << " against " << want[i];
    exact += got[i] == stencil::widen(stencil::to_bfloat16(
                           static_cast<float>(want[i])));
  }
  EXPECT_GT(nonzero, want.size() / 2);
  EXPECT_GT(exact, nonzero * exactPercent / 100);
}

// The bfloat16 inner operator of laplacian3d_f64_bf16 on an nx x 13 x 11
// lattice against the double one (Bf16InnerOperatorRoundsTheFloatStencilOnce).
void expectBf16InnerOperatorRoundsOnce(int nx) {
  SCOPED_TRACE("nx = " + std::to_string(nx));
  Manufactured problem;
  problem.setUp(kernel("laplacian3d_f64_bf16"), {nx, 13, 11});
  StencilOperator inner;
  ASSERT_OK(problem.A.create_inner(inner));
  EXPECT_EQ(inner.lattice().element_bytes, 2);
  EXPECT_EQ(inner.kernel_choice().find("a multiple of 4") != std::string::npos,
            nx == 24)
      << inner.kernel_choice();
  Field x16, y16, rounded, y64;
  for (Field *f : {&x16, &y16})
    ASSERT_OK(Field::create(inner.lattice(), *f));
  for (Field *f : {&rounded, &y64})
    ASSERT_OK(Field::create(problem.A.lattice(), *f));
  ASSERT_OK(convert(problem.exact, x16));
  ASSERT_OK(convert(x16, rounded)); // the input the kernels see, in double
  ASSERT_OK(problem.A.apply(y64, rounded)); // symmetric: also A^T
  for (bool adjoint : {false, true}) {
    SCOPED_TRACE(adjoint ? "apply_adjoint" : "apply");
    ASSERT_OK(y16.fill(std::nan("")));
    ASSERT_OK(adjoint ? inner.apply_adjoint(y16, x16) : inner.apply(y16, x16));
    expectOneBf16StepApart(y16, y64, 99);
  }
}

TEST(MixedPrecision, Bf16InnerOperatorRoundsTheFloatStencilOnce) {
  // inner_precision: bf16: the inner kernels read bfloat16 fields, compute
  // in float and round once on the way out. Against the double operator
  // applied to the same (rounded) input, then rounded: equal but where the
  // float sum lands within float rounding of a tie, so at most one bfloat16
  // step apart (odd extents, poisoned output, apply and apply_adjoint).
  // nx = 24 runs the planner's groups of 4 sites along x (8-byte accesses
  // of bfloat16), nx = 21 one site per thread.
  expectBf16InnerOperatorRoundsOnce(21);
  expectBf16InnerOperatorRoundsOnce(24);
}

TEST(MixedPrecision, Bf16InnerKernelsOfVectorFieldsAndEvenOddStorage) {
  // inner_precision: bf16 on fields of several values per site (site-major
  // with a site split over two threads and pairs per access, also in
  // subdomains; component-major with the planner's groups along x) and on
  // even/odd storage (blocked and site-major halves): every inner kernel,
  // fed the rounded input of the double kernel, rounds the double result
  // once (odd extents, poisoned outputs). Even/odd: the whole-lattice kernel
  // and both hops, plain and with the diagonal-plus-hop epilogue, and their
  // adjoints.
  struct Case {
    const char *name;
    std::vector<int> extents;
  } cases[] = {{"t_bf16_vec4d_aos", {6, 5, 7, 3}},
               {"t_bf16_vec4d_sub", {6, 5, 7, 3}},
               {"t_bf16_vec3d_soa", {13, 11, 9}},
               {"t_bf16_vec3d_soa", {16, 11, 9}}, // groups along x
               {"t_bf16_eo3d_aosoa", {14, 11, 12}},
               // pairs of values per load: 16 bytes in double, 4 in bf16
               {"t_bf16_eo3d_aosoa_v2_c4", {14, 11, 12}},
               {"t_bf16_eo4d_aos", {6, 4, 6, 4}}};
  for (const Case &c : cases) {
    SCOPED_TRACE(std::string(c.name) + " at nx = " +
                 std::to_string(c.extents[0]));
    Manufactured problem;
    problem.setUp(kernel(c.name), c.extents, 0.5, 4.0);
    StencilOperator inner;
    ASSERT_OK(problem.A.create_inner(inner));
    ASSERT_EQ(inner.lattice().element_bytes, 2);
    if (std::string(c.name) == "t_bf16_vec3d_soa")
      EXPECT_EQ(inner.kernel_choice().find("a multiple of") !=
                    std::string::npos,
                c.extents[0] % 4 == 0)
          << inner.kernel_choice();
    Field x16, y16, rounded, y64;
    for (Field *f : {&x16, &y16})
      ASSERT_OK(Field::create(inner.lattice(), *f));
    for (Field *f : {&rounded, &y64})
      ASSERT_OK(Field::create(problem.A.lattice(), *f));
    ASSERT_OK(convert(problem.exact, x16));
    ASSERT_OK(convert(x16, rounded)); // the input the kernels see, in double
    for (bool adjoint : {false, true}) {
      SCOPED_TRACE(adjoint ? "apply_adjoint" : "apply");
      ASSERT_OK(y16.fill(std::nan("")));
      ASSERT_OK(adjoint ? inner.apply_adjoint(y16, x16)
                        : inner.apply(y16, x16));
      ASSERT_OK(adjoint ? problem.A.apply_adjoint(y64, rounded)
                        : problem.A.apply(y64, rounded));
      expectOneBf16StepApart(y16, y64, 98);
    }
    if (!problem.A.info().even_odd)
      continue;
    using Hop = StencilOperator::Hop;
    for (Hop hop : {Hop::EvenToOdd, Hop::OddToEven})
      for (bool adjoint : {false, true})
        for (HopMode mode : {kHop, kDiagonalPlusHop}) {
          SCOPED_TRACE(std::string(hop == Hop::EvenToOdd ? "even to odd"
                                                         : "odd to even") +
                       (adjoint ? ", adjoint" : "") +
                       (mode == kHop ? ", kHop" : ", kDiagonalPlusHop"));
          const int from = hop == Hop::EvenToOdd ? 0 : 1;
          Field in16, same16, out16, in64, same64, out64;
          ASSERT_OK(x16.half(from, in16));
          ASSERT_OK(x16.half(1 - from, same16));
          ASSERT_OK(y16.half(1 - from, out16));
          ASSERT_OK(rounded.half(from, in64));
          ASSERT_OK(rounded.half(1 - from, same64));
          ASSERT_OK(y64.half(1 - from, out64));
          ASSERT_OK(y16.fill(std::nan("")));
          ASSERT_OK(y64.fill(0.0));
          ASSERT_OK(inner.hop(hop, adjoint, out16, in16, mode, 0.5, -1.5,
                              &same16));
          ASSERT_OK(problem.A.hop(hop, adjoint, out64, in64, mode, 0.5,
                                  -1.5, &same64));
          expectOneBf16StepApart(out16, out64, 98);
        }
  }
}

TEST(MixedPrecision, Bf16InnerFieldsOfVectorFieldsReachDoubleAccuracy) {
  // Mixed-precision CG on bfloat16 inner fields of the vector and even/odd
  // test specs, on the whole lattice and on the Schur complement, reaches
  // the double tolerance for the true residual.
  struct Case {
    const char *name;
    std::vector<int> extents;
    bool evenOdd;
  } cases[] = {{"t_bf16_vec4d_aos", {6, 5, 7, 3}, false},
               {"t_bf16_vec4d_sub", {6, 5, 7, 3}, false},
               {"t_bf16_vec3d_soa", {16, 11, 9}, false},
               {"t_bf16_eo3d_aosoa", {14, 11, 12}, false},
               {"t_bf16_eo3d_aosoa", {14, 11, 12}, true},
               {"t_bf16_eo3d_aosoa_v2_c4", {14, 11, 12}, true},
               {"t_bf16_eo4d_aos", {10, 6, 8, 6}, true}};
  for (const Case &c : cases) {
    SCOPED_TRACE(std::string(c.name) + (c.evenOdd ? " even/odd" : ""));
    Manufactured problem;
    problem.setUp(kernel(c.name), c.extents, 0.5, 4.0);
    SolveReport plain, mixed;
    solveDoubleAndMixed(problem, c.evenOdd, plain, mixed);
    if (HasFatalFailure())
      return;
    EXPECT_TRUE(mixed.converged) << mixed.message;
    EXPECT_EQ(mixed.inner_precision, "bf16");
    EXPECT_LT(mixed.true_relative_residual, 1e-10);
    EXPECT_LT(problem.error(), 1e-8);
    EXPECT_GE(mixed.reliable_updates, 3);
    // bfloat16's 8 significant bits cost iterations where double CG
    // converges fast (25 on the 4-D even/odd case, 41 mixed).
    EXPECT_LE(mixed.iterations, plain.iterations * 2 + 4);
    // The vector fields in whole-lattice storage run CG's fused
    // stencil-and-dot kernels on bfloat16 fields (even/odd storage has none).
    EXPECT_EQ(mixed.fused, !problem.A.info().even_odd);
    std::printf("[ info     ] %s%s, bf16 inner fields: %d iterations "
                "double, %d mixed (%d reliable updates)\n",
                c.name, c.evenOdd ? " even/odd" : "", plain.iterations,
                mixed.iterations, mixed.reliable_updates);
  }
}

TEST(MixedPrecision, Bf16InnerFieldsReachDoubleAccuracy) {
  // CG on bfloat16 inner fields (8 significant bits) with reliable updates
  // reaches the double tolerance for the true residual; rounding the
  // inner vectors costs iterations, not accuracy. Folded and unfolded.
  Manufactured problem;
  problem.setUp(kernel("laplacian3d_f64_bf16"), {23, 19, 17});
  SolveOptions options;
  options.tolerance = 1e-10;
  SolveReport plain;
  Field xPlain;
  ASSERT_OK(Field::create(problem.A.lattice(), xPlain));
  ASSERT_OK(solve(problem.A, problem.b, xPlain, options, plain));
  ASSERT_TRUE(plain.converged);
  options.mixed_precision = true;
  for (bool fold : {true, false}) {
    SCOPED_TRACE(fold ? "folded" : "unfolded");
    options.fold_direction = fold;
    SolveReport mixed;
    ASSERT_OK(problem.x.fill(0.0));
    ASSERT_OK(solve(problem.A, problem.b, problem.x, options, mixed));
    EXPECT_TRUE(mixed.converged) << mixed.message;
    EXPECT_EQ(mixed.inner_precision, "bf16");
    EXPECT_EQ(mixed.folded, fold);
    EXPECT_LT(mixed.true_relative_residual, 1e-10);
    EXPECT_LT(problem.error(), 1e-7);
    EXPECT_GE(mixed.reliable_updates, 5);
    EXPECT_LE(mixed.iterations, plain.iterations * 3 / 2 + 2);
    std::printf("[ info     ] bf16 inner fields%s: %d iterations double, "
                "%d mixed (%d reliable updates)\n",
                fold ? "" : ", unfolded", plain.iterations, mixed.iterations,
                mixed.reliable_updates);
  }
}

TEST(MixedPrecision, ReliableUpdatesFollowDeltaAndTheInnerRounding) {
  // Left at 0, delta is the inner fields' default: 1e-2 for float, 1e-1
  // for bfloat16, and the updates follow it. A delta far finer than
  // bfloat16 resolves (1e-6) still converges, in about the iterations of
  // the default: the updates come where the rounding the recurrence has
  // gathered (2^-8 times the inner residuals since the update) reaches the
  // residual (before that rule it ran into the iteration cap).
  struct Case {
    const char *spec;
    double delta, expected;
    bool rounding; // updates by the rounding rule expected
  };
  const Case cases[] = {{"laplacian3d_f64", 0.0, 1e-2, false},
                        {"laplacian3d_f64_bf16", 0.0, 1e-1, false},
                        {"laplacian3d_f64_bf16", 1e-6, 1e-6, true}};
  int bf16Iterations = 0;
  for (const Case &c : cases) {
    SCOPED_TRACE(std::string(c.spec) + ", delta " + std::to_string(c.delta));
    Manufactured problem;
    problem.setUp(kernel(c.spec), {23, 19, 17});
    SolveOptions options;
    options.tolerance = 1e-10;
    options.mixed_precision = true;
    options.reliable_delta = c.delta;
    options.max_iterations = 2000;
    SolveReport mixed;
    ASSERT_OK(solve(problem.A, problem.b, problem.x, options, mixed));
    EXPECT_TRUE(mixed.converged) << mixed.message;
    EXPECT_EQ(mixed.reliable_delta, c.expected);
    EXPECT_LT(mixed.true_relative_residual, 1e-10);
    EXPECT_LT(problem.error(), 1e-7);
    EXPECT_GE(mixed.reliable_updates, 4);
    if (c.rounding)
      EXPECT_GE(mixed.rounding_updates, 3);
    else
      EXPECT_EQ(mixed.rounding_updates, 0);
    if (c.delta == 0.0 && std::string(c.spec) == "laplacian3d_f64_bf16")
      bf16Iterations = mixed.iterations;
    else if (c.rounding)
      EXPECT_LE(mixed.iterations, bf16Iterations * 3 / 2);
    std::printf("[ info     ] %s, delta %g: %d iterations, %d reliable "
                "updates (%d by the rounding rule)\n",
                c.spec, mixed.reliable_delta, mixed.iterations,
                mixed.reliable_updates, mixed.rounding_updates);
  }
}

// The links and the clover arrays (A and its inverse on the odd sites)
// converted to float for the inner operator of `name`, whose fields hold
// `bytes`-byte values (float, or bfloat16): its application equals the
// double one to the fields' rounding (`most` relative, at least float's),
// and mixed CGNR, whole and even/odd, reaches the double tolerance for the
// true residual.
void expectMixedWilsonCloverCgnr(const char *name, int bytes, double most) {
  SCOPED_TRACE(name);
  const KernelInfo &info = kernel(name);
  const int extents[] = {4, 6, 4, 8};
  StencilOperator A;
  ASSERT_OK(StencilOperator::create(info, extents, A));
  Random random(31);
  Field links;
  StencilOperator::CloverArrays clover;
  ASSERT_OK(set_random_links(A, random, links, &clover));
  StencilOperator inner;
  ASSERT_OK(A.create_inner(inner));
  EXPECT_EQ(inner.lattice().element_bytes, bytes);
  Field x, b, x32, y32, back, y;
  for (Field *f : {&x, &b, &back, &y})
    ASSERT_OK(Field::create(A.lattice(), *f));
  for (Field *f : {&x32, &y32})
    ASSERT_OK(Field::create(inner.lattice(), *f));
  std::vector<double> values(A.lattice().values());
  for (double &v : values)
    v = random.uniform(-1.0, 1.0);
  ASSERT_OK(x.upload_values(values.data(), values.size()));
  ASSERT_OK(convert(x, x32));
  ASSERT_OK(y32.fill(std::nan("")));
  ASSERT_OK(inner.apply(y32, x32));
  ASSERT_OK(A.apply(y, x));
  ASSERT_OK(convert(y32, back));
  std::vector<double> a(values.size()), c(values.size());
  ASSERT_OK(y.download_values(a.data(), a.size()));
  ASSERT_OK(back.download_values(c.data(), c.size()));
  double diff = 0.0, norm = 0.0;
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_TRUE(std::isfinite(c[i])) << i;
    diff += (a[i] - c[i]) * (a[i] - c[i]);
    norm += a[i] * a[i];
  }
  EXPECT_LT(std::sqrt(diff / norm), most);
  EXPECT_GT(std::sqrt(diff / norm), 0.0);

  ASSERT_OK(b.copy_from(y));
  for (bool evenOdd : {false, true}) {
    SCOPED_TRACE(evenOdd ? "even/odd" : "whole lattice");
    SolveOptions options;
    options.method = Method::CGNR;
    options.tolerance = 1e-10;
    SolveReport plain, mixed;
    Field xPlain, xMixed;
    ASSERT_OK(Field::create(A.lattice(), xPlain));
    ASSERT_OK(Field::create(A.lattice(), xMixed));
    ASSERT_OK(evenOdd ? solve_even_odd(A, b, xPlain, options, plain)
                      : solve(A, b, xPlain, options, plain));
    options.mixed_precision = true;
    ASSERT_OK(evenOdd ? solve_even_odd(A, b, xMixed, options, mixed)
                      : solve(A, b, xMixed, options, mixed));
    EXPECT_TRUE(mixed.converged) << mixed.message;
    EXPECT_LT(mixed.true_relative_residual, 1e-10);
    EXPECT_GE(mixed.reliable_updates, 2);
    EXPECT_EQ(mixed.inner_precision, bytes == 2 ? "bf16" : "float");
    // bfloat16's 8 significant bits cost iterations, not accuracy.
    EXPECT_LE(mixed.iterations, bytes == 2 ? plain.iterations * 2 + 4
                                           : plain.iterations * 5 / 4 + 2);
    // Both found x (b = A x).
    ASSERT_OK(axpy(-1.0, x, xMixed));
    Reducer reducer;
    double error = 0.0, size = 0.0;
    ASSERT_OK(reducer.norm2(xMixed, error));
    ASSERT_OK(reducer.norm2(x, size));
    EXPECT_LT(error / size, 1e-8);
    std::printf("[ info     ] %s %s: CGNR %d iterations double, %d mixed "
                "(%d reliable updates)\n",
                name, evenOdd ? "even/odd" : "whole", plain.iterations,
                mixed.iterations, mixed.reliable_updates);
  }
}

TEST(MixedPrecision, WilsonCloverCgnrWithFloatLinksAndClover) {
  expectMixedWilsonCloverCgnr("t_mixed_clover4d_eo", 4, 1e-6);
}

TEST(MixedPrecision, WilsonCloverCgnrOnSpinorsInBlocksOfPairs) {
  // Spinors, links and clover in blocks of 8 sites, a pair of values per
  // load (field.layout.vector: 2) in double and in float.
  expectMixedWilsonCloverCgnr("t_mixed_clover4d_eo_aosoa_v2", 4, 1e-6);
}

TEST(MixedPrecision, WilsonCloverCgnrOnBf16SpinorsWithFloatLinksAndClover) {
  // bfloat16 spinors: each stored value rounded once, relative error at
  // most 2^-9 (the hops' intermediate sums stay in float).
  expectMixedWilsonCloverCgnr("t_bf16_clover4d_eo", 2, 4e-3);
}

TEST(MixedPrecision, RequestsItCannotServeAreClearErrors) {
  Manufactured problem;
  problem.setUp(kernel("laplacian3d_f64"), {9, 8, 7});
  SolveOptions options;
  options.mixed_precision = true;
  SolveReport report;
  options.preconditioner = Preconditioner::Jacobi;
  expectFailure(solve(problem.A, problem.b, problem.x, options, report),
                {"mixed precision is built for CG and CGNR without a "
                 "preconditioner, not with preconditioner jacobi"});
  options.preconditioner = Preconditioner::None;
  for (double delta : {1.0, -0.5}) {
    options.reliable_delta = delta;
    expectFailure(solve(problem.A, problem.b, problem.x, options, report),
                  {"reliable_delta must lie in (0, 1)"});
  }
  // A spec without inner_precision has no float kernels.
  Manufactured other;
  other.setUp(kernel("laplacian3d_13pt_o4"), {9, 8, 7});
  options.reliable_delta = 0.1;
  expectFailure(solve(other.A, other.b, other.x, options, report),
                {"laplacian3d_13pt_o4: its spec does not declare "
                 "inner_precision",
                 "add 'inner_precision: float'"});
}

TEST(Runtime, ConvertAndMixedAxpyMatchPlainLoops) {
  const KernelInfo &info = kernel("laplacian3d_f64");
  StencilOperator A, inner;
  const int extents[] = {7, 6, 5};
  ASSERT_OK(StencilOperator::create(info, extents, A));
  ASSERT_OK(A.create_inner(inner));
  Field d, f;
  ASSERT_OK(Field::create(A.lattice(), d));
  ASSERT_OK(Field::create(inner.lattice(), f));
  Random random(5);
  std::vector<double> x(d.lattice().values()), y(x.size());
  for (double &v : x)
    v = random.uniform(-3.0, 3.0);
  ASSERT_OK(d.upload_values(x.data(), x.size()));
  ASSERT_OK(convert(d, f));
  ASSERT_OK(f.download_values(y.data(), y.size()));
  for (size_t i = 0; i < x.size(); ++i)
    EXPECT_EQ(y[i], static_cast<double>(static_cast<float>(x[i]))) << i;
  // d += 0.5 f, the float values widened.
  ASSERT_OK(axpy(0.5, f, d));
  std::vector<double> z(x.size());
  ASSERT_OK(d.download_values(z.data(), z.size()));
  for (size_t i = 0; i < x.size(); ++i)
    EXPECT_EQ(z[i], x[i] + 0.5 * y[i]) << i;
  // A lattice that differs in more than the precision is refused.
  Field other;
  Lattice wider = inner.lattice();
  wider.extents[0] += 2;
  ASSERT_OK(Field::create(wider, other));
  expectFailure(convert(d, other), {"convert", "but for precision"});
}

TEST(Solver, IterationCapReportsNonConvergence) {
  Manufactured problem;
  problem.setUp(kernel("laplacian3d_f64"), {21, 17, 19});
  SolveReport report =
      solveWith(problem, Method::CG, Preconditioner::None, 1e-12, 5);
  EXPECT_FALSE(report.converged);
  EXPECT_EQ(report.iterations, 5);
  EXPECT_NE(report.message.find("iteration cap of 5 reached"),
            std::string::npos)
      << report.message;
  EXPECT_GT(report.true_relative_residual, 1e-12);
}

TEST(Solver, MismatchedSizesAreAClearError) {
  Manufactured problem;
  problem.setUp(kernel("laplacian3d_f64"), {21, 17, 19});
  StencilOperator other;
  std::vector<int> extents = {20, 17, 19};
  ASSERT_OK(StencilOperator::create(kernel("laplacian3d_f64"), extents.data(),
                                    other));
  SolveReport report;
  Status status = solve(other, problem.b, problem.x, SolveOptions(), report);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.message(),
            "solve: b: field lattice 21x17x19, 1 double per site, dirichlet "
            "(halo 1 1 1) does not match 20x17x19, 1 double per site, "
            "dirichlet (halo 1 1 1)");
  Field wrong;
  ASSERT_OK(Field::create(other.lattice(), wrong));
  Status apply = problem.A.apply(wrong, problem.exact);
  EXPECT_FALSE(apply.ok());
  EXPECT_NE(apply.message().find("apply: out: field lattice 20x17x19"),
            std::string::npos)
      << apply.message();
}

TEST(Solver, CgRefusesOperatorsThatAreNotSpd) {
  // Not symmetric.
  Manufactured advection;
  advection.setUp(kernel("advection_diffusion3d"), {9, 9, 9});
  SolveOptions options;
  SolveReport report;
  Status status = solve(advection.A, advection.b, advection.x, options, report);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("is not symmetric"), std::string::npos);
  EXPECT_NE(status.message().find("use CGNR"), std::string::npos);

  // Symmetric, but the periodic Laplacian without mass is singular, and
  // with a negative mass indefinite.
  Manufactured periodic;
  periodic.setUp(kernel("laplacian4d_periodic"), {4, 4, 4, 4});
  for (double mass : {0.0, -0.5}) {
    ASSERT_OK(periodic.A.set_parameter("mass", mass));
    status = solve(periodic.A, periodic.b, periodic.x, options, report);
    ASSERT_FALSE(status.ok());
    EXPECT_NE(status.message().find("is not positive definite"),
              std::string::npos)
        << status.message();
  }

  // A negative site parameter value can make the diagonal negative.
  Manufactured reaction;
  reaction.setUp(kernel("anisotropic_reaction3d"), {8, 8, 8}, -50.0, 10.0);
  status = solve(reaction.A, reaction.b, reaction.x, options, report);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("site parameter 'sigma'"), std::string::npos)
      << status.message();

  // Jacobi is defined for CG only.
  options.method = Method::CGNR;
  options.preconditioner = Preconditioner::Jacobi;
  status = solve(advection.A, advection.b, advection.x, options, report);
  EXPECT_FALSE(status.ok());
}

TEST(Solver, ZeroRightHandSideGivesZero) {
  // Double and float fields: a double b = 0 is told from one whose squares
  // underflow by scaling it, which a float field must not do (2^600 is
  // infinite in float).
  for (const char *name : {"laplacian3d_f64", "laplacian3d_f32"}) {
    SCOPED_TRACE(name);
    Manufactured problem;
    problem.setUp(kernel(name), {9, 9, 9});
    ASSERT_OK(fill(problem.b, 0.0));
    ASSERT_OK(fill(problem.x, 3.0));
    SolveReport report = solveWith(problem, Method::CG, Preconditioner::None);
    EXPECT_TRUE(report.converged);
    EXPECT_EQ(report.message, "b = 0, so x = 0");
    std::vector<double> x(problem.x.lattice().values());
    ASSERT_OK(problem.x.download_values(x.data(), x.size()));
    for (double v : x)
      EXPECT_EQ(v, 0.0);
  }
}

// Parameters so large that p^T A p overflows: CG stops naming the range of
// the values, not the operator's sign (it had said "not positive definite;
// use CGNR", which does not help).
TEST(Solver, OverflowIsNotCalledIndefinite) {
  Manufactured problem;
  problem.setUp(kernel("laplacian3d_f64"), {9, 9, 9});
  // b = A u* with unit parameters: values of order 1, and p^T A p of
  // order 1e309 (inf, or NaN where an infinite term of each sign met).
  for (const char *param : {"inv_hx2", "inv_hy2", "inv_hz2"})
    ASSERT_OK(problem.A.set_parameter(param, 1e306));
  ASSERT_OK(fill(problem.x, 0.0));
  SolveOptions options;
  SolveReport report;
  const Status solved = solve(problem.A, problem.b, problem.x, options, report);
  ASSERT_FALSE(solved.ok());
  expectFailure(solved, {"solve: CG broke down at iteration 1 (p^T A p = ",
                         "): the values left the range of the fields' "
                         "precision; scale the system"});
  EXPECT_EQ(solved.message().find("use CGNR"), std::string::npos)
      << solved.message();
}

TEST(Runtime, AdjointSatisfiesTheInnerProductIdentity) {
  // <A x, y> = <x, A^T y> for x, y zero on the halo.
  for (const char *name : {"advection_diffusion3d", "t_upwind_c3_tile_y2",
                           "t_hyper_periodic_c4_tile_x2"}) {
    SCOPED_TRACE(name);
    const KernelInfo &info = kernel(name);
    std::vector<int> extents(info.shape.dims, 7);
    StencilOperator A;
    ASSERT_OK(StencilOperator::create(info, extents.data(), A));
    Field x, y, Ax, Aty;
    for (Field *f : {&x, &y, &Ax, &Aty})
      ASSERT_OK(Field::create(A.lattice(), *f));
    Random random(7);
    std::vector<double> values(A.lattice().values());
    for (Field *f : {&x, &y}) {
      for (double &v : values)
        v = random.uniform(-1, 1);
      ASSERT_OK(f->upload_values(values.data(), values.size()));
      ASSERT_OK(set_halo(*f, 0.0));
    }
    ASSERT_OK(A.apply(Ax, x));
    ASSERT_OK(A.apply_adjoint(Aty, y));
    Reducer reducer;
    double left = 0, right = 0;
    ASSERT_OK(reducer.dot(Ax, y, left));
    ASSERT_OK(reducer.dot(x, Aty, right));
    double tolerance = info.element_bytes == 4 ? 1e-4 : 1e-12;
    EXPECT_NEAR(left, right, tolerance * std::fabs(left)) << left << " " << right;
  }
}

TEST(Runtime, BlasMatchesPlainLoops) {
  Lattice lattice;
  lattice.dims = 3;
  lattice.extents[0] = 13;
  lattice.extents[1] = 11;
  lattice.extents[2] = 9;
  lattice.components = 3;
  lattice.halo[0] = lattice.halo[1] = lattice.halo[2] = 1;
  for (int bytes : {4, 8}) {
    lattice.element_bytes = bytes;
    Field x, y, z;
    for (Field *f : {&x, &y, &z})
      ASSERT_OK(Field::create(lattice, *f));
    const std::int64_t n = lattice.values();
    std::vector<double> xs(n), ys(n), out(n);
    Random random(3);
    for (std::int64_t i = 0; i < n; ++i) {
      xs[i] = random.uniform(-1, 1);
      ys[i] = random.uniform(0.5, 2);
    }
    ASSERT_OK(x.upload_values(xs.data(), n));
    ASSERT_OK(y.upload_values(ys.data(), n));
    // Values as the field stores them.
    ASSERT_OK(x.download_values(xs.data(), n));
    ASSERT_OK(y.download_values(ys.data(), n));
    const double tol = bytes == 4 ? 1e-6 : 1e-15;

    Reducer reducer;
    double dot = 0, expected = 0;
    for (std::int64_t i = 0; i < n; ++i)
      expected += xs[i] * ys[i];
    ASSERT_OK(reducer.dot(x, y, dot));
    EXPECT_NEAR(dot, expected, 1e-12 * n);

    ASSERT_OK(z.copy_from(y));
    ASSERT_OK(axpy(0.5, x, z));
    ASSERT_OK(z.download_values(out.data(), n));
    for (std::int64_t i = 0; i < n; ++i)
      ASSERT_NEAR(out[i], ys[i] + 0.5 * xs[i], tol * 4);

    ASSERT_OK(z.copy_from(y));
    ASSERT_OK(xpay(x, -2.0, z));
    ASSERT_OK(z.download_values(out.data(), n));
    for (std::int64_t i = 0; i < n; ++i)
      ASSERT_NEAR(out[i], xs[i] - 2.0 * ys[i], tol * 8);

    ASSERT_OK(divide(x, y, z));
    ASSERT_OK(z.download_values(out.data(), n));
    for (std::int64_t i = 0; i < n; ++i)
      ASSERT_NEAR(out[i], xs[i] / ys[i], tol * 4);

    ASSERT_OK(scale(3.0, z));
    ASSERT_OK(set_halo(z, 7.0));
    ASSERT_OK(z.download_values(out.data(), n));
    std::int64_t halo = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      std::int64_t site = i / 3;
      int c[3] = {static_cast<int>(site % 13), static_cast<int>(site / 13 % 11),
                  static_cast<int>(site / 143)};
      bool isHalo = c[0] == 0 || c[0] == 12 || c[1] == 0 || c[1] == 10 ||
                    c[2] == 0 || c[2] == 8;
      halo += isHalo;
      if (isHalo)
        ASSERT_EQ(out[i], 7.0);
      else
        ASSERT_NEAR(out[i], 3.0 * xs[i] / ys[i], tol * 16);
    }
    EXPECT_EQ(halo, 3 * (13 * 11 * 9 - 11 * 9 * 7));
  }
}

TEST(Runtime, FieldsRejectWrongSizes) {
  Lattice lattice;
  lattice.dims = 2;
  lattice.extents[0] = 5;
  lattice.extents[1] = 4;
  Field field;
  ASSERT_OK(Field::create(lattice, field));
  std::vector<double> values(19);
  Status status = field.upload_values(values.data(), 19);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.message(), "upload of 19 values into a field of 20 (5x4, 1 "
                              "double per site, dirichlet (halo 0 0))");
  status = field.download(values.data(), 8);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("download of 8 bytes into a field of 160"),
            std::string::npos)
      << status.message();
  lattice.extents[0] = 0;
  EXPECT_FALSE(Field::create(lattice, field).ok());
}

TEST(Runtime, OperatorParametersAreChecked) {
  StencilOperator A;
  std::vector<int> extents = {6, 6, 6};
  ASSERT_OK(StencilOperator::create(kernel("anisotropic_reaction3d"),
                                    extents.data(), A));
  EXPECT_FALSE(A.set_parameter("nope", 1.0).ok());
  EXPECT_FALSE(A.set_parameter("sigma", 1.0).ok());
  EXPECT_TRUE(A.set_parameter("az", 3.0).ok());
  Field in, out;
  ASSERT_OK(Field::create(A.lattice(), in));
  ASSERT_OK(Field::create(A.lattice(), out));
  Status missing = A.apply(out, in);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("site parameter 'sigma' has no array"),
            std::string::npos)
      << missing.message();
  Lattice vector = A.lattice();
  vector.components = 2;
  Field vectorSites;
  ASSERT_OK(Field::create(vector, vectorSites));
  EXPECT_FALSE(A.set_site_parameter("sigma", vectorSites).ok());
  std::vector<int> empty = {6, 0, 6};
  StencilOperator bad;
  Status status = StencilOperator::create(kernel("laplacian3d_f64"),
                                          empty.data(), bad);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("extent ny = 0 is out of range"),
            std::string::npos)
      << status.message();
}

} // namespace
