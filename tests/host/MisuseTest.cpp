// The runtime's API misused: each case is an error that names what is
// wrong, where it had crashed, read out of bounds or answered wrongly (an
// audit of the API under AddressSanitizer found them).
#include "HostFixtures.h"

#include "stencil/blas.hpp"
#include "stencil/clover.hpp"
#include "stencil/comm.hpp"
#include "stencil/even_odd.hpp"
#include "stencil/field.hpp"
#include "stencil/gauge.hpp"
#include "stencil/operator.hpp"
#include "stencil/random.hpp"
#include "stencil/solver.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

using namespace stencil;
using stencilc::testing::downloadValues;
using stencilc::testing::expectFailure;
using stencilc::testing::randomInteriorField;

namespace {

const KernelInfo &kernel(const std::string &name) {
  return stencilc::testing::kernelNamed(name);
}

TEST(Misuse, LatticesTooLargeToIndexAreRefused) {
  // Each extent fits the launch grid, but 429509837 x 384773 x 27905 sites
  // are 2^62 + 1: the byte count had wrapped to 4 and apply had written
  // past a 4-byte buffer.
  const int extents[3] = {429509837, 384773, 27905};
  StencilOperator A;
  expectFailure(StencilOperator::create(kernel("laplacian3d_f32"), extents, A),
                {"laplacian3d_f32", "extent nz = 27905",
                 "too large to index"});
  EXPECT_FALSE(A.created());
  // 2^62 float sites: the sites fit, their bytes do not.
  Lattice l = lattice_for(kernel("laplacian3d_f32"), extents);
  l.extents[0] = 1 << 30;
  l.extents[1] = 1 << 30;
  l.extents[2] = 4;
  Field f;
  expectFailure(Field::create(l, f), {"field: ", "do not fit in 64-bit"});
}

TEST(Misuse, HandBuiltLayoutsAreChecked) {
  const int extents[3] = {8, 8, 8};
  const Lattice good = lattice_for(kernel("laplacian3d_f64"), extents);
  Field f;
  auto refused = [&](auto change, std::initializer_list<std::string> texts) {
    Lattice l = good;
    change(l);
    expectFailure(Field::create(l, f), texts);
    EXPECT_FALSE(f.has_storage());
  };
  // Each had divided by zero, written past the array or read past a table.
  refused([](Lattice &l) { l.layout.order = kBlocked, l.layout.block = 0; },
          {"blocks of 0 sites"});
  refused([](Lattice &l) { l.layout.order = kBlocked, l.layout.block = -8; },
          {"blocks of -8 sites"});
  refused([](Lattice &l) { l.layout.sub[1] = 0; },
          {"subdomain extent 0 along y"});
  refused([](Lattice &l) { l.layout.order = 7; },
          {"layout order 7 is not aos (0), soa (1) or aosoa (2)"});
  refused([](Lattice &l) { l.components = 0; }, {"0 components per site"});
  refused([](Lattice &l) { l.components = -2; }, {"-2 components per site"});
  refused([](Lattice &l) { l.parity = 5; }, {"parity 5"});
  refused([](Lattice &l) { l.halo[2] = -1; }, {"halo -1 along z"});
  refused([](Lattice &l) { l.layout.vector = 0; }, {"groups of 0 values"});
  refused([](Lattice &l) { l.layout.even_odd = 2; }, {"even_odd is 2"});
  refused([](Lattice &l) { l.layout.sub[3] = 2; },
          {"subdomain extent 2 along t is not 1 (no such axis)"});
  // A description of any of them names the value instead of reading past
  // its table.
  Lattice odd = good;
  odd.layout.order = 7;
  EXPECT_NE(odd.describe().find("order 7"), std::string::npos);
}

TEST(Misuse, FieldsWithoutStorageAreRefused) {
  Field empty;
  std::vector<double> values(8, 1.0);
  const char *const noStorage = "the field has no storage";
  expectFailure(empty.upload_values(values.data(), 8), {"upload", noStorage});
  expectFailure(empty.download_values(values.data(), 8),
                {"download", noStorage});
  expectFailure(empty.fill(1.0), {noStorage});

  const int extents[3] = {8, 7, 6};
  StencilOperator A;
  ASSERT_OK(StencilOperator::create(kernel("laplacian3d_f64"), extents, A));
  Random random(5);
  Field x, moved;
  randomInteriorField(A.lattice(), random, x);
  moved = std::move(x); // x keeps its lattice but no memory
  EXPECT_FALSE(x.has_storage());
  std::vector<double> all(A.lattice().values());
  expectFailure(x.upload_values(all.data(), all.size()), {noStorage});
  expectFailure(x.copy_from(moved), {"copy: destination", noStorage});
  expectFailure(moved.copy_from(x), {"copy: source", noStorage});
  expectFailure(axpy(1.0, moved, x), {"axpy", noStorage});
  Reducer reducer;
  double dot = 0.0;
  expectFailure(reducer.dot(moved, x, dot), {"dot", noStorage});
  expectFailure(A.apply(x, moved), {"apply: out", noStorage});
  SolveReport report;
  expectFailure(solve(A, moved, x, SolveOptions(), report),
                {"solve: x", noStorage});
  // Null host buffers.
  expectFailure(moved.upload_values(nullptr, all.size()),
                {"upload: the host buffer is null"});
  expectFailure(moved.download(nullptr, A.lattice().bytes()),
                {"download: the host buffer is null"});
}

TEST(Misuse, OperatorsNeverCreatedAreRefused) {
  const char *const never = "the operator was never created";
  StencilOperator A;
  EXPECT_FALSE(A.created());
  expectFailure(A.set_parameter("mass", 1.0), {"set_parameter", never});
  expectFailure(A.check_spd(), {"check_spd", never});
  Field x, y;
  expectFailure(A.apply(y, x), {"apply", never});
  SolveReport report;
  expectFailure(solve(A, x, y, SolveOptions(), report), {"solve", never});

  const int extents[4] = {6, 4, 8, 10};
  StencilOperator B;
  ASSERT_OK(StencilOperator::create(kernel("laplacian4d_vec24_eo"), extents,
                                    B));
  StencilOperator C = std::move(B); // B's parameters moved out with it
  EXPECT_FALSE(B.created());
  EXPECT_TRUE(C.created());
  expectFailure(B.set_parameter("mass", 0.5), {never});
  ASSERT_OK(C.set_parameter("mass", 0.5));

  SchurComplement S;
  Field even;
  expectFailure(S.apply(even, even), {"Schur complement: apply",
                                      "never created"});
  expectFailure(S.prepare(x, even), {"Schur complement: prepare"});
}

TEST(Misuse, FieldsTheOperationWouldOverwriteAreRefused) {
  Random random(11);
  // x as the operator's own coefficient field: the solve had reported
  // convergence at a true residual of 0.19.
  const int extents3[3] = {10, 9, 8};
  StencilOperator A;
  ASSERT_OK(StencilOperator::create(kernel("poisson3d_varcoeff"), extents3,
                                    A));
  std::vector<std::unique_ptr<Field>> sites;
  ASSERT_OK(stencilc::testing::attachRandomSiteParameters(A, random, 0.5, 2.0,
                                                          sites));
  Field b;
  randomInteriorField(A.lattice(), random, b);
  ASSERT_FALSE(sites.empty());
  EXPECT_TRUE(A.reads(*sites.back()));
  EXPECT_FALSE(A.reads(b));
  SolveReport report;
  expectFailure(solve(A, b, *sites.back(), SolveOptions(), report),
                {"solve: x is one of the operator's own fields"});

  // The Schur complement's prepare and reconstruct write before they read.
  const int extents4[4] = {6, 4, 8, 10};
  StencilOperator E;
  ASSERT_OK(StencilOperator::create(kernel("laplacian4d_vec24_eo"), extents4,
                                    E));
  SchurComplement S;
  ASSERT_OK(SchurComplement::create(E, S));
  Field whole, even;
  randomInteriorField(E.lattice(), random, whole);
  ASSERT_OK(whole.half(0, even));
  expectFailure(S.prepare(whole, even),
                {"prepare's rhs shares memory with b"});
  expectFailure(S.reconstruct(whole, whole),
                {"reconstruct's x shares memory with b"});
  // A view that replaces its own field: the field's memory had been freed
  // under the view.
  expectFailure(whole.half(1, whole), {"the view may not be the field"});
  EXPECT_TRUE(whole.has_storage());
}

TEST(Misuse, SchurComplementFollowsTheOperatorsParameters) {
  // Created at mass 0.1, then the mass changed: prepare and reconstruct
  // had kept the old D_o^-1 while the hops read the new mass.
  const int extents[4] = {6, 4, 8, 10};
  StencilOperator A;
  ASSERT_OK(StencilOperator::create(kernel("laplacian4d_vec24_eo"), extents,
                                    A));
  SchurComplement early;
  ASSERT_OK(SchurComplement::create(A, early));
  ASSERT_OK(A.set_parameter("mass", 0.5));
  SchurComplement fresh;
  ASSERT_OK(SchurComplement::create(A, fresh));
  Random random(3);
  Field b, x;
  randomInteriorField(A.lattice(), random, b);
  randomInteriorField(A.lattice(), random, x);
  Field rhsEarly, rhsFresh;
  ASSERT_OK(Field::create(early.lattice(), rhsEarly));
  ASSERT_OK(Field::create(fresh.lattice(), rhsFresh));
  ASSERT_OK(rhsEarly.fill(std::nan("")));
  ASSERT_OK(early.prepare(b, rhsEarly));
  ASSERT_OK(fresh.prepare(b, rhsFresh));
  EXPECT_EQ(downloadValues(rhsEarly), downloadValues(rhsFresh));
  Field xEarly;
  randomInteriorField(A.lattice(), random, xEarly);
  ASSERT_OK(xEarly.copy_from(x));
  ASSERT_OK(early.reconstruct(b, xEarly));
  ASSERT_OK(fresh.reconstruct(b, x));
  EXPECT_EQ(downloadValues(xEarly), downloadValues(x));
}

TEST(Misuse, SchurComplementFollowsTheSiteParameters) {
  // A coefficient array changed in place, set again, or replaced by a new
  // array that may reuse the old one's address: the diagonal follows.
  const int extents[3] = {8, 8, 8};
  StencilOperator A;
  ASSERT_OK(StencilOperator::create(kernel("t_bf16_eo3d_aosoa"), extents, A));
  Random random(13);
  std::vector<std::unique_ptr<Field>> arrays;
  ASSERT_OK(stencilc::testing::attachRandomSiteParameters(A, random, 0.5, 2.0,
                                                          arrays));
  SchurComplement early;
  ASSERT_OK(SchurComplement::create(A, early));
  Field b;
  randomInteriorField(A.lattice(), random, b);
  auto agreesWithAFreshOne = [&] {
    SchurComplement fresh;
    ASSERT_OK(SchurComplement::create(A, fresh));
    Field rhsEarly, rhsFresh;
    ASSERT_OK(Field::create(early.lattice(), rhsEarly));
    ASSERT_OK(Field::create(fresh.lattice(), rhsFresh));
    ASSERT_OK(early.prepare(b, rhsEarly));
    ASSERT_OK(fresh.prepare(b, rhsFresh));
    EXPECT_EQ(downloadValues(rhsEarly), downloadValues(rhsFresh));
  };
  // New values in place: the diagonal reads the array, so it is computed
  // again with no set_ call; then the array set again.
  Field &s = *arrays.front();
  std::vector<double> values(s.lattice().values());
  for (double &v : values)
    v = random.uniform(3.0, 4.0);
  const std::uint64_t generation = A.parameter_generation();
  ASSERT_OK(s.upload_values(values.data(), values.size()));
  EXPECT_EQ(A.parameter_generation(), generation);
  agreesWithAFreshOne();
  ASSERT_OK(A.set_site_parameter("s", s));
  agreesWithAFreshOne();
  // A new array, likely where the old one was.
  arrays.clear();
  ASSERT_OK(stencilc::testing::attachRandomSiteParameters(A, random, 5.0, 6.0,
                                                          arrays));
  agreesWithAFreshOne();
  // Made on an operator that was never created.
  StencilOperator never;
  SchurComplement S;
  expectFailure(SchurComplement::create(never, S),
                {"Schur complement: create", "never created"});
}

TEST(Misuse, NonFiniteInputsAreNamed) {
  const int extents[3] = {10, 9, 8};
  StencilOperator A;
  ASSERT_OK(StencilOperator::create(kernel("laplacian3d_f64"), extents, A));
  Random random(7);
  Field b, x;
  randomInteriorField(A.lattice(), random, b);
  ASSERT_OK(Field::create(A.lattice(), x));
  std::vector<double> values = downloadValues(b);
  values[5 + 10 * (4 + 9 * 4)] = std::numeric_limits<double>::quiet_NaN();
  ASSERT_OK(b.upload_values(values.data(), values.size()));
  SolveReport report;
  // It had stopped at "iteration cap reached" (or blamed the operator).
  expectFailure(solve(A, b, x, SolveOptions(), report),
                {"solve: the norm of b is not finite"});
  // An interior site's NaN in x.
  randomInteriorField(A.lattice(), random, b);
  ASSERT_OK(x.upload_values(values.data(), values.size()));
  expectFailure(solve(A, b, x, SolveOptions(), report),
                {"solve: the norm of the initial x is not finite"});
  // b = 0 sets x = 0 whatever it held.
  Field zero;
  ASSERT_OK(Field::create(A.lattice(), zero));
  ASSERT_OK(solve(A, zero, x, SolveOptions(), report));
  EXPECT_TRUE(report.converged);
  // A b whose squares underflow is not zero: it had been solved as x = 0
  // and reported converged.
  Field tiny;
  randomInteriorField(A.lattice(), random, tiny);
  ASSERT_OK(scale(1e-170, tiny));
  ASSERT_OK(x.fill(0.5));
  expectFailure(solve(A, tiny, x, SolveOptions(), report),
                {"solve: b is not zero, but its norm (", "e-16",
                 ") underflows in double", "scale the system"});
  // A relative residual of 1 is met by x = 0.
  SolveOptions loose;
  for (double tolerance : {1.0, 2.0, 0.0, -1e-8}) {
    loose.tolerance = tolerance;
    expectFailure(solve(A, b, x, loose, report),
                  {"solve: the tolerance (a relative residual) must be "
                   "between 0 and 1, not "});
  }
  // NaN in the halo, which the solve ignores and zeroes: accepted.
  std::vector<double> halo = downloadValues(b);
  halo[0] = std::numeric_limits<double>::quiet_NaN(); // site (0, 0, 0)
  ASSERT_OK(b.upload_values(halo.data(), halo.size()));
  ASSERT_OK(x.fill(0.0));
  ASSERT_OK(solve(A, b, x, SolveOptions(), report));
  EXPECT_TRUE(report.converged);

  // A NaN link is the least unitary of all, not a perfect one.
  GaugeField U;
  const int lattice[4] = {4, 4, 4, 4};
  ASSERT_OK(GaugeField::create(4, lattice, 3, U));
  EXPECT_EQ(U.unitarity_deviation(), 0.0);
  U.data()[5] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(std::isinf(U.unitarity_deviation()));
}

TEST(Misuse, HelpersCheckTheirRanges) {
  ProcessGrid grid;
  // ranks[] holds four axes: a fifth had been written past it.
  expectFailure(parse_process_grid("1x1x1x1x1", 5, grid),
                {"a lattice of 5 axes (1 to 4 expected)"});
  grid.dims = 5;
  EXPECT_EQ(grid.text(), "1x1x1x1");

  // A hand-built grid: two negative counts multiply to the one rank's
  // total, and four large ones overflow an int's product.
  const int extents[3] = {9, 8, 8};
  const int boundary[3] = {0, 0, 0};
  const int reach[3] = {1, 1, 1};
  const bool layered[3] = {true, true, true};
  Decomposition decomposition;
  ProcessGrid signs;
  signs.dims = 3;
  signs.ranks[0] = -1;
  signs.ranks[2] = -1;
  expectFailure(decompose(Communicator(), signs, 3, extents, boundary,
                          reach, layered, layered, false, decomposition),
                {"process grid -1x1x-1: ranks along x must be a positive "
                 "count, not -1"});
  ProcessGrid huge;
  huge.dims = 3;
  huge.ranks[0] = huge.ranks[1] = huge.ranks[2] = 65536;
  expectFailure(decompose(Communicator(), huge, 3, extents, boundary, reach,
                          layered, layered, false, decomposition),
                {"process grid 65536x65536x65536 has more than 2147483647 "
                 "ranks; the job has 1"});

  GaugeField U;
  const int lattice[4] = {4, 4, 4, 4};
  ASSERT_OK(GaugeField::create(4, lattice, 3, U));
  CloverField A, box;
  ASSERT_OK(CloverField::create(U, 0.1, 1.0, A));
  const int first[4] = {0, 0, 0, 0};
  const int negative[4] = {-2, -2, 1, 1};
  expectFailure(A.box(first, negative, box),
                {"clover box: extent -2 along axis 0 is not positive"});
}

} // namespace
