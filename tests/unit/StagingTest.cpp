// kernel.staging: shared: the SharedStaging node's box, halo, element count
// and bytes; the transform's effect on guard, loads and indexing; the
// phases and launches; the refusals; the tuning-cache text and variants.
#include "TestSupport.h"

#include "emit/KernelPrinter.h"
#include "plan/Plan.h"
#include "tune/Tune.h"
#include "tune/TuningCache.h"

#include "llvm/ADT/STLExtras.h"

#include <gtest/gtest.h>

using namespace stencilc;
using namespace stencilc::testing;

namespace {

StencilModel checked(const std::string &yaml) {
  CheckResult result = checkYaml(yaml);
  EXPECT_TRUE(result.model.has_value()) << result.output;
  return result.model ? *result.model : StencilModel();
}

/// A 4-D periodic vector Laplacian (the sprint report's shape) with the
/// given field section and kernel section.
std::string vectorSpec(const std::string &field, const std::string &kernel,
                       const std::string &boundary = "periodic") {
  return "name: vec\n"
         "grid: {dimensions: 4, boundary: " + boundary + "}\n"
         "field: " + field + "\n"
         "taps:\n"
         "  - {offset: [0, 0, 0, 0], coefficient: 8.5}\n"
         "  - {offset: [-1, 0, 0, 0], coefficient: -1}\n"
         "  - {offset: [1, 0, 0, 0], coefficient: -1}\n"
         "  - {offset: [0, -1, 0, 0], coefficient: -1}\n"
         "  - {offset: [0, 1, 0, 0], coefficient: -1}\n"
         "  - {offset: [0, 0, -1, 0], coefficient: -1}\n"
         "  - {offset: [0, 0, 1, 0], coefficient: -1}\n"
         "  - {offset: [0, 0, 0, -1], coefficient: -1}\n"
         "  - {offset: [0, 0, 0, 1], coefficient: -1}\n"
         "kernel: " + kernel + "\n";
}

TEST(Staging, BoxOfATiledSevenPointBlock) {
  StencilModel model = checked(laplacianSpec(
      "  block: [64, 4, 1]\n  tile: {axis: y, factor: 2}\n"
      "  staging: shared\n"));
  const KernelPlan plan = planKernel(model);
  ASSERT_TRUE(plan.staging.has_value());
  const SharedStaging &s = *plan.staging;
  EXPECT_EQ(s.dims, 3);
  // Threads x tile plus a halo of 1 on each side.
  EXPECT_EQ(s.axes[0].extent(), 66);
  EXPECT_EQ(s.axes[1].extent(), 10);
  EXPECT_EQ(s.axes[2].extent(), 3);
  for (int axis = 0; axis < 3; ++axis) {
    EXPECT_EQ(s.axes[axis].below, 1);
    EXPECT_EQ(s.axes[axis].above, 1);
    EXPECT_EQ(s.axes[axis].edge, StagingEdge::SkipPastEnd);
  }
  EXPECT_EQ(s.axes[1].sitesPerThread, 2);
  EXPECT_EQ(s.sites(), 66 * 10 * 3);
  EXPECT_EQ(s.elements(), 66 * 10 * 3);
  EXPECT_EQ(s.bytes(), 66 * 10 * 3 * 8);
  EXPECT_EQ(s.bytes(), stagedBytes(model));
  EXPECT_EQ(s.threadsPerBlock, 256);
  EXPECT_EQ(s.components, 1);
  EXPECT_EQ(s.order, StagingOrder::SitesFastest);
  EXPECT_EQ(s.address, StagingAddress::PlainSite);
  EXPECT_EQ(s.phases(), 2);
  // Every thread stages and reaches the barrier.
  EXPECT_EQ(plan.guard.kind, GuardKind::Predicate);
  // The loads read the box as it is: no clamps, no signs, no room.
  for (const PlannedLoad &load : plan.loads) {
    EXPECT_EQ(load.source, LoadSource::SharedBox);
    EXPECT_FALSE(load.clampTileAxis);
    EXPECT_TRUE(load.signAxes.empty());
  }
  EXPECT_FALSE(plan.indexing.declaresRoom);
  EXPECT_TRUE(plan.indexing.coordinates.empty());
  // Registers: no node, loads from global memory.
  model.kernel.staging = Staging::Registers;
  const KernelPlan registers = planKernel(model);
  EXPECT_FALSE(registers.staging.has_value());
  EXPECT_EQ(registers.guard.kind, GuardKind::EarlyReturn);
  EXPECT_EQ(registers.loadsPerTile(), plan.loadsPerTile());
  for (const PlannedLoad &load : registers.loads)
    EXPECT_EQ(load.source, LoadSource::Global);
}

TEST(Staging, OneSidedHaloMirrorsForTheAdjoint) {
  // Taps reach 2 below along x and 1 above along z only.
  StencilModel model = checked(
      "name: up\ngrid: {dimensions: 3, boundary: dirichlet}\n"
      "field: {precision: float}\ntaps:\n"
      "  - {offset: [0, 0, 0], coefficient: 2}\n"
      "  - {offset: [-2, 0, 0], coefficient: -0.5}\n"
      "  - {offset: [0, 0, 1], coefficient: -0.25}\n"
      "kernel: {block: [32, 4, 2], staging: shared}\n");
  const std::vector<KernelPlan> plans = planKernels(model);
  const KernelPlan *apply = findPlan(plans, KernelRole::Apply);
  const KernelPlan *adjoint = findPlan(plans, KernelRole::Adjoint);
  ASSERT_TRUE(apply && adjoint && apply->staging && adjoint->staging);
  EXPECT_EQ(apply->staging->axes[0].below, 2);
  EXPECT_EQ(apply->staging->axes[0].above, 0);
  EXPECT_EQ(apply->staging->axes[2].below, 0);
  EXPECT_EQ(apply->staging->axes[2].above, 1);
  EXPECT_EQ(adjoint->staging->axes[0].below, 0);
  EXPECT_EQ(adjoint->staging->axes[0].above, 2);
  EXPECT_EQ(adjoint->staging->axes[2].below, 1);
  EXPECT_EQ(apply->staging->sites(), 34 * 4 * 3);
  EXPECT_EQ(apply->staging->bytes(), adjoint->staging->bytes());
}

TEST(Staging, CgKernelsStageTooAndLaunchInPhases) {
  StencilModel model = checked(
      "solver: cg\n" + laplacianSpec("  block: [64, 4, 1]\n"
                                     "  staging: shared\n"));
  const std::vector<KernelPlan> plans = planKernels(model);
  const KernelPlan *dot = findPlan(plans, KernelRole::Apply, Hop::None,
                                   EpilogueKind::BlockSum);
  const KernelPlan *fold = findPlan(plans, KernelRole::Apply, Hop::None,
                                    EpilogueKind::DirectionBlockSum);
  ASSERT_TRUE(dot && fold);
  ASSERT_TRUE(dot->staging && fold->staging);
  EXPECT_FALSE(dot->staging->foldsDirection);
  EXPECT_TRUE(fold->staging->foldsDirection);
  for (const LauncherPlan &launcher : planLaunchers(model, plans))
    EXPECT_EQ(launcher.phases, 2) << launcher.function;
  // The block sum runs in the compute phase, after the barrier.
  const std::string text = printKernel(*dot);
  const size_t barrier = text.find("STENCIL_BARRIER();");
  const size_t compute = text.find("if (STENCIL_PHASE(1)) {");
  const size_t sum = text.find("stencil::block_sum(dot, partials);");
  ASSERT_NE(barrier, std::string::npos);
  EXPECT_LT(text.find("if (STENCIL_PHASE(0)) {"), barrier);
  EXPECT_LT(barrier, compute);
  EXPECT_LT(compute, sum);
  // No thread leaves before the barrier.
  EXPECT_EQ(text.find("return;"), std::string::npos);
}

TEST(Staging, VectorFieldsStageTheirShareOfComponents) {
  // aos: a site's components adjacent, staged components fastest.
  StencilModel aos = checked(vectorSpec(
      "{precision: float, components: 24, layout: aos}",
      "{block: [8, 4, 4, 2], components_per_thread: 6, vector_width: 1, "
      "staging: shared}"));
  const KernelPlan plan = planKernel(aos);
  ASSERT_TRUE(plan.staging);
  const SharedStaging &s = *plan.staging;
  EXPECT_EQ(s.sites(), 10 * 6 * 6 * 4);
  EXPECT_EQ(s.components, 6);
  EXPECT_EQ(s.fieldComponents, 24);
  EXPECT_TRUE(s.split);
  EXPECT_EQ(s.order, StagingOrder::ComponentsFastest);
  EXPECT_EQ(s.bytes(), 34560);
  for (int axis = 0; axis < 4; ++axis)
    EXPECT_EQ(s.axes[axis].edge, StagingEdge::Wrap);
  // soa: one array per component, staged sites fastest by layout_site.
  StencilModel soa = checked(vectorSpec(
      "{precision: float, components: 2, layout: soa}",
      "{block: [16, 2, 2, 2], staging: shared}",
      "[periodic, periodic, periodic, antiperiodic]"));
  const KernelPlan soaPlan = planKernel(soa);
  ASSERT_TRUE(soaPlan.staging);
  EXPECT_EQ(soaPlan.staging->order, StagingOrder::SitesFastest);
  EXPECT_EQ(soaPlan.staging->address, StagingAddress::LayoutSite);
  EXPECT_EQ(soaPlan.staging->axes[3].edge, StagingEdge::WrapNegate);
  // The box carries the antiperiodic sign: no coordinate declares one.
  for (const Coordinate &c : soaPlan.indexing.coordinates)
    EXPECT_FALSE(c.flipsSign);
}

TEST(Staging, RefusesWhatItDoesNotStage) {
  // The whole 24 components of 32x4x2x1 sites with their halo: 235008 bytes.
  CheckResult big = checkYaml(vectorSpec(
      "{precision: float, components: 24, layout: aos}",
      "{block: [32, 4, 2, 1], vector_width: 1, components_per_thread: 24, "
      "staging: shared}"));
  EXPECT_FALSE(big.model.has_value());
  EXPECT_NE(big.output.find("test.yaml:14:"), std::string::npos) << big.output;
  EXPECT_NE(big.output.find("error: 'kernel.staging: shared' needs a shared "
                            "array of 235008 bytes per block (34x6x4x3 "
                            "sites with the halo, 24 components of 4 bytes), "
                            "more than the 49152 bytes (48 KiB)"),
            std::string::npos)
      << big.output;
  CheckResult evenOdd = checkYaml(vectorSpec(
      "{precision: float, components: 2, even_odd: true}",
      "{block: [64, 1, 1, 1], staging: shared}"));
  EXPECT_NE(evenOdd.output.find("not available with even/odd storage"),
            std::string::npos)
      << evenOdd.output;
  CheckResult value = checkYaml(laplacianSpec("  staging: texture\n"));
  EXPECT_NE(value.output.find("test.yaml:15:12: error: 'kernel.staging' must "
                              "be 'registers' or 'shared', not 'texture'"),
            std::string::npos)
      << value.output;
}

TEST(Staging, TuningCacheTextCarriesItLast) {
  StencilModel model = checked(laplacianSpec(
      "  block: [64, 4, 1]\n  staging: shared\n"));
  const std::string text = tuningOptionsText(model);
  EXPECT_NE(text.rfind("; staging=shared"), std::string::npos);
  EXPECT_EQ(text.substr(text.size() - 16), "; staging=shared");
  llvm::Expected<StencilModel> back = withTuningOptions(model, text);
  ASSERT_TRUE(static_cast<bool>(back));
  EXPECT_EQ(back->kernel.staging, Staging::Shared);
  // Lines from before the option read back as registers.
  model.kernel.staging = Staging::Registers;
  const std::string old = tuningOptionsText(model);
  EXPECT_EQ(old.find("staging"), std::string::npos);
  model.kernel.staging = Staging::Shared;
  llvm::Expected<StencilModel> registers = withTuningOptions(model, old);
  ASSERT_TRUE(static_cast<bool>(registers));
  EXPECT_EQ(registers->kernel.staging, Staging::Registers);
  // A box over the limit is refused with the reason.
  llvm::Expected<StencilModel> big = withTuningOptions(
      model, "block=64x4x1; tile=y16; staging=shared");
  ASSERT_FALSE(static_cast<bool>(big));
  EXPECT_NE(llvm::toString(big.takeError()).find("staging=shared needs a shared "
                                                 "array of"),
            std::string::npos);
}

TEST(Staging, TunerVariantsStageWhereTheBoxFits) {
  StencilModel model = checked(laplacianSpec("  block: [64, 4, 1]\n"));
  const std::vector<Variant> variants = tuningVariants(model, 100000);
  int staged = 0;
  for (const Variant &v : variants) {
    if (v.model.kernel.staging != Staging::Shared)
      continue;
    ++staged;
    EXPECT_LE(stagedBytes(v.model), kMaxStaticSharedBytes) << v.summary;
    EXPECT_NE(v.summary.find("staged in shared memory"), std::string::npos);
  }
  EXPECT_GT(staged, 0);
  EXPECT_EQ(variants.front().model.kernel.staging, Staging::Registers);
}

} // namespace
