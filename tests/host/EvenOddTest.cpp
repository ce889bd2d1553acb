// Even/odd storage on the host backend: the hopping kernels against the
// whole operator, their adjoints, and the Schur-complement solve against
// the whole-lattice solve.
#include "HostFixtures.h"

#include "stencil/blas.hpp"
#include "stencil/even_odd.hpp"
#include "stencil/field.hpp"
#include "stencil/launch_config.hpp"
#include "stencil/launch_graph.hpp"
#include "stencil/operator.hpp"
#include "stencil/random.hpp"
#include "stencil/solver.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

using namespace stencil;
using stencilc::testing::registeredKernels;
using stencilc::testing::ScopedEnv;
using Hop = StencilOperator::Hop;

namespace {

const KernelInfo &kernel(const std::string &name) {
  return stencilc::testing::kernelNamed(name);
}

/// Every registered stencil with even/odd storage.
std::vector<const KernelInfo *> evenOddKernels() {
  std::vector<const KernelInfo *> all;
  for (const auto &k : registeredKernels())
    if (k.info->even_odd)
      all.push_back(k.info);
  return all;
}

/// Even extents of the stencil's dimension (the 4-D sizes).
std::vector<std::vector<int>> extentsFor(int dims) {
  switch (dims) {
  case 2:
    return {{16, 12}, {6, 4}};
  case 3:
    return {{16, 12, 10}, {8, 6, 4}};
  default:
    return {{6, 4, 8, 10}, {8, 8, 8, 16}};
  }
}

/// An operator with random site parameters and random fields.
struct Problem {
  StencilOperator A;
  std::vector<std::unique_ptr<Field>> sites;
  Field links; ///< random SU(N), for stencils with links
  StencilOperator::CloverArrays clover; ///< for Wilson-clover stencils
  Random random{2024};

  void create(const KernelInfo &info, const std::vector<int> &extents) {
    ASSERT_OK(StencilOperator::create(info, extents.data(), A));
    ASSERT_OK(stencilc::testing::attachRandomSiteParameters(A, random, 0.5,
                                                            2.0, sites));
    ASSERT_OK(stencil::set_random_links(A, random, links, &clover));
  }
  void randomField(Field &f) {
    stencilc::testing::randomInteriorField(A.lattice(), random, f);
  }
};

/// A field's values on the host, named short for the comparisons below.
constexpr auto &download = stencilc::testing::downloadValues;

/// max |a - b| / max |b|.
double relativeDifference(const std::vector<double> &a,
                          const std::vector<double> &b) {
  double error = 0.0, scale = 0.0;
  for (size_t i = 0; i < a.size(); ++i) {
    error = std::max(error, std::fabs(a[i] - b[i]));
    scale = std::max(scale, std::fabs(b[i]));
  }
  return scale > 0 ? error / scale : error;
}

double roundoff(const KernelInfo &info) {
  return info.element_bytes == 4 ? 2e-6 : 1e-14;
}

TEST(EvenOdd, EveryEvenOddSpecIsRegistered) {
  // The shipped 4-D workload and the test specs (layouts, boundaries,
  // vector widths, symmetric and not).
  EXPECT_GE(evenOddKernels().size(), 5u);
  EXPECT_TRUE(kernel("laplacian4d_vec24_eo").even_odd);
}

TEST(EvenOdd, AnOpenStorageIsThePlannersChoice) {
  // t_eo_open_layout_c12 writes no field.layout; the planner stores its
  // halves component-major with groups of 4 values, which the tests below
  // run (a site-major spec would test nothing new).
  const Layout &layout = kernel("t_eo_open_layout_c12").layout;
  EXPECT_EQ(layout.order, kComponentMajor);
  EXPECT_EQ(layout.vector, 4);
  EXPECT_EQ(layout.even_odd, 1);
}

TEST(EvenOdd, AnOpenShareIsHalfASiteOfAtLeast96Bytes) {
  // Neither spec writes components_per_thread: the planner's rule gives a
  // thread half of a 96-byte site (24 floats, 12 doubles), which the tests
  // below run; a spinor (a spin projector mixes it whole) keeps its site.
  for (const char *name : {"laplacian4d_vec24_eo", "t_eo_half_site_f64_c12"})
    EXPECT_NE(std::string(kernel(name).tuning_options)
                  .find("components_per_thread=" +
                        std::to_string(kernel(name).components / 2)),
              std::string::npos)
        << name << ": " << kernel(name).tuning_options;
  EXPECT_EQ(std::string(kernel("wilson4d_eo_f32").tuning_options)
                .find("components_per_thread="),
            std::string::npos)
      << kernel("wilson4d_eo_f32").tuning_options;
}

TEST(EvenOdd, HoppingKernelsComposeTheWholeOperator) {
  // (A x)_e = D_e x_e + A_eo x_o and (A x)_o = D_o x_o + A_oe x_e, for A
  // and for A^T through the adjoint hopping kernels.
  for (const KernelInfo *info : evenOddKernels())
    for (const std::vector<int> &extents : extentsFor(info->shape.dims))
      for (bool adjoint : {false, true}) {
        SCOPED_TRACE(std::string(info->name) + " " +
                     std::to_string(extents[0]) + "x" +
                     std::to_string(extents[1]) +
                     (adjoint ? " adjoint" : " apply"));
        Problem s;
        s.create(*info, extents);
        Field x, whole, composed;
        s.randomField(x);
        ASSERT_OK(Field::create(s.A.lattice(), whole));
        ASSERT_OK(Field::create(s.A.lattice(), composed));
        ASSERT_OK(adjoint ? s.A.apply_adjoint(whole, x) : s.A.apply(whole, x));
        Field xe, xo, ye, yo;
        ASSERT_OK(x.half(0, xe));
        ASSERT_OK(x.half(1, xo));
        ASSERT_OK(composed.half(0, ye));
        ASSERT_OK(composed.half(1, yo));
        ASSERT_OK(s.A.hop(Hop::OddToEven, adjoint, ye, xo, kDiagonalPlusHop,
                          1.0, 1.0, &xe));
        ASSERT_OK(s.A.hop(Hop::EvenToOdd, adjoint, yo, xe, kDiagonalPlusHop,
                          1.0, 1.0, &xo));
        EXPECT_LT(relativeDifference(download(composed), download(whole)),
                  10 * roundoff(*info));
      }
}

TEST(EvenOdd, SlabWalksComputeWhatStorageOrderComputes) {
  // The slab walk changes which thread computes a site, not what it
  // computes: every hop, mode and adjoint of a spec walking in slabs of 3
  // equals its twin's in storage order bit for bit, on outputs poisoned
  // with NaN first, at extents that 3 divides and that it does not (the
  // last slab thinner). Storage-order twins default to 'auto', which is
  // storage order on the host backend.
  const std::pair<const char *, const char *> twins[] = {
      {"t_eo_vc4d_ppda_c2", "t_eo_slab3_vc4d_ppda_c2"},
      {"t_eo_dirichlet3d_site", "t_eo_slab3_dirichlet3d_site"},
      {"t_clover4d_eo_f64", "t_clover4d_eo_slab3_f64"},
  };
  for (const auto &[plainName, slabName] : twins)
    for (const std::vector<int> &extents :
         extentsFor(kernel(plainName).shape.dims)) {
      SCOPED_TRACE(std::string(slabName) + " " + std::to_string(extents[0]) +
                   "x" + std::to_string(extents[1]));
      EXPECT_EQ(hop_slab(kernel(plainName), extents.data()), 1);
      EXPECT_EQ(hop_slab(kernel(slabName), extents.data()), 3);
      Problem plain, slab;
      plain.create(kernel(plainName), extents);
      slab.create(kernel(slabName), extents);
      Field x, same;
      plain.randomField(x);
      plain.randomField(same);
      Field xe, xo, se, so;
      ASSERT_OK(x.half(0, xe));
      ASSERT_OK(x.half(1, xo));
      ASSERT_OK(same.half(0, se));
      ASSERT_OK(same.half(1, so));
      for (Hop hop : {Hop::EvenToOdd, Hop::OddToEven})
        for (bool adjoint : {false, true})
          for (HopMode mode : {kHop, kInverseDiagonalHop, kDiagonalPlusHop}) {
            const int out = hop == Hop::EvenToOdd ? 1 : 0;
            Field a, b;
            ASSERT_OK(Field::create(plain.A.lattice().half(out), a));
            ASSERT_OK(Field::create(plain.A.lattice().half(out), b));
            std::vector<double> poison(a.lattice().values(), std::nan(""));
            ASSERT_OK(a.upload_values(poison.data(), poison.size()));
            ASSERT_OK(b.upload_values(poison.data(), poison.size()));
            const Field &in = out == 1 ? xe : xo;
            const Field *sameHalf = out == 1 ? &so : &se;
            if (mode == kInverseDiagonalHop && plain.A.info().clover &&
                out == 0)
              continue; // the clover inverse lives on the odd sites
            ASSERT_OK(plain.A.hop(hop, adjoint, a, in, mode, 0.5, -1.5,
                                  sameHalf));
            ASSERT_OK(slab.A.hop(hop, adjoint, b, in, mode, 0.5, -1.5,
                                 sameHalf));
            const std::vector<double> va = download(a), vb = download(b);
            size_t differing = 0, written = 0;
            for (size_t i = 0; i < va.size(); ++i) {
              differing += std::memcmp(&va[i], &vb[i], sizeof(double)) != 0;
              written += !std::isnan(vb[i]);
            }
            EXPECT_EQ(differing, 0u) << "hop " << static_cast<int>(hop)
                                     << " adjoint " << adjoint << " mode "
                                     << static_cast<int>(mode);
            EXPECT_GT(written, va.size() / 8);
          }
    }
}

TEST(EvenOdd, SlabChoiceWeighsTheSlowestAxisReuseAgainstTheL2) {
  // stencil::hop_slab: a number of slices is taken as given (at most the
  // slowest extent); auto walks in slabs of 8 once the traffic between a
  // slowest-axis neighbour's two reads (two slices) exceeds 1.5 x the L2.
  const int n4[4] = {48, 48, 48, 64}, small4[4] = {32, 32, 32, 64},
            short4[4] = {48, 48, 48, 6}, n3[3] = {512, 512, 512},
            n2[2] = {4096, 4096};
  const std::int64_t l2 = 50 << 20; // an H100's
  // Double Wilson hop, 1536 bytes per site: 170 MB at 48^3, 50 MB at 32^3.
  EXPECT_EQ(hop_slab(0, 4, n4, 1536, l2), 8);
  EXPECT_EQ(hop_slab(0, 4, small4, 1536, l2), 1);
  // Float, 768: 85 MB at 48^3 (1.6 x the L2).
  EXPECT_EQ(hop_slab(0, 4, n4, 768, l2), 8);
  EXPECT_EQ(hop_slab(0, 4, small4, 768, l2), 1);
  EXPECT_EQ(hop_slab(0, 4, short4, 1536, l2), 6); // no more than nt
  EXPECT_EQ(hop_slab(0, 3, n3, 16, l2), 1);       // 4 MB
  EXPECT_EQ(hop_slab(0, 3, n3, 1536, l2), 8);
  EXPECT_EQ(hop_slab(0, 2, n2, 1536, l2), 1); // no axis between
  EXPECT_EQ(hop_slab(0, 4, n4, 1536, 0), 1);  // the host backend
  EXPECT_EQ(hop_slab(3, 4, n4, 1536, 0), 3);
  EXPECT_EQ(hop_slab(16, 4, short4, 1536, l2), 6);
  EXPECT_EQ(hop_slab(1, 4, n4, 1536, l2), 1);
}

TEST(EvenOdd, WholeLatticeGridAlternatesHalvesInRunsOf32) {
  // The whole-lattice kernels of even/odd fields: one-dimensional blocks
  // over runs of 32 sites alternating between the halves, each half's last
  // run padded (stencil/launch_config.hpp).
  StencilShape shape = {4, {kPeriodic, kPeriodic, kDirichlet, kAntiperiodic},
                        {1, 1, 1, 1}, {16, 2, 2, 1}, 0, 1, 1, 1, 1};
  const int n[4] = {6, 4, 5, 6}; // 720 sites: halves of 360, 12 runs each
  LaunchConfig config;
  ASSERT_TRUE(make_launch_config(shape, n, config).ok());
  EXPECT_EQ(config.block.x, 64u);
  EXPECT_EQ(config.block.y * config.block.z, 1u);
  EXPECT_EQ(config.grid.x, 12u); // 768 threads
  EXPECT_EQ(config.grid.y * config.grid.z, 1u);
  // Padded runs, rounded up to whole blocks: 24 runs in 5 blocks of 160.
  shape.block[0] = 40;
  ASSERT_TRUE(make_launch_config(shape, n, config).ok());
  EXPECT_EQ(config.block.x, 160u);
  EXPECT_EQ(config.grid.x, 5u);
  shape.component_groups = 3; // the 3 shares' blocks side by side
  ASSERT_TRUE(make_launch_config(shape, n, config).ok());
  EXPECT_EQ(config.grid.x, 15u);
  // A lattice without interior along the Dirichlet axis has nothing to run.
  const int flat[4] = {6, 4, 2, 6};
  ASSERT_TRUE(make_launch_config(shape, flat, config).ok());
  EXPECT_TRUE(config.empty);
  // Site numbers are 32-bit, a parity's as in the hopping kernels: 2^31
  // sites in all run, 2^32 do not, nor do products past 64 bits.
  const int large[4] = {1024, 1024, 1024, 2};
  ASSERT_TRUE(make_launch_config(shape, large, config).ok());
  EXPECT_EQ(config.grid.x, 3u * ((1u << 31) / 160u + 1u));
  const int huge[4] = {1024, 1024, 1024, 4};
  Status status = make_launch_config(shape, huge, config);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("2147483648 sites per parity exceed the "
                                  "whole-lattice kernels' 2^31 - 64"),
            std::string::npos)
      << status.message();
  const int overflowing[4] = {1 << 30, 1 << 30, 1 << 30, 1 << 30};
  status = make_launch_config(shape, overflowing, config);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("at least 2147483648 sites per parity"),
            std::string::npos)
      << status.message();
}

TEST(EvenOdd, HopModesScaleByTheDiagonal) {
  // kHop with beta, kInverseDiagonalHop = D^-1 of it, against the diagonal
  // that StencilOperator::diagonal() computes on the host; with a clover
  // term, D (the clover kernel) times the epilogue's D^-1 H x is H x.
  for (const KernelInfo *info : evenOddKernels()) {
    SCOPED_TRACE(info->name);
    Problem s;
    s.create(*info, extentsFor(info->shape.dims).front());
    Field x, xe, plain, inverse, diag, diagOdd;
    s.randomField(x);
    ASSERT_OK(x.half(0, xe));
    ASSERT_OK(Field::create(s.A.lattice().half(1), plain));
    ASSERT_OK(Field::create(s.A.lattice().half(1), inverse));
    if (info->clover) {
      Field undone;
      ASSERT_OK(Field::create(s.A.lattice().half(1), undone));
      ASSERT_OK(s.A.hop(Hop::EvenToOdd, false, plain, xe, kHop, 0.0, -2.0));
      ASSERT_OK(s.A.hop(Hop::EvenToOdd, false, inverse, xe,
                        kInverseDiagonalHop, 0.0, -2.0));
      ASSERT_OK(s.A.apply_clover(1, undone, inverse, kDiagonalPlusHop, 1.0,
                                 0.0, &inverse));
      EXPECT_LT(relativeDifference(download(undone), download(plain)),
                100 * roundoff(*info));
      EXPECT_GT(relativeDifference(download(inverse), download(plain)), 0.01)
          << "D^-1 did something";
      continue;
    }
    ASSERT_OK(Field::create(s.A.lattice(), diag));
    ASSERT_OK(s.A.diagonal(diag));
    ASSERT_OK(diag.half(1, diagOdd));
    ASSERT_OK(s.A.hop(Hop::EvenToOdd, false, plain, xe, kHop, 0.0, -2.0));
    ASSERT_OK(s.A.hop(Hop::EvenToOdd, false, inverse, xe,
                      kInverseDiagonalHop, 0.0, -2.0));
    std::vector<double> p = download(plain), q = download(inverse),
                        d = download(diagOdd);
    std::vector<double> scaled(q.size());
    for (size_t i = 0; i < q.size(); ++i)
      scaled[i] = q[i] * d[i];
    EXPECT_LT(relativeDifference(scaled, p), 10 * roundoff(*info));
    double largest = 0.0;
    for (double v : p)
      largest = std::max(largest, std::fabs(v));
    EXPECT_GT(largest, 0.1); // the hop did something
  }
}

TEST(EvenOdd, AdjointHopsSatisfyTheInnerProductIdentity) {
  // <A_oe x_e, y_o> = <x_e, (A_oe)^T y_o> and the same for A_eo.
  for (const KernelInfo *info : evenOddKernels()) {
    SCOPED_TRACE(info->name);
    Problem s;
    s.create(*info, extentsFor(info->shape.dims).front());
    Field x, y, xe, xo, ye, yo, hx, hty;
    s.randomField(x);
    s.randomField(y);
    ASSERT_OK(x.half(0, xe));
    ASSERT_OK(x.half(1, xo));
    ASSERT_OK(y.half(0, ye));
    ASSERT_OK(y.half(1, yo));
    Reducer reducer;
    for (Hop hop : {Hop::EvenToOdd, Hop::OddToEven}) {
      const bool toOdd = hop == Hop::EvenToOdd;
      Field &from = toOdd ? xe : xo;
      Field &against = toOdd ? yo : ye;
      ASSERT_OK(Field::create(against.lattice(), hx));
      ASSERT_OK(Field::create(from.lattice(), hty));
      ASSERT_OK(s.A.hop(hop, false, hx, from));
      ASSERT_OK(s.A.hop(toOdd ? Hop::OddToEven : Hop::EvenToOdd, true, hty,
                        against));
      double left = 0.0, right = 0.0;
      ASSERT_OK(reducer.dot(hx, against, left));
      ASSERT_OK(reducer.dot(from, hty, right));
      EXPECT_NEAR(left, right, 100 * roundoff(*info) * std::fabs(left))
          << left << " " << right;
    }
  }
}

struct SolvePair {
  SolveReport whole, schur;
  double difference = 0.0; ///< ||x_schur - x_whole|| / ||x_whole||
  double error = 0.0;      ///< ||x_schur - u*|| / ||u*||
};

/// b = A u* for random u*; solves it both ways.
void solveBothWays(const KernelInfo &info, const std::vector<int> &extents,
                   Method method, double tolerance, SolvePair &out) {
  Problem s;
  s.create(info, extents);
  Field exact, b, xWhole, xSchur;
  s.randomField(exact);
  ASSERT_OK(Field::create(s.A.lattice(), b));
  ASSERT_OK(s.A.apply(b, exact));
  ASSERT_OK(Field::create(s.A.lattice(), xWhole));
  ASSERT_OK(Field::create(s.A.lattice(), xSchur));
  SolveOptions options;
  options.method = method;
  options.tolerance = tolerance;
  options.max_iterations = 20000;
  ASSERT_OK(solve(s.A, b, xWhole, options, out.whole));
  ASSERT_OK(solve_even_odd(s.A, b, xSchur, options, out.schur));
  std::vector<double> w = download(xWhole), e = download(xSchur),
                      u = download(exact);
  auto norm = [](const std::vector<double> &v) {
    double sum = 0.0;
    for (double a : v)
      sum += a * a;
    return std::sqrt(sum);
  };
  std::vector<double> d(w.size()), f(w.size());
  for (size_t i = 0; i < w.size(); ++i) {
    d[i] = e[i] - w[i];
    f[i] = e[i] - u[i];
  }
  out.difference = norm(d) / norm(w);
  out.error = norm(f) / norm(u);
}

TEST(EvenOdd, SchurCgMatchesWholeCg) {
  struct Case {
    const char *name;
    std::vector<int> extents;
    double tolerance, bound;
  };
  const Case cases[] = {
      {"t_eo_dirichlet3d_site", {16, 12, 10}, 1e-11, 1e-9},
      {"t_eo_vector_w4_c8", {8, 6, 4}, 1e-6, 1e-4},
      // Coefficient fields on the neighbour taps: CG's dominance check.
      {"t_eo_vc4d_ppda_c2", {6, 4, 8, 10}, 1e-11, 1e-9},
      // SU(3) links stored as two rows; Dirichlet z, antiperiodic t.
      {"t_eo_cov4d_two_rows_cg", {6, 4, 7, 6}, 1e-11, 1e-9},
      {"laplacian4d_vec24_eo", {6, 4, 8, 10}, 1e-6, 1e-4},
      {"laplacian4d_vec24_eo", {8, 8, 8, 16}, 1e-6, 1e-4},
      // A site's components shared by threads: by block in aosoa halves,
      // side by side in site-major ones.
      {"t_eo_split_aosoa4d_c6", {6, 4, 7, 6}, 1e-11, 1e-9},
      // The same in pairs of values per load (field.layout.vector: 2).
      {"t_eo_aosoa_v2_split4d_c12", {6, 4, 7, 6}, 1e-11, 1e-9},
      {"t_eo_split_site_w2_c12", {10, 9, 6}, 1e-6, 1e-4},
      // The storage the planner chose where the spec leaves it open:
      // component-major halves, 4 values a load.
      {"t_eo_open_layout_c12", {6, 4, 6, 8}, 1e-6, 1e-4},
      // Half a site a thread, the planner's choice
      // (AnOpenShareIsHalfASiteOfAtLeast96Bytes).
      {"t_eo_half_site_f64_c12", {10, 6, 8}, 1e-11, 1e-9},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.name);
    SolvePair pair;
    solveBothWays(kernel(c.name), c.extents, Method::CG, c.tolerance, pair);
    EXPECT_TRUE(pair.whole.converged) << pair.whole.message;
    EXPECT_TRUE(pair.schur.converged) << pair.schur.message;
    EXPECT_EQ(pair.schur.system, "even/odd Schur complement");
    EXPECT_EQ(pair.schur.unknowns * 2, pair.whole.unknowns);
    EXPECT_TRUE(pair.schur.device_scalars); // one rank, no fused kernels
    // Both stop on ||b - A x|| / ||b|| < tolerance, so they agree to it.
    EXPECT_LT(pair.schur.true_relative_residual, 10 * c.tolerance);
    EXPECT_LT(pair.difference, c.bound);
    EXPECT_LT(pair.error, c.bound);
    // The Schur complement is better conditioned: fewer iterations.
    EXPECT_LT(pair.schur.iterations, pair.whole.iterations);
    std::printf("[ info     ] %s: CG %d iterations on A, %d on the Schur "
                "complement; solutions differ by %.2e\n",
                c.name, pair.whole.iterations, pair.schur.iterations,
                pair.difference);
  }
}

TEST(EvenOdd, SchurCgScalarsOnTheDeviceFollowTheHostLoop) {
  // The same CG on the Schur complement with alpha and beta computed on the
  // device (iterations queued ahead) and on the host: the same iterations
  // and residuals up to the sums' rounding, and a cap that holds.
  struct Case {
    const char *name;
    std::vector<int> extents;
    double tolerance, agree;
  };
  const Case cases[] = {{"t_eo_dirichlet3d_site", {16, 12, 10}, 1e-11, 1e-9},
                        {"laplacian4d_vec24_eo", {6, 4, 8, 10}, 1e-6, 1e-4}};
  for (const Case &c : cases) {
    SCOPED_TRACE(c.name);
    Problem s;
    s.create(kernel(c.name), c.extents);
    Field exact, b;
    s.randomField(exact);
    ASSERT_OK(Field::create(s.A.lattice(), b));
    ASSERT_OK(s.A.apply(b, exact));
    SolveReport reports[2];
    std::vector<double> solutions[2];
    for (int onDevice = 0; onDevice < 2; ++onDevice) {
      Field x;
      ASSERT_OK(Field::create(s.A.lattice(), x));
      SolveOptions options;
      options.tolerance = c.tolerance;
      options.device_scalars = onDevice == 1;
      ASSERT_OK(solve_even_odd(s.A, b, x, options, reports[onDevice]));
      EXPECT_TRUE(reports[onDevice].converged) << reports[onDevice].message;
      EXPECT_EQ(reports[onDevice].device_scalars, onDevice == 1);
      solutions[onDevice] = download(x);
    }
    EXPECT_EQ(reports[0].iterations, reports[1].iterations);
    ASSERT_EQ(reports[0].residual_history.size(),
              reports[1].residual_history.size());
    for (size_t i = 0; i < reports[0].residual_history.size(); ++i)
      EXPECT_NEAR(reports[1].residual_history[i] /
                      reports[0].residual_history[i],
                  1.0, c.agree)
          << "iteration " << i;
    double worst = 0.0, largest = 0.0;
    for (size_t i = 0; i < solutions[0].size(); ++i) {
      worst = std::max(worst, std::abs(solutions[1][i] - solutions[0][i]));
      largest = std::max(largest, std::abs(solutions[0][i]));
    }
    EXPECT_LT(worst / largest, c.agree);

    // The cap: exactly that many iterations, not converged, whatever was
    // queued ahead.
    Field x;
    ASSERT_OK(Field::create(s.A.lattice(), x));
    SolveOptions capped;
    capped.tolerance = 1e-30;
    capped.max_iterations = 5;
    SolveReport report;
    ASSERT_OK(solve_even_odd(s.A, b, x, capped, report));
    EXPECT_TRUE(report.device_scalars);
    EXPECT_FALSE(report.converged);
    EXPECT_EQ(report.iterations, 5);
    EXPECT_EQ(report.residual_history.size(), 6u);
  }
}

TEST(EvenOdd, SchurCgnrSolvesNonSymmetricStencils) {
  // The adjoint hopping kernels give S^T.
  for (const char *name : {"t_eo_periodic4d_soa_c3", "t_eo_aosoa2d_c2"}) {
    SCOPED_TRACE(name);
    const KernelInfo &info = kernel(name);
    ASSERT_FALSE(info.symmetric);
    const double tolerance = info.element_bytes == 4 ? 1e-6 : 1e-11;
    SolvePair pair;
    solveBothWays(info, extentsFor(info.shape.dims).front(), Method::CGNR,
                  tolerance, pair);
    EXPECT_TRUE(pair.schur.converged) << pair.schur.message;
    EXPECT_LT(pair.schur.true_relative_residual, 10 * tolerance);
    EXPECT_LT(pair.error, info.element_bytes == 4 ? 1e-4 : 1e-9);
    EXPECT_LT(pair.schur.iterations, pair.whole.iterations);
  }
}

TEST(EvenOdd, ErrorsAreClear) {
  Problem s;
  const KernelInfo &info = kernel("laplacian4d_vec24_eo");
  s.create(info, {6, 4, 8, 10});
  Field b, x;
  s.randomField(b);
  s.randomField(x);
  SolveOptions options;
  options.preconditioner = Preconditioner::Jacobi;
  SolveReport report;
  Status status = solve_even_odd(s.A, b, x, options, report);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("Schur complement is itself"),
            std::string::npos)
      << status.message();

  // Wrong halves.
  Field xe, xo, wrong;
  ASSERT_OK(x.half(0, xe));
  ASSERT_OK(x.half(1, xo));
  ASSERT_OK(Field::create(s.A.lattice().half(0), wrong));
  status = s.A.hop(Hop::EvenToOdd, false, wrong, xe);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("hop: out"), std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find("odd half"), std::string::npos)
      << status.message();
  status = s.A.hop(Hop::OddToEven, false, xe, xo, kDiagonalPlusHop, 1, 1);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("needs the 'same' field"),
            std::string::npos)
      << status.message();
  Field view;
  status = xe.half(0, view);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("not a whole even/odd field"),
            std::string::npos);

  // Extents the checkerboard cannot take.
  Field odd;
  Lattice lattice = s.A.lattice();
  lattice.extents[2] = 7;
  status = Field::create(lattice, odd);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("extent nz = 7 is odd"), std::string::npos)
      << status.message();

  // A stencil without even/odd storage has no hops and no Schur solve.
  StencilOperator plain;
  const std::vector<int> extents = {6, 4, 8, 10};
  ASSERT_OK(StencilOperator::create(kernel("laplacian4d_vec24_aos"),
                                    extents.data(), plain));
  Field pb, px;
  ASSERT_OK(Field::create(plain.lattice(), pb));
  ASSERT_OK(Field::create(plain.lattice(), px));
  ASSERT_OK(pb.fill(1.0));
  status = solve_even_odd(plain, pb, px, SolveOptions(), report);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("field.even_odd"), std::string::npos)
      << status.message();
}

TEST(EvenOdd, SchurApplyChecksItsFieldsBeforeAnyReplay) {
  // A replayed launch graph checks nothing, so apply() checks the fields'
  // lattices itself, on every backend.
  Problem s;
  s.create(kernel("laplacian4d_vec24_eo"), {6, 4, 8, 10});
  SchurComplement S;
  ASSERT_OK(SchurComplement::create(s.A, S));
  Field even, odd, whole;
  ASSERT_OK(Field::create(S.lattice(), even));
  ASSERT_OK(Field::create(s.A.lattice().half(1), odd));
  ASSERT_OK(Field::create(s.A.lattice(), whole));
  ASSERT_OK(even.fill(1.0));
  Status status = S.apply(odd, even);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("Schur complement: out"), std::string::npos)
      << status.message();
  status = S.apply_adjoint(even, whole);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("Schur complement: in"), std::string::npos)
      << status.message();
  EXPECT_NE(S.launch_description().find("host backend has no launch graphs"),
            std::string::npos)
      << S.launch_description();
}

TEST(EvenOdd, LaunchGraphsRunEachSequenceOnTheHost) {
  // The host backend records nothing: every run() launches, a failure of
  // the launches is returned as it is.
  LaunchGraphs graphs;
  ASSERT_OK(LaunchGraphs::from_environment(graphs));
  EXPECT_FALSE(graphs.enabled());
  int launched = 0;
  auto record = [&](Stream stream) {
    EXPECT_EQ(stream, nullptr);
    ++launched;
    return Status();
  };
  for (int i = 0; i < 3; ++i)
    ASSERT_OK(graphs.run({1, 2, 3}, nullptr, record));
  EXPECT_EQ(launched, 3);
  EXPECT_EQ(graphs.recordings(), 0);
  const Status failed = graphs.run(
      {1}, nullptr, [](Stream) { return Status::failure("launch failed"); });
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.message(), "launch failed");
}

TEST(EvenOdd, GraphSwitchIsCheckedByName) {
  Problem s;
  s.create(kernel("laplacian4d_vec24_eo"), {6, 4, 8, 10});
  SchurComplement S;
  {
    ScopedEnv unknown("STENCILC_GRAPHS", "sometimes");
    Status status = SchurComplement::create(s.A, S);
    ASSERT_FALSE(status.ok());
    EXPECT_NE(status.message().find("STENCILC_GRAPHS='sometimes': expected "
                                    "on or off"),
              std::string::npos)
        << status.message();
  }
  ScopedEnv off("STENCILC_GRAPHS", "off");
  LaunchGraphs graphs;
  ASSERT_OK(LaunchGraphs::from_environment(graphs));
  EXPECT_FALSE(graphs.enabled());
  ASSERT_OK(SchurComplement::create(s.A, S));
}

} // namespace

namespace {

TEST(EvenOdd, HalfFieldsKnowTheirHalo) {
  // set_halo on one parity's half touches exactly that parity's halo sites.
  const KernelInfo &info = kernel("t_eo_dirichlet3d_site");
  const std::vector<int> extents = {8, 6, 5};
  StencilOperator A;
  ASSERT_OK(StencilOperator::create(info, extents.data(), A));
  Field whole;
  ASSERT_OK(Field::create(A.lattice(), whole));
  ASSERT_OK(whole.fill(1.0));
  for (int parity : {0, 1}) {
    Field half;
    ASSERT_OK(whole.half(parity, half));
    ASSERT_OK(set_halo(half, 0.0));
  }
  // Every site, in the host order: 0 on the halo, 1 inside.
  std::vector<double> values = download(whole);
  int inside = 0;
  for (int z = 0; z < 5; ++z)
    for (int y = 0; y < 6; ++y)
      for (int x = 0; x < 8; ++x) {
        bool halo = x == 0 || x == 7 || y == 0 || y == 5 || z == 0 || z == 4;
        double v = values[(z * 6 + y) * 8 + x];
        EXPECT_EQ(v, halo ? 0.0 : 1.0) << x << "," << y << "," << z;
        inside += !halo;
      }
  EXPECT_EQ(inside, 6 * 4 * 3);
  // interior_sites() counts one parity's interior.
  EXPECT_EQ(A.lattice().half(0).interior_sites() +
                A.lattice().half(1).interior_sites(),
            72);
  EXPECT_EQ(A.lattice().half(0).interior_sites(), 36);
}

} // namespace
