// The runtime's choice of kernels (stencil/tuning.hpp): the compiled-in
// tuning table, the STENCILC_TUNE_CACHE file and STENCILC_TUNING=off, on
// KernelInfo copies whose tables point at other registered stencils.
#include "HostFixtures.h"

#include "stencil/device.hpp"
#include "stencil/exchange_choice.hpp"
#include "stencil/launch_config.hpp"
#include "stencil/tuning.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

using namespace stencil;
using stencilc::testing::expectFailure;
using stencilc::testing::expectFoldPassMatchesItsDefinition;
using stencilc::testing::kernelNamed;
using stencilc::testing::ScopedEnv;

namespace {

// The "tuned variant" in these tests: the float Laplacian stands in for a
// variant of the double one (any KernelInfo will do for the choice).
const KernelInfo &variant() { return kernelNamed("laplacian3d_f32"); }

/// A spec with one compiled-in entry: this device at 20x18x16 -> variant().
struct TunedSpec {
  KernelInfo info = kernelNamed("laplacian3d_f64");
  TunedChoice table[1] = {
      {"", {20, 18, 16, 1}, &variant, 1234.5, 0, TunedKernels::All}};
  std::string device = device_name();
  TunedSpec() {
    table[0].device = device.c_str();
    info.num_tuned = 1;
    info.tuned = table;
  }
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
  ASSERT_OK(select_kernels(spec.info, tuned, spec.device, 0, s));
  EXPECT_EQ(s.info, &variant());
  EXPECT_NE(s.description.find("tuned: "), std::string::npos);
  EXPECT_NE(s.description.find("1234.5"), std::string::npos);
  ASSERT_OK(select_kernels(spec.info, other, spec.device, 0, s));
  EXPECT_EQ(s.info, &spec.info);
  EXPECT_NE(s.description.find("no tuning-cache entry for " + spec.device +
                               " at 20x18x18"),
            std::string::npos)
      << s.description;
  ASSERT_OK(select_kernels(spec.info, tuned, "another GPU", 0, s));
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

/// laplacian3d_f64 with one of the planner's rows (any device, any
/// extents) after an exact entry for this device at 20x18x16 ->
/// variant().
struct PlannedSpec {
  KernelInfo info = kernelNamed("laplacian3d_f64");
  TunedChoice table[2];
  std::string device = device_name();
  explicit PlannedSpec(const TunedChoice &planned)
      : table{{"", {20, 18, 16, 1}, &variant, 1234.5, 0, TunedKernels::All},
              planned} {
    table[0].device = device.c_str();
    info.num_tuned = 2;
    info.tuned = table;
  }
};

/// Groups of sites along x: a variant for nx a multiple of 4.
const KernelInfo &grouped() { return kernelNamed("laplacian3d_13pt_o4"); }

TEST(Tuning, PlannerGroupsAlongXWhereNxAllowsThem) {
  PlannedSpec spec(
      {nullptr, {0, 0, 0, 0}, &grouped, 0.0, 4, TunedKernels::All});
  KernelSelection s;
  // The exact entry first, then the planner's groups where 4 divides nx.
  const int tuned[] = {20, 18, 16}, multiple[] = {24, 18, 16},
            odd[] = {22, 18, 16};
  ASSERT_OK(select_kernels(spec.info, tuned, spec.device, 0, s));
  EXPECT_EQ(s.info, &variant());
  for (const std::string &device : {spec.device, std::string("another GPU")}) {
    ASSERT_OK(select_kernels(spec.info, multiple, device, 0, s));
    EXPECT_EQ(s.info, &grouped());
    EXPECT_NE(s.description.find("the planner's: "), std::string::npos);
    EXPECT_NE(s.description.find("(nx = 24 a multiple of 4)"),
              std::string::npos)
        << s.description;
  }
  EXPECT_NE(s.description.find("no tuning-cache entry for another GPU"),
            std::string::npos)
      << s.description;
  ASSERT_OK(select_kernels(spec.info, odd, spec.device, 0, s));
  EXPECT_EQ(s.info, &spec.info);
  EXPECT_EQ(s.description.find("planner"), std::string::npos);
  // A launch the groups' kernels cannot make (here more blocks along z
  // than a grid holds) leaves the spec's own, and says why.
  const int deep[] = {24, 18, 70000};
  ASSERT_OK(select_kernels(spec.info, deep, spec.device, 0, s));
  EXPECT_EQ(s.info, &spec.info);
  EXPECT_NE(s.description.find("(the planner's groups along x, "
                               "laplacian3d_13pt_o4, do not fit: launch grid"),
            std::string::npos)
      << s.description;
  ScopedEnv off("STENCILC_TUNING", "off");
  ASSERT_OK(select_kernels(spec.info, multiple, spec.device, 0, s));
  EXPECT_EQ(s.info, &spec.info);
}

TEST(Tuning, CacheFileChoosesAmongCompiledVariants) {
  TunedSpec spec;
  const int extents[] = {20, 18, 16};
  const std::string key = std::string("laplacian3d_f64\t") +
                          spec.info.fingerprint + "\t" + spec.device +
                          "\t20x18x16\t";
  // With the cache file at `path`: the kernels chosen, and what the report
  // says of them.
  auto expectChoice = [&](const std::string &path, const KernelInfo &chosen,
                          const std::string &reported) {
    SCOPED_TRACE(path);
    ScopedEnv cache("STENCILC_TUNE_CACHE", path);
    KernelSelection s;
    ASSERT_OK(select_kernels(spec.info, extents, spec.device, 0, s));
    EXPECT_EQ(s.info, &chosen);
    EXPECT_NE(s.description.find(reported), std::string::npos) << s.description;
  };
  // The last entry wins: here the spec's own options, over the table.
  expectChoice(writeCache("own.tsv", "# header\n" + key +
                                         variant().tuning_options + "\t1\t2\n" +
                                         key + spec.info.tuning_options +
                                         "\t1\t3\n"),
               spec.info, "own.tsv:3");
  // Another fingerprint (another version of the spec) does not match: the
  // compiled-in table decides, and the report says the entry was passed
  // over, and why.
  expectChoice(writeCache("stale.tsv", "laplacian3d_f64\t0123456789abcdef\t" +
                                           spec.device + "\t20x18x16\t" +
                                           spec.info.tuning_options +
                                           "\t1\t2\n"),
               variant(),
               "stale.tsv:1's entry was tuned for another version of "
               "laplacian3d_f64 (fingerprint 0123456789abcdef, this build's " +
                   std::string(spec.info.fingerprint) + ") and is not used");
  // An editor's byte order mark before the first entry: still read.
  expectChoice(writeCache("bom.tsv", "\xEF\xBB\xBF" + key +
                                         spec.info.tuning_options + "\t1\t2\n"),
               spec.info, "bom.tsv:1");
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
      // The reports quote both; they had printed "nan GB/s when tuned".
      {"nan.tsv", key + spec.info.tuning_options + "\t1\tnan\n",
       "nan.tsv:1: bandwidth must be a number of GB/s, at least 0, not 'nan'"},
      {"time.tsv", "# x\n" + key + spec.info.tuning_options + "\t-1\t2\n",
       "time.tsv:2: time must be a positive number of milliseconds, not '-1'"},
      {"word.tsv", key + spec.info.tuning_options + "\tbogus\t2\n",
       "word.tsv:1: time must be a positive number of milliseconds, not "
       "'bogus'"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.file);
    ScopedEnv cache("STENCILC_TUNE_CACHE", writeCache(c.file, c.text));
    KernelSelection s;
    Status status = select_kernels(spec.info, extents, spec.device, 0, s);
    ASSERT_FALSE(status.ok());
    EXPECT_NE(status.message().find(c.message), std::string::npos)
        << status.message();
  }
  ScopedEnv cache("STENCILC_TUNE_CACHE", "/nonexistent/cache.tsv");
  KernelSelection s;
  Status status = select_kernels(spec.info, extents, spec.device, 0, s);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("cannot read '/nonexistent/cache.tsv'"),
            std::string::npos);
}

// CG's fold pass with an entry of its own (TunedKernels::FoldPass, cache
// options "kernel=fold; ..."): the fold kernels come from it, every other
// kernel from the ordinary choice.

/// laplacian3d_f64 with other kernel options and the same fields: its first
/// compiled-in tuning-cache variant (tuning/tunecache.tsv) that has a fold
/// pass.
const KernelInfo &foldVariant() {
  const KernelInfo &spec = kernelNamed("laplacian3d_f64");
  for (int i = 0; i < spec.num_tuned; ++i) {
    const KernelInfo &v = spec.tuned[i].info();
    if (spec.tuned[i].device && &v != &spec && v.apply_fold_dot)
      return v;
  }
  ADD_FAILURE() << "laplacian3d_f64 has no compiled-in variant with a fold "
                   "pass; regenerate it with tuning/tunecache.tsv";
  return spec;
}
const KernelInfo &floatLaplacian() { return kernelNamed("laplacian3d_f32"); }
const KernelInfo &noFoldPass() { return kernelNamed("advection_diffusion3d"); }

/// laplacian3d_f64 with one compiled-in fold-pass entry: this device at
/// 20x18x16 -> `fold`.
struct FoldSpec {
  KernelInfo info = kernelNamed("laplacian3d_f64");
  TunedChoice table[1];
  std::string device = device_name();
  explicit FoldSpec(const KernelInfo &(*fold)() = &foldVariant)
      : table{{"", {20, 18, 16, 1}, fold, 3000.5, 0, TunedKernels::FoldPass}} {
    table[0].device = device.c_str();
    info.num_tuned = 1;
    info.tuned = table;
  }
};

TEST(Tuning, FoldPassEntryChoosesTheFoldKernelsOnly) {
  FoldSpec spec;
  ASSERT_NE(&foldVariant(), &spec.info);
  const int extents[] = {20, 18, 16}, other[] = {20, 18, 18};
  KernelSelection s;
  ASSERT_OK(select_kernels(spec.info, extents, spec.device, 0, s));
  EXPECT_EQ(s.info, &spec.info) << "a fold-pass entry chose all kernels";
  bool found = false;
  KernelSelection fold;
  ASSERT_OK(
      select_fold_kernels(spec.info, extents, spec.device, s, fold, found));
  ASSERT_TRUE(found);
  EXPECT_EQ(fold.info, &foldVariant());
  EXPECT_NE(fold.description.find("CG's fold pass, 3000.5"), std::string::npos)
      << fold.description;
  ASSERT_OK(select_fold_kernels(spec.info, other, spec.device, s, fold, found));
  EXPECT_FALSE(found);
  ASSERT_OK(
      select_fold_kernels(spec.info, extents, "another GPU", s, fold, found));
  EXPECT_FALSE(found);

  StencilOperator A;
  ASSERT_OK(StencilOperator::create(spec.info, extents, A));
  EXPECT_STREQ(A.info().name, "laplacian3d_f64");
  EXPECT_STREQ(A.fold_info().name, foldVariant().name);
  EXPECT_NE(A.kernel_choice().find("; CG's fold pass: tuned: "),
            std::string::npos)
      << A.kernel_choice();
  ASSERT_TRUE(A.has_apply_fold_dot());

  // The fold variant's pass against p' = r + beta p and A p' by the spec's
  // own apply kernel.
  expectFoldPassMatchesItsDefinition(A, 0.6875, 1e-13, 5);

  // Without tuning, and as given, the fold pass is the spec's own.
  ASSERT_OK(StencilOperator::create(spec.info, extents, A,
                                    StencilOperator::Kernels::AsGiven));
  EXPECT_STREQ(A.fold_info().name, "laplacian3d_f64");
  ScopedEnv off("STENCILC_TUNING", "off");
  ASSERT_OK(StencilOperator::create(spec.info, extents, A));
  EXPECT_STREQ(A.fold_info().name, "laplacian3d_f64");
}

/// The spec's own kernels, as a row of the planner's may name them.
const KernelInfo &spec64() { return kernelNamed("laplacian3d_f64"); }

// The planner's march for large lattices (TunedChoice::l2_percent, the
// generated table of t_rule_march_soa4d: NAME_x4_march at 60% of the L2,
// then NAME_x4, which also runs CG's fold pass): the march runs where two
// slices along t exceed that share of the device's L2, the groups below
// it, the spec's own kernels where nx takes no groups; never where the L2
// is unknown (the host backend's 0).
TEST(Tuning, PlannerMarchRunsOnlyWhereTwoSlicesExceedItsShareOfTheL2) {
  const KernelInfo &info = kernelNamed("t_rule_march_soa4d");
  ASSERT_EQ(info.num_tuned, 3);
  ASSERT_EQ(info.tuned[0].l2_percent, 60);
  ASSERT_EQ(info.tuned[1].l2_percent, 0);
  const KernelInfo &march = info.tuned[0].info(),
                   &groups = info.tuned[1].info();
  EXPECT_STREQ(march.name, "t_rule_march_soa4d_x4_march");
  EXPECT_STREQ(groups.name, "t_rule_march_soa4d_x4");
  EXPECT_EQ(info.tuned[2].kernels, TunedKernels::FoldPass);
  EXPECT_EQ(&info.tuned[2].info(), &groups);
  // The 24-float field's 192 bytes a site (read and written): at 48^3 x 64
  // two slices of 110592 sites move 42.47 MB, at 44^3 32.71 MB; the
  // H200's L2 of 60 MiB (62.91 MB) takes 37.75 MB at 60%.
  const std::int64_t l2 = 60LL << 20;
  const int large[] = {48, 48, 48, 64}, below[] = {44, 44, 44, 64},
            odd[] = {45, 48, 48, 64};
  EXPECT_EQ(two_slices_bytes(4, large, 192), 42467328);
  EXPECT_TRUE(slices_exceed_l2(4, large, 192, 60, l2));
  EXPECT_FALSE(slices_exceed_l2(4, below, 192, 60, l2));
  EXPECT_FALSE(slices_exceed_l2(4, large, 192, 0, l2));
  EXPECT_FALSE(slices_exceed_l2(4, large, 192, 60, 0));
  // Extents a spec allows (up to 2^30) but no GPU holds: no overflow.
  const int huge[] = {1 << 30, 1 << 30, 1 << 30, 8};
  EXPECT_EQ(two_slices_bytes(4, huge, 192), 2 * (std::int64_t(1) << 36) * 192);
  EXPECT_TRUE(slices_exceed_l2(4, huge, 192, 60, l2));
  // This field moves 96 bytes a site: 21.23 MB at 48^3, past 60% of an L2
  // of 24 MiB (15.10 MB), short of 60% of 40 MiB (25.17 MB).
  ASSERT_EQ(info.bytes_per_site, 96);
  KernelSelection s;
  ASSERT_OK(select_kernels(info, large, "any GPU", 24LL << 20, s));
  EXPECT_EQ(s.info, &march);
  EXPECT_NE(s.description.find("(two slices along t move 21.2 MB, past 60% "
                               "of the 25.2 MB L2)"),
            std::string::npos)
      << s.description;
  // CG's fold pass keeps the groups there.
  bool found = false;
  KernelSelection fold;
  ASSERT_OK(select_fold_kernels(info, large, "any GPU", s, fold, found));
  EXPECT_TRUE(found);
  EXPECT_EQ(fold.info, &groups) << fold.description;
  ASSERT_OK(select_kernels(info, large, "any GPU", 40LL << 20, s));
  EXPECT_EQ(s.info, &groups) << s.description;
  ASSERT_OK(select_kernels(info, large, "any GPU", 0, s));
  EXPECT_EQ(s.info, &groups) << s.description;
  ASSERT_OK(select_kernels(info, odd, "any GPU", 24LL << 20, s));
  EXPECT_EQ(s.info, &info) << s.description;
  // A tuning-cache file's entry for the extents still comes first.
  const std::string cache = writeCache(
      "march_l2.tsv", std::string(info.name) + "\t" + info.fingerprint +
                          "\tany GPU\t48x48x48x64\t" + groups.tuning_options +
                          "\t0.5\t1000\n");
  ScopedEnv env("STENCILC_TUNE_CACHE", cache.c_str());
  ASSERT_OK(select_kernels(info, large, "any GPU", 24LL << 20, s));
  EXPECT_EQ(s.info, &groups) << s.description;
  EXPECT_TRUE(s.from_cache);
}

// Another GPU's planner choice (tune/DevicePlans.h): on a GPU of that name
// its rows replace the planner's rows for any device, groups along x where
// nx allows them, else its kernels for every nx (which may be the spec's
// own); exact tuning-cache entries still come first, and elsewhere the rows
// for any device serve.
TEST(Tuning, PlannerKernelsForThisDeviceReplaceThoseForAnyDevice) {
  const std::string device = device_name(), other = "NVIDIA H200";
  KernelInfo info = kernelNamed("laplacian3d_f64");
  const TunedChoice table[] = {
      {device.c_str(), {20, 18, 16, 1}, &variant, 1234.5, 0, TunedKernels::All},
      {nullptr, {0, 0, 0, 0}, &grouped, 0.0, 4, TunedKernels::All},
      {nullptr, {0, 0, 0, 0}, &foldVariant, 0.0, 2, TunedKernels::FoldPass},
      {other.c_str(), {0, 0, 0, 0}, &foldVariant, 0.0, 2, TunedKernels::All},
      {other.c_str(), {0, 0, 0, 0}, &spec64, 0.0, 1,
       TunedKernels::All}};
  info.num_tuned = 5;
  info.tuned = table;
  const int even[] = {24, 18, 16}, odd[] = {21, 18, 16}, tuned[] = {20, 18, 16};
  KernelSelection s;
  // On that GPU: its groups of 2 where nx is even (not the rows for any
  // device, groups of 4, though 4 divides 24), its one-site kernels (here
  // the spec's own options) for every other nx.
  ASSERT_OK(select_kernels(info, even, other, 0, s));
  EXPECT_EQ(s.info, &foldVariant());
  EXPECT_NE(s.description.find("the planner's for NVIDIA H200: " +
                               std::string(foldVariant().tuning_options) +
                               " (nx = 24 a multiple of 2)"),
            std::string::npos)
      << s.description;
  // Its rows are predictions, not tuning-cache entries: without the entry
  // the table has none to miss.
  EXPECT_FALSE(s.from_cache);
  {
    KernelInfo planned = info;
    planned.tuned = table + 1;
    planned.num_tuned = 4;
    KernelSelection p;
    ASSERT_OK(select_kernels(planned, even, other, 0, p));
    EXPECT_EQ(p.info, &foldVariant());
    EXPECT_EQ(p.description.find("no tuning-cache entry"), std::string::npos)
        << p.description;
  }
  ASSERT_OK(select_kernels(info, odd, other, 0, s));
  EXPECT_EQ(s.info, &spec64());
  EXPECT_NE(s.description.find("the planner's for NVIDIA H200: "),
            std::string::npos)
      << s.description;
  // Elsewhere, the rows for any device; an exact entry first everywhere.
  ASSERT_OK(select_kernels(info, even, device, 0, s));
  EXPECT_EQ(s.info, &grouped());
  EXPECT_NE(s.description.find("the planner's: "), std::string::npos);
  ASSERT_OK(select_kernels(info, tuned, device, 0, s));
  EXPECT_EQ(s.info, &variant());
  EXPECT_TRUE(s.from_cache);
  // No fold-pass rows for that GPU: its fold pass runs with the kernels
  // chosen, not with the fold row for any device, which serves elsewhere.
  bool found = true;
  KernelSelection fold;
  ASSERT_OK(select_kernels(info, even, other, 0, s));
  ASSERT_OK(select_fold_kernels(info, even, other, s, fold, found));
  EXPECT_FALSE(found) << fold.description;
  ASSERT_OK(select_kernels(info, even, device, 0, s));
  ASSERT_OK(select_fold_kernels(info, even, device, s, fold, found));
  EXPECT_TRUE(found);
  EXPECT_EQ(fold.info, &foldVariant());

  // A tuning-cache entry for that GPU and these extents outranks its rows.
  TunedChoice withEntry[6];
  std::copy(table, table + 5, withEntry);
  withEntry[5] = {other.c_str(), {24, 18, 16, 1}, &variant, 999.0, 0,
                  TunedKernels::All};
  KernelInfo entry = info;
  entry.tuned = withEntry;
  entry.num_tuned = 6;
  ASSERT_OK(select_kernels(entry, even, other, 0, s));
  EXPECT_EQ(s.info, &variant());
  EXPECT_TRUE(s.from_cache);

  // Where none of its rows can launch (more blocks along z than a grid
  // holds: one site of z a block for its row, two for the row for any
  // device), the rows for any device are tried, and the report names the
  // one that did not fit.
  const TunedChoice deepTable[] = {
      {nullptr, {0, 0, 0, 0}, &foldVariant, 0.0, 2, TunedKernels::All},
      {other.c_str(), {0, 0, 0, 0}, &spec64, 0.0, 1, TunedKernels::All}};
  KernelInfo deepInfo = info;
  deepInfo.tuned = deepTable;
  deepInfo.num_tuned = 2;
  const int deep[] = {24, 18, 100000};
  ASSERT_OK(select_kernels(deepInfo, deep, other, 0, s));
  EXPECT_EQ(s.info, &foldVariant()) << s.description;
  EXPECT_NE(s.description.find("(the planner's kernels, laplacian3d_f64, do "
                               "not fit: launch grid"),
            std::string::npos)
      << s.description;
}

// The planner's kernels for CG's fold pass (foldVariant() stands in, for
// nx a multiple of 2).
TEST(Tuning, PlannerFoldPassKernelsWhereNoEntryChoseTheKernels) {
  PlannedSpec spec(
      {nullptr, {0, 0, 0, 0}, &foldVariant, 0.0, 2, TunedKernels::FoldPass});
  const int even[] = {22, 18, 16}, odd[] = {21, 18, 16}, tuned[] = {20, 18, 16};
  KernelSelection s, fold;
  bool found = false;
  // The fold row is not a choice for all kernels.
  ASSERT_OK(select_kernels(spec.info, even, spec.device, 0, s));
  EXPECT_EQ(s.info, &spec.info) << s.description;
  EXPECT_FALSE(s.from_cache);
  for (const std::string &device : {spec.device, std::string("another GPU")}) {
    ASSERT_OK(select_fold_kernels(spec.info, even, device, s, fold, found));
    ASSERT_TRUE(found);
    EXPECT_EQ(fold.info, &foldVariant());
    EXPECT_FALSE(fold.from_cache);
    EXPECT_NE(fold.description.find("the planner's: " +
                                    std::string(foldVariant().tuning_options) +
                                    " (nx = 22 a multiple of 2)"),
              std::string::npos)
        << fold.description;
  }
  ASSERT_OK(select_fold_kernels(spec.info, odd, spec.device, s, fold, found));
  EXPECT_FALSE(found) << "groups of 2 sites along x with nx = 21";
  // A measurement of the other kernels outranks the planner's prediction.
  ASSERT_OK(select_kernels(spec.info, tuned, spec.device, 0, s));
  EXPECT_TRUE(s.from_cache);
  ASSERT_OK(select_fold_kernels(spec.info, tuned, spec.device, s, fold, found));
  EXPECT_FALSE(found);
  // A launch the fold kernels cannot make (70000 blocks along z) leaves
  // the chosen kernels, and says why.
  const int deep[] = {22, 18, 140000};
  KernelSelection fresh;
  ASSERT_OK(select_kernels(spec.info, deep, spec.device, 0, fresh));
  EXPECT_FALSE(fresh.from_cache);
  ASSERT_OK(
      select_fold_kernels(spec.info, deep, spec.device, fresh, fold, found));
  EXPECT_FALSE(found);
  EXPECT_NE(fold.description.find("the kernels chosen (the planner's fold "
                                  "kernels, " +
                                  std::string(foldVariant().name) +
                                  ", do not fit: launch grid"),
            std::string::npos)
      << fold.description;
  // A selection reused for another lattice forgets its cache entry.
  ASSERT_OK(select_kernels(spec.info, tuned, spec.device, 0, s));
  ASSERT_TRUE(s.from_cache);
  ASSERT_OK(select_kernels(spec.info, even, spec.device, 0, s));
  EXPECT_FALSE(s.from_cache);

  StencilOperator A;
  ASSERT_OK(StencilOperator::create(spec.info, even, A));
  EXPECT_STREQ(A.info().name, "laplacian3d_f64");
  EXPECT_STREQ(A.fold_info().name, foldVariant().name);
  EXPECT_NE(A.kernel_choice().find("; CG's fold pass: the planner's: "),
            std::string::npos)
      << A.kernel_choice();
  expectFoldPassMatchesItsDefinition(A, 0.6875, 1e-13, 5);
  ASSERT_OK(StencilOperator::create(spec.info, odd, A));
  EXPECT_STREQ(A.fold_info().name, "laplacian3d_f64");

  ScopedEnv off("STENCILC_TUNING", "off");
  ASSERT_OK(select_fold_kernels(spec.info, even, spec.device, s, fold, found));
  EXPECT_FALSE(found);
}

// Every registered stencil whose planner compiled kernels of its own for
// CG's fold pass (NAME_fold, and NAME_inner_fold) runs its fold pass from
// them where nx allows, and that pass computes p' = r + beta p and A p' as
// the spec's own apply kernel does (site parameters and links random, odd
// extents along y and z).
TEST(Tuning, PlannerFoldPassKernelsOfTheShippedSpecsComputeTheirDefinition) {
  using stencilc::testing::attachRandomSiteParameters;
  using stencilc::testing::registeredKernels;
  int checked = 0;
  for (const auto &registered : registeredKernels()) {
    std::vector<const KernelInfo *> infos = {registered.info};
    if (registered.info->inner)
      infos.push_back(&registered.info->inner());
    for (const KernelInfo *spec : infos) {
      for (int i = 0; i < spec->num_tuned; ++i) {
        const TunedChoice &choice = spec->tuned[i];
        if (choice.device || choice.kernels != TunedKernels::FoldPass)
          continue;
        SCOPED_TRACE(spec->name);
        const int nx = 6 * choice.x_multiple;
        // 4-D: a multiple of the link arrays' blocks of 32 sites.
        const int extents[] = {nx, spec->shape.dims == 4 ? 8 : 7, 5, 8};
        StencilOperator A;
        ASSERT_OK(StencilOperator::create(*spec, extents, A));
        EXPECT_STREQ(A.fold_info().name, choice.info().name);
        EXPECT_NE(A.kernel_choice().find("; CG's fold pass: the planner's: "),
                  std::string::npos)
            << A.kernel_choice();
        Random random(11);
        std::vector<std::unique_ptr<Field>> sites;
        ASSERT_OK(attachRandomSiteParameters(A, random, 0.5, 1.5, sites));
        Field links;
        ASSERT_OK(stencil::set_random_links(A, random, links));
        const double tolerance = A.lattice().element_bytes == 8 ? 1e-13 : 1e-5;
        expectFoldPassMatchesItsDefinition(A, 0.6875, tolerance, 7);
        ++checked;
      }
    }
  }
  std::printf("%d planner's fold-pass kernels checked\n", checked);
  EXPECT_GT(checked, 0) << "no shipped spec has the planner's fold kernels";
}

TEST(Tuning, CacheFileFoldEntryIsForTheFoldPassAlone) {
  TunedSpec spec; // its compiled-in entry for all kernels: variant()
  const int extents[] = {20, 18, 16};
  const std::string key = std::string("laplacian3d_f64\t") +
                          spec.info.fingerprint + "\t" + spec.device +
                          "\t20x18x16\t";
  // The fold line comes last and does not replace the entry for all
  // kernels before it.
  ScopedEnv cache(
      "STENCILC_TUNE_CACHE",
      writeCache("fold.tsv",
                 key + spec.info.tuning_options + "\t1\t2\n" + key +
                     "kernel=fold; " + foldVariant().tuning_options +
                     "\t0.5\t2\n"));
  KernelSelection s;
  ASSERT_OK(select_kernels(spec.info, extents, spec.device, 0, s));
  EXPECT_EQ(s.info, &spec.info);
  EXPECT_NE(s.description.find("fold.tsv:1"), std::string::npos)
      << s.description;
  // The spec with its tuned variants compiled in knows the fold line's
  // options.
  const KernelInfo &shipped = kernelNamed("laplacian3d_f64");
  StencilOperator A;
  ASSERT_OK(StencilOperator::create(shipped, extents, A));
  EXPECT_STREQ(A.info().name, "laplacian3d_f64");
  EXPECT_STREQ(A.fold_info().name, foldVariant().name);
  EXPECT_NE(A.kernel_choice().find("CG's fold pass: tuned: " +
                                   std::string(foldVariant().tuning_options) +
                                   " (" ),
            std::string::npos)
      << A.kernel_choice();
  EXPECT_NE(A.kernel_choice().find("fold.tsv:2"), std::string::npos)
      << A.kernel_choice();
}

TEST(Tuning, FoldEntriesAreOptionsAfterTheirPrefix) {
  EXPECT_TRUE(is_fold_entry("kernel=fold; block=64x4x1; tile=z2"));
  EXPECT_TRUE(is_fold_entry("  kernel=fold;block=64x4x1"));
  EXPECT_FALSE(is_fold_entry("block=64x4x1; tile=z2"));
  EXPECT_FALSE(is_fold_entry("kernel=folded; block=64x4x1"));
  EXPECT_FALSE(is_fold_entry("grid=1x1x2; transport=peer"));
  EXPECT_EQ(fold_entry_options("kernel=fold; block=64x4x1; tile=z2"),
            "block=64x4x1; tile=z2");
  EXPECT_EQ(fold_entry_options("  kernel=fold;block=64x4x1"),
            "block=64x4x1");
  EXPECT_EQ(fold_entry_options("block=64x4x1"), "block=64x4x1");
}

TEST(Tuning, CacheFileWithOnlyAFoldLineLeavesTheOtherKernelsToTheTable) {
  TunedSpec spec; // its compiled-in entry for all kernels: variant()
  const int extents[] = {20, 18, 16};
  ScopedEnv cache("STENCILC_TUNE_CACHE",
                  writeCache("onlyfold.tsv",
                             std::string("laplacian3d_f64\t") +
                                 spec.info.fingerprint + "\t" + spec.device +
                                 "\t20x18x16\tkernel=fold; " +
                                 spec.info.tuning_options + "\t1\t2\n"));
  KernelSelection s;
  ASSERT_OK(select_kernels(spec.info, extents, spec.device, 0, s));
  EXPECT_EQ(s.info, &variant());
  EXPECT_NE(s.description.find("compiled-in tuning-cache entry"),
            std::string::npos)
      << s.description;
  bool found = false;
  KernelSelection fold;
  ASSERT_OK(
      select_fold_kernels(spec.info, extents, spec.device, s, fold, found));
  ASSERT_TRUE(found);
  EXPECT_EQ(fold.info, &spec.info);
  EXPECT_NE(fold.description.find("onlyfold.tsv:1"), std::string::npos)
      << fold.description;
}

TEST(Tuning, FoldEntriesThatCannotServeAreRefused) {
  const int extents[] = {20, 18, 16};
  StencilOperator A;
  {
    FoldSpec spec(&floatLaplacian); // float fields for a double operator
    Status status = StencilOperator::create(spec.info, extents, A);
    ASSERT_FALSE(status.ok());
    EXPECT_NE(status.message().find("laplacian3d_f64: CG's fold pass, tuned: "),
              std::string::npos)
        << status.message();
  }
  {
    FoldSpec spec(&noFoldPass);
    Status status = StencilOperator::create(spec.info, extents, A);
    ASSERT_FALSE(status.ok());
    EXPECT_NE(status.message().find("these kernels have no fold pass"),
              std::string::npos)
        << status.message();
  }
  // A cache file's fold line naming options this build did not compile.
  const KernelInfo &shipped = kernelNamed("laplacian3d_f64");
  ScopedEnv cache("STENCILC_TUNE_CACHE",
                  writeCache("foldmissing.tsv",
                             std::string("laplacian3d_f64\t") +
                                 shipped.fingerprint + "\t" + device_name() +
                                 "\t20x18x16\tkernel=fold; block=1x1x1\t1\t1\n"));
  Status status = StencilOperator::create(shipped, extents, A);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("foldmissing.tsv:1: the tuning cache "
                                  "chooses 'kernel=fold; block=1x1x1'"),
            std::string::npos)
      << status.message();
  // Kernels named otherwise than 'kernel=fold; '.
  ScopedEnv other("STENCILC_TUNE_CACHE",
                  writeCache("kernelapply.tsv",
                             std::string("laplacian3d_f64\t") +
                                 shipped.fingerprint + "\t" + device_name() +
                                 "\t20x18x16\tkernel=apply; block=1x1x1\t1\t1\n"));
  status = StencilOperator::create(shipped, extents, A);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("kernelapply.tsv:1: 'kernel=apply; "
                                  "block=1x1x1': an entry names its kernels "
                                  "only as 'kernel=fold; '"),
            std::string::npos)
      << status.message();
}

// The halo-exchange policy (stencil/exchange_choice.hpp): the spec's
// grid.exchange, a compiled-in entry, the cache file, the environment.

/// laplacian3d_f64 (grid.split y, z) with one compiled-in exchange entry:
/// this device at 20x18x16 on grid 1x1x2 -> staged, no overlap.
struct TunedExchangeSpec {
  KernelInfo info = kernelNamed("laplacian3d_f64");
  DistributedInfo distributed = *kernelNamed("laplacian3d_f64").distributed;
  TunedExchange table[1] = {{"",
                             {20, 18, 16, 1},
                             {1, 1, 2, 1},
                             {ExchangeTransport::Staged, false},
                             0.25}};
  std::string device = device_name();
  TunedExchangeSpec() {
    table[0].device = device.c_str();
    distributed.num_tuned_exchange = 1;
    distributed.tuned_exchange = table;
    info.distributed = &distributed;
    // Its own kernel variants (the planner's groups along x) are not what
    // these tests choose.
    info.num_tuned = 0;
    info.tuned = nullptr;
  }
};

TEST(ExchangeChoice, SpecPolicyThenCompiledInEntryForDeviceExtentsAndGrid) {
  TunedExchangeSpec spec;
  const int extents[] = {20, 18, 16}, grid[] = {1, 1, 2}, other[] = {1, 2, 1};
  ExchangeSelection s;
  ASSERT_OK(select_exchange(spec.info, extents, grid, spec.device, s));
  EXPECT_EQ(s.options.transport, ExchangeTransport::Staged);
  EXPECT_FALSE(s.options.overlap);
  EXPECT_NE(s.description.find("tuned: transport staged, overlap off "
                               "(compiled-in tuning-cache entry, 0.25 ms"),
            std::string::npos)
      << s.description;
  // Another grid, device or lattice: the spec's grid.exchange (auto, on).
  for (const auto &[e, g, device] :
       {std::make_tuple(extents, other, spec.device),
        std::make_tuple(extents, grid, std::string("another GPU")),
        std::make_tuple(static_cast<const int *>(other), grid, spec.device)}) {
    ASSERT_OK(select_exchange(spec.info, e, g, device, s));
    EXPECT_EQ(s.options.transport, ExchangeTransport::Auto);
    EXPECT_TRUE(s.options.overlap);
    EXPECT_NE(s.description.find("the spec's grid.exchange: transport auto, "
                                 "overlap on"),
              std::string::npos)
        << s.description;
  }
  ScopedEnv off("STENCILC_TUNING", "off");
  ASSERT_OK(select_exchange(spec.info, extents, grid, spec.device, s));
  EXPECT_TRUE(s.options.overlap);
  EXPECT_NE(s.description.find("STENCILC_TUNING=off"), std::string::npos);
}

TEST(ExchangeChoice, CacheFileLastEntryForTheGridWinsAndEnvironmentOverrides) {
  TunedExchangeSpec spec;
  const int extents[] = {20, 18, 16}, grid[] = {1, 1, 2};
  const std::string key = std::string("laplacian3d_f64\t") +
                          spec.info.fingerprint + "\t" + spec.device +
                          "\t20x18x16\t";
  const std::string path = writeCache(
      "exchange.tsv",
      key + "grid=1x1x2; transport=staged; overlap=on\t0.5\t10\n" +
          key + "grid=1x1x2; transport=peer; overlap=on\t0.4\t12\n" +
          key + "grid=1x2x1; transport=staged; overlap=off\t0.3\t13\n");
  ScopedEnv cache("STENCILC_TUNE_CACHE", path);
  ExchangeSelection s;
  ASSERT_OK(select_exchange(spec.info, extents, grid, spec.device, s));
  EXPECT_EQ(s.options.transport, ExchangeTransport::Peer);
  EXPECT_TRUE(s.options.overlap);
  EXPECT_NE(s.description.find("exchange.tsv:2, 0.4 ms"), std::string::npos)
      << s.description;
  // The kernels' choice skips exchange entries (no kernel options there).
  KernelSelection k;
  ASSERT_OK(select_kernels(spec.info, extents, spec.device, 0, k));
  EXPECT_EQ(k.info, &spec.info);
  {
    ScopedEnv overlap("STENCILC_OVERLAP", "off");
    ScopedEnv transport("STENCILC_EXCHANGE", "staged");
    ASSERT_OK(select_exchange(spec.info, extents, grid, spec.device, s));
    EXPECT_EQ(s.options.transport, ExchangeTransport::Staged);
    EXPECT_FALSE(s.options.overlap);
    EXPECT_NE(s.description.find("; transport staged (STENCILC_EXCHANGE); "
                                 "overlap off (STENCILC_OVERLAP)"),
              std::string::npos)
        << s.description;
  }
  ScopedEnv bad("STENCILC_OVERLAP", "maybe");
  Status status = select_exchange(spec.info, extents, grid, spec.device, s);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.message(), "STENCILC_OVERLAP='maybe': expected on or off");
}

TEST(ExchangeChoice, MalformedEntriesAndRequestsSayWhereAndWhy) {
  TunedExchangeSpec spec;
  const int extents[] = {20, 18, 16}, grid[] = {1, 1, 2};
  const std::string key = std::string("laplacian3d_f64\t") +
                          spec.info.fingerprint + "\t" + spec.device +
                          "\t20x18x16\t";
  struct Case {
    std::string options, message;
  } cases[] = {
      {"grid=1x2; transport=peer; overlap=on",
       "bad.tsv:1: 'grid=1x2': expected 3 ranks per axis"},
      {"grid=1x1x0; transport=peer; overlap=on",
       "bad.tsv:1: 'grid=1x1x0': expected 3 positive ranks per axis"},
      {"grid=1x1x2; transport=nvlink; overlap=on",
       "bad.tsv:1: 'transport=nvlink': expected auto, peer, staged or "
       "gpu-aware"},
      {"grid=1x1x2; transport=peer; overlap=yes",
       "bad.tsv:1: 'overlap=yes': expected on or off"},
      {"grid=1x1x2; transport=peer",
       "bad.tsv:1: 'grid=1x1x2; transport=peer': a halo-exchange entry "
       "names grid, transport and overlap"},
      {"grid=1x1x2; streams=2; transport=peer; overlap=on",
       "bad.tsv:1: 'streams=2': unknown item of a halo-exchange entry"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.options);
    ScopedEnv cache("STENCILC_TUNE_CACHE",
                    writeCache("bad.tsv", key + c.options + "\t1\t2\n"));
    ExchangeSelection s;
    Status status = select_exchange(spec.info, extents, grid, spec.device, s);
    ASSERT_FALSE(status.ok());
    EXPECT_NE(status.message().find(c.message), std::string::npos)
        << status.message();
  }
  // The time an entry records, as the generator reads it (read_tuning_cache
  // checks every entry's).
  for (const char *ms : {"abc", "-5", "nan"}) {
    SCOPED_TRACE(ms);
    ScopedEnv cache("STENCILC_TUNE_CACHE",
                    writeCache("bad.tsv", key + "grid=1x1x2; transport=peer; "
                                                "overlap=on\t" +
                                              ms + "\t2\n"));
    ExchangeSelection s;
    expectFailure(select_exchange(spec.info, extents, grid, spec.device, s),
                  {"bad.tsv:1: time must be a positive number of "
                   "milliseconds, not '" +
                   std::string(ms) + "'"});
  }
  ScopedEnv transport("STENCILC_EXCHANGE", "fastest");
  ExchangeSelection s;
  Status status = select_exchange(spec.info, extents, grid, spec.device, s);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.message(),
            "STENCILC_EXCHANGE='fastest': expected peer, staged or gpu-aware");
  // A stencil without grid.split has no exchange to choose.
  const KernelInfo &plain = kernelNamed("laplacian4d_periodic");
  const int extents4[] = {4, 4, 4, 4}, grid4[] = {1, 1, 1, 1};
  status = select_exchange(plain, extents4, grid4, spec.device, s);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("does not declare grid.split"),
            std::string::npos);
}

TEST(ExchangeChoice, OptionsTextRoundTrips) {
  const int grid[] = {1, 2, 1, 4};
  const ExchangeOptions options{ExchangeTransport::GpuAware, false};
  const std::string text = exchange_options_text(grid, 4, options);
  EXPECT_EQ(text, "grid=1x2x1x4; transport=gpu-aware; overlap=off");
  int back[kMaxDims] = {0, 0, 0, 0};
  ExchangeOptions parsed{ExchangeTransport::Auto, true};
  ASSERT_OK(parse_exchange_options(text, 4, back, parsed));
  EXPECT_EQ(parsed.transport, ExchangeTransport::GpuAware);
  EXPECT_FALSE(parsed.overlap);
  for (int axis = 0; axis < 4; ++axis)
    EXPECT_EQ(back[axis], grid[axis]);
  // A trailing 'x' had dropped an axis silently, and a repeated item had
  // replaced the first.
  expectFailure(parse_exchange_options(
                    "grid=1x1x2x; transport=peer; overlap=on", 4, back, parsed),
                {"'grid=1x1x2x': expected 4 ranks per axis"});
  expectFailure(parse_exchange_options("grid=1x1x2x1; transport=peer; "
                                       "overlap=on; transport=staged",
                                       4, back, parsed),
                {"'transport=staged': 'transport' given twice"});
}

} // namespace
