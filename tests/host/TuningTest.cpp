// The runtime's choice of kernels (stencil/tuning.hpp): the compiled-in
// tuning table, the STENCILC_TUNE_CACHE file and STENCILC_TUNING=off, on
// KernelInfo copies whose tables point at other registered stencils.
#include "HostFixtures.h"

#include "stencil/device.hpp"
#include "stencil/tuning.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>

using namespace stencil;
using stencilc::testing::kernelNamed;

namespace {

// The "tuned variant" in these tests: the float Laplacian stands in for a
// variant of the double one (any KernelInfo will do for the choice).
const KernelInfo &variant() { return kernelNamed("laplacian3d_f32"); }

/// A spec with one compiled-in entry: this device at 20x18x16 -> variant().
struct TunedSpec {
  KernelInfo info = kernelNamed("laplacian3d_f64");
  TunedChoice table[1] = {{"", {20, 18, 16, 1}, &variant, 1234.5}};
  std::string device = device_name();
  TunedSpec() {
    table[0].device = device.c_str();
    info.num_tuned = 1;
    info.tuned = table;
  }
};

/// Sets an environment variable for one test.
struct ScopedEnv {
  std::string name;
  ScopedEnv(const char *n, const std::string &value) : name(n) {
    setenv(n, value.c_str(), 1);
  }
  ~ScopedEnv() { unsetenv(name.c_str()); }
};

std::string writeCache(const std::string &name, const std::string &text) {
  std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

TEST(Tuning, CompiledInEntryForThisDeviceAndExtents) {
  TunedSpec spec;
  const int tuned[] = {20, 18, 16}, other[] = {20, 18, 18};
  KernelSelection s;
  ASSERT_OK(select_kernels(spec.info, tuned, spec.device, s));
  EXPECT_EQ(s.info, &variant());
  EXPECT_NE(s.description.find("tuned: "), std::string::npos);
  EXPECT_NE(s.description.find("1234.5"), std::string::npos);
  ASSERT_OK(select_kernels(spec.info, other, spec.device, s));
  EXPECT_EQ(s.info, &spec.info);
  EXPECT_NE(s.description.find("no tuning-cache entry for " + spec.device +
                               " at 20x18x18"),
            std::string::npos)
      << s.description;
  ASSERT_OK(select_kernels(spec.info, tuned, "another GPU", s));
  EXPECT_EQ(s.info, &spec.info);
}

TEST(Tuning, OperatorRunsTheChosenKernels) {
  TunedSpec spec;
  const int tuned[] = {20, 18, 16};
  StencilOperator A;
  ASSERT_OK(StencilOperator::create(spec.info, tuned, A));
  EXPECT_STREQ(A.info().name, "laplacian3d_f32");
  ASSERT_OK(StencilOperator::create(spec.info, tuned, A,
                                    StencilOperator::Kernels::AsGiven));
  EXPECT_STREQ(A.info().name, "laplacian3d_f64");
  ScopedEnv off("STENCILC_TUNING", "off");
  ASSERT_OK(StencilOperator::create(spec.info, tuned, A));
  EXPECT_STREQ(A.info().name, "laplacian3d_f64");
  EXPECT_NE(A.kernel_choice().find("STENCILC_TUNING=off"), std::string::npos);
}

TEST(Tuning, CacheFileChoosesAmongCompiledVariants) {
  TunedSpec spec;
  const int extents[] = {20, 18, 16};
  const std::string key = std::string("laplacian3d_f64\t") +
                          spec.info.fingerprint + "\t" + spec.device +
                          "\t20x18x16\t";
  // The last entry wins: here the spec's own options, over the table.
  std::string path = writeCache(
      "own.tsv", "# header\n" + key + variant().tuning_options + "\t1\t2\n" +
                     key + spec.info.tuning_options + "\t1\t3\n");
  {
    ScopedEnv cache("STENCILC_TUNE_CACHE", path);
    KernelSelection s;
    ASSERT_OK(select_kernels(spec.info, extents, spec.device, s));
    EXPECT_EQ(s.info, &spec.info);
    EXPECT_NE(s.description.find("own.tsv:3"), std::string::npos)
        << s.description;
  }
  // Another fingerprint (another version of the spec) does not match: the
  // compiled-in table decides.
  path = writeCache("stale.tsv", "laplacian3d_f64\t0123456789abcdef\t" +
                                     spec.device + "\t20x18x16\t" +
                                     spec.info.tuning_options + "\t1\t2\n");
  {
    ScopedEnv cache("STENCILC_TUNE_CACHE", path);
    KernelSelection s;
    ASSERT_OK(select_kernels(spec.info, extents, spec.device, s));
    EXPECT_EQ(s.info, &variant());
  }
}

TEST(Tuning, CacheFileErrorsSayWhereAndWhy) {
  TunedSpec spec;
  const int extents[] = {20, 18, 16};
  const std::string key = std::string("laplacian3d_f64\t") +
                          spec.info.fingerprint + "\t" + spec.device +
                          "\t20x18x16\t";
  struct Case {
    std::string file, text, message;
  } cases[] = {
      {"missing.tsv", key + "block=1x1x1; tile=x1\t1\t2\n",
       "missing.tsv:1: the tuning cache chooses 'block=1x1x1; tile=x1' for "
       "laplacian3d_f64 on " +
           spec.device +
           " at 20x18x16, but this build has no such variant of "
           "laplacian3d_f64: regenerate its code with `stencilc generate "
           "--tune-cache"},
      {"short.tsv", "\n# fine\nlaplacian3d_f64\tabc\n",
       "short.tsv:3: expected 7 tab-separated fields"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.file);
    ScopedEnv cache("STENCILC_TUNE_CACHE", writeCache(c.file, c.text));
    KernelSelection s;
    Status status = select_kernels(spec.info, extents, spec.device, s);
    ASSERT_FALSE(status.ok());
    EXPECT_NE(status.message().find(c.message), std::string::npos)
        << status.message();
  }
  ScopedEnv cache("STENCILC_TUNE_CACHE", "/nonexistent/cache.tsv");
  KernelSelection s;
  Status status = select_kernels(spec.info, extents, spec.device, s);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("cannot read '/nonexistent/cache.tsv'"),
            std::string::npos);
}

} // namespace
