// The emitter: deterministic, path-free output that honours every option,
// and a manifest that parses and agrees with the plan.
#include "TestSupport.h"

#include "emit/Emit.h"
#include "plan/Plan.h"

#include "llvm/Support/JSON.h"

#include <gtest/gtest.h>

using namespace stencilc;
using namespace stencilc::testing;

namespace {

EmittedStencil emit(const std::string &kernel) {
  CheckResult result = checkYaml(laplacianSpec(kernel));
  EXPECT_TRUE(result.model.has_value()) << result.output;
  llvm::Expected<EmittedStencil> files =
      emitStencil(*result.model, planKernels(*result.model));
  EXPECT_TRUE(static_cast<bool>(files));
  return files ? *files : EmittedStencil();
}

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

TEST(Emit, IsDeterministic) {
  EmittedStencil first = emit("  tile: {axis: y, factor: 4}\n");
  EmittedStencil second = emit("  tile: {axis: y, factor: 4}\n");
  EXPECT_EQ(first.kernels, second.kernels);
  EXPECT_EQ(first.header, second.header);
  EXPECT_EQ(first.manifest, second.manifest);
}

TEST(Emit, NamesNoPathsOrTimes) {
  EmittedStencil files = emit("");
  for (const std::string *text : {&files.kernels, &files.header, &files.manifest}) {
    EXPECT_FALSE(contains(*text, "/work/"));
    EXPECT_FALSE(contains(*text, "/tmp/"));
    EXPECT_FALSE(contains(*text, "2026"));
  }
  EXPECT_TRUE(contains(files.kernels, "from test.yaml"));
}

TEST(Emit, HonoursOptions) {
  EmittedStencil plain = emit("  block: [32, 2, 1]\n  launch_bounds: 0\n");
  EXPECT_FALSE(contains(plain.kernels, "STENCIL_LAUNCH_BOUNDS"));
  EXPECT_TRUE(contains(plain.kernels, "STENCIL_STORE(&out[site], acc0);"));
  EXPECT_TRUE(contains(plain.kernels, "blockIdx.x * 32u"));

  EmittedStencil tuned = emit(
      "  launch_bounds: 512\n  nontemporal_store: true\n  tile: {axis: z, "
      "factor: 3}\n");
  EXPECT_TRUE(contains(tuned.kernels, "STENCIL_LAUNCH_BOUNDS(512)"));
  EXPECT_TRUE(contains(tuned.kernels, "STENCIL_STORE_NT(&out[site], acc0);"));
  EXPECT_TRUE(contains(tuned.kernels, "STENCIL_STORE_NT(&out[site + 2 * sz], acc2);"));
  EXPECT_TRUE(contains(tuned.kernels, "const int z = 1 + 3 * static_cast<int>"));
  EXPECT_FALSE(contains(tuned.kernels, "STENCIL_STORE("));
}

TEST(Emit, VectorWidthMovesComponentsTogether) {
  CheckResult result = checkYaml(
      "name: v\n"
      "grid: {dimensions: 2, boundary: periodic}\n"
      "field: {precision: float, components: 8}\n"
      "taps:\n"
      "  - {offset: [0, 0], coefficient: 4}\n"
      "  - {offset: [1, 0], coefficient: -1}\n"
      "kernel: {vector_width: 4, nontemporal_store: true}\n");
  ASSERT_TRUE(result.model.has_value()) << result.output;
  llvm::Expected<EmittedStencil> files =
      emitStencil(*result.model, planKernels(*result.model));
  ASSERT_TRUE(static_cast<bool>(files));
  EXPECT_TRUE(contains(files->kernels,
                       "using vec_t = stencil::vec<value_type, 4>;"));
  EXPECT_TRUE(contains(files->kernels, "reinterpret_cast<const vec_t *>"));
  EXPECT_TRUE(contains(files->kernels, "for (int j = 0; j < 2; ++j) {"));
  EXPECT_TRUE(contains(files->kernels, "acc0[j * 4 + l] = w0 * v.v[l];"));
  EXPECT_TRUE(contains(files->kernels,
                       "STENCIL_STORE_NT(&reinterpret_cast<vec_t *>(out + "
                       "(site) * 8)[j], r);"));
}

TEST(Emit, HeaderCarriesTheTypedApi) {
  EmittedStencil files = emit("");
  EXPECT_TRUE(contains(files.header, "using value_type = double;"));
  EXPECT_TRUE(contains(files.header, "int nx = 0;"));
  EXPECT_TRUE(contains(files.header, "value_type h = static_cast<value_type>(1);"));
  EXPECT_TRUE(contains(files.header, "stencil::Status apply(value_type *out"));
}

TEST(Emit, ManifestAgreesWithThePlan) {
  EmittedStencil files = emit("  tile: {axis: y, factor: 8}\n");
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(files.manifest);
  ASSERT_TRUE(static_cast<bool>(parsed)) << llvm::toString(parsed.takeError());
  const llvm::json::Object *root = parsed->getAsObject();
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->getString("name"), llvm::StringRef("lap"));
  const llvm::json::Array *kernels = root->getArray("kernels");
  ASSERT_NE(kernels, nullptr);
  ASSERT_EQ(kernels->size(), 1u);
  const llvm::json::Object *kernel = (*kernels)[0].getAsObject();
  EXPECT_EQ(kernel->getInteger("loads_per_tile").value_or(-1), 42);
  EXPECT_EQ(kernel->getInteger("stores_per_tile").value_or(-1), 8);
  EXPECT_EQ(kernel->getInteger("bytes_per_site").value_or(-1), 16);
  EXPECT_EQ(kernel->getInteger("flops_per_site").value_or(-1), 13);
  EXPECT_EQ(kernel->getString("load_order"), llvm::StringRef("ascending"));
  const llvm::json::Array *taps = root->getArray("taps");
  ASSERT_NE(taps, nullptr);
  EXPECT_EQ(taps->size(), 7u);
  EXPECT_EQ((*taps)[0].getAsObject()->getString("coefficient"),
            llvm::StringRef("6 * h"));
}

} // namespace
