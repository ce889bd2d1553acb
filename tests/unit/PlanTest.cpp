// The kernel plan: load and store counts from the AMD lab note, ordering
// rules, and the invariants the emitter relies on.
#include "TestSupport.h"

#include "plan/Plan.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/JSON.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <tuple>

using namespace stencilc;
using namespace stencilc::testing;

namespace {

/// The lab note's 1-D example, f = u[-1] + u[0] + u[+1], tiled along x.
StencilModel threePoint(int factor, LoadOrder order) {
  StencilModel model;
  model.name = "three";
  model.dims = 1;
  for (int dx : {-1, 0, 1}) {
    Tap tap;
    tap.offset[0] = dx;
    tap.coefficient.constant = 1.0;
    model.taps.push_back(tap);
  }
  computeReach(model);
  model.kernel.block = {256, 1, 1, 1};
  model.kernel.tileAxis = 0;
  model.kernel.tileFactor = factor;
  model.kernel.loadOrder = order;
  if (order == LoadOrder::Explicit)
    model.kernel.tapOrder = {2, 1, 0};
  return model;
}

StencilModel sevenPoint(int factor, const std::string &order) {
  CheckResult result = checkYaml(laplacianSpec(
      "  tile: {axis: y, factor: " + std::to_string(factor) +
      "}\n  load_order: \"" + order + "\"\n"));
  EXPECT_TRUE(result.model.has_value()) << result.output;
  return *result.model;
}

TEST(Plan, LabNoteOneDimensionalTable) {
  const std::map<int, int> loadsForFactor = {
      {1, 3}, {2, 4}, {4, 6}, {8, 10}, {16, 18}};
  for (LoadOrder order :
       {LoadOrder::AsWritten, LoadOrder::Ascending, LoadOrder::Explicit})
    for (auto [factor, loads] : loadsForFactor) {
      KernelPlan plan = planKernel(threePoint(factor, order));
      EXPECT_EQ(plan.loadsPerTile(), loads)
          << "factor " << factor << ", order " << loadOrderName(order);
      EXPECT_EQ(plan.storesPerTile(), factor);
    }
}

TEST(Plan, SevenPointTiledAlongYLoadsFiveMPlusTwo) {
  for (const char *order : {"as-written", "ascending", "-Z-Y-X C+X+Y+Z"})
    for (int m : {1, 2, 3, 4, 8, 16}) {
      KernelPlan plan = planKernel(sevenPoint(m, order));
      EXPECT_EQ(plan.loadsPerTile(), 5 * m + 2) << order << " m=" << m;
      EXPECT_EQ(plan.storesPerTile(), m);
    }
}

TEST(Plan, AscendingLoadsAreSortedByLinearAddress) {
  for (int m : {1, 2, 4, 8}) {
    KernelPlan plan = planKernel(sevenPoint(m, "ascending"));
    for (size_t i = 1; i < plan.loads.size(); ++i)
      EXPECT_TRUE(
          precedesInMemory(plan.loads[i - 1].offset, plan.loads[i].offset))
          << "m=" << m << " load " << i;
  }
  // The lab note's kernel 3 for m = 2: z-1 row, y-1, the x rows of both
  // sites, y+1 of the last site, z+1 row.
  KernelPlan plan = planKernel(sevenPoint(2, "ascending"));
  std::vector<Offset> expected = {
      {0, 0, -1, 0}, {0, 1, -1, 0}, {0, -1, 0, 0}, {-1, 0, 0, 0},
      {0, 0, 0, 0},  {1, 0, 0, 0},  {-1, 1, 0, 0}, {0, 1, 0, 0},
      {1, 1, 0, 0},  {0, 2, 0, 0},  {0, 0, 1, 0},  {0, 1, 1, 0}};
  ASSERT_EQ(plan.loads.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_EQ(plan.loads[i].offset, expected[i]) << "load " << i;
}

TEST(Plan, AsWrittenFollowsTheSpecSiteBySite) {
  StencilModel model = sevenPoint(2, "as-written");
  KernelPlan plan = planKernel(model);
  for (size_t tap = 0; tap < model.taps.size(); ++tap)
    EXPECT_EQ(plan.loads[tap].offset, model.taps[tap].offset);
  // Site 1 then adds only what site 0 did not load: its centre is site 0's
  // y+1, loaded already, so its first new load is its x-1.
  EXPECT_EQ(plan.loads[7].offset, (Offset{-1, 1, 0, 0}));
  EXPECT_EQ(plan.loadsPerTile(), 12);
}

TEST(Plan, ExplicitOrderIsTapByTapAcrossTheTile) {
  KernelPlan plan = planKernel(sevenPoint(2, "-Z-Y-X C+X+Y+Z"));
  EXPECT_EQ(plan.loads[0].offset, (Offset{0, 0, -1, 0}));
  EXPECT_EQ(plan.loads[1].offset, (Offset{0, 1, -1, 0}));
  EXPECT_EQ(plan.loads[2].offset, (Offset{0, -1, 0, 0}));
  // -Y of site 1 is the centre of site 0, loaded here, not again at C.
  EXPECT_EQ(plan.loads[3].offset, (Offset{0, 0, 0, 0}));
}

TEST(Plan, EverySiteTapPairAccumulatesOnceAndInitialisesFirst) {
  for (const char *order : {"as-written", "ascending", "-Z-Y-X C+X+Y+Z"}) {
    StencilModel model = sevenPoint(4, order);
    KernelPlan plan = planKernel(model);
    std::set<std::pair<int, int>> seen;
    std::vector<bool> started(plan.tileFactor, false);
    for (const PlanStep &step : plan.steps)
      for (const PlannedAccumulation &acc : step.accumulations) {
        EXPECT_TRUE(seen.insert({acc.site, acc.tap}).second);
        EXPECT_EQ(acc.first, !started[acc.site]);
        started[acc.site] = true;
        Offset expected = model.taps[acc.tap].offset;
        expected[plan.tileAxis] += acc.site;
        EXPECT_EQ(plan.loads[step.load].offset, expected);
      }
    EXPECT_EQ(seen.size(), model.taps.size() * plan.tileFactor);
  }
}

/// Groups of `width` sites along x (vector_width of a scalar field): each
/// row of the tile is one vector load plus the halo values beside the group,
/// and each (site, lane, tap) reads the value at its own offset.
TEST(Plan, GroupsAlongXLoadEachRowOnceWithItsHalo) {
  for (const char *order : {"as-written", "ascending", "-Z-Y-X C+X+Y+Z"})
    for (int width : {2, 4})
      for (int m : {1, 2, 4}) {
        StencilModel model = sevenPoint(m, order);
        model.kernel.vectorWidth = width;
        KernelPlan plan = planKernel(model);
        SCOPED_TRACE(std::string(order) + " width " + std::to_string(width) +
                     " m " + std::to_string(m));
        // 3m + 2 rows (m + 2 along y at z = 0, m at z = -1 and at z = +1),
        // one vector each, and 2 halo values beside each of the m centre
        // rows: 5m + 2 loads, as many as one site wide, for `width` times
        // the sites.
        EXPECT_EQ(plan.loadsPerTile(), 5 * m + 2);
        EXPECT_EQ(llvm::count_if(plan.loads,
                                 [&](const PlannedLoad &l) {
                                   return l.width == width;
                                 }),
                  3 * m + 2);
        EXPECT_EQ(plan.sitesPerTile(), m * width);
        EXPECT_DOUBLE_EQ(plan.loadsPerSite(),
                         static_cast<double>(5 * m + 2) / (m * width));
        std::set<std::tuple<int, int, int>> seen;
        std::vector<bool> started(plan.sitesPerTile(), false);
        for (const PlanStep &step : plan.steps) {
          const PlannedLoad &load = plan.loads[step.load];
          EXPECT_EQ(load.width == 1, load.clampX);
          EXPECT_TRUE(load.width == width || load.offset[0] == -1 ||
                      load.offset[0] == width)
              << formatOffset(load.offset, 3);
          for (const PlannedAccumulation &acc : step.accumulations) {
            EXPECT_TRUE(seen.insert({acc.site, acc.lane, acc.tap}).second);
            int s = acc.site * width + acc.lane;
            EXPECT_EQ(acc.first, !started[s]);
            started[s] = true;
            Offset expected = model.taps[acc.tap].offset;
            expected[plan.tileAxis] += acc.site;
            expected[0] += acc.lane;
            Offset read = load.offset;
            read[0] += acc.element;
            EXPECT_EQ(read, expected);
            EXPECT_LT(acc.element, load.width);
          }
        }
        EXPECT_EQ(seen.size(), model.taps.size() * plan.sitesPerTile());
      }
}

TEST(Plan, ClampsOnlyLoadsBeyondTheLastStoredSitesReach) {
  KernelPlan plan = planKernel(sevenPoint(4, "ascending"));
  for (const PlannedLoad &load : plan.loads)
    EXPECT_EQ(load.clampTileAxis, load.offset[1] > 1)
        << formatOffset(load.offset, 3);
}

TEST(Plan, BytesAndFlopsPerSite) {
  KernelPlan plan = planKernel(sevenPoint(1, "ascending"));
  EXPECT_EQ(plan.bytesPerSite(), 16);
  EXPECT_EQ(plan.flopsPerSite, 13);
  StencilModel vector = sevenPoint(1, "ascending");
  vector.components = 24;
  vector.precision = Precision::Float;
  KernelPlan vectorPlan = planKernel(vector);
  EXPECT_EQ(vectorPlan.bytesPerSite(), 2 * 24 * 4);
  EXPECT_EQ(vectorPlan.flopsPerSite, 24 * 13);
}

TEST(Plan, PrintsReadably) {
  std::string text;
  llvm::raw_string_ostream os(text);
  StencilModel model = sevenPoint(2, "ascending");
  printPlan(model, planKernel(model), os);
  os.flush();
  EXPECT_NE(text.find("loads per tile: 12, stores per tile: 2"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("load  u0 = in(0, 0, -1)"), std::string::npos) << text;
  EXPECT_NE(text.find("acc0  = -h * u0"), std::string::npos) << text;
  EXPECT_NE(text.find("store out(0, 1, 0) = acc1"), std::string::npos) << text;
}

} // namespace

namespace {

TEST(Plan, EvenOddAddsHoppingKernelsWithoutTheCentre) {
  std::string yaml = laplacianSpec();
  yaml.replace(yaml.find("field: {precision: double}"),
               std::string("field: {precision: double}").size(),
               "field: {precision: double, even_odd: true}");
  CheckResult result = checkYaml(yaml);
  ASSERT_TRUE(result.model.has_value()) << result.output;
  std::vector<KernelPlan> plans = planKernels(*result.model);
  ASSERT_EQ(plans.size(), 3u); // symmetric: A and its two hops
  const KernelPlan *toOdd = findPlan(plans, KernelRole::Apply, Hop::EvenToOdd);
  const KernelPlan *toEven =
      findPlan(plans, KernelRole::Apply, Hop::OddToEven);
  ASSERT_NE(toOdd, nullptr);
  ASSERT_NE(toEven, nullptr);
  EXPECT_EQ(findPlan(plans, KernelRole::Adjoint, Hop::EvenToOdd), nullptr);
  EXPECT_EQ(toOdd->kernelName, "lap_even_to_odd_kernel");
  EXPECT_EQ(toEven->kernelName, "lap_odd_to_even_kernel");
  for (const KernelPlan *plan : {toOdd, toEven}) {
    EXPECT_EQ(plan->loadsPerTile(), 6); // the neighbours only
    EXPECT_EQ(plan->tileFactor, 1);
    for (const PlannedLoad &load : plan->loads)
      EXPECT_NE(load.offset, Offset{});
    EXPECT_EQ(plan->flopsPerSite, 11); // 6 multiplies, 5 adds
    EXPECT_EQ(plan->bytesPerSite(), 16);
  }
  // A non-symmetric stencil also gets the hops of A^T.
  std::string upwind = yaml;
  upwind.replace(upwind.find("[1, 0, 0], coefficient: -h"),
                 std::string("[1, 0, 0], coefficient: -h").size(),
                 "[1, 0, 0], coefficient: -0.5*h");
  CheckResult skew = checkYaml(upwind);
  ASSERT_TRUE(skew.model.has_value()) << skew.output;
  std::vector<KernelPlan> skewPlans = planKernels(*skew.model);
  EXPECT_EQ(skewPlans.size(), 6u);
  const KernelPlan *adjoint =
      findPlan(skewPlans, KernelRole::Adjoint, Hop::OddToEven);
  ASSERT_NE(adjoint, nullptr);
  EXPECT_EQ(adjoint->kernelName, "lap_odd_to_even_adjoint_kernel");
}

} // namespace

namespace {

/// The spec of laplacianSpec() with its grid and field lines replaced.
StencilModel modelWith(const std::string &grid, const std::string &field,
                       const std::string &kernel = "") {
  std::string yaml = laplacianSpec(kernel);
  yaml.replace(yaml.find("grid: {dimensions: 3, boundary: dirichlet}"),
               std::string("grid: {dimensions: 3, boundary: dirichlet}").size(),
               "grid: {dimensions: 3, boundary: " + grid + "}");
  yaml.replace(yaml.find("field: {precision: double}"),
               std::string("field: {precision: double}").size(),
               "field: {precision: double, " + field + "}");
  CheckResult result = checkYaml(yaml);
  EXPECT_TRUE(result.model.has_value()) << result.output;
  return result.model ? *result.model : StencilModel();
}

TEST(PlanIR, ThreadsGuardAndIndexingFollowEachAxisBoundary) {
  StencilModel model =
      modelWith("[dirichlet, periodic, antiperiodic]", "components: 1",
                "  tile: {axis: z, factor: 2}\n");
  KernelPlan plan = planKernel(model);
  ASSERT_EQ(plan.threads.kind, ThreadMappingKind::Lattice);
  // Threads start past the halo along the Dirichlet axis only.
  EXPECT_EQ(plan.threads.lattice.origin, (std::array<int, 4>{1, 0, 0, 0}));
  EXPECT_EQ(plan.threads.lattice.sitesPerThread[2], 2);
  EXPECT_EQ(plan.guard.kind, GuardKind::EarlyReturn);
  EXPECT_EQ(plan.guard.axes[0].upper, 1);
  EXPECT_EQ(plan.guard.axes[1].upper, 0);
  EXPECT_EQ(plan.guard.axes[2].upper, 0);
  // Some axis wraps: addresses from coordinates, wrapped along y and z,
  // the antiperiodic ones with a sign; nothing is clamped along z.
  EXPECT_EQ(plan.indexing.kind, SiteIndexingKind::PlainCoordinates);
  EXPECT_FALSE(plan.indexing.declaresRoom);
  for (const Coordinate &c : plan.indexing.coordinates) {
    EXPECT_EQ(c.kind, c.axis == 0 ? CoordinateKind::Shift
                                  : CoordinateKind::Wrap);
    EXPECT_EQ(c.flipsSign, c.axis == 2);
  }
  for (const PlannedLoad &load : plan.loads) {
    EXPECT_FALSE(load.clampTileAxis);
    EXPECT_EQ(load.signAxes.empty(), load.offset[2] == 0)
        << formatOffset(load.offset, 3);
  }
  // The tile's second site is stored only inside the lattice along z.
  ASSERT_EQ(plan.stores.size(), 2u);
  EXPECT_TRUE(plan.stores[1].guarded);
  EXPECT_EQ(plan.stores[1].guardUpper, 0);
}

TEST(PlanIR, GroupsAlongXOnLatticesThatWrap) {
  // x wraps: the group's halo wraps (and flips sign if antiperiodic), the
  // sites inside the group never do, and every group is stored whole.
  KernelPlan wrapped =
      planKernel(modelWith("[antiperiodic, periodic, dirichlet]",
                           "components: 1", "  vector_width: 2\n"));
  EXPECT_EQ(wrapped.xWidth, 2);
  EXPECT_EQ(wrapped.stores.front().groupReach, 0);
  for (const Coordinate &c : wrapped.indexing.coordinates)
    if (c.axis == 0)
      EXPECT_EQ(c.kind, c.delta == 1 ? CoordinateKind::Shift
                                     : CoordinateKind::Wrap)
          << c.delta;
  // Dirichlet x on a lattice that wraps along y: addresses come from
  // coordinates, and those beside the first and last groups are clamped
  // inside the row (only halo sites use them) instead of reading past it.
  KernelPlan walled = planKernel(modelWith(
      "[dirichlet, periodic, dirichlet]", "components: 1",
      "  vector_width: 2\n  tile: {axis: z, factor: 2}\n"));
  EXPECT_EQ(walled.indexing.kind, SiteIndexingKind::PlainCoordinates);
  EXPECT_TRUE(walled.indexing.declaresXRoom);
  EXPECT_EQ(walled.stores.front().groupReach, 1);
  int clamped = 0;
  for (const Coordinate &c : walled.indexing.coordinates)
    if (c.axis == 0) {
      EXPECT_EQ(c.kind, c.delta < 0   ? CoordinateKind::ClampXBelow
                        : c.delta < 2 ? CoordinateKind::Shift
                                      : CoordinateKind::ClampXAbove)
          << c.delta;
      clamped += c.kind != CoordinateKind::Shift;
    }
  EXPECT_EQ(clamped, 2); // x - 1 and x + 2
}

TEST(PlanIR, AccessKindsFollowLayoutAndWidth) {
  auto kindOf = [](const std::string &field, const std::string &kernel = "") {
    return planKernel(modelWith("dirichlet", field, kernel)).access.kind;
  };
  EXPECT_EQ(kindOf("components: 1"), AccessKind::Scalar);
  EXPECT_EQ(kindOf("components: 1", "  vector_width: 2\n"),
            AccessKind::RowGroup);
  EXPECT_EQ(kindOf("components: 4"), AccessKind::SiteMajor);
  EXPECT_EQ(kindOf("components: 4", "  vector_width: 2\n"),
            AccessKind::SiteMajorVector);
  EXPECT_EQ(kindOf("components: 4, layout: soa"), AccessKind::LayoutElement);
  EXPECT_EQ(planKernel(modelWith("dirichlet", "components: 4, layout: soa"))
                .indexing.kind,
            SiteIndexingKind::Layout);
}

TEST(PlanIR, BlockSumIsAPlanTransform) {
  StencilModel model = modelWith("dirichlet", "components: 1");
  model.solver = Solver::CG;
  std::vector<KernelPlan> plans = planKernels(model);
  const KernelPlan *apply = findPlan(plans, KernelRole::Apply);
  const KernelPlan *dot = findPlan(plans, KernelRole::Apply, Hop::None,
                                   EpilogueKind::BlockSum);
  ASSERT_NE(apply, nullptr);
  ASSERT_NE(dot, nullptr);
  EXPECT_EQ(dot->kernelName, "lap_dot_kernel");
  EXPECT_EQ(dot->guard.kind, GuardKind::Predicate);
  EXPECT_EQ(dot->parameters.back().kind, ParameterKind::Partials);
  // The same program; every store adds its term to the dot product.
  EXPECT_EQ(dot->loads.size(), apply->loads.size());
  for (const PlannedStore &store : dot->stores)
    EXPECT_TRUE(store.addsDot);
  for (const PlannedStore &store : apply->stores)
    EXPECT_FALSE(store.addsDot);
}

TEST(PlanIR, HoppingKernelsShareASiteAsTheWholeLatticeDoes) {
  // A share per block in component-major halves, side by side in
  // site-major ones; the launcher's grid holds a block per share.
  for (const char *layout : {"soa", "aos"}) {
    SCOPED_TRACE(layout);
    StencilModel model = modelWith(
        "periodic", std::string("components: 6, layout: ") + layout +
                        ", even_odd: true");
    model.kernel.componentsPerThread = 2;
    KernelPlan hop =
        planHoppingKernel(model, KernelRole::Apply, Hop::EvenToOdd);
    EXPECT_EQ(hop.threads.half.shares.groups, 3);
    EXPECT_EQ(hop.threads.half.shares.perThread, 2);
    EXPECT_EQ(hop.threads.half.shares.order,
              std::string(layout) == "aos" ? ComponentShareOrder::ByLane
                                           : ComponentShareOrder::ByBlock);
    EXPECT_TRUE(hop.access.split);
    EXPECT_EQ(hop.access.perThread, 2);
    EXPECT_EQ(hop.accumulators.valuesPerSite, 2);
    bool sawHop = false;
    for (const LauncherPlan &launcher :
         planLaunchers(model, planKernels(model)))
      if (launcher.kind == LauncherKind::Hopping) {
        sawHop = true;
        EXPECT_EQ(launcher.componentGroups, 3);
      }
    EXPECT_TRUE(sawHop);
  }
}

TEST(PlanIR, HoppingKernelsMapThreadsToOneParity) {
  StencilModel model = modelWith("[periodic, periodic, antiperiodic]",
                                 "components: 3, layout: soa, even_odd: true");
  KernelPlan hop = planHoppingKernel(model, KernelRole::Apply, Hop::EvenToOdd);
  EXPECT_EQ(hop.threads.kind, ThreadMappingKind::HalfLattice);
  EXPECT_EQ(hop.threads.half.parity, 1);
  EXPECT_EQ(hop.epilogue, EpilogueKind::HopModes);
  EXPECT_EQ(hop.indexing.kind, SiteIndexingKind::EvenOddHalf);
  EXPECT_EQ(hop.access.kind, AccessKind::HalfOrder);
  // No axis has a halo: nothing to guard beyond the parity's sites.
  for (int axis = 0; axis < 3; ++axis)
    EXPECT_FALSE(hop.guard.axes[axis].hasLower || hop.guard.axes[axis].hasUpper);
  ASSERT_EQ(hop.siteWeights.size(), 1u);
  EXPECT_EQ(hop.siteWeights[0].name, "diag");
  EXPECT_EQ(hop.stores.front().value, StoredValue::HopResult);
}

TEST(PlanIR, WholeLatticeKernelsOfEvenOddFieldsWalkBothHalvesInStorageOrder) {
  // Dirichlet along x and y: every site has a thread, the guard skips the
  // halo and, along the slowest axis, the threads past the lattice.
  StencilModel model =
      modelWith("[dirichlet, dirichlet, periodic]",
                "components: 6, layout: aos, even_odd: true",
                "  block: [32, 2, 2]\n");
  model.kernel.componentsPerThread = 3;
  std::vector<KernelPlan> plans = planKernels(model);
  const KernelPlan &whole = *findPlan(plans, KernelRole::Apply);
  ASSERT_EQ(whole.threads.kind, ThreadMappingKind::BothHalves);
  EXPECT_TRUE(whole.threads.oneDimensionalGrid());
  EXPECT_EQ(whole.threads.half.threadsPerBlock, 128);
  EXPECT_EQ(whole.threads.shares().groups, 2);
  EXPECT_EQ(whole.threads.shares().order, ComponentShareOrder::ByLane);
  EXPECT_EQ(whole.indexing.kind, SiteIndexingKind::Layout);
  for (int axis = 0; axis < 2; ++axis) {
    EXPECT_TRUE(whole.guard.axes[axis].hasLower);
    EXPECT_EQ(whole.guard.axes[axis].lower, 1);
    EXPECT_EQ(whole.guard.axes[axis].upper, 1);
  }
  EXPECT_FALSE(whole.guard.axes[2].hasLower);
  EXPECT_TRUE(whole.guard.axes[2].hasUpper);
  EXPECT_EQ(whole.guard.axes[2].upper, 0);
  // A Dirichlet slowest axis keeps its reach as the upper bound, which also
  // stops the threads past a half; the ranks' region kernels keep the walk
  // and test one site per thread.
  StencilModel dirichlet =
      modelWith("dirichlet", "components: 1, even_odd: true");
  const KernelPlan bounded = planKernel(dirichlet);
  EXPECT_TRUE(bounded.guard.axes[2].hasLower);
  EXPECT_EQ(bounded.guard.axes[2].upper, 1);
  const KernelPlan region = withRegion(bounded);
  EXPECT_EQ(region.threads.kind, ThreadMappingKind::BothHalves);
  EXPECT_TRUE(region.guard.region);
  EXPECT_EQ(region.guard.regionSpan, (std::array<int, 4>{1, 1, 1, 1}));
  // One-dimensional grids: no blocks_z even in 4-D.
  CheckResult four = checkYaml(
      "name: eo4\n"
      "grid: {dimensions: 4, boundary: periodic}\n"
      "field: {precision: float, even_odd: true}\n"
      "taps:\n"
      "  - {offset: [0, 0, 0, 0], coefficient: 9}\n"
      "  - {offset: [1, 0, 0, 0], coefficient: -1}\n"
      "  - {offset: [-1, 0, 0, 0], coefficient: -1}\n"
      "  - {offset: [0, 1, 0, 0], coefficient: -1}\n"
      "  - {offset: [0, -1, 0, 0], coefficient: -1}\n"
      "  - {offset: [0, 0, 1, 0], coefficient: -1}\n"
      "  - {offset: [0, 0, -1, 0], coefficient: -1}\n"
      "  - {offset: [0, 0, 0, 1], coefficient: -1}\n"
      "  - {offset: [0, 0, 0, -1], coefficient: -1}\n");
  ASSERT_TRUE(four.model.has_value()) << four.output;
  for (const KernelParameter &param : planKernel(*four.model).parameters)
    EXPECT_NE(param.kind, ParameterKind::BlocksZ) << param.name;
  four.model->layout.evenOdd = false;
  bool blocksZ = false;
  for (const KernelParameter &param : planKernel(*four.model).parameters)
    blocksZ = blocksZ || param.kind == ParameterKind::BlocksZ;
  EXPECT_TRUE(blocksZ);
  // Without even/odd storage the lattice grid stays.
  EXPECT_EQ(planKernel(modelWith("periodic", "components: 6, layout: aos"))
                .threads.kind,
            ThreadMappingKind::Lattice);
}

TEST(PlanIR, ParametersArePassedAsOneStruct) {
  KernelPlan plan = planKernel(modelWith("dirichlet", "components: 1"));
  std::vector<std::string> names;
  for (const KernelParameter &p : plan.parameters)
    names.push_back(p.name);
  EXPECT_EQ(names, (std::vector<std::string>{"out", "in", "nx", "ny", "nz",
                                             "params"}));
}

TEST(PlanIR, JsonListsEveryNode) {
  StencilModel model = modelWith("[dirichlet, periodic, antiperiodic]",
                                 "components: 1");
  std::string text;
  llvm::raw_string_ostream os(text);
  printPlansJson({{model, planKernels(model)}}, os);
  os.flush();
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  ASSERT_TRUE(static_cast<bool>(parsed)) << llvm::toString(parsed.takeError());
  const llvm::json::Object *kernel =
      parsed->getAsObject()->getArray("stencils")->front().getAsObject()
          ->getArray("kernels")->front().getAsObject();
  for (const char *key : {"threads", "guard", "indexing", "access", "weights",
                          "accumulators", "program", "stores", "epilogue"})
    EXPECT_NE(kernel->get(key), nullptr) << key;
  EXPECT_EQ(kernel->getObject("indexing")->getString("kind"),
            llvm::StringRef("plain-coordinates"));
}

} // namespace

namespace {

TEST(PlanIR, SplitsAndGroupsArePlanTransforms) {
  // A component split: the same program, shared by more threads.
  StencilModel whole = modelWith("periodic", "components: 6, layout: soa");
  StencilModel split = whole;
  split.kernel.componentsPerThread = 2;
  KernelPlan transformed =
      splitComponents(planKernel(whole), 2, ComponentShareOrder::ByBlock);
  KernelPlan planned = planKernel(split);
  EXPECT_EQ(transformed.threads.lattice.shares.groups, 3);
  EXPECT_EQ(planned.threads.lattice.shares.groups, 3);
  EXPECT_TRUE(planned.access.split);
  EXPECT_EQ(planned.accumulators.valuesPerSite, 2);
  EXPECT_EQ(transformed.loads.size(), planned.loads.size());
  // Component-major storage keeps a share per block (each block reads rows
  // of one component); site-major storage puts a site's shares side by side
  // in a warp, unless a staged box needs whole rows per block.
  EXPECT_EQ(planned.threads.lattice.shares.order, ComponentShareOrder::ByBlock);
  StencilModel siteMajor = modelWith("periodic", "components: 6, layout: aos");
  siteMajor.kernel.componentsPerThread = 2;
  EXPECT_EQ(planKernel(siteMajor).threads.lattice.shares.order,
            ComponentShareOrder::ByLane);
  siteMajor.kernel.staging = Staging::Shared;
  EXPECT_EQ(planKernel(siteMajor).threads.lattice.shares.order,
            ComponentShareOrder::ByBlock);
  // Groups along x: the schedule is made again for the wider tile.
  StencilModel rows = modelWith("dirichlet", "components: 1",
                                "  tile: {axis: y, factor: 2}\n");
  KernelPlan grouped = groupSitesAlongX(rows, planKernel(rows), 4);
  EXPECT_EQ(grouped.access.kind, AccessKind::RowGroup);
  EXPECT_EQ(grouped.threads.lattice.origin[0], 0);
  EXPECT_EQ(grouped.threads.lattice.sitesPerThread[0], 4);
  EXPECT_EQ(grouped.loadsPerTile(), 5 * 2 + 2);
  EXPECT_EQ(grouped.sitesPerTile(), 8);
  EXPECT_TRUE(grouped.indexing.declaresXRoom);
}

} // namespace

namespace {

/// A 2-D covariant Laplacian with SU(3) links, from YAML.
StencilModel covariantModel(const std::string &kernelAndField) {
  stencilc::testing::CheckResult r = stencilc::testing::checkYaml(
      "name: cov\n"
      "grid: {dimensions: 2, boundary: periodic}\n" +
      kernelAndField +
      "links: {name: U, colours: 3}\n"
      "parameters:\n"
      "  - {name: k, kind: site}\n"
      "taps:\n"
      "  - {offset: [0, 0], coefficient: 5 + k + k@-x}\n"
      "  - {offset: [-1, 0], coefficient: -k@-x, link: U}\n"
      "  - {offset: [1, 0], coefficient: -k, link: U}\n"
      "  - {offset: [0, -1], coefficient: -1, link: U}\n"
      "  - {offset: [0, 1], coefficient: -1, link: U}\n");
  EXPECT_TRUE(r.model.has_value()) << r.output;
  return r.model ? *r.model : StencilModel();
}

} // namespace

TEST(PlanLinks, EachLinkIsReadOncePerTile) {
  // Tile y x 2: sites 0 and 1 share U_y at site 0 (U for site 0's +y tap,
  // U^dagger for site 1's -y tap); 4 links per site otherwise.
  StencilModel model = covariantModel(
      "field: {precision: double, type: complex, shape: [3]}\n"
      "kernel: {block: [32, 4], tile: {axis: y, factor: 2}}\n");
  KernelPlan plan = planKernel(model);
  ASSERT_TRUE(plan.hasLinks);
  EXPECT_EQ(plan.links.size(), 7u);
  int uses = 0, daggered = 0;
  for (const PlanStep &step : plan.steps)
    for (const PlannedAccumulation &acc : step.accumulations) {
      if (acc.link < 0)
        continue;
      ++uses;
      daggered += acc.dagger;
      const PlannedLink &link = plan.links[acc.link];
      const Offset expected = [&] {
        Offset at{};
        at[1] = acc.site;
        if (model.taps[acc.tap].offset[link.axis] < 0)
          at[link.axis] -= 1;
        return at;
      }();
      EXPECT_EQ(link.at.offset, expected);
      EXPECT_EQ(acc.dagger, model.taps[acc.tap].offset[link.axis] < 0);
    }
  EXPECT_EQ(uses, 8);
  EXPECT_EQ(daggered, 4);
  // Every link is read before its first use.
  std::set<int> read;
  for (const PlanStep &step : plan.steps) {
    read.insert(step.links.begin(), step.links.end());
    for (const PlannedAccumulation &acc : step.accumulations)
      if (acc.link >= 0)
        EXPECT_TRUE(read.count(acc.link));
  }
  // 6 reals in and out, one field, 2 x 18 reals of links; per link tap and
  // colour vector 8 N^2 - 2 N = 66 flops.
  EXPECT_EQ(plan.bytesReadPerSite, (6 + 1 + 36) * 8);
  EXPECT_EQ(plan.bytesWrittenPerSite, 6 * 8);
  EXPECT_EQ(plan.flopsPerSite, 6 * 9 + 4 * 66 + 2);
}

TEST(PlanLinks, HoppingKernelsReadBothHalvesOfTheLinksAndFields) {
  StencilModel model = covariantModel(
      "field: {precision: float, type: complex, shape: [3], even_odd: true}\n"
      "kernel: {block: [64, 2]}\n");
  KernelPlan hop = planHoppingKernel(model, KernelRole::Apply, Hop::EvenToOdd);
  ASSERT_EQ(hop.links.size(), 4u);
  for (const PlannedLink &link : hop.links) {
    // The thread's site is odd: forward links from its half, backward ones
    // from the even half.
    const bool backward = link.at.offset != Offset{};
    EXPECT_EQ(link.at.oddHalf, !backward);
  }
  // Per output site: 2 x 2 links (each direction's forward one at this
  // site, its backward one at the neighbour), k at both parities.
  EXPECT_EQ(hop.bytesReadPerSite, (6 + 4 * 18 + 2) * 4);
}

TEST(PlanLinks, AdjointDaggersTheSameLatticeLinks) {
  StencilModel model = covariantModel(
      "field: {precision: double, type: complex, shape: [3]}\n"
      "kernel: {block: [32, 4]}\n");
  // -k@-x and -k pair up: Hermitian, no adjoint kernel.
  EXPECT_TRUE(isSymmetric(model));
  EXPECT_EQ(findPlan(planKernels(model), KernelRole::Adjoint), nullptr);
  model.taps[2].coefficient.constant = -0.5; // +x: -k - 0.5
  EXPECT_FALSE(isSymmetric(model));
  StencilModel adjoint = transposedModel(model);
  for (const Tap &tap : adjoint.taps)
    EXPECT_EQ(tap.link, tap.offset != Offset{});
  // A's +x tap (U_x(x)) becomes A^dagger's -x tap: U_x(x - x)^dagger, its
  // coefficient read from x - 1.
  const Tap *minusX = findTap(adjoint, Offset{-1, 0, 0, 0});
  ASSERT_NE(minusX, nullptr);
  EXPECT_EQ(coefficientText(adjoint, minusX->coefficient), "-0.5 - k@-x");
}
