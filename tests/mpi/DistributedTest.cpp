// Distributed runs on the host backend, under mpirun with 1, 2 and 4 ranks
// (tests/CMakeLists.txt): the distributed operator against the single-rank
// one on the same inputs at every site (every rank also computes the
// single-rank result, small lattices), distributed CG against single-rank
// CG (iterations and solution), the whole-field scatter and gather, and the
// refusals of bad process grids. Every rank runs every test; verdicts that
// depend on one rank's data are agreed on over the ranks first, so that no
// rank leaves a collective early.
#include "HostFixtures.h"

#include "stencil/comm.hpp"
#include "stencil/environment.hpp"
#include "stencil/even_odd.hpp"
#include "stencil/exchange_tuning.hpp"
#include "stencil/scatter.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <string>
#include <vector>

using namespace stencil;
using stencilc::testing::expectFailure;
using stencilc::testing::kernelNamed;

namespace {

Communicator world() { return Communicator::world(); }

/// The process grids of `dims` axes among `grids` whose rank count is the
/// job's.
std::vector<ProcessGrid> gridsForThisJob(int dims,
                                         const std::vector<std::string> &grids) {
  std::vector<ProcessGrid> out;
  for (const std::string &text : grids) {
    ProcessGrid grid;
    if (parse_process_grid(text, dims, grid).ok() &&
        grid.total() == world().size())
      out.push_back(grid);
  }
  return out;
}

std::vector<double> randomValues(std::int64_t n, std::uint64_t seed,
                                 double low = -1.0, double high = 1.0) {
  Random random(seed);
  std::vector<double> v(n);
  for (double &x : v)
    x = random.uniform(low, high);
  return v;
}

/// A's inputs beyond the field, the same on every rank: site parameter
/// arrays (whole lattice), and random links.
struct Inputs {
  std::vector<std::vector<double>> sites; ///< per parameter, or empty
  GaugeField U;
  bool links = false;
};

Inputs makeInputs(const KernelInfo &info, const std::vector<int> &extents) {
  Inputs in;
  std::int64_t sites = 1;
  for (int e : extents)
    sites *= e;
  for (int p = 0; p < info.num_params; ++p)
    in.sites.push_back(info.param_is_site[p]
                           ? randomValues(sites * site_parameter_reals(info, p),
                                          100 + p, 0.5, 2.0)
                           : std::vector<double>());
  if (info.links) {
    in.links = true;
    int n[4] = {1, 1, 1, 1};
    std::copy(extents.begin(), extents.end(), n);
    EXPECT_TRUE(
        GaugeField::create(info.shape.dims, n, info.links->colours, in.U).ok());
    Random random(7);
    in.U.set_random(random);
  }
  return in;
}

/// An operator (single-rank or distributed) with the inputs attached;
/// keeps the arrays alive.
struct Attached {
  StencilOperator A;
  std::vector<std::unique_ptr<Field>> sites;
  Field links;
  StencilOperator::CloverArrays clover;
};

Status attach(Attached &op, const Inputs &in) {
  const KernelInfo &info = op.A.info();
  for (int p = 0; p < info.num_params; ++p) {
    if (!info.param_is_site[p])
      continue;
    Lattice lattice;
    STENCIL_TRY(op.A.site_lattice(info.param_names[p], lattice));
    op.sites.push_back(std::make_unique<Field>());
    STENCIL_TRY(Field::create(lattice, *op.sites.back()));
    if (const Decomposition *d = op.A.decomposition())
      STENCIL_TRY(scatter_field(*d, in.sites[p].data(),
                                static_cast<std::int64_t>(in.sites[p].size()),
                                *op.sites.back()));
    else
      STENCIL_TRY(op.sites.back()->upload_values(
          in.sites[p].data(), static_cast<std::int64_t>(in.sites[p].size())));
    STENCIL_TRY(op.A.set_site_parameter(info.param_names[p], *op.sites.back()));
  }
  if (in.links) {
    STENCIL_TRY(op.A.upload_links(in.U, op.links));
    STENCIL_TRY(op.A.set_links(op.links));
  }
  if (info.clover) {
    STENCIL_TRY(op.A.upload_clover(in.U, op.clover, 1));
    STENCIL_TRY(op.A.set_clover(op.clover));
  }
  return Status();
}

/// max |a - b| / max |b| over the values where `mask` (if given) is true.
double relativeDifference(const std::vector<double> &a,
                          const std::vector<double> &b) {
  double error = 0.0, scale = 0.0;
  for (size_t i = 0; i < b.size() && i < a.size(); ++i) {
    error = std::max(error, std::fabs(a[i] - b[i]));
    scale = std::max(scale, std::fabs(b[i]));
  }
  if (a.size() != b.size())
    return INFINITY;
  return scale > 0 ? error / scale : error;
}

/// A field's values on the host (whole lattice, single rank).
std::vector<double> download(const Field &f) {
  std::vector<double> v(f.lattice().values());
  EXPECT_TRUE(f.download_values(v.data(), static_cast<std::int64_t>(v.size()))
                  .ok());
  return v;
}

/// What each operation computes on the whole lattice: out = op(in).
enum class Operation { Apply, Adjoint, HopToOdd, HopToEven, Schur };
const char *operationName(Operation op) {
  switch (op) {
  case Operation::Apply:
    return "apply";
  case Operation::Adjoint:
    return "adjoint";
  case Operation::HopToOdd:
    return "hop e>o A^-1";
  case Operation::HopToEven:
    return "hop o>e A+";
  case Operation::Schur:
    return "Schur";
  }
  return "?";
}

/// out = op(in) on whole fields (the hops' halves inside them; the other
/// half of out stays zero).
Status run(const StencilOperator &A, Operation op, const Field &in,
           Field &out) {
  using Hop = StencilOperator::Hop;
  Field inEven, inOdd, outEven, outOdd;
  if (A.info().even_odd) {
    STENCIL_TRY(in.half(0, inEven));
    STENCIL_TRY(in.half(1, inOdd));
    STENCIL_TRY(out.half(0, outEven));
    STENCIL_TRY(out.half(1, outOdd));
  }
  switch (op) {
  case Operation::Apply:
    return A.apply(out, in);
  case Operation::Adjoint:
    return A.apply_adjoint(out, in);
  case Operation::HopToOdd:
    return A.hop(Hop::EvenToOdd, false, outOdd, inEven,
                 A.info().clover ? kInverseDiagonalHop : kHop, 0.0, -0.5);
  case Operation::HopToEven:
    return A.hop(Hop::OddToEven, true, outEven, inOdd, kDiagonalPlusHop, 0.75,
                 -0.5, &inEven);
  case Operation::Schur: {
    SchurComplement S;
    STENCIL_TRY(SchurComplement::create(A, S));
    return S.apply(outEven, inEven);
  }
  }
  return Status::failure("unknown operation");
}

struct ApplyCase {
  const char *spec;
  std::vector<int> extents;
  std::vector<std::string> grids;
  double tolerance;
};

TEST(Distributed, OperatorsEqualTheSingleRankOnesAtEverySite) {
  const ApplyCase cases[] = {
      {"t_dist3d_vc_dirichlet", {10, 14, 18}, {"1,1,1", "2,1,1", "1,1,2", "1,2,2", "2,2,1"}, 1e-14},
      {"t_dist3d_corners_soa", {8, 6, 12}, {"1,1,1", "1,1,2", "2,1,1", "2,2,1", "1,2,2"}, 1e-6},
      // Groups of 2 sites along each component's row (soa), x split too.
      {"t_dist3d_rows_soa_w2", {8, 6, 12}, {"1,1,1", "1,1,2", "2,1,1", "2,2,1", "1,2,2"}, 1e-6},
      {"t_dist4d_aosoa_c6", {4, 4, 6, 8}, {"1,1,1,1", "1,1,1,2", "1,1,2,1", "1,1,2,2"}, 1e-14},
      {"t_dist_clover4d_eo_f64", {4, 4, 4, 8}, {"1,1,1,1", "1,1,1,2", "1,1,2,1", "1,1,2,2"}, 1e-13},
      // The same with the planner's storage of links and clover (soa pairs).
      {"t_dist_clover4d_eo_open", {4, 4, 4, 8}, {"1,1,1,1", "1,1,1,2", "1,1,2,2"}, 1e-13},
      {"t_dist4d_sub_c2", {4, 4, 8, 8}, {"1,1,1,1", "1,1,1,2", "1,1,2,2"}, 1e-14},
      {"t_dist_eo3d_c2", {8, 12, 16}, {"1,1,1", "1,2,1", "1,1,2", "1,2,2"}, 1e-14},
      // A site shared by threads side by side: subdomains, even/odd hops.
      {"t_dist4d_sub_split_c6", {4, 4, 8, 8}, {"1,1,1,1", "1,1,1,2", "1,1,2,2"}, 1e-14},
      {"t_dist_eo3d_split_c4", {8, 12, 16}, {"1,1,1", "1,2,1", "1,2,2"}, 1e-14},
      // Complex coefficient fields, an (re, im) pair a site, beside a
      // component-major field: their ghost zones have a box copy of their own.
      {"t_dist_eo3d_cx_soa", {6, 8, 12}, {"1,1,1", "1,2,1", "1,1,2", "1,2,2"}, 1e-14},
      // Pairs a load in blocks of 4 sites beside real and complex
      // coefficient fields, one value or pair a site.
      {"t_dist4d_cx_aosoa_v2_site", {4, 4, 6, 8}, {"1,1,1,1", "1,1,2,1", "1,1,1,2", "1,1,2,2"}, 1e-14},
      // Diagonal taps reading Dirichlet halo values across ghost zones.
      {"t_dist3d_diag_mixed", {8, 10, 12}, {"1,1,1", "1,2,1", "2,1,1", "1,1,2", "2,2,1", "1,2,2", "2,1,2"}, 1e-14},
      // Shipped: spinors site-major, links and clover in blocks of 32
      // sites with pairs of reals per load, the hops' slab walk.
      {"wilson_clover4d_eo_f64", {4, 4, 4, 8}, {"1,1,1,1", "1,1,1,2", "1,1,2,2"}, 1e-13},
  };
  for (const ApplyCase &c : cases) {
    const KernelInfo &info = kernelNamed(c.spec);
    const Inputs inputs = makeInputs(info, c.extents);
    Attached single;
    ASSERT_OK(StencilOperator::create(info, c.extents.data(), single.A,
                                      StencilOperator::Kernels::AsGiven));
    ASSERT_OK(attach(single, inputs));
    const std::vector<double> x =
        randomValues(single.A.lattice().values(), 11);
    Field xs, ys;
    ASSERT_OK(Field::create(single.A.lattice(), xs));
    ASSERT_OK(xs.upload_values(x.data(), static_cast<std::int64_t>(x.size())));
    ASSERT_OK(set_halo(xs, 0.25)); // Dirichlet boundary values, not zero
    const std::vector<double> xWithHalo = download(xs);
    std::vector<Operation> ops = {Operation::Apply, Operation::Adjoint};
    if (info.even_odd)
      ops.insert(ops.end(), {Operation::HopToOdd, Operation::HopToEven,
                             Operation::Schur});
    for (const ProcessGrid &grid : gridsForThisJob(info.shape.dims, c.grids)) {
      SCOPED_TRACE(std::string(c.spec) + " on grid " + grid.text());
      Attached dist;
      ASSERT_OK(StencilOperator::create_distributed(
          info, c.extents.data(), world(), grid, dist.A));
      ASSERT_OK(world().agree(attach(dist, inputs)));
      // mpi.distributed.ranks4.no-overlap runs these checks with
      // STENCILC_OVERLAP=off: the operator must have taken that path.
      const char *overlapEnv = stencil::environment_value("STENCILC_OVERLAP");
      const bool overlapped = !overlapEnv || std::string(overlapEnv) == "on";
      EXPECT_NE(dist.A.kernel_choice().find(overlapped
                                                ? "overlapped with the interior"
                                                : "before the kernels"),
                std::string::npos)
          << dist.A.kernel_choice();
      const Decomposition &d = *dist.A.decomposition();
      for (Operation op : ops) {
        SCOPED_TRACE(operationName(op));
        ASSERT_OK(Field::create(single.A.lattice(), ys));
        ASSERT_OK(ys.fill(std::nan("")));
        ASSERT_OK(run(single.A, op, xs, ys));
        Field xd, yd;
        ASSERT_OK(Field::create(dist.A.lattice(), xd));
        ASSERT_OK(Field::create(dist.A.lattice(), yd));
        ASSERT_OK(scatter_field(d, xWithHalo.data(),
                                static_cast<std::int64_t>(xWithHalo.size()),
                                xd));
        ASSERT_OK(yd.fill(std::nan("")));
        ASSERT_OK(world().agree(run(dist.A, op, xd, yd)));
        std::vector<double> whole;
        ASSERT_OK(gather_field(d, yd, whole));
        // The halo of out is never written: both keep their NaN there, so
        // compare the updated sites only (NaN elsewhere compares equal).
        std::vector<double> expected = download(ys);
        double difference = 0.0, compared = 0.0, largest = 0.0;
        if (world().rank() == 0) {
          for (size_t i = 0; i < expected.size(); ++i)
            if (std::isnan(expected[i]) != std::isnan(whole[i])) {
              difference = INFINITY;
            } else if (std::isnan(expected[i])) {
              expected[i] = whole[i] = 0.0;
            } else {
              compared += 1.0;
              largest = std::max(largest, std::fabs(expected[i]));
            }
          difference = std::max(difference,
                                relativeDifference(whole, expected));
        }
        ASSERT_OK(world().max(difference));
        ASSERT_OK(world().max(compared));
        ASSERT_OK(world().max(largest));
        EXPECT_LT(difference, c.tolerance);
        // Something was computed: the hops write a quarter of the values
        // or more (one parity, the interior), and not zeros.
        EXPECT_GT(compared, 0.2 * static_cast<double>(expected.size()));
        EXPECT_GT(largest, 0.1);
        if (world().rank() == 0)
          std::printf("[ info     ] %s grid %s %s: %.2e\n", c.spec,
                      grid.text().c_str(), operationName(op), difference);
      }
    }
  }
}

struct SolveCase {
  const char *spec;
  std::vector<int> extents;
  std::vector<std::string> grids;
  Method method;
  bool evenOdd;
  double tolerance;
  Preconditioner preconditioner = Preconditioner::None;
};

TEST(Distributed, SolversTakeTheSameIterationsToTheSameSolution) {
  // b = A u for a random u; the single-rank solve and the distributed one
  // from the same b: the same iteration count, solutions equal to the
  // solver's accuracy (their reductions add in another order).
  const SolveCase cases[] = {
      {"t_dist3d_vc_dirichlet", {10, 14, 18}, {"1,1,1", "1,1,2", "2,1,1", "1,2,2"}, Method::CG, false, 1e-10},
      {"t_dist3d_vc_dirichlet", {10, 14, 18}, {"1,1,1", "1,1,2", "1,2,2"}, Method::CG, false, 1e-10, Preconditioner::Jacobi},
      {"t_dist4d_aosoa_c6", {4, 4, 6, 8}, {"1,1,1,1", "1,1,1,2", "1,1,2,2"}, Method::CG, false, 1e-10},
      {"t_dist3d_corners_soa", {8, 6, 12}, {"1,1,1", "1,1,2", "2,1,1", "2,2,1"}, Method::CGNR, false, 1e-5},
      {"t_dist_clover4d_eo_f64", {4, 4, 4, 8}, {"1,1,1,1", "1,1,1,2", "1,1,2,2"}, Method::CGNR, true, 1e-10},
  };
  for (const SolveCase &c : cases) {
    const KernelInfo &info = kernelNamed(c.spec);
    const Inputs inputs = makeInputs(info, c.extents);
    Attached single;
    ASSERT_OK(StencilOperator::create(info, c.extents.data(), single.A,
                                      StencilOperator::Kernels::AsGiven));
    ASSERT_OK(attach(single, inputs));
    Field u, b, x;
    for (Field *f : {&u, &b, &x})
      ASSERT_OK(Field::create(single.A.lattice(), *f));
    const std::vector<double> uValues =
        randomValues(single.A.lattice().values(), 21);
    ASSERT_OK(u.upload_values(uValues.data(),
                              static_cast<std::int64_t>(uValues.size())));
    ASSERT_OK(set_halo(u, 0.0));
    ASSERT_OK(single.A.apply(b, u));
    const std::vector<double> bValues = download(b);
    SolveOptions options;
    options.method = c.method;
    options.preconditioner = c.preconditioner;
    options.tolerance = c.tolerance;
    options.max_iterations = 2000;
    SolveReport reference;
    ASSERT_OK(c.evenOdd ? solve_even_odd(single.A, b, x, options, reference)
                        : solve(single.A, b, x, options, reference));
    ASSERT_TRUE(reference.converged) << reference.message;
    const std::vector<double> xReference = download(x);
    for (const ProcessGrid &grid : gridsForThisJob(info.shape.dims, c.grids)) {
      SCOPED_TRACE(std::string(c.spec) + " on grid " + grid.text());
      Attached dist;
      ASSERT_OK(StencilOperator::create_distributed(
          info, c.extents.data(), world(), grid, dist.A));
      ASSERT_OK(world().agree(attach(dist, inputs)));
      const Decomposition &d = *dist.A.decomposition();
      Field bd, xd;
      ASSERT_OK(Field::create(dist.A.lattice(), bd));
      ASSERT_OK(Field::create(dist.A.lattice(), xd));
      ASSERT_OK(scatter_field(d, bValues.data(),
                              static_cast<std::int64_t>(bValues.size()), bd));
      SolveReport report;
      ASSERT_OK(world().agree(c.evenOdd
                                  ? solve_even_odd(dist.A, bd, xd, options,
                                                   report)
                                  : solve(dist.A, bd, xd, options, report)));
      EXPECT_TRUE(report.converged) << report.message;
      EXPECT_EQ(report.iterations, reference.iterations);
      EXPECT_LT(report.true_relative_residual, 10 * c.tolerance);
      std::vector<double> whole;
      ASSERT_OK(gather_field(d, xd, whole));
      double difference = 0.0;
      if (world().rank() == 0)
        difference = relativeDifference(whole, xReference);
      ASSERT_OK(world().max(difference));
      EXPECT_LT(difference, info.element_bytes == 4 ? 1e-4 : 1e-8);
      if (world().rank() == 0)
        std::printf("[ info     ] %s grid %s: %s%s %d iterations (single "
                    "rank %d), true residual %.2e, solutions differ by "
                    "%.2e\n",
                    c.spec, grid.text().c_str(), method_name(c.method),
                    c.preconditioner == Preconditioner::Jacobi ? " jacobi"
                                                               : "",
                    report.iterations, reference.iterations,
                    report.true_relative_residual, difference);
    }
  }
}

TEST(Distributed, BadProcessGridsAreRefusedClearly) {
  const int n3[3] = {10, 14, 18}, n4[4] = {4, 4, 6, 8};
  const int size = world().size();
  auto grid = [&](int dims, const std::string &text) {
    ProcessGrid g;
    EXPECT_TRUE(parse_process_grid(text, dims, g).ok()) << text;
    return g;
  };
  StencilOperator A;
  // The grid's ranks are not the job's.
  expectFailure(StencilOperator::create_distributed(
                    kernelNamed("t_dist3d_vc_dirichlet"), n3, world(),
                    grid(3, "1,1," + std::to_string(size + 1)), A),
                {"has " + std::to_string(size + 1) + " ranks; the job has " +
                 std::to_string(size)});
  // Malformed grids.
  ProcessGrid bad;
  expectFailure(parse_process_grid("1,2", 3, bad), {"has 2 entries"});
  expectFailure(parse_process_grid("1,0,1", 3, bad), {"must be a positive count"});
  expectFailure(parse_process_grid("1,a,1", 3, bad), {"ranks along y must be a positive count, not 'a'"});
  if (size == 1) {
    // The remaining refusals need a grid that splits.
    return;
  }
  const std::string s = std::to_string(size);
  // Does not divide: 17 - 2 = 15 unknowns along z (Dirichlet).
  const int odd[3] = {10, 14, 17};
  expectFailure(StencilOperator::create_distributed(
                    kernelNamed("t_dist3d_vc_dirichlet"), odd, world(),
                    grid(3, "1,1," + s), A),
                {"ranks along z do not divide its 15 unknowns (nz = 17 minus "
                 "the halo)"});
  // Fewer sites per rank than the reach: t_dist3d_corners_soa reaches 2
  // along z; 2 sites per rank take it, 1 does not.
  const int thin[3] = {8, 6, size};
  expectFailure(StencilOperator::create_distributed(
                    kernelNamed("t_dist3d_corners_soa"), thin, world(),
                    grid(3, "1,1," + s), A),
                {"leaves 1 site per rank along z, fewer than the stencil's "
                 "reach of 2 there"});
  // An axis the spec does not list in grid.split.
  expectFailure(StencilOperator::create_distributed(
                    kernelNamed("t_dist4d_aosoa_c6"), n4, world(),
                    grid(4, s + ",1,1,1"), A),
                {"splits x, which the spec's grid.split does not list"});
  // A spec without grid.split.
  expectFailure(StencilOperator::create_distributed(
                    kernelNamed("t_eo_periodic4d_soa_c3"), n4, world(),
                    grid(4, "1,1,1," + s), A),
                {"does not declare grid.split"});
  // Even/odd storage needs an even number of sites per rank: 6 along z
  // over 2 ranks is 3.
  if (size == 2) {
    const int n[4] = {4, 4, 6, 8};
    expectFailure(StencilOperator::create_distributed(
                      kernelNamed("t_dist_clover4d_eo_f64"), n, world(),
                      grid(4, "1,1,2,1"), A),
                  {"leaves 3 sites per rank along z; even/odd storage needs "
                   "an even number"});
  }
}

TEST(Distributed, RegionLaunchesShareTheSitesWithoutOverlap) {
  // The ranks' kernels restricted to the interior and to the boundary
  // (what an overlapped application launches) write disjoint sets of sites
  // whose union is every updated site, and the interior ones lie where the
  // stencil reads no ghost zone; tiles (t_dist4d_sub_c2 along t) stay
  // whole. Checked on one rank's lattice through DistributedInfo's entries.
  struct Case {
    const char *spec;
    std::vector<int> extents;
  };
  const Case cases[] = {{"t_dist4d_aosoa_c6", {4, 4, 6, 8}},
                        {"t_dist4d_sub_c2", {4, 4, 8, 8}},
                        {"t_dist3d_diag_mixed", {8, 10, 12}},
                        {"t_dist_eo3d_c2", {8, 12, 16}}};
  ProcessGrid one;
  for (const Case &c : cases) {
    SCOPED_TRACE(c.spec);
    const KernelInfo &info = kernelNamed(c.spec);
    ASSERT_OK(parse_process_grid(std::string("1,1,1,1").substr(
                                     0, 2 * info.shape.dims - 1),
                                 info.shape.dims, one));
    // A grid of one rank per job rank is not needed: every rank checks
    // its own copy, with its own one-rank communicator.
    StencilOperator A;
    ASSERT_OK(StencilOperator::create_distributed(info, c.extents.data(),
                                                  Communicator(), one, A));
    const DistributedInfo &dist = *info.distributed;
    const Lattice &lattice = A.lattice();
    Field in;
    ASSERT_OK(Field::create(lattice, in));
    std::vector<double> values = randomValues(lattice.values(), 5);
    ASSERT_OK(in.upload_values(values.data(),
                               static_cast<std::int64_t>(values.size())));
    std::vector<double> params(info.param_defaults,
                               info.param_defaults + info.num_params);
    const Decomposition &d = *A.decomposition();
    Region interior;
    interior.mode = kInteriorSites;
    for (int axis = 0; axis < kMaxDims; ++axis) {
      const int n = axis < d.dims ? d.local[axis] : 1;
      interior.lo[axis] = axis < d.dims && d.exchanged[axis] ? 2 * d.layer[axis] : 0;
      interior.hi[axis] = axis < d.dims && d.exchanged[axis] ? n - 2 * d.layer[axis] : n;
    }
    Region boundary = interior;
    boundary.mode = kBoundarySites;
    // Which sites each launch writes (not NaN afterwards), per operation.
    auto written = [&](const Region &region, bool hop) {
      Field out;
      EXPECT_TRUE(Field::create(lattice, out).ok());
      EXPECT_TRUE(out.fill(std::nan("")).ok());
      if (hop) {
        Field inEven, outOdd;
        EXPECT_TRUE(in.half(0, inEven).ok());
        EXPECT_TRUE(out.half(1, outOdd).ok());
        EXPECT_TRUE(dist.even_to_odd(outOdd.data(), inEven.data(), nullptr,
                                     kHop, 0.0, 1.0, lattice.extents,
                                     params.data(), nullptr, region, nullptr)
                        .ok());
      } else {
        EXPECT_TRUE(dist.apply(out.data(), in.data(), lattice.extents,
                               params.data(), nullptr, region, nullptr)
                        .ok());
      }
      std::vector<double> v = download(out);
      std::vector<bool> w(lattice.sites());
      for (std::int64_t s = 0; s < lattice.sites(); ++s)
        w[s] = !std::isnan(v[s * lattice.components]);
      return w;
    };
    for (bool hop : {false, true}) {
      if (hop && !dist.even_to_odd)
        continue;
      const std::vector<bool> all = written(Region(), hop);
      const std::vector<bool> in1 = written(interior, hop);
      const std::vector<bool> in2 = written(boundary, hop);
      std::int64_t both = 0, missed = 0, extra = 0, inner = 0, outside = 0;
      for (std::int64_t s = 0; s < lattice.sites(); ++s) {
        both += in1[s] && in2[s];
        missed += all[s] && !in1[s] && !in2[s];
        extra += !all[s] && (in1[s] || in2[s]);
        inner += in1[s];
        // Site s (x fastest) of the interior launch lies in the box.
        std::int64_t rest = s;
        bool inBox = true;
        for (int axis = 0; axis < lattice.dims; ++axis) {
          const int coordinate = static_cast<int>(rest % lattice.extents[axis]);
          rest /= lattice.extents[axis];
          inBox &= interior.lo[axis] <= coordinate &&
                   coordinate < interior.hi[axis];
        }
        outside += in1[s] && !inBox;
      }
      EXPECT_EQ(both, 0) << (hop ? "hop" : "apply");
      EXPECT_EQ(missed, 0) << (hop ? "hop" : "apply");
      EXPECT_EQ(extra, 0) << (hop ? "hop" : "apply");
      EXPECT_EQ(outside, 0) << (hop ? "hop" : "apply");
      EXPECT_GT(inner, 0) << (hop ? "hop" : "apply");
    }
  }
}

TEST(Distributed, ExchangePoliciesSwitchWithoutChangingTheResult) {
  // set_exchange() changes the overlap and the transport between
  // applications: the same bits either way; tune_exchange() times each
  // policy, counts the halo bytes and leaves the operator with the fastest.
  const KernelInfo &info = kernelNamed("t_dist4d_aosoa_c6");
  const std::vector<int> extents = {4, 4, 6, 8};
  const Inputs inputs = makeInputs(info, extents);
  for (const ProcessGrid &grid :
       gridsForThisJob(4, {"1,1,1,1", "1,1,1,2", "1,1,2,2"})) {
    SCOPED_TRACE(grid.text());
    Attached dist;
    ASSERT_OK(StencilOperator::create_distributed(info, extents.data(),
                                                  world(), grid, dist.A));
    ASSERT_OK(world().agree(attach(dist, inputs)));
    StencilOperator &A = dist.A;
    Field x, y;
    ASSERT_OK(Field::create(A.lattice(), x));
    ASSERT_OK(Field::create(A.lattice(), y));
    const std::vector<double> v =
        randomValues(A.lattice().values(), 17 + world().rank());
    ASSERT_OK(x.upload_values(v.data(), static_cast<std::int64_t>(v.size())));
    ASSERT_OK(set_halo(x, 0.0));
    std::vector<std::vector<double>> results;
    for (ExchangeOptions options :
         {ExchangeOptions{ExchangeTransport::Auto, true},
          ExchangeOptions{ExchangeTransport::Auto, false},
          ExchangeOptions{ExchangeTransport::Staged, true}}) {
      ASSERT_OK(A.set_exchange(options, "test"));
      EXPECT_EQ(A.overlap(), options.overlap);
      EXPECT_NE(A.kernel_choice().find(options.overlap
                                           ? "overlapped with the interior"
                                           : "before the kernels"),
                std::string::npos);
      EXPECT_NE(A.exchange_choice().find("(test)"), std::string::npos);
      ASSERT_OK(y.fill(std::nan("")));
      ASSERT_OK(world().agree(A.apply(y, x)));
      results.push_back(download(y));
    }
    double differing = 0.0;
    for (size_t i = 0; i < results[0].size(); ++i)
      for (size_t r = 1; r < results.size(); ++r)
        differing += !(results[r][i] == results[0][i]) &&
                     !(std::isnan(results[r][i]) && std::isnan(results[0][i]));
    ASSERT_OK(world().sum(differing));
    EXPECT_EQ(differing, 0.0);

    ExchangeTuneResult tuned;
    ASSERT_OK(tune_exchange(A, [&] { return A.apply(y, x); }, tuned));
    ASSERT_EQ(tuned.timings.size(), 2u); // host: one transport, overlap on/off
    ASSERT_GE(tuned.best, 0);
    for (const ExchangeTiming &t : tuned.timings) {
      EXPECT_GT(t.ms, 0.0);
      EXPECT_EQ(t.policy, "host");
      // The ranks send faces only where the grid splits an axis (a rank
      // that is its own neighbour moves them in place).
      if (grid.splits())
        EXPECT_GT(t.halo_bytes, 0.0);
      else
        EXPECT_EQ(t.halo_bytes, 0.0);
    }
    EXPECT_GE(tuned.repetitions, 3);
    EXPECT_EQ(A.overlap(), tuned.timings[tuned.best].options.overlap);
    EXPECT_NE(A.exchange_choice().find("the fastest of 2 policies"),
              std::string::npos);
  }
  // Only a distributed operator has an exchange to set.
  StencilOperator single;
  ASSERT_OK(StencilOperator::create(info, extents.data(), single));
  expectFailure(single.set_exchange({ExchangeTransport::Auto, false}),
                {"set_exchange needs a distributed operator"});
}

TEST(Distributed, CgRefusesASingularOperatorOnEveryGrid) {
  // laplacian4d_vec24_aosoa with no mass is singular on a periodic lattice
  // (the constant field): the ranks' kernels see Dirichlet ghost zones, but
  // the check judges the lattice's own boundaries, on every rank alike.
  const int n[4] = {4, 4, 8, 8};
  const KernelInfo &info = kernelNamed("laplacian4d_vec24_aosoa");
  for (const ProcessGrid &grid :
       gridsForThisJob(4, {"1,1,1,1", "1,1,1,2", "1,1,2,2"})) {
    SCOPED_TRACE(grid.text());
    StencilOperator A;
    ASSERT_OK(StencilOperator::create_distributed(info, n, world(), grid, A));
    ASSERT_OK(A.set_parameter("mass", 0.0));
    expectFailure(A.check_spd(), {"is not positive definite"});
    ASSERT_OK(A.set_parameter("mass", 0.1));
    ASSERT_OK(A.check_spd());
  }
}

TEST(Distributed, ALinkOneRankCannotStoreFailsEveryRank) {
  // Two-row links need SU(3). A link scaled in the last rank's block (the
  // highest t) had failed that rank alone, and the others waited in
  // set_links' exchange of ghost links.
  const KernelInfo &info = kernelNamed("wilson_clover4d_eo_f64");
  const int extents[4] = {4, 4, 4, 8};
  ProcessGrid grid;
  ASSERT_OK(parse_process_grid("1,1,1," + std::to_string(world().size()), 4,
                               grid));
  StencilOperator A;
  ASSERT_OK(StencilOperator::create_distributed(info, extents, world(), grid,
                                                A));
  Inputs in = makeInputs(info, {4, 4, 4, 8});
  const int last[4] = {1, 2, 3, 7};
  double *link = in.U.link(in.U.site_of(last), 3);
  for (int i = 0; i < in.U.reals_per_link(); ++i)
    link[i] *= 1.5;
  Field links;
  // Every rank returns the failure (the lowest failing rank's: a rank whose
  // ghost layer holds the link fails too).
  expectFailure(A.upload_links(in.U, links),
                {"wilson_clover4d_eo_f64_split: links are stored as two rows",
                 "from unitary with det 1 (tolerance 1e-10)"});
}

TEST(Distributed, CollectiveHelpersCheckTheirArguments) {
  // A root outside the job had ended it in MPI_Abort; a negative count had
  // thrown std::length_error.
  const int extents[3] = {10, 14, 18};
  ProcessGrid grid;
  ASSERT_OK(parse_process_grid("1,1," + std::to_string(world().size()), 3,
                               grid));
  StencilOperator A;
  ASSERT_OK(StencilOperator::create_distributed(
      kernelNamed("t_dist3d_vc_dirichlet"), extents, world(), grid, A));
  Field f;
  ASSERT_OK(Field::create(A.lattice(), f));
  ASSERT_OK(f.fill(1.0));
  std::vector<double> whole;
  expectFailure(gather_field(*A.decomposition(), f, whole, world().size()),
                {"gather_field: root " + std::to_string(world().size()) +
                 " is not a rank of the"});
  expectFailure(gather_field(*A.decomposition(), f, whole, -1),
                {"gather_field: root -1 is not a rank"});
  double value = 1.0;
  expectFailure(world().sum(&value, -1),
                {"Communicator::sum: a count of -1 values"});
}

TEST(Distributed, SolveFailuresOfOneRankReachEveryRank) {
  // A solve's failures are agreed on, or decided by sums every rank holds:
  // each rank returns the failure (no rank waits, no job ends). Before,
  // a tolerance refused on one rank had left the others in check_spd's
  // collective.
  const int extents[3] = {10, 14, 18};
  const KernelInfo &info = kernelNamed("t_dist3d_vc_dirichlet");
  const Inputs inputs = makeInputs(info, {10, 14, 18});
  ProcessGrid grid;
  ASSERT_OK(
      parse_process_grid("1,1," + std::to_string(world().size()), 3, grid));
  Attached dist;
  ASSERT_OK(StencilOperator::create_distributed(info, extents, world(), grid,
                                                dist.A));
  ASSERT_OK(world().agree(attach(dist, inputs)));
  Field b, x;
  ASSERT_OK(Field::create(dist.A.lattice(), b));
  ASSERT_OK(Field::create(dist.A.lattice(), x));
  ASSERT_OK(b.fill(1.0));
  ASSERT_OK(x.fill(0.0));
  const int last = world().size() - 1;
  const std::string lastRank =
      world().distributed() ? "rank " + std::to_string(last) + ": " : "";
  SolveOptions options;
  options.tolerance = world().rank() == last ? 0.0 : 1e-8;
  SolveReport report;
  Status solved = solve(dist.A, b, x, options, report);
  expectFailure(solved, {lastRank +
                         "solve: the tolerance (a relative residual) must be "
                         "between 0 and 1, not 0"});
  EXPECT_EQ(solved.on_every_rank(), world().distributed());
  // solve_even_odd refuses Jacobi among its arguments, agreed the same way.
  options.tolerance = 1e-8;
  options.preconditioner =
      world().rank() == last ? Preconditioner::Jacobi : Preconditioner::None;
  expectFailure(solve_even_odd(dist.A, b, x, options, report),
                {lastRank + "solve_even_odd: the Schur complement is itself "
                            "the preconditioning"});
  // The arguments agree: the solve runs.
  options.preconditioner = Preconditioner::None;
  ASSERT_OK(solve(dist.A, b, x, options, report));
  EXPECT_TRUE(report.converged) << report.message;
  // A value that is not finite in the last rank's block only: every rank's
  // norm of b is NaN.
  std::vector<double> values(b.lattice().values(), 1.0);
  const int *n = b.lattice().extents; // site (3, 3, 3): not halo
  if (world().rank() == last)
    values[(3 + 3 * n[0] + 3 * n[0] * n[1]) * b.lattice().components] = NAN;
  ASSERT_OK(
      b.upload_values(values.data(), static_cast<std::int64_t>(values.size())));
  ASSERT_OK(set_halo(b, 0.0));
  solved = solve(dist.A, b, x, options, report);
  expectFailure(solved, {"solve: the norm of b is not finite"});
  EXPECT_TRUE(solved.on_every_rank());
  if (!world().distributed())
    return;
  // Valid options that differ (the ranks would stop at different
  // iterations), and a parameter set on one rank only (another system):
  // refused on every rank, naming both.
  ASSERT_OK(b.fill(1.0));
  ASSERT_OK(set_halo(b, 0.0));
  options.tolerance = world().rank() == last ? 1e-9 : 1e-8;
  solved = solve(dist.A, b, x, options, report);
  expectFailure(solved,
                {"solve's options and the operator's parameters differ "
                 "between the ranks: rank 0 has 'solve, cg, preconditioner "
                 "none, tolerance 1e-08,",
                 "rank " + std::to_string(last) +
                     " 'solve, cg, preconditioner none, tolerance "
                     "1.0000000000000001e-09,"});
  EXPECT_TRUE(solved.on_every_rank());
  options.tolerance = 1e-8;
  ASSERT_OK(dist.A.set_parameter("s", world().rank() == last ? 0.75 : 0.5));
  expectFailure(solve(dist.A, b, x, options, report),
                {"differ between the ranks", ", s 0.5'",
                 ", s 0.75'; every rank needs the same"});
  ASSERT_OK(dist.A.set_parameter("s", 0.5));
  ASSERT_OK(solve(dist.A, b, x, options, report));
}

TEST(Distributed, RanksCreatingOtherLatticesAreRefused) {
  // The last rank asks for another lattice: every rank is refused before
  // the ranks divide it (they had waited for each other's messages).
  if (!world().distributed())
    return;
  const int last = world().size() - 1;
  const KernelInfo &info = kernelNamed("t_dist3d_vc_dirichlet");
  const int extents[3] = {10, 14, world().rank() == last ? 22 : 18};
  ProcessGrid grid;
  ASSERT_OK(
      parse_process_grid("1,1," + std::to_string(world().size()), 3, grid));
  StencilOperator A;
  const std::string size = std::to_string(world().size());
  const Status created =
      StencilOperator::create_distributed(info, extents, world(), grid, A);
  expectFailure(created,
                {"create_distributed's stencil, extents and process grid "
                 "differ between the ranks: rank 0 has "
                 "'t_dist3d_vc_dirichlet (fingerprint " +
                 std::string(info.fingerprint) +
                 ") on 10x14x18, process grid 1x1x" + size + "', rank " +
                 std::to_string(last) +
                 " 't_dist3d_vc_dirichlet (fingerprint " + info.fingerprint +
                 ") on 10x14x22, process grid 1x1x" + size + "'"});
  EXPECT_TRUE(created.on_every_rank());
}

TEST(Distributed, EveryRankLearnsWhichRankFailed) {
  // Rank size - 1 fails (the only rank of a one-rank job).
  const int last = world().size() - 1;
  const Status mine = world().rank() == last
                          ? Status::failure("out of device memory")
                          : Status();
  const Status agreed = world().agree(mine);
  EXPECT_FALSE(agreed.ok());
  if (world().distributed()) {
    EXPECT_EQ(agreed.message(),
              "rank " + std::to_string(last) + ": out of device memory");
  }
  double one = 1.0;
  ASSERT_OK(world().sum(one));
  EXPECT_EQ(one, world().size());
}

/// tests/cli/mpi-local-failure.test: the last rank alone passes a field
/// of another lattice to the collective call `call`; the others pass good
/// ones and would wait for it. The job must end with the message, not
/// hang. Returns 0 when every call returned.
int failOnTheLastRank(const std::string &call) {
  const bool evenOdd = call == "hop" || call == "schur";
  const KernelInfo &info =
      kernelNamed(evenOdd ? "t_dist_eo3d_c2" : "t_dist3d_vc_dirichlet");
  const std::vector<int> extents =
      evenOdd ? std::vector<int>{6, 6, 16} : std::vector<int>{10, 14, 18};
  ProcessGrid grid;
  Attached op;
  Status status =
      parse_process_grid("1,1," + std::to_string(world().size()), 3, grid);
  if (status.ok())
    status = StencilOperator::create_distributed(info, extents.data(), world(),
                                                 grid, op.A);
  if (status.ok())
    status = world().agree(attach(op, makeInputs(info, extents)));
  if (!status.ok()) {
    std::fprintf(stderr, "set-up failed: %s\n", status.message().c_str());
    return 2;
  }
  const bool last = world().rank() == world().size() - 1;
  // The wrong field: the lattice with two more sites along x.
  Lattice right = op.A.lattice();
  if (call == "set_site_parameter")
    status = op.A.site_lattice(info.param_names[0], right);
  Lattice wrong = right;
  wrong.extents[0] += 2;
  Field in, out, bad;
  if (status.ok())
    status = Field::create(right, in);
  if (status.ok())
    status = Field::create(op.A.lattice(), out);
  if (status.ok())
    status = Field::create(wrong, bad);
  if (status.ok())
    status = in.fill(1.0);
  if (status.ok())
    status = bad.fill(1.0);
  if (status = world().agree(status); !status.ok()) {
    std::fprintf(stderr, "set-up failed: %s\n", status.message().c_str());
    return 2;
  }
  const Field &given = last ? bad : in;
  Field inEven, outOdd, outEven;
  if (evenOdd) {
    (void)given.half(0, inEven);
    (void)out.half(1, outOdd);
    (void)out.half(0, outEven);
  }
  Reducer reducer(op.A.communicator());
  double result = 0.0;
  if (call == "apply") {
    status = op.A.apply(out, given);
  } else if (call == "dot") {
    status = reducer.dot(out, given, result);
  } else if (call == "set_site_parameter") {
    status = op.A.set_site_parameter(info.param_names[0], given);
  } else if (call == "hop") {
    status = op.A.hop(StencilOperator::Hop::EvenToOdd, false, outOdd, inEven);
  } else if (call == "schur") {
    SchurComplement S;
    status = SchurComplement::create(op.A, S);
    if (status.ok())
      status = S.apply(outEven, inEven);
  } else {
    std::fprintf(stderr, "unknown call '%s'\n", call.c_str());
    return 2;
  }
  std::printf("rank %d: %s returned: %s\n", world().rank(), call.c_str(),
              status.ok() ? "ok" : status.message().c_str());
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  MpiSession session(argc, argv);
  const std::string failOption = "--fail-on-the-last-rank=";
  if (argc == 2 && std::string(argv[1]).rfind(failOption, 0) == 0)
    return failOnTheLastRank(argv[1] + failOption.size());
  ::testing::InitGoogleTest(&argc, argv);
  // One report, rank 0's; the others print failures only.
  if (world().rank() != 0) {
    ::testing::TestEventListeners &listeners =
        ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  const int failed = RUN_ALL_TESTS();
  // Every rank's verdict: the job fails if any rank failed.
  double worst = failed;
  (void)world().max(worst);
  return worst != 0 ? 1 : 0;
}
