// The planner's cost model against measurements: the H100 searches recorded
// under docs/results/tune-*.json (every variant of a spec's kernel options,
// timed by `stencilc tune`'s program). For each search, the model ranks the
// variants it can rebuild from their summaries; the variant it ranks first
// must have measured within a few percent of the fastest, and the ranking
// must follow the measurements (rank correlation).
#include "plan/CostModel.h"
#include "TestSupport.h"
#include "check/Check.h"
#include "plan/ChooseOptions.h"
#include "plan/MarchRules.h"
#include "plan/Plan.h"
#include "tune/DevicePlans.h"
#include "tune/Tune.h"
#include "tune/TuningCache.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>

using namespace stencilc;

namespace {

struct Measured {
  std::string options;
  double gbs = 0;
  double predictedPs = 0;
  KernelCost cost;
};

struct Search {
  std::string file, stencil, size;
  std::vector<Measured> variants; ///< those the model rebuilt
  int recorded = 0;
  std::map<std::string, double> gbsByOptions; ///< every variant recorded
};

/// The spec named `stencil` as written, its open options open: a shipped
/// spec, or one of the planner's held-out specs (tests/specs/heldout),
/// written to check the cost model on stencils it was not fitted to.
std::optional<StencilModel> loadSpecAsWritten(const std::string &stencil) {
  llvm::SmallString<256> path(STENCILC_SOURCE_DIR);
  llvm::sys::path::append(path, "specs", stencil + ".yaml");
  if (!llvm::sys::fs::exists(path)) {
    path = STENCILC_SOURCE_DIR;
    llvm::sys::path::append(path, "tests", "specs", "heldout",
                            stencil + ".yaml");
  }
  llvm::SourceMgr sources;
  std::string ignored;
  llvm::raw_string_ostream os(ignored);
  DiagnosticEngine diags(sources, os);
  return loadModel(path, diags);
}

std::optional<StencilModel> loadShippedSpec(const std::string &stencil) {
  std::string name = stencil;
  bool inner = false;
  if (llvm::StringRef(name).endswith("_inner")) {
    name.resize(name.size() - 6);
    inner = true;
  }
  std::optional<StencilModel> model = loadSpecAsWritten(name);
  if (!model)
    return model;
  // As `stencilc tune` saw it: the open options chosen.
  chooseOpenOptions(*model);
  if (inner)
    model = innerKernelsModel(*model);
  return model;
}

std::vector<int> parseSize(llvm::StringRef text) {
  llvm::SmallVector<llvm::StringRef, 4> parts;
  text.split(parts, 'x');
  std::vector<int> extents;
  for (llvm::StringRef p : parts)
    extents.push_back(std::stoi(p.str()));
  return extents;
}

/// A layout as the summaries spell it ("aosoa in blocks of 32 sites, 2
/// reals per load") in the cache's spelling ("aosoa:32:v2").
std::string layoutOption(llvm::StringRef text, llvm::StringRef vector) {
  std::string out;
  if (text == "aos" || text == "soa")
    out = text.str();
  else if (text.consume_front("aosoa in blocks of ") &&
           text.consume_back(" sites"))
    out = "aosoa:" + text.str();
  else
    return "";
  if (!vector.empty())
    out += ":v" + vector.str();
  return out;
}

/// The options of a recorded variant's summary ("block 32x4x1x1, no tile
/// (recorded before 2026-12 as "tile x x 1"), as-written, regular stores,
/// launch bounds 128 (at least 1 per SM), aos, vector width 2, links ...") as a
/// tuning-cache options line, or "" where an item is not understood.
std::string optionsFromSummary(llvm::StringRef summary) {
  llvm::SmallVector<llvm::StringRef, 16> items;
  summary.split(items, ", ");
  // Summaries without launch bounds were timed without them. Each key
  // once: the cache's reader refuses a repeated one.
  std::string out;
  bool fieldLayout = false, bounds = false, width = false;
  for (size_t i = 0; i < items.size(); ++i) {
    llvm::StringRef item = items[i];
    llvm::StringRef next = i + 1 < items.size() ? items[i + 1] : "";
    llvm::StringRef vector;
    if (next.endswith(" reals per load"))
      vector = next.split(' ').first;
    if (item.consume_front("block "))
      out += "; block=" + item.str();
    else if (item == "no tile")
      out += "; tile=x1";
    else if (item.consume_front("tile ")) {
      auto [axis, factor] = item.split(" x ");
      out += "; tile=" + axis.str() + factor.str();
    } else if (item == "ascending" || item == "as-written")
      out += "; order=" + item.str();
    else if (item == "regular stores")
      out += "; stores=regular";
    else if (item == "non-temporal stores")
      out += "; stores=nontemporal";
    else if (item.consume_front("launch bounds ")) {
      auto [value, rest] = item.split(' ');
      out += "; launch_bounds=" + value.str();
      bounds = true;
      if (rest.consume_front("(at least "))
        out += "; min_blocks_per_sm=" + rest.split(' ').first.str();
    } else if (item.consume_front("vector width ")) {
      out += "; vector_width=" + item.str();
      width = true;
    } else if (item.endswith(" sites along x per access")) {
      out += "; vector_width=" + item.split(' ').first.str();
      width = true;
    } else if (item.endswith(" components per thread"))
      out += "; components_per_thread=" + item.split(' ').first.str();
    else if (item.consume_front("links "))
      out += "; links=" + layoutOption(item, vector);
    else if (item.consume_front("clover "))
      out += "; clover=" + layoutOption(item, vector);
    else if (item.consume_front("slab "))
      out += "; slab=" + item.str();
    else if (item.endswith(" reals per load"))
      continue;
    else if (!fieldLayout && !layoutOption(item, vector).empty()) {
      out += "; layout=" + layoutOption(item, vector);
      fieldLayout = true;
    } else
      return "";
  }
  if (!bounds)
    out += "; launch_bounds=0";
  // Summaries name a vector width above 1 only.
  if (!width)
    out += "; vector_width=1";
  return llvm::StringRef(out).drop_front(2).str();
}

/// The searches of site-major fields with component splits recorded while
/// the shares of a site were placed a block each.
bool recordedBeforeSharesByLane(const std::string &file) {
  return file == "tune-laplacian4d_vec12_f64-h100.json" ||
         file == "tune-laplacian4d_vec24_aos-h100.json" ||
         file == "tune-laplacian4d_vec24_aos_lds-staging-h100.json";
}

/// The H100 searches that timed `kernel`: "apply" (the stencil kernel, or
/// the even-to-odd hop) or "fold" (CG's fold pass, tune_NAME --kernel
/// fold).
/// With `storage` set, only the searches whose file name contains it, and
/// every storage of the field, links and clover term they timed.
std::vector<Search> recordedSearches(llvm::StringRef kernel = "apply",
                                     const DeviceModel &device = h100Device(),
                                     llvm::StringRef storage = "") {
  std::vector<Search> searches;
  llvm::SmallString<256> dir(STENCILC_SOURCE_DIR);
  llvm::sys::path::append(dir, "docs", "results");
  std::error_code ec;
  std::vector<std::string> files;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec)) {
    llvm::StringRef name = llvm::sys::path::filename(it->path());
    if (name.startswith("tune-") && name.endswith(".json") &&
        name.contains(storage))
      files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  for (const std::string &file : files) {
    auto buffer = llvm::MemoryBuffer::getFile(file);
    if (!buffer)
      continue;
    llvm::Expected<llvm::json::Value> json =
        llvm::json::parse((*buffer)->getBuffer());
    if (!json) {
      llvm::consumeError(json.takeError());
      ADD_FAILURE() << file << ": not JSON";
      continue;
    }
    const llvm::json::Object *root = json->getAsObject();
    if (root->getString("kernel").value_or("apply") != kernel)
      continue;
    if (root->getString("device").value_or("") != device.name)
      continue;
    Search search;
    search.file = llvm::sys::path::filename(file).str();
    search.stencil = root->getString("stencil").value_or("").str();
    search.size = root->getString("size").value_or("").str();
    std::optional<StencilModel> model = loadShippedSpec(search.stencil);
    if (!model)
      continue; // a spec that no longer ships
    const std::vector<int> extents = parseSize(search.size);
    std::map<std::string, const Variant *> bySummary;
    std::vector<Variant> variants = tuningVariants(*model, 100000, extents);
    for (const Variant &v : variants) {
      // The summary, and as older searches recorded it: before the
      // hopping kernels' walk was an option they timed it in storage order
      // (no ", slab 1"), and before 2026-12 "no tile" read "tile A x 1".
      std::vector<std::string> spellings = {v.summary};
      llvm::StringRef summary(v.summary);
      if (summary.consume_back(", slab 1"))
        spellings.push_back(summary.str());
      for (size_t i = 0, n = spellings.size(); i < n; ++i) {
        const std::string s = spellings[i]; // a copy: the vector grows
        const size_t at = s.find(", no tile");
        if (at == std::string::npos)
          continue;
        for (const char *axis : {"x", "y", "z", "t"})
          spellings.push_back(s.substr(0, at) + ", tile " + axis + " x 1" +
                              s.substr(at + std::strlen(", no tile")));
      }
      bySummary[v.summary] = &v;
      for (const std::string &spelling : spellings)
        bySummary.emplace(spelling, &v);
    }
    for (const llvm::json::Value &entry : *root->getArray("variants")) {
      const llvm::json::Object *o = entry.getAsObject();
      ++search.recorded;
      std::string options = o->getString("options").value_or("").str();
      search.gbsByOptions[options] = o->getNumber("gb_s").value_or(0);
      // The variant as the search built it, or rebuilt from its summary.
      std::optional<StencilModel> rebuilt;
      if (auto it = bySummary.find(options); it != bySummary.end()) {
        rebuilt = it->second->model;
      } else if (std::string line = optionsFromSummary(options);
                 !line.empty()) {
        llvm::Expected<StencilModel> m = withTuningOptions(*model, line);
        if (m)
          rebuilt = std::move(*m);
        else
          llvm::consumeError(m.takeError());
      }
      if (!rebuilt)
        continue;
      // The planner chooses kernel options, not where arrays live: only
      // variants with the spec's own storage of the field, links and
      // clover term.
      if (storage.empty() && stencilc::testing::storageOf(*rebuilt) !=
                                 stencilc::testing::storageOf(*model))
        continue;
      // Searches recorded before a site-major site's shares sat side by
      // side in a warp (ComponentShareOrder::ByLane) timed those splits by
      // block, a kernel the planner no longer makes.
      if (recordedBeforeSharesByLane(search.file) &&
          rebuilt->layout.order == LayoutOrder::SiteMajor &&
          rebuilt->componentGroups() > 1 &&
          rebuilt->kernel.staging == Staging::Registers)
        continue;
      Measured m;
      m.options = options;
      m.gbs = o->getNumber("gb_s").value_or(0);
      const StencilModel &variant = *rebuilt;
      // The kernel the searches timed: the apply, or the even-to-odd hop;
      // or CG's fold pass.
      if (kernel == "fold") {
        std::optional<KernelCost> fold = predictedFoldCost(variant, device);
        if (!fold)
          continue;
        m.cost = *fold;
      } else {
        m.cost = predictedCost(variant, device);
      }
      m.predictedPs = m.cost.picosecondsPerSite;
      search.variants.push_back(m);
    }
    searches.push_back(std::move(search));
  }
  return searches;
}

/// Spearman's rank correlation of measured speed and predicted speed.
double rankCorrelation(const std::vector<Measured> &v) {
  auto ranks = [&](auto key) {
    std::vector<size_t> order(v.size());
    for (size_t i = 0; i < v.size(); ++i)
      order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return key(v[a]) < key(v[b]); });
    std::vector<double> r(v.size());
    for (size_t i = 0; i < order.size(); ++i)
      r[order[i]] = double(i);
    return r;
  };
  std::vector<double> a = ranks([](const Measured &m) { return m.gbs; });
  std::vector<double> b =
      ranks([](const Measured &m) { return -m.predictedPs; });
  double d2 = 0;
  for (size_t i = 0; i < v.size(); ++i)
    d2 += (a[i] - b[i]) * (a[i] - b[i]);
  const double n = double(v.size());
  return 1 - 6 * d2 / (n * (n * n - 1));
}

/// Prints how the model ranks each search's variants, checks that its
/// first pick measured at least `least(search)` of the fastest, and returns
/// each checked search's ratio.
template <typename Least>
std::vector<double> checkFirstPicks(const std::vector<Search> &searches,
                                    Least least) {
  std::vector<double> ratios;
  for (const Search &search : searches) {
    if (search.variants.size() < 4) {
      std::printf("%-44s %-14s %4zu/%-4d skipped: too few variants rebuilt\n",
                  search.file.c_str(), search.size.c_str(),
                  search.variants.size(), search.recorded);
      continue;
    }
    if (getenv("COST_MODEL_DUMP")) {
      std::vector<Measured> v = search.variants;
      std::sort(v.begin(), v.end(), [](const Measured &a, const Measured &b) {
        return a.predictedPs < b.predictedPs;
      });
      for (const Measured &m : v)
        std::printf("    %7.1f GB/s  predicted %5.1f%% %-12s regs %3d "
                    "threads %4d accesses %6.2f addresses %5.2f L2 %6.1f B  %s\n",
                    m.gbs, 100 * m.cost.predictedFraction(),
                    m.cost.limit.c_str(), m.cost.registers,
                    m.cost.residentThreads, m.cost.accessesPerSite,
                    m.cost.addressesPerSite,
                    m.cost.l2BytesPerSite, m.options.c_str());
    }
    const Measured &best = *std::max_element(
        search.variants.begin(), search.variants.end(),
        [](const Measured &a, const Measured &b) { return a.gbs < b.gbs; });
    // The model's first pick. Variants it cannot tell apart (within 0.1%)
    // count as one pick measured at their mean: the planner takes one of
    // them in its own order, and the order of a file (often fastest first)
    // must not break the tie in the model's favour. The planner builds
    // regular stores and, without links, ascending loads, so of such ties
    // only those count where there are some.
    const double fastest =
        std::min_element(search.variants.begin(), search.variants.end(),
                         [](const Measured &a, const Measured &b) {
                           return a.predictedPs < b.predictedPs;
                         })
            ->predictedPs;
    auto plannerLike = [](const Measured &m) {
      return m.options.find("ascending") != std::string::npos &&
             m.options.find("non-temporal") == std::string::npos;
    };
    std::vector<const Measured *> tied, tiedPlannerLike;
    for (const Measured &m : search.variants)
      if (m.predictedPs <= 1.001 * fastest) {
        tied.push_back(&m);
        if (plannerLike(m))
          tiedPlannerLike.push_back(&m);
      }
    if (!tiedPlannerLike.empty())
      tied = tiedPlannerLike;
    double pickedGbs = 0;
    for (const Measured *m : tied)
      pickedGbs += m->gbs / tied.size();
    const Measured &picked = *tied.front();
    const double ratio = pickedGbs / best.gbs;
    const double rho = rankCorrelation(search.variants);
    std::printf("%-44s %-14s %4zu/%-4d picked %7.1f of best %7.1f GB/s "
                "(%5.1f%%), rank correlation %.2f\n  picked: %s%s (%.0f%% "
                "predicted, %s)\n  best:   %s (%.0f%% predicted, %s)\n",
                search.file.c_str(), search.size.c_str(),
                search.variants.size(), search.recorded, pickedGbs, best.gbs,
                100 * ratio, rho, picked.options.c_str(),
                tied.size() > 1
                    ? (" and " + std::to_string(tied.size() - 1) +
                       " others predicted the same")
                          .c_str()
                    : "",
                100 * picked.cost.predictedFraction(),
                picked.cost.limit.c_str(), best.options.c_str(),
                100 * best.cost.predictedFraction(), best.cost.limit.c_str());
    EXPECT_GE(ratio, least(search)) << search.file;
    ratios.push_back(ratio);
  }
  return ratios;
}

TEST(CostModel, RanksRecordedH100SearchesNearTheirMeasuredBest) {
  std::vector<Search> searches = recordedSearches();
  ASSERT_GE(searches.size(), 10u) << "the recorded searches are missing";
  const std::vector<double> ratios =
      checkFirstPicks(searches, [](const Search &search) {
        // Known miss: the model knows no lattice size. At 16^3 x 32 a
        // parity of the 24-float field (3 MB, held in L2) gives a hop 65536
        // threads, under 500 per multiprocessor, where splitting a site
        // over 2 threads ran 1.19x faster (1.30x with the Schur
        // complement's launch graphs, the -graphs- search); at 32^3 x 64
        // the model's pick is within 8%.
        if (search.file == "tune-laplacian4d_vec24_eo-shares-16-h100.json")
          return 0.83;
        if (search.file == "tune-laplacian4d_vec24_eo-graphs-16-h100.json")
          return 0.76;
        // Known misses where the model ties variants that measured far
        // apart (their mean counts): the site-major fields' loads as
        // written or ascending, launch bounds and stores of one block (the
        // best 18% above their mean), and the even/odd hop's stores.
        if (search.file == "tune-laplacian4d_vec24_sub-h100-predicted.json")
          return 0.82;
        if (search.file == "tune-laplacian4d_vec24_aos_v4-h100-predicted.json")
          return 0.87;
        if (search.file == "tune-laplacian4d_vec24_eo-shares-h100.json")
          return 0.88;
        return 0.92;
      });
  ASSERT_GE(ratios.size(), 20u) << "too few searches rebuilt";
  double mean = 0;
  for (double r : ratios)
    mean += r / ratios.size();
  std::printf("%zu searches: the model's first pick measured %.1f%% of the "
              "fastest on average\n",
              ratios.size(), 100 * mean);
  EXPECT_GE(mean, 0.96);
}

TEST(CostModel, RanksRecordedH100FoldPassSearchesNearTheirMeasuredBest) {
  std::vector<Search> searches = recordedSearches("fold");
  ASSERT_GE(searches.size(), 2u) << "the recorded fold searches are missing";
  const std::vector<double> ratios =
      checkFirstPicks(searches, [](const Search &search) {
        // Known miss: with bfloat16 storage the pass rounds p' at every
        // value it reads and was instruction-bound (docs/performance.md,
        // "Rounding in one instruction"); the model charges memory
        // instructions and addresses, not that arithmetic, and ranks 8
        // sites per 16-byte access first, which measured 80% of the best
        // (4 sites). The planner weighs groups of 2 and 4 only.
        if (search.file == "tune-laplacian3d_f64_bf16_inner-fold-256-h100.json")
          return 0.78;
        return 0.95;
      });
  ASSERT_GE(ratios.size(), 3u) << "too few fold searches rebuilt";
}

// The H200's model (its measured roofs, the H100's latency scaled by the
// bandwidth, and two terms fitted to these searches) on the H200 searches.
// Its choices are compiled for the stencils it was fitted to
// (DeviceModel::fitted); the 4-D and vector searches are its known misses
// and reasons for that scope: bigger blocks and tiles than the best.
TEST(CostModel, RanksRecordedH200SearchesNearTheirMeasuredBest) {
  const DeviceModel &device = h200Device();
  std::vector<Search> searches = recordedSearches("apply", device);
  // The held-out specs' searches have a test of their own (below).
  llvm::erase_if(searches, [](const Search &search) {
    return llvm::StringRef(search.file).contains("-heldout-");
  });
  ASSERT_GE(searches.size(), 8u) << "the recorded H200 searches are missing";
  int fitted = 0;
  const std::vector<double> ratios =
      checkFirstPicks(searches, [&](const Search &search) {
        // Known miss outside the fitted scope (2026-11-29 search): for the
        // 24-float antiperiodic aosoa field the model ties four variants
        // of 4 sites along x and 8 components a thread, which measured 83%
        // of the spec's own (tile y x 2, 6 components a thread).
        if (search.stencil == "laplacian4d_vec24_antiperiodic")
          return 0.82;
        std::optional<StencilModel> model = loadShippedSpec(search.stencil);
        if (!model || !device.fitted(*model))
          return 0.85;
        ++fitted;
        // Known miss: the 13-point stencil's tile z x 4 measured 4-6% below
        // tile z x 2.
        if (search.stencil == "laplacian3d_13pt_o4")
          return 0.93;
        return 0.95;
      });
  EXPECT_GE(fitted, 6);
  std::vector<Search> folds = recordedSearches("fold", device);
  ASSERT_GE(folds.size(), 2u) << "the recorded H200 fold searches are missing";
  // The fold pass's stores (regular or non-temporal) tie.
  checkFirstPicks(folds, [](const Search &) { return 0.95; });
}

// Specs the model was not fitted to, written for this check and searched
// on an H200 (docs/performance.md, "The planner on specs it was not fitted
// to", "Whole small sites march", "The H200's rule for unmarched vector
// sites" and "Rings past 24 values"): 2-D 5- and 9-point, a 3-D 19-point
// and 25-point star, 3 doubles a site in 3-D (144-216 variants each:
// blocks, tiles, groups along x, marches, components a thread, storage,
// resident minimums), 4-D 9-point fields of 4, 6, 8, 10, 12 and 14 floats
// and 6 doubles a site, 4-D 17-point stars of 6 and 10 floats and a
// 25-point star of 4 floats (4-102 variants: components a thread, vector
// widths, blocks, tiles, resident minimums, marches). What the runtime runs
// there without an entry (the planner's kernels, as `stencilc tune` names them
// second) must be a variant that a search of the spec timed, and measured near
// that search's best. A spec searched again after the planner changed keeps its
// earlier searches; those that did not time what runs now are reported and
// skipped.
TEST(CostModel, PlannerOnHeldOutSpecsNearTheH200SearchesBest) {
  const DeviceModel &device = h200Device();
  std::vector<Search> searches = recordedSearches("apply", device, "-heldout-");
  std::map<std::string, std::vector<const Search *>> byStencil;
  for (const Search &search : searches)
    byStencil[search.stencil].push_back(&search);
  // Every held-out spec has a search.
  llvm::SmallString<256> dir(STENCILC_SOURCE_DIR);
  llvm::sys::path::append(dir, "tests", "specs", "heldout");
  std::error_code ec;
  int specs = 0;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec)) {
    llvm::StringRef name = llvm::sys::path::filename(it->path());
    if (!name.consume_back(".yaml"))
      continue;
    ++specs;
    EXPECT_TRUE(byStencil.count(name.str()))
        << "no H200 search of the held-out spec " << name.str();
  }
  ASSERT_EQ(specs, 18) << "a held-out spec is missing";
  for (const auto &[stencil, ofStencil] : byStencil) {
    SCOPED_TRACE(stencil);
    std::optional<StencilModel> written = loadSpecAsWritten(stencil);
    ASSERT_TRUE(written) << stencil;
    // As `stencilc tune --device h200` names it at a search's size: the
    // spec's open options for that GPU first, then what the runtime runs
    // there, planned for the H200 where its model fits the spec, else for
    // the H100 with the H200's rules (plan/DeviceRules.h).
    StencilModel own = *written;
    chooseOpenOptions(own, device);
    const StencilModel generated = plannedModel(*written, device);
    auto runsAt = [&](const std::string &size) {
      const std::vector<int> extents = parseSize(size);
      const RuntimeKernels runtime =
          kernelsRunAt(generated, extents, false, device.l2Bytes);
      const std::vector<Variant> first =
          tuningVariants(own, 2, extents, &runtime.model);
      return first.size() > 1 && first[1].pinned ? first[1].summary
                                                 : first.front().summary;
    };
    // A known miss: the 10-float torus marches whole sites with 512
    // resident threads, the march's minimum past 24 accumulator values, at
    // 88.8-89.8% of the best (its march without a minimum, 97.4-100%); four
    // other tori past 24 values ran 4.5-13.5% faster with it (the 17-point
    // star of 6 floats from 88.0-92.0% to 99.8-100%). Unmarched, the H100's
    // model (which plans vector fields for the H200) split 6 floats over 3
    // threads with no resident minimum: 90.7-91.5% of the best for the
    // Dirichlet lattices and 6 doubles, which the H200's rule for vector
    // sites lifts to 95.8-100%.
    const double least = stencil == "h_lap4d_c10_f32" ? 0.88 : 0.93;
    int timed = 0;
    std::string runs;
    for (const Search *search : ofStencil) {
      runs = runsAt(search->size);
      const auto ran = search->gbsByOptions.find(runs);
      if (ran == search->gbsByOptions.end()) {
        std::printf("%-28s %-12s %s did not time what runs now\n",
                    stencil.c_str(), search->size.c_str(),
                    search->file.c_str());
        continue;
      }
      ++timed;
      const auto best = std::max_element(
          search->gbsByOptions.begin(), search->gbsByOptions.end(),
          [](const auto &a, const auto &b) { return a.second < b.second; });
      const double ratio = ran->second / best->second;
      std::printf("%-28s %-12s runs %7.1f of best %7.1f GB/s (%5.1f%%), "
                  "%s\n  runs: %s\n  best: %s\n",
                  stencil.c_str(), search->size.c_str(), ran->second,
                  best->second, 100 * ratio, search->file.c_str(), runs.c_str(),
                  best->first.c_str());
      EXPECT_GE(ratio, least) << search->file;
    }
    EXPECT_GT(timed, 0) << "the planner now runs '" << runs
                        << "', which no search of " << stencil
                        << " timed: search again";
  }
  // And the model's own first pick, as for the searches it was fitted to.
  checkFirstPicks(searches, [](const Search &search) {
    // Known misses: on 4-D vector fields (outside the H200 model's fitted
    // scope) it ranks marches it does not weigh first and minimums of
    // resident blocks last (82-96% of the best); soa storage first for 3
    // doubles a site (aos with a thread a component measured fastest); 2
    // planes a tile with a resident minimum for the 25-point star.
    if (llvm::StringRef(search.stencil).startswith("h_lap4d_") ||
        llvm::StringRef(search.stencil).startswith("h_star4d_"))
      return 0.81;
    if (search.stencil == "h_veclap3d_c3_f64" ||
        search.stencil == "h_star25_3d_f32")
      return 0.84;
    return 0.92;
  });
}

// The storage of even/odd fields (aos with each vector width, soa and
// aosoa:32, with groups of 2 or 4 values a load), the other options the
// spec's: the H200 searches of the Schur complement's hops.
TEST(CostModel, RanksTheStorageOfEvenOddFieldsOnTheH200) {
  const DeviceModel &device = h200Device();
  std::vector<Search> searches = recordedSearches("apply", device, "-layouts-");
  ASSERT_GE(searches.size(), 5u) << "the recorded layout searches are missing";
  // Every search checked (checkFirstPicks skips one of too few variants).
  EXPECT_EQ(
      checkFirstPicks(searches, [](const Search &) { return 0.95; }).size(),
      searches.size());
}

} // namespace

// --- The planner's choice of open options ----------------------------------

namespace {

std::optional<StencilModel> modelFromYaml(const std::string &yaml) {
  return stencilc::testing::checkYaml(yaml).model;
}

const char *kVectorField = R"(name: vec12
grid: {dimensions: 4, boundary: periodic}
field: {precision: double, components: 12, layout: aos}
taps:
  - {offset: [0, 0, 0, 0], coefficient: 8.5}
  - {offset: [-1, 0, 0, 0], coefficient: -1}
  - {offset: [1, 0, 0, 0], coefficient: -1}
  - {offset: [0, -1, 0, 0], coefficient: -1}
  - {offset: [0, 1, 0, 0], coefficient: -1}
  - {offset: [0, 0, -1, 0], coefficient: -1}
  - {offset: [0, 0, 1, 0], coefficient: -1}
  - {offset: [0, 0, 0, -1], coefficient: -1}
  - {offset: [0, 0, 0, 1], coefficient: -1}
)";

const KernelOptionNote *note(const StencilModel &m, const std::string &name) {
  for (const KernelOptionNote &n : m.optionNotes)
    if (n.option == name)
      return &n;
  return nullptr;
}

} // namespace

TEST(ChooseOptions, PicksTheCheapestCandidateAndSaysWhy) {
  // On a Dirichlet lattice, where no march rule overrides the cost model.
  std::string yaml = kVectorField;
  yaml.replace(yaml.find("boundary: periodic"), 18, "boundary: dirichlet");
  std::optional<StencilModel> model = modelFromYaml(yaml);
  ASSERT_TRUE(model);
  const KernelCost before =
      estimateCost(*model, planKernel(*model), h100Device());
  OptionSearch search = chooseOpenOptions(*model);
  EXPECT_GT(search.candidates, 10);
  // The choice is no worse than the checker's fixed defaults, which are
  // among the candidates.
  EXPECT_LE(search.chosen.picosecondsPerSite, before.picosecondsPerSite);
  const KernelCost after =
      estimateCost(*model, planKernel(*model), h100Device());
  EXPECT_DOUBLE_EQ(after.picosecondsPerSite, search.chosen.picosecondsPerSite);
  // 12 doubles a site in aos: 16-byte accesses of a site's components.
  EXPECT_EQ(model->kernel.vectorWidth, 2);
  for (const char *option : {"block", "tile", "vector_width",
                             "components_per_thread", "launch_bounds",
                             "load_order", "nontemporal_store"}) {
    const KernelOptionNote *n = note(*model, option);
    ASSERT_NE(n, nullptr) << option;
    EXPECT_FALSE(n->written) << option;
    EXPECT_FALSE(n->reason.empty()) << option;
  }
  EXPECT_NE(note(*model, "block")->reason.find("predicted"), std::string::npos);
  EXPECT_EQ(model->kernel.launchBounds, model->kernel.threadsPerBlock());
}

TEST(ChooseOptions, MarchesSiteMajorToriThatMoveOneVectorATap) {
  // 12 floats a site on a torus: the cost model's kernels move one 16-byte
  // vector a tap, so a rule marches them along t with 1024 threads
  // resident an SM (the model does not weigh the march); search.chosen
  // stays the model's own prediction for its choice.
  std::string floats = kVectorField;
  floats.replace(floats.find("precision: double"), 17, "precision: float");
  std::optional<StencilModel> model = modelFromYaml(floats);
  ASSERT_TRUE(model);
  const OptionSearch search = chooseOpenOptions(*model);
  const KernelOptions &k = model->kernel;
  EXPECT_TRUE(k.march);
  EXPECT_EQ(k.tileAxis, 3);
  EXPECT_EQ(k.tileFactor, 1);
  EXPECT_EQ(k.block[3], 1);
  EXPECT_EQ(k.vectorWidth, 4);
  EXPECT_EQ(model->componentsPerThread(), 4);
  EXPECT_EQ(k.launchBounds, k.threadsPerBlock());
  EXPECT_EQ(k.minBlocksPerSm * k.threadsPerBlock(), 1024);
  EXPECT_GT(search.chosen.picosecondsPerSite, 0);
  ASSERT_NE(note(*model, "march"), nullptr);
  EXPECT_FALSE(note(*model, "march")->written);
  EXPECT_NE(note(*model, "tile")->reason.find("a rule, not the cost model"),
            std::string::npos);
  EXPECT_EQ(note(*model, "tile")->value, "the march along t");
  EXPECT_NE(note(*model, "min_blocks_per_sm")->reason.find("a rule"),
            std::string::npos);
  // No separate fold pass weighed against the march: CG's fold pass runs
  // with the marching kernels.
  EXPECT_FALSE(model->foldPass);
  // Choosing again from the chosen model keeps the march.
  chooseOpenOptions(*model);
  EXPECT_TRUE(model->kernel.march);

  // Written launch bounds leave the cost model's choice unmarched; so do
  // doubles (no gain measured).
  for (const std::string &yaml :
       {floats + "kernel: {launch_bounds: 256}\n", std::string(kVectorField)}) {
    std::optional<StencilModel> kept = modelFromYaml(yaml);
    ASSERT_TRUE(kept);
    chooseOpenOptions(*kept);
    EXPECT_FALSE(kept->kernel.march) << yaml;
    EXPECT_EQ(note(*kept, "march"), nullptr) << yaml;
  }
}

// A component-major (soa or aosoa) float torus: the cost model's groups
// along x stay as they are, and a rule compiles them marching along t for
// large lattices (largeAlongX, NAME_x4_march): 8x8x4x1 threads, rows of 32
// sites, the most components a thread whose ring of 3 rows of 4 sites
// holds at most 36 values, no resident minimum; planned before the groups,
// with the L2's share (kRowMarchL2Percent). Written options, doubles, a
// Dirichlet lattice and site-major storage keep none.
TEST(ChooseOptions, MarchesComponentRowsOfLargeLatticesBesideTheGroups) {
  std::string yaml = kVectorField;
  const std::string field = "precision: double, components: 12, layout: aos";
  yaml.replace(yaml.find(field), field.size(),
               "precision: float, components: 12, layout: soa");
  std::optional<StencilModel> model = modelFromYaml(yaml);
  ASSERT_TRUE(model);
  chooseOpenOptions(*model);
  ASSERT_TRUE(model->alongX);
  ASSERT_TRUE(model->largeAlongX);
  EXPECT_FALSE(model->kernel.march);
  EXPECT_FALSE(model->alongX->march);
  const KernelOptions &k = *model->largeAlongX;
  EXPECT_TRUE(k.march);
  EXPECT_EQ(k.tileAxis, 3);
  EXPECT_EQ(k.vectorWidth, model->alongX->vectorWidth);
  EXPECT_EQ(k.vectorWidth, 4);
  EXPECT_EQ(k.block, (std::array<int, 4>{8, 8, 4, 1}));
  EXPECT_EQ(k.componentsPerThread, 3);
  EXPECT_EQ(k.launchBounds, 256);
  EXPECT_EQ(k.minBlocksPerSm, 0);
  const StencilModel variant = largeAlongXVariantModel(*model);
  EXPECT_EQ(variant.name, "vec12_x4_march");
  EXPECT_FALSE(variant.largeAlongX);
  EXPECT_NE(note(*model, "vector_width")
                ->reason.find(
                    "vec12_x4_march: block 8x8x4x1, 3 components a thread; a "
                    "rule, not the cost model"),
            std::string::npos)
      << note(*model, "vector_width")->reason;
  // Compiled before the groups, which the runtime takes below the share.
  TunedKernels tuned;
  ASSERT_FALSE(bool(addPlannerVariants(*model, tuned)));
  EXPECT_EQ(tuned.variants[tuned.choices[0].variant].model.name,
            "vec12_x4_march");
  EXPECT_EQ(tuned.choices[0].l2Percent, kRowMarchL2Percent);
  EXPECT_EQ(tuned.choices[0].xMultiple, 4);
  EXPECT_EQ(tuned.variants[tuned.choices[1].variant].model.name, "vec12_x4");
  EXPECT_EQ(tuned.choices[1].l2Percent, 0);
  // CG's fold pass keeps the groups where the others march.
  ASSERT_EQ(tuned.choices.size(), 3u);
  EXPECT_TRUE(tuned.choices[2].foldPass);
  EXPECT_EQ(tuned.choices[2].variant, tuned.choices[1].variant);
  EXPECT_EQ(kernelsRunAt(*model, {48, 48, 48, 64}, true, 24LL << 20)
                .model.kernel.march,
            false);
  // The tuner's second variant follows the runtime: the march where two
  // slices of 96 bytes a site (21.2 MB at 48^3) exceed 60% of the L2 (of
  // 24 MiB: 15.1 MB), the groups below (60% of 50 MiB: 31.5 MB).
  EXPECT_EQ(kernelsRunAt(*model, {48, 48, 48, 64}, false, 24LL << 20)
                .model.kernel.march,
            true);
  EXPECT_EQ(kernelsRunAt(*model, {48, 48, 48, 64}, false, 50LL << 20)
                .model.kernel.march,
            false);

  // In blocks of 16 sites (aosoa), 4 floats a site: 2 components a thread.
  std::string blocked = kVectorField;
  blocked.replace(blocked.find(field), field.size(),
                  "precision: float, components: 4, layout: {order: aosoa, "
                  "block: 16}");
  std::optional<StencilModel> aosoa = modelFromYaml(blocked);
  ASSERT_TRUE(aosoa);
  chooseOpenOptions(*aosoa);
  ASSERT_TRUE(aosoa->largeAlongX);
  EXPECT_EQ(aosoa->largeAlongX->componentsPerThread, 2);

  const std::string soa = "precision: float, components: 12, layout: soa";
  std::string dirichlet = yaml;
  dirichlet.replace(dirichlet.find("boundary: periodic"), 18,
                    "boundary: dirichlet");
  std::string doubles = yaml;
  doubles.replace(doubles.find(soa), soa.size(),
                  "precision: double, components: 12, layout: soa");
  std::string siteMajor = yaml;
  siteMajor.replace(siteMajor.find(soa), soa.size(),
                    "precision: float, components: 12, layout: aos");
  for (const std::string &kept :
       {yaml + "kernel: {tile: {axis: y, factor: 2}}\n",
        yaml + "kernel: {components_per_thread: 6}\n",
        yaml + "kernel: {launch_bounds: 256}\n", dirichlet, doubles,
        siteMajor}) {
    std::optional<StencilModel> m = modelFromYaml(kept);
    ASSERT_TRUE(m) << kept;
    chooseOpenOptions(*m);
    EXPECT_FALSE(m->largeAlongX) << kept;
  }
}

// 6 floats a site on a torus: the cost model's kernels move 8-byte shares
// (one vector of 2), which marched 23-27% slower on an H200 than whole
// sites; the rule marches whole sites (the fewest whole vectors that move
// 16 bytes), with the resident minimum where the ring of accumulators fits
// its 64 registers a thread (3 outputs of 6 values), with half as many
// resident threads (128 registers) for a stencil reaching 2 sites along t
// (5 outputs of 6: nvcc spilled them under 64). A share the spec writes
// stays.
TEST(ChooseOptions, MarchesWholeSmallSitesWithAMinimumForTheirRing) {
  std::string yaml = kVectorField;
  const std::string field = "precision: double, components: 12";
  yaml.replace(yaml.find(field), field.size(),
               "precision: float, components: 6");
  std::optional<StencilModel> model = modelFromYaml(yaml);
  ASSERT_TRUE(model);
  chooseOpenOptions(*model);
  EXPECT_TRUE(model->kernel.march);
  EXPECT_EQ(model->kernel.vectorWidth, 2);
  EXPECT_EQ(model->componentsPerThread(), 6);
  EXPECT_EQ(model->kernel.minBlocksPerSm * model->kernel.threadsPerBlock(),
            1024);
  const KernelOptionNote *perThread = note(*model, "components_per_thread");
  ASSERT_NE(perThread, nullptr);
  EXPECT_NE(perThread->reason.find("6 values a tap, the fewest whole "
                                   "vectors that move 16 bytes"),
            std::string::npos)
      << perThread->reason;
  EXPECT_NE(note(*model, "min_blocks_per_sm")
                ->reason.find("which hold a ring of 3 outputs of 6 values"),
            std::string::npos)
      << note(*model, "min_blocks_per_sm")->reason;

  // Taps two sites along t: a ring of 5 outputs, 512 resident threads.
  std::string wide = yaml;
  wide += "  - {offset: [0, 0, 0, -2], coefficient: 0.1}\n"
          "  - {offset: [0, 0, 0, 2], coefficient: 0.1}\n";
  std::optional<StencilModel> reaching = modelFromYaml(wide);
  ASSERT_TRUE(reaching);
  chooseOpenOptions(*reaching);
  EXPECT_TRUE(reaching->kernel.march);
  EXPECT_EQ(reaching->componentsPerThread(), 6);
  EXPECT_EQ(reaching->kernel.minBlocksPerSm *
                reaching->kernel.threadsPerBlock(),
            512);
  EXPECT_EQ(reaching->kernel.launchBounds, reaching->kernel.threadsPerBlock());
  EXPECT_NE(note(*reaching, "min_blocks_per_sm")
                ->reason.find("512 threads resident an SM, at most 128 "
                              "registers a thread, which hold a ring of 5 "
                              "outputs of 6 values (30 values, past the 64 "
                              "registers a thread of 1024"),
            std::string::npos)
      << note(*reaching, "min_blocks_per_sm")->reason;

  // A written block of 1024 threads keeps no minimum past 24 values: one
  // block holds more than the 512 threads the rule would keep.
  std::optional<StencilModel> wideBlock =
      modelFromYaml(wide + "kernel: {block: [32, 4, 8, 1]}\n");
  ASSERT_TRUE(wideBlock);
  chooseOpenOptions(*wideBlock);
  EXPECT_TRUE(wideBlock->kernel.march);
  EXPECT_EQ(wideBlock->kernel.minBlocksPerSm, 0);
  EXPECT_NE(note(*wideBlock, "min_blocks_per_sm")
                ->reason.find("none: a ring of 5 outputs of 6 values"),
            std::string::npos)
      << note(*wideBlock, "min_blocks_per_sm")->reason;

  // Shares of one 8-byte vector written in the spec march as written.
  std::optional<StencilModel> written = modelFromYaml(
      yaml + "kernel: {vector_width: 2, components_per_thread: 2}\n");
  ASSERT_TRUE(written);
  chooseOpenOptions(*written);
  EXPECT_TRUE(written->kernel.march);
  EXPECT_EQ(written->componentsPerThread(), 2);
}

// 24 floats a site stored in subdomains one site deep along t (the march
// gathers their planes too): the rule marches them with one 16-byte vector
// a thread, whatever components per thread the cost model chose, and says
// so; subdomains two deep along t, or components per thread the spec
// writes as two vectors, keep the cost model's choice.
TEST(ChooseOptions, MarchesSubdomainsOneSiteDeepAlongT) {
  std::string yaml = kVectorField;
  const std::string field = "precision: double, components: 12, layout: aos";
  yaml.replace(yaml.find(field), field.size(),
               "precision: float, components: 24, layout: {order: aos, "
               "subdomain: [8, 4, 4, 1]}");
  yaml += "kernel: {block: [32, 4, 2, 1]}\n";
  std::optional<StencilModel> model = modelFromYaml(yaml);
  ASSERT_TRUE(model);
  chooseOpenOptions(*model);
  EXPECT_TRUE(model->kernel.march);
  EXPECT_EQ(model->kernel.vectorWidth, 4);
  EXPECT_EQ(model->componentsPerThread(), 4);
  EXPECT_EQ(model->kernel.minBlocksPerSm * model->kernel.threadsPerBlock(),
            1024);
  const KernelOptionNote *perThread = note(*model, "components_per_thread");
  ASSERT_NE(perThread, nullptr);
  EXPECT_EQ(perThread->value, "4");
  EXPECT_NE(perThread->reason.find("a rule with the march (one vector of a "
                                   "site a tap); the cost model chose 8"),
            std::string::npos)
      << perThread->reason;

  std::string deeper = yaml;
  deeper.replace(deeper.find("subdomain: [8, 4, 4, 1]"), 23,
                 "subdomain: [8, 4, 2, 2]");
  std::string twoVectors = yaml;
  twoVectors.replace(twoVectors.find("kernel: {block: [32, 4, 2, 1]}"), 30,
                     "kernel: {block: [32, 4, 2, 1], vector_width: 4, "
                     "components_per_thread: 8}");
  for (const std::string &other : {deeper, twoVectors}) {
    std::optional<StencilModel> m = modelFromYaml(other);
    ASSERT_TRUE(m) << other;
    chooseOpenOptions(*m);
    EXPECT_FALSE(m->kernel.march) << other;
  }
}

TEST(ChooseOptions, KeepsEveryOptionTheSpecWrites) {
  std::string yaml = kVectorField;
  yaml += "kernel:\n  block: [16, 4, 2, 2]\n  vector_width: 1\n"
          "  tile: {axis: z, factor: 2}\n  components_per_thread: 4\n"
          "  load_order: as-written\n  launch_bounds: 512\n";
  std::optional<StencilModel> model = modelFromYaml(yaml);
  ASSERT_TRUE(model);
  chooseOpenOptions(*model);
  EXPECT_EQ(model->kernel.block, (std::array<int, kMaxDims>{16, 4, 2, 2}));
  EXPECT_EQ(model->kernel.vectorWidth, 1);
  EXPECT_EQ(model->kernel.tileAxis, 2);
  EXPECT_EQ(model->kernel.tileFactor, 2);
  EXPECT_EQ(model->componentsPerThread(), 4);
  EXPECT_EQ(model->kernel.loadOrder, LoadOrder::AsWritten);
  EXPECT_EQ(model->kernel.launchBounds, 512);
  for (const char *option : {"block", "tile", "vector_width",
                             "components_per_thread", "launch_bounds",
                             "load_order"})
    EXPECT_TRUE(note(*model, option)->written) << option;
  EXPECT_FALSE(note(*model, "nontemporal_store")->written);
}

/// An even/odd 4-D vector field of `field` (precision and components) with
/// `layout` (none: the spec leaves it open) and `kernel` lines.
std::string evenOddField(const std::string &field, const std::string &layout,
                         const std::string &kernel = "") {
  std::string yaml = kVectorField;
  const std::string plain = "field: {precision: double, components: 12, "
                            "layout: aos}";
  yaml.replace(yaml.find(plain), plain.size(),
               "field: {" + field + ", even_odd: true" +
                   (layout.empty() ? "" : ", layout: " + layout) + "}");
  return yaml + kernel;
}

TEST(ChooseOptions, GivesEvenOddThreadsHalfASiteOfAtLeast96Bytes) {
  struct Case {
    std::string field, layout, kernel;
    int perThread;
    std::string reason;
  };
  const Case cases[] = {
      // 96 bytes: halves, in every storage that takes them.
      {"precision: float, components: 24", "{order: aosoa, block: 32}", "", 12,
       "half a site a thread"},
      {"precision: double, components: 12", "aos", "", 6,
       "half a site a thread"},
      {"precision: float, components: 24", "{order: soa, vector: 4}", "", 12,
       "half a site a thread"},
      // 48 bytes: a whole site; a written share stands (no reason).
      {"precision: float, components: 12", "aos", "", 12, "under 96"},
      {"precision: float, components: 24", "aos",
       "kernel: {components_per_thread: 8}\n", 8, ""},
      // Halves that the storage's groups of 4 values do not divide, and an
      // odd number of components: whole sites, and the note says why.
      {"precision: float, components: 28", "{order: soa, vector: 4}", "", 28,
       "half of it (14) is not a multiple of 'field.layout.vector' 4"},
      {"precision: float, components: 25", "aos", "", 25,
       "an odd number of components"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.field + " " + c.layout + " " + c.kernel);
    for (const DeviceModel *device : knownDevices()) {
      std::optional<StencilModel> model =
          modelFromYaml(evenOddField(c.field, c.layout, c.kernel));
      ASSERT_TRUE(model);
      chooseOpenOptions(*model, *device);
      EXPECT_EQ(model->componentsPerThread(), c.perThread) << device->name;
      const KernelOptionNote *share = note(*model, "components_per_thread");
      ASSERT_TRUE(share);
      EXPECT_EQ(share->value, std::to_string(c.perThread));
      EXPECT_EQ(share->written, c.reason.empty());
      if (!c.reason.empty())
        EXPECT_NE(share->reason.find(c.reason), std::string::npos)
            << share->reason;
      // Choosing again from the chosen model gives the same share.
      chooseOpenOptions(*model, *device);
      EXPECT_EQ(model->componentsPerThread(), c.perThread);
    }
  }
}

TEST(ChooseOptions, ChoosesTheStorageOfEvenOddFieldsLeftOpen) {
  struct Case {
    std::string field;
    LayoutOrder order;
    int vector;
  };
  // 12 floats: groups of 4 (16 bytes) a load; 8 doubles: pairs. The
  // choice is the first device's on every device: one storage per spec.
  for (const Case &c : {Case{"precision: float, components: 12",
                             LayoutOrder::ComponentMajor, 4},
                        Case{"precision: double, components: 8",
                             LayoutOrder::ComponentMajor, 2}}) {
    SCOPED_TRACE(c.field);
    for (const DeviceModel *device : knownDevices()) {
      std::optional<StencilModel> model =
          modelFromYaml(evenOddField(c.field, ""));
      ASSERT_TRUE(model);
      EXPECT_FALSE(model->layoutWritten);
      chooseOpenOptions(*model, *device);
      EXPECT_EQ(model->layout.order, c.order) << device->name;
      EXPECT_EQ(model->layout.vector, c.vector) << device->name;
      EXPECT_TRUE(model->layout.evenOdd);
      const KernelOptionNote *layout = note(*model, "layout");
      ASSERT_TRUE(layout);
      EXPECT_FALSE(layout->written);
      EXPECT_EQ(layout->value,
                "{order: soa, vector: " + std::to_string(c.vector) + "}");
      EXPECT_NE(layout->reason.find("aos "), std::string::npos)
          << layout->reason;
      // Choosing again from the chosen model gives the same storage.
      chooseOpenOptions(*model, *device);
      EXPECT_EQ(model->layout.vector, c.vector);
    }
  }
  // A written storage stands, with no note; so does site-major storage
  // where the spec's vector width rules out groups of a site's values.
  for (const std::string &yaml :
       {evenOddField("precision: float, components: 12", "aos"),
        evenOddField("precision: float, components: 12", "",
                     "kernel: {vector_width: 4}\n")}) {
    std::optional<StencilModel> model = modelFromYaml(yaml);
    ASSERT_TRUE(model);
    chooseOpenOptions(*model);
    EXPECT_EQ(model->layout.order, LayoutOrder::SiteMajor) << yaml;
    EXPECT_EQ(model->layout.vector, 1);
    const KernelOptionNote *layout = note(*model, "layout");
    if (model->layoutWritten) {
      EXPECT_FALSE(layout) << yaml;
    } else {
      ASSERT_TRUE(layout && layout->value == "aos") << yaml;
      // The note says why no other storage was weighed.
      EXPECT_NE(layout->reason.find("the only storage weighed (groups of 2: "
                                    "cannot be combined with "
                                    "'kernel.vector_width' 4"),
                std::string::npos)
          << layout->reason;
    }
  }
  // Whole-lattice fields keep the default: the choice is the hops'.
  std::string open = kVectorField;
  const std::string written = ", layout: aos";
  open.erase(open.find(written), written.size());
  std::optional<StencilModel> whole = modelFromYaml(open);
  ASSERT_TRUE(whole);
  chooseOpenOptions(*whole);
  EXPECT_EQ(whole->layout.order, LayoutOrder::SiteMajor);
  EXPECT_FALSE(note(*whole, "layout"));
}

constexpr const char *kLaplacian3d = R"(name: lap
grid: {dimensions: 3, boundary: dirichlet}
field: {precision: float}
taps:
  - {offset: [0, 0, 0], coefficient: 6}
  - {offset: [-1, 0, 0], coefficient: -1}
  - {offset: [1, 0, 0], coefficient: -1}
  - {offset: [0, -1, 0], coefficient: -1}
  - {offset: [0, 1, 0], coefficient: -1}
  - {offset: [0, 0, -1], coefficient: -1}
  - {offset: [0, 0, 1], coefficient: -1}
)";

TEST(ChooseOptions, ChoosesGroupsAlongXAsSecondKernels) {
  std::optional<StencilModel> model = modelFromYaml(kLaplacian3d);
  ASSERT_TRUE(model);
  chooseOpenOptions(*model);
  // The spec's kernels take any nx: one site per thread, with a tile (one
  // site per thread untiled measured 69% of the copy for this kernel).
  EXPECT_EQ(model->kernel.vectorWidth, 1);
  EXPECT_GT(model->kernel.tileFactor, 1);
  // Groups along x for the nx that allow them, predicted faster.
  ASSERT_TRUE(model->alongX);
  const StencilModel grouped = alongXVariantModel(*model);
  const int width = grouped.kernel.vectorWidth;
  EXPECT_TRUE(width == 2 || width == 4) << width;
  EXPECT_EQ(grouped.name, "lap_x" + std::to_string(width));
  EXPECT_FALSE(grouped.alongX);
  EXPECT_LT(predictedCost(grouped).picosecondsPerSite,
            predictedCost(*model).picosecondsPerSite);
  const KernelOptionNote *note_ = note(*model, "vector_width");
  EXPECT_EQ(note_->value, "1");
  EXPECT_NE(note_->reason.find("where nx is a multiple of " +
                               std::to_string(width) + " (lap_x"),
            std::string::npos)
      << note_->reason;
  // withKernelOptionsOpen starts again from nothing.
  EXPECT_FALSE(withKernelOptionsOpen(*model).alongX);
}

/// The 3-D Laplacian in double with CG and mixed precision, every kernel
/// option open (laplacian3d_f64 without its kernel section).
std::optional<StencilModel> mixedLaplacian3dOpen() {
  std::string yaml =
      std::string(kLaplacian3d) + "solver: cg\ninner_precision: float\n";
  yaml.replace(yaml.find("precision: float"), 16, "precision: double");
  return modelFromYaml(yaml);
}

// Another GPU's choice of the open options (tune/DevicePlans.h): the H200's
// model chooses otherwise for the open 3-D Laplacian with CG in mixed
// precision, and its kernels go beside the spec's as planner rows for that
// GPU only, in the runtime's order (groups along x, then every nx), with its
// fold pass and the inner precision's kernels likewise.
TEST(DevicePlans, AnotherGpusChoiceIsCompiledForThatGpu) {
  std::optional<StencilModel> open = mixedLaplacian3dOpen();
  ASSERT_TRUE(open);
  StencilModel chosen = *open;
  chooseOpenOptions(chosen);
  const std::vector<DevicePlan> plans = otherDevicePlans(*open, chosen);
  ASSERT_EQ(plans.size(), 1u);
  EXPECT_EQ(plans[0].device, &h200Device());
  EXPECT_FALSE(samePlannedKernels(plans[0].model, chosen));
  // The H200 searches measured tile z x 2 fastest for this stencil; the
  // H100's model chooses tile y for its groups along x.
  ASSERT_TRUE(plans[0].model.alongX);
  EXPECT_EQ(plans[0].model.alongX->tileAxis, 2);
  EXPECT_EQ(plans[0].model.alongX->tileFactor, 2);
  ASSERT_TRUE(chosen.alongX);
  EXPECT_NE(chosen.alongX->tileAxis, 2);

  TunedKernels tuned;
  ASSERT_FALSE(bool(addPlannerVariants(chosen, tuned)));
  const size_t generic = tuned.choices.size();
  ASSERT_FALSE(bool(addDevicePlanVariants(chosen, plans[0], tuned)));
  // Each row's kernels, by options: kernels compiled already with the same
  // options (here the planner's fold pass for any device) serve the row.
  auto optionsOf = [](const TunedKernels &t, const TunedChoice &c,
                      const StencilModel &own) {
    return tuningOptionsText(c.variant < 0 ? own : t.variants[c.variant].model);
  };
  std::vector<const TunedChoice *> rows;
  for (size_t i = generic; i < tuned.choices.size(); ++i) {
    const TunedChoice &c = tuned.choices[i];
    EXPECT_EQ(c.device, "NVIDIA H200");
    EXPECT_TRUE(c.extents.empty());
    EXPECT_GT(c.xMultiple, 0) << "a planner row, not a cache entry";
    rows.push_back(&c);
  }
  ASSERT_GE(rows.size(), 2u);
  EXPECT_EQ(optionsOf(tuned, *rows[0], chosen),
            tuningOptionsText(alongXVariantModel(plans[0].model)));
  EXPECT_EQ(rows[0]->xMultiple, plans[0].model.alongX->vectorWidth);
  EXPECT_EQ(optionsOf(tuned, *rows[1], chosen),
            tuningOptionsText(plans[0].model));
  EXPECT_EQ(rows[1]->xMultiple, 1);
  EXPECT_EQ(rows.size(), plans[0].model.foldPass ? 3u : 2u);
  // No two variants compile the same options.
  std::set<std::string> distinct;
  for (const TunedVariant &v : tuned.variants) {
    EXPECT_TRUE(v.planned);
    EXPECT_FALSE(v.model.hasInner) << "a variant of one rank";
    EXPECT_TRUE(distinct.insert(tuningOptionsText(v.model)).second)
        << v.model.name;
  }
  ASSERT_TRUE(tuned.inner);
  int innerForH200 = 0;
  for (const TunedChoice &c : tuned.inner->choices)
    innerForH200 += c.device == "NVIDIA H200";
  EXPECT_GE(innerForH200, 2);
  // As `stencilc plan` reports it: the same rows in the same order, under
  // the names of the kernels they run.
  const DeviceChoice choice = compiledChoice(chosen, plans[0]);
  EXPECT_EQ(choice.tag, "h200");
  ASSERT_EQ(choice.rows.size(), rows.size() + innerForH200);
  for (size_t i = 0; i < rows.size(); ++i) {
    const TunedChoice &c = *rows[i];
    EXPECT_EQ(choice.rows[i].model.name,
              c.variant < 0 ? chosen.name : tuned.variants[c.variant].model.name);
    EXPECT_EQ(choice.rows[i].nxMultiple, c.xMultiple);
    EXPECT_EQ(choice.rows[i].foldPass, c.foldPass);
  }
  EXPECT_EQ(choice.rows[1].model.name, "lap_h200");
  EXPECT_EQ(choice.rows[rows.size() + 1].model.name, "lap_inner_h200");
}

// Where the H200's model was not fitted (4-D, vector fields, links) and no
// rule of the H200 applies (a single-component 4-D field, links, 12
// doubles a site: DevicePlans.H200RuleForUnmarchedVectorSites), or the
// spec leaves nothing open, no kernels are compiled for it.
TEST(DevicePlans, NoneOutsideTheModelsFitOrWithNothingOpen) {
  StencilModel chosen;
  for (const std::string &spec : {"laplacian4d_periodic", "covlap3d_f32"}) {
    std::optional<StencilModel> shipped = loadShippedSpec(spec);
    ASSERT_TRUE(shipped) << spec;
    const StencilModel open = withKernelOptionsOpen(*shipped);
    EXPECT_FALSE(h200Device().fitted(open)) << spec;
    chosen = open;
    chooseOpenOptions(chosen);
    EXPECT_TRUE(otherDevicePlans(open, chosen).empty()) << spec;
  }
  std::optional<StencilModel> vector = modelFromYaml(kVectorField);
  ASSERT_TRUE(vector);
  EXPECT_FALSE(h200Device().fitted(*vector));
  chosen = *vector;
  chooseOpenOptions(chosen);
  EXPECT_TRUE(otherDevicePlans(*vector, chosen).empty());

  std::string yaml = kLaplacian3d;
  yaml += "kernel:\n  block: [64, 4, 1]\n  vector_width: 1\n"
          "  tile: {axis: y, factor: 4}\n  load_order: ascending\n"
          "  launch_bounds: 256\n  nontemporal_store: false\n";
  std::optional<StencilModel> written = modelFromYaml(yaml);
  ASSERT_TRUE(written);
  EXPECT_TRUE(h200Device().fitted(*written));
  chosen = *written;
  chooseOpenOptions(chosen);
  EXPECT_TRUE(otherDevicePlans(*written, chosen).empty());
}

// Where the H200's model was not fitted to a vector field, the H100's
// choice runs there, with the H200's rule for unmarched site-major kernels
// (plan/DeviceRules.h): 512 threads resident an SM, and whole vectors of at
// least 16 bytes a thread where the share moved fewer. Marching kernels,
// written minimums or launch bounds, and sites past 48 bytes keep the H100's
// choice; CG's fold pass keeps it too.
TEST(DevicePlans, H200RuleForUnmarchedVectorSites) {
  auto open = [](const std::string &precision, int components,
                 const std::string &boundary, const std::string &kernel) {
    std::string yaml = kVectorField;
    yaml.replace(yaml.find("boundary: periodic"), 18, "boundary: " + boundary);
    const std::string field = "precision: double, components: 12";
    yaml.replace(yaml.find(field), field.size(),
                 "precision: " + precision +
                     ", components: " + std::to_string(components));
    if (kernel == "soa")
      yaml.replace(yaml.find("layout: aos"), 11, "layout: soa");
    else
      yaml += kernel;
    yaml += "solver: cg\n";
    return modelFromYaml(yaml);
  };
  auto planFor = [](const StencilModel &m) {
    StencilModel chosen = m;
    chooseOpenOptions(chosen);
    return std::make_pair(chosen, otherDevicePlans(m, chosen));
  };

  // 6 floats, Dirichlet: the H100 splits a site over 3 threads.
  std::optional<StencilModel> floats = open("float", 6, "dirichlet", "");
  ASSERT_TRUE(floats);
  EXPECT_FALSE(h200Device().fitted(*floats));
  const auto [chosen, plans] = planFor(*floats);
  ASSERT_EQ(chosen.componentsPerThread(), 2);
  ASSERT_EQ(chosen.kernel.minBlocksPerSm, 0);
  ASSERT_FALSE(chosen.kernel.march);
  ASSERT_EQ(plans.size(), 1u);
  const StencilModel &h200 = plans[0].model;
  EXPECT_EQ(&plannedFor(*floats, h200Device()), &h100Device());
  EXPECT_EQ(tuningOptionsText(plannedModel(*floats, h200Device())),
            tuningOptionsText(h200));
  const KernelOptions &k = h200.kernel;
  EXPECT_EQ(k.block, chosen.kernel.block);
  EXPECT_EQ(k.tileAxis, chosen.kernel.tileAxis);
  EXPECT_EQ(k.tileFactor, chosen.kernel.tileFactor);
  EXPECT_EQ(k.launchBounds, k.threadsPerBlock());
  EXPECT_EQ(k.minBlocksPerSm * k.threadsPerBlock(), 512);
  EXPECT_EQ(h200.componentsPerThread(), 6) << "whole sites (24 bytes)";
  // The fold pass runs the H100's kernels: the spec's own fold pass where
  // the H100 chose one, else the apply kernels as the H100 chose them.
  ASSERT_TRUE(h200.foldPass);
  EXPECT_EQ(tuningOptionsText(foldPassVariantModel(h200)),
            tuningOptionsText(chosen.foldPass ? foldPassVariantModel(chosen)
                                              : chosen));
  const KernelOptionNote *minimum = note(h200, "min_blocks_per_sm");
  const KernelOptionNote *share = note(h200, "components_per_thread");
  ASSERT_TRUE(minimum && share);
  EXPECT_EQ(minimum->value, std::to_string(k.minBlocksPerSm));
  EXPECT_NE(minimum->reason.find("a rule of NVIDIA H200"), std::string::npos)
      << minimum->reason;
  EXPECT_NE(minimum->reason.find("chose 0"), std::string::npos);
  EXPECT_EQ(share->value, "6");
  EXPECT_NE(share->reason.find("in place of shares of 8 bytes"),
            std::string::npos)
      << share->reason;

  // 6 doubles: a share of one 16-byte vector stays; the minimum comes.
  std::optional<StencilModel> doubles = open("double", 6, "periodic", "");
  ASSERT_TRUE(doubles);
  const auto [chosenDoubles, doublePlans] = planFor(*doubles);
  ASSERT_EQ(doublePlans.size(), 1u);
  const StencilModel &h200Doubles = doublePlans[0].model;
  EXPECT_EQ(chosenDoubles.componentsPerThread() * 8, 16);
  EXPECT_EQ(h200Doubles.componentsPerThread(),
            chosenDoubles.componentsPerThread());
  EXPECT_EQ(h200Doubles.kernel.minBlocksPerSm *
                h200Doubles.kernel.threadsPerBlock(),
            512);
  EXPECT_EQ(note(h200Doubles, "components_per_thread")->reason,
            note(chosenDoubles, "components_per_thread")->reason);
  EXPECT_NE(note(h200Doubles, "min_blocks_per_sm")
                ->reason.find("512 threads resident an SM"),
            std::string::npos);

  // Where the H100 runs CG's fold pass with its apply kernels (the
  // 17-point star on a Dirichlet lattice), the H200 runs them too: the
  // spec's own kernels, which the fold pass's note names.
  std::optional<StencilModel> star =
      loadSpecAsWritten("h_star4d_c6_f32_dirichlet");
  ASSERT_TRUE(star);
  StencilModel starChosen = *star;
  chooseOpenOptions(starChosen);
  ASSERT_FALSE(starChosen.foldPass);
  ASSERT_TRUE(planFoldPass(starChosen));
  const StencilModel starH200 = plannedModel(*star, h200Device());
  ASSERT_TRUE(starH200.foldPass);
  EXPECT_EQ(tuningOptionsText(foldPassVariantModel(starH200)),
            tuningOptionsText(starChosen));
  EXPECT_EQ(note(starH200, "fold_pass")->value,
            "h_star4d_c6_f32_dirichlet's kernels");
  EXPECT_GT(starH200.kernel.minBlocksPerSm, 0);

  // None: a torus of floats marches (MarchRules.h); a written minimum or
  // launch bounds; single values a load (measured slower with the rule);
  // component-major storage; 12 doubles a site (96 bytes: no gain
  // measured).
  for (const auto &[precision, components, boundary, kernel] :
       std::vector<std::tuple<std::string, int, std::string, std::string>>{
           {"float", 6, "periodic", ""},
           {"float", 6, "dirichlet", "kernel: {min_blocks_per_sm: 0}\n"},
           {"float", 6, "dirichlet", "kernel: {launch_bounds: 256}\n"},
           {"float", 6, "dirichlet", "kernel: {vector_width: 1}\n"},
           {"float", 6, "dirichlet", "soa"},
           {"double", 12, "dirichlet", ""}}) {
    SCOPED_TRACE(precision + " " + std::to_string(components) + " " + boundary +
                 " " + kernel);
    std::optional<StencilModel> m =
        open(precision, components, boundary, kernel);
    ASSERT_TRUE(m);
    const auto [c, p] = planFor(*m);
    EXPECT_TRUE(p.empty());
    EXPECT_FALSE(residentVectorSites(c, h200Device()));
  }
  // The first device has no such rule.
  EXPECT_FALSE(residentVectorSites(chosen, h100Device()));
}

TEST(ChooseOptions, ChoosesKernelsOfItsOwnForCGsFoldPass) {
  std::optional<StencilModel> model = mixedLaplacian3dOpen();
  ASSERT_TRUE(model);
  chooseOpenOptions(*model);
  ASSERT_TRUE(model->alongX);
  ASSERT_TRUE(model->foldPass);
  // Its fold pass predicts faster than that of the kernels that would run
  // it otherwise (the groups along x, for the nx that allow both).
  const StencilModel fold = foldPassVariantModel(*model);
  const StencilModel running = alongXVariantModel(*model);
  EXPECT_EQ(fold.name, "lap_fold");
  EXPECT_FALSE(fold.foldPass);
  EXPECT_FALSE(fold.hasInner);
  EXPECT_LE(predictedFoldCost(fold)->picosecondsPerSite,
            0.99 * predictedFoldCost(running)->picosecondsPerSite);
  // With x's update in the pass (6 fields, not 4), the H200's search
  // measured untiled blocks of 2 sites along x within 5% of its best (block
  // 32x4x2 0.2480 ms, the best 0.2364 ms; tile z x 2 0.2436 ms;
  // docs/results/tune-h200-laplacian3d_f64-fold-x*-256.txt): the bytes in
  // flight of the wider pass no longer need a tile, and the model takes
  // none.
  EXPECT_EQ(fold.kernel.tileFactor, 1);
  EXPECT_EQ(fold.kernel.vectorWidth, 2);
  // The storage is the stencil's own: only kernel options differ.
  EXPECT_EQ(stencilc::testing::storageOf(fold),
            stencilc::testing::storageOf(*model));
  const KernelOptionNote *n = note(*model, "fold_pass");
  ASSERT_NE(n, nullptr);
  EXPECT_FALSE(n->written);
  EXPECT_EQ(n->value.rfind("lap_fold: block ", 0), 0u) << n->value;
  EXPECT_NE(n->reason.find("with the kernels for nx a multiple of"),
            std::string::npos)
      << n->reason;
  EXPECT_NE(n->reason.find("the inner precision's fold pass: "),
            std::string::npos)
      << n->reason;
  // The inner precision weighs its own, with its own widths: 4 floats an
  // access, which the double kernels cannot take.
  ASSERT_TRUE(model->innerFoldPass);
  EXPECT_EQ(model->innerFoldPass->vectorWidth, 4);
  const StencilModel inner = innerKernelsModel(*model);
  ASSERT_TRUE(inner.foldPass);
  EXPECT_EQ(foldPassVariantModel(inner).name, "lap_inner_fold");
  EXPECT_FALSE(inner.innerFoldPass);
  // withKernelOptionsOpen starts again from nothing.
  EXPECT_FALSE(withKernelOptionsOpen(*model).foldPass);
  EXPECT_FALSE(withKernelOptionsOpen(*model).innerFoldPass);
}

TEST(ChooseOptions, NoFoldPassKernelsWithoutAFoldPassOrAChoice) {
  // Without CG there is no fold pass, and no note of one.
  std::optional<StencilModel> plain = modelFromYaml(kLaplacian3d);
  ASSERT_TRUE(plain);
  chooseOpenOptions(*plain);
  EXPECT_FALSE(plain->foldPass);
  EXPECT_EQ(note(*plain, "fold_pass"), nullptr);
  // With block, tile and width written the candidates differ in nothing
  // the fold pass feels: it runs with the kernels chosen for apply.
  std::optional<StencilModel> written = modelFromYaml(
      std::string(kLaplacian3d) +
      "solver: cg\nkernel: {block: [64, 4, 1], tile: {axis: y, factor: 4}, "
      "vector_width: 1}\n");
  ASSERT_TRUE(written);
  chooseOpenOptions(*written);
  EXPECT_FALSE(written->foldPass);
  const KernelOptionNote *n = note(*written, "fold_pass");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->value, "the kernels chosen for apply");
  EXPECT_NE(n->reason.find("no candidate predicts a fold pass"),
            std::string::npos)
      << n->reason;
}

TEST(ChooseOptions, NoGroupsAlongXWhereTheSpecOrItsAxesForbidThem) {
  // Written: the spec's one site per thread stands alone.
  std::optional<StencilModel> written =
      modelFromYaml(std::string(kLaplacian3d) + "kernel: {vector_width: 1}\n");
  ASSERT_TRUE(written);
  chooseOpenOptions(*written);
  EXPECT_FALSE(written->alongX);
  EXPECT_TRUE(note(*written, "vector_width")->written);
  // Shared-memory staging reads a group from the box value by value.
  std::optional<StencilModel> staged = modelFromYaml(
      std::string(kLaplacian3d) + "kernel: {staging: shared}\n");
  ASSERT_TRUE(staged);
  chooseOpenOptions(*staged);
  EXPECT_FALSE(staged->alongX);
  EXPECT_NE(note(*staged, "vector_width")
                ->reason.find("is not available with groups of sites along x"),
            std::string::npos)
      << note(*staged, "vector_width")->reason;
  // Even/odd storage breaks rows into pieces.
  std::optional<StencilModel> evenOdd = modelFromYaml(
      std::string(kLaplacian3d).replace(std::string(kLaplacian3d).find(
                                            "precision: float"),
                                        16, "precision: float, even_odd: true"));
  ASSERT_TRUE(evenOdd);
  chooseOpenOptions(*evenOdd);
  EXPECT_FALSE(evenOdd->alongX);
}

TEST(ChooseOptions, GroupsAlongXOnLatticesThatWrap) {
  std::string periodic = kLaplacian3d;
  periodic.replace(periodic.find("dirichlet"), 9, "periodic");
  std::optional<StencilModel> wraps = modelFromYaml(periodic);
  ASSERT_TRUE(wraps);
  chooseOpenOptions(*wraps);
  ASSERT_TRUE(wraps->alongX);
  EXPECT_GT(wraps->alongX->vectorWidth, 1);
  EXPECT_NE(note(*wraps, "vector_width")->reason.find("where nx is a multiple"),
            std::string::npos)
      << note(*wraps, "vector_width")->reason;
}

TEST(ChooseOptions, GroupsAlongXOfComponentMajorVectorFields) {
  // The 4-D 12-double field stored component-major: each component's row
  // takes groups, on blocks at most 32 sites wide along x (a written wider
  // block is replaced for the groups' kernels).
  for (const char *layout : {"soa", "{order: aosoa, block: 32}"}) {
    for (const char *kernel : {"", "kernel: {block: [32, 4, 2, 1]}\n"}) {
      SCOPED_TRACE(std::string(layout) + " " + kernel);
      std::string yaml = kVectorField;
      yaml.replace(yaml.find("layout: aos"), 11,
                   std::string("layout: ") + layout);
      std::optional<StencilModel> model = modelFromYaml(yaml + kernel);
      ASSERT_TRUE(model);
      chooseOpenOptions(*model);
      EXPECT_EQ(model->kernel.vectorWidth, 1);
      ASSERT_TRUE(model->alongX);
      const StencilModel grouped = alongXVariantModel(*model);
      EXPECT_EQ(grouped.sitesPerThreadX(), grouped.kernel.vectorWidth);
      EXPECT_LE(grouped.kernel.block[0] * grouped.kernel.vectorWidth, 32);
      EXPECT_LT(predictedCost(grouped).picosecondsPerSite,
                predictedCost(*model).picosecondsPerSite);
      EXPECT_NE(note(*model, "vector_width")->reason.find("vec12_x"),
                std::string::npos)
          << note(*model, "vector_width")->reason;
    }
  }
  // A written block narrow enough for groups stands, as written options do.
  {
    std::string yaml = kVectorField;
    yaml.replace(yaml.find("layout: aos"), 11, "layout: soa");
    std::optional<StencilModel> narrow =
        modelFromYaml(yaml + "kernel: {block: [8, 4, 2, 2]}\n");
    ASSERT_TRUE(narrow);
    chooseOpenOptions(*narrow);
    ASSERT_TRUE(narrow->alongX);
    EXPECT_EQ(narrow->alongX->block, (std::array<int, 4>{8, 4, 2, 2}));
  }
  // Site-major: the width counts a site's components; no second set.
  std::optional<StencilModel> aos = modelFromYaml(kVectorField);
  ASSERT_TRUE(aos);
  chooseOpenOptions(*aos);
  EXPECT_FALSE(aos->alongX);
}

TEST(ChooseOptions, OpenOptionsForgetTheKernelSection) {
  std::string yaml = kVectorField;
  yaml += "kernel:\n  block: [16, 4, 2, 2]\n  vector_width: 1\n"
          "  components_per_thread: 4\n";
  std::optional<StencilModel> model = modelFromYaml(yaml);
  ASSERT_TRUE(model);
  StencilModel open = withKernelOptionsOpen(*model);
  EXPECT_EQ(open.name, "vec12_auto");
  EXPECT_FALSE(open.kernel.written.block);
  chooseOpenOptions(open);
  for (const KernelOptionNote &n : open.optionNotes)
    EXPECT_FALSE(n.written) << n.option;
  EXPECT_EQ(open.kernel.vectorWidth, 2);
}

// --- Vector fields: what the site-major searches taught the model ---------

namespace {

/// The shipped spec `name` with the kernel options of a tuning-cache line;
/// stops the tests (after reporting why) where either cannot be read, as
/// nothing after it could run.
StencilModel withOptions(const std::string &name, const std::string &line) {
  std::optional<StencilModel> model = loadShippedSpec(name);
  if (!model) {
    ADD_FAILURE() << "cannot load specs/" << name << ".yaml";
    std::abort();
  }
  llvm::Expected<StencilModel> m = withTuningOptions(*model, line);
  if (!m) {
    ADD_FAILURE() << name << ": '" << line
                  << "': " << llvm::toString(m.takeError());
    std::abort();
  }
  return std::move(*m);
}

std::string aosLine(const std::string &block, const std::string &tile,
                    int perThread) {
  return "block=" + block + "; tile=" + tile +
         "; order=ascending; stores=regular; launch_bounds=0; layout=aos; "
         "vector_width=4; components_per_thread=" +
         std::to_string(perThread);
}

} // namespace

TEST(CostModel, RegistersOfASiteSharedSideBySideFollowNvcc) {
  // nvcc 13 for sm_90, laplacian4d_vec24_aos on block 32x4x1x1 with 4, 8
  // and 12 floats a thread: 32, 44 and 48 registers untiled, 56, 70 and 80
  // with a tile y x 2 (docs/performance.md, "Vector fields without tuning").
  const std::vector<std::tuple<std::string, int, int>> measured = {
      {"x1", 4, 32}, {"x1", 8, 44}, {"x1", 12, 48},
      {"y2", 4, 56}, {"y2", 8, 70}, {"y2", 12, 80}};
  for (const auto &[tile, perThread, registers] : measured) {
    const StencilModel m = withOptions(
        "laplacian4d_vec24_aos", aosLine("32x4x1x1", tile, perThread));
    EXPECT_NEAR(predictedCost(m).registers, registers, 10)
        << "tile " << tile << ", " << perThread << " floats a thread";
  }
}

TEST(CostModel, RegistersOfAWholeSiteFollowNvcc) {
  // nvcc 13 for sm_90 (`stencilc inspect --target sm_90`), a site-major
  // site a thread on block 32x2x2x1, untiled and with a tile y x 2: 24
  // floats 4 a load, 64 and 112 registers; 12 doubles 2 a load, 64 and 114
  // (docs/results/registers-site-major-sm90.txt). The model said 108 and
  // 132 for each before it capped the loads waiting at 16 registers a tile
  // site.
  const std::vector<std::tuple<std::string, std::string, int>> measured = {
      {"laplacian4d_vec24_aos", "x1", 64},
      {"laplacian4d_vec24_aos", "y2", 112},
      {"laplacian4d_vec12_f64", "x1", 64},
      {"laplacian4d_vec12_f64", "y2", 114}};
  for (const auto &[spec, tile, registers] : measured) {
    const bool doubles = spec == "laplacian4d_vec12_f64";
    const StencilModel m = withOptions(
        spec, "block=32x2x2x1; tile=" + tile +
                  "; order=ascending; stores=regular; launch_bounds=0; "
                  "layout=aos; vector_width=" +
                  (doubles ? "2; components_per_thread=12"
                           : "4; components_per_thread=24"));
    EXPECT_NEAR(predictedCost(m).registers, registers, 14)
        << spec << ", tile " << tile;
  }
}

TEST(CostModel, WiderWarpSpansThroughL1CostTime) {
  // 8 floats a thread side by side: a warp's 16-byte loads span 8 lines,
  // 4 floats span 4; same DRAM bytes. Measured 2463 against 2585 GB/s.
  const KernelCost four = predictedCost(
      withOptions("laplacian4d_vec24_aos", aosLine("32x4x2x1", "x1", 4)));
  const KernelCost eight = predictedCost(
      withOptions("laplacian4d_vec24_aos", aosLine("32x4x2x1", "x1", 8)));
  EXPECT_GT(eight.wavefrontsPerSite, 1.5 * four.wavefrontsPerSite);
  EXPECT_GT(eight.picosecondsPerSite, 1.02 * four.picosecondsPerSite);
}

TEST(CostModel, SubdomainAccessesCostTheirIndices) {
  // In 8x4x4x1 subdomains 6 threads a site (4 floats each) measured
  // 1937 GB/s against 2503 for 3 (8 floats): every access computes its
  // site's subdomain and place.
  // (A tuning line's `layout=aos` keeps the spec's subdomains.)
  auto sub = [](int perThread) {
    const StencilModel m = withOptions("laplacian4d_vec24_sub",
                                       aosLine("32x4x1x1", "x1", perThread));
    EXPECT_TRUE(m.layout.hasSubdomains());
    return predictedCost(m);
  };
  const KernelCost four = sub(4), eight = sub(8);
  const KernelCost plain = predictedCost(
      withOptions("laplacian4d_vec24_aos", aosLine("32x4x1x1", "x1", 4)));
  EXPECT_GT(four.addressesPerSite, 5 * plain.addressesPerSite);
  EXPECT_GT(four.picosecondsPerSite, eight.picosecondsPerSite);
}

TEST(ChooseOptions, VectorFieldBlocksSpanAtMost32SitesAlongX) {
  // The blocks sharing a site split it over the same row of sites: a block
  // 64 threads wide covers 64 sites along x, half of them idle on a row of
  // 32 (measured 2346 against 2493 GB/s). Single-component fields keep
  // wider blocks among their candidates.
  for (const char *name : {"laplacian4d_vec24_aos", "laplacian4d_vec12_f64",
                           "laplacian4d_vec24_sub", "covlap4d_f32"}) {
    std::optional<StencilModel> spec = loadShippedSpec(name);
    ASSERT_TRUE(spec) << name;
    StencilModel open = withKernelOptionsOpen(*spec);
    chooseOpenOptions(open);
    EXPECT_LE(open.kernel.block[0], 32) << name;
  }
  std::optional<StencilModel> model = modelFromYaml(kLaplacian3d);
  ASSERT_TRUE(model);
  StencilModel open = withKernelOptionsOpen(*model);
  EXPECT_GT(chooseOpenOptions(open).candidates, 50);
  // laplacian4d_vec24_aos's spec leaves its split open: 6 threads a site
  // (4 floats each), what its tuning entry uses, is among the choices.
  std::optional<StencilModel> aos = loadShippedSpec("laplacian4d_vec24_aos");
  ASSERT_TRUE(aos);
  StencilModel chosen = withKernelOptionsOpen(*aos);
  chooseOpenOptions(chosen);
  EXPECT_EQ(chosen.componentsPerThread(), 4);
}
