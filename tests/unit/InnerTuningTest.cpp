// A spec's kernels in both precisions (NAME and NAME_inner) keep the
// spec's storage of the field, links and clover term under tuning: the
// mixed solver converts the outer operator's arrays value by value, so an
// entry or a variant that moved them would build kernels whose solve stops
// at the conversion.
#include "TestSupport.h"
#include "tune/Tune.h"
#include "tune/TuningCache.h"

#include <gtest/gtest.h>

using namespace stencilc;
using namespace stencilc::testing;

namespace {

// A Wilson-clover operator with even/odd storage, blocked links and clover
// (pairs of reals per load) and float inner kernels.
const char *const kWilsonClover =
    "name: wc\n"
    "solver: cgnr\n"
    "inner_precision: float\n"
    "grid: {dimensions: 4, boundary: [periodic, periodic, periodic, "
    "antiperiodic]}\n"
    "field: {precision: double, type: complex, shape: [4, 3], even_odd: "
    "true}\n"
    "links: {name: U, colours: 3, compression: two_rows, layout: {order: "
    "aosoa, block: 32, vector: 2}}\n"
    "clover: {name: A, csw: 1.0, layout: {order: aosoa, block: 32, vector: "
    "2}}\n"
    "taps:\n"
    "  - {offset: [0, 0, 0, 0], coefficient: 4.1, clover: A}\n"
    "  - {offset: [1, 0, 0, 0], coefficient: -0.5, link: U, spin: 1 - gamma}\n"
    "  - {offset: [-1, 0, 0, 0], coefficient: -0.5, link: U, spin: 1 + gamma}\n"
    "  - {offset: [0, 1, 0, 0], coefficient: -0.5, link: U, spin: 1 - gamma}\n"
    "  - {offset: [0, -1, 0, 0], coefficient: -0.5, link: U, spin: 1 + gamma}\n"
    "  - {offset: [0, 0, 1, 0], coefficient: -0.5, link: U, spin: 1 - gamma}\n"
    "  - {offset: [0, 0, -1, 0], coefficient: -0.5, link: U, spin: 1 + gamma}\n"
    "  - {offset: [0, 0, 0, 1], coefficient: -0.5, link: U, spin: 1 - gamma}\n"
    "  - {offset: [0, 0, 0, -1], coefficient: -0.5, link: U, spin: 1 + "
    "gamma}\n"
    "kernel: {block: [128, 1, 1, 1], vector_width: 2}\n";

StencilModel innerModel() {
  CheckResult result = checkYaml(kWilsonClover);
  EXPECT_TRUE(result.model.has_value()) << result.output;
  return innerKernelsModel(*result.model);
}

TEST(InnerTuning, VariantsKeepTheSpecsStorage) {
  const StencilModel inner = innerModel();
  ASSERT_TRUE(inner.storageOfOuter);
  const std::vector<Variant> variants =
      tuningVariants(inner, 100000, {16, 16, 16, 32});
  ASSERT_GT(variants.size(), 1u);
  for (const Variant &v : variants)
    EXPECT_EQ(storageOf(v.model), storageOf(inner)) << v.summary;
  // So does the outer kernels' search: the inner operator's arrays are
  // converted from theirs (it had moved the links and the clover term, and
  // every mixed solve at the entry's size then failed in the conversion).
  CheckResult outer = checkYaml(kWilsonClover);
  ASSERT_TRUE(outer.model.has_value());
  const std::vector<Variant> outerVariants =
      tuningVariants(*outer.model, 100000, {16, 16, 16, 32});
  ASSERT_GT(outerVariants.size(), 1u);
  for (const Variant &v : outerVariants)
    EXPECT_EQ(storageOf(v.model), storageOf(*outer.model)) << v.summary;
}

TEST(InnerTuning, OuterEntriesThatMoveTheStorageAreRefused) {
  CheckResult outer = checkYaml(kWilsonClover);
  ASSERT_TRUE(outer.model.has_value());
  llvm::Expected<StencilModel> block =
      withTuningOptions(*outer.model, "block=32x4x1x1");
  ASSERT_TRUE(static_cast<bool>(block)) << llvm::toString(block.takeError());
  for (const char *options :
       {"layout=aosoa:32; vector_width=1", "links=aos", "clover=aos"}) {
    llvm::Expected<StencilModel> moved =
        withTuningOptions(*outer.model, options);
    ASSERT_FALSE(static_cast<bool>(moved)) << options;
    const std::string message = llvm::toString(moved.takeError());
    EXPECT_NE(message.find("wc has inner-precision kernels, whose arrays the "
                           "mixed solver converts value by value"),
              std::string::npos)
        << message;
  }
}

TEST(InnerTuning, EntriesThatMoveTheStorageAreRefused) {
  const StencilModel inner = innerModel();
  const std::string own = tuningOptionsText(inner);
  llvm::Expected<StencilModel> same = withTuningOptions(inner, own);
  ASSERT_TRUE(static_cast<bool>(same)) << llvm::toString(same.takeError());
  // A wider spinor access and another block are kernel options: taken.
  llvm::Expected<StencilModel> wider = withTuningOptions(
      inner, "block=32x4x1x1; layout=aos; vector_width=4; "
             "links=aosoa:32:v2; clover=aosoa:32:v2");
  ASSERT_TRUE(static_cast<bool>(wider)) << llvm::toString(wider.takeError());
  EXPECT_EQ(wider->kernel.vectorWidth, 4);
  struct Case {
    const char *options;
    const char *message;
  } cases[] = {
      {"block=32x4x1x1; vector_width=4; links=aosoa:32:v4; "
       "clover=aosoa:32:v2",
       "links=aosoa:32:v4: wc_inner converts the outer precision's arrays "
       "value by value, so its links storage stays the spec's, aosoa:32:v2"},
      {"block=32x4x1x1; vector_width=4; links=aosoa:32:v2; "
       "clover=aosoa:32:v4",
       "clover=aosoa:32:v4: wc_inner converts the outer precision's arrays "
       "value by value, so its clover storage stays the spec's, aosoa:32:v2"},
      {"block=32x4x1x1; vector_width=2; links=aos; clover=aosoa:32:v2",
       "links=aos: wc_inner converts"},
  };
  for (const Case &c : cases) {
    llvm::Expected<StencilModel> moved = withTuningOptions(inner, c.options);
    ASSERT_FALSE(static_cast<bool>(moved)) << c.options;
    const std::string message = llvm::toString(moved.takeError());
    EXPECT_NE(message.find(c.message), std::string::npos) << message;
  }
}

} // namespace
