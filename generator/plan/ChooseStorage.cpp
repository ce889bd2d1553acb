//===- ChooseStorage.cpp - The planner's choice of open storage -----------===//

#include "plan/ChooseStorage.h"

#include "check/Check.h"
#include "plan/ChooseOptions.h"

#include "llvm/ADT/StringExtras.h"

#include <string>

namespace stencilc {

namespace {

/// An even/odd field leaves site-major storage only for one the model
/// predicts to take at most this share of its time: on the H200 the hops
/// of fields whose storages the model ranked within 3% measured within 2%
/// (docs/results/tune-h200-*-layouts-*.json), and a spec's storage should
/// not turn on noise.
constexpr double kLayoutGain = 0.97;

/// A field's storage as a spec writes it: "aos", "{order: soa, vector: 2}".
std::string specLayoutText(const FieldLayout &layout) {
  if (layout.order == LayoutOrder::SiteMajor)
    return "aos";
  return "{order: " + std::string(layoutOrderName(layout.order)) +
         ", vector: " + std::to_string(layout.vector) + "}";
}

} // namespace

std::optional<KernelOptionNote> chooseFieldLayout(StencilModel &model) {
  if (model.layoutWritten || !model.layout.evenOdd || model.components == 1 ||
      model.layout.hasSubdomains())
    return std::nullopt;
  // One storage on every GPU (the inner kernels share it, and the tuning
  // cache's entries name theirs): the first device's model chooses.
  const DeviceModel &device = *knownDevices().front();
  struct Weighed {
    FieldLayout layout;
    double picoseconds = 0;
    double fraction = 0;
  };
  std::vector<Weighed> weighed;
  std::string ruledOut; // why groups were not weighed, if they were not
  for (int vector : {1, 2, 4}) {
    StencilModel m = model;
    m.layoutWritten = true;
    m.layout.order =
        vector == 1 ? LayoutOrder::SiteMajor : LayoutOrder::ComponentMajor;
    m.layout.block = 1;
    m.layout.vector = vector;
    std::string problem =
        vector > 1 ? fieldVectorProblem(m, vector) : std::string();
    // A written share of a site must hold whole groups.
    if (problem.empty())
      problem = componentSplitProblem(m, m.componentsPerThread());
    if (!problem.empty()) {
      if (ruledOut.empty() && vector > 1)
        ruledOut = "groups of " + std::to_string(vector) + ": " + problem;
      continue;
    }
    const OptionSearch search = chooseOpenOptions(m, device);
    Weighed w{m.layout, search.chosen.picosecondsPerSite,
              search.chosen.predictedFraction()};
    // Mixed-precision solves run mostly the inner kernels, in this storage.
    if (m.hasInner) {
      const KernelCost inner = predictedCost(innerKernelsModel(m), device);
      w.picoseconds += inner.picosecondsPerSite;
      w.fraction = (search.chosen.dramPs + inner.dramPs) / w.picoseconds;
    }
    weighed.push_back(w);
  }
  if (weighed.empty() || weighed.front().layout.vector != 1)
    return std::nullopt; // site-major refused: nothing to fall back on
  // The fastest storage, where it beats site-major by the margin.
  const Weighed &siteMajor = weighed.front();
  const Weighed *fastest = &siteMajor;
  for (const Weighed &w : weighed)
    if (w.picoseconds < fastest->picoseconds)
      fastest = &w;
  const Weighed *best =
      fastest->picoseconds <= kLayoutGain * siteMajor.picoseconds ? fastest
                                                                  : &siteMajor;
  model.layout = best->layout;
  std::vector<std::string> others;
  for (const Weighed &w : weighed)
    if (&w != best)
      others.push_back(specLayoutText(w.layout) + " " +
                       percentText(w.fraction));
  KernelOptionNote note;
  note.option = "layout";
  note.value = specLayoutText(best->layout);
  note.reason =
      "the even/odd hops" +
      std::string(model.hasInner ? " and the inner precision's hops" : "") +
      " predicted at " + percentText(best->fraction) +
      " of the copy bandwidth on " + device.name;
  if (others.empty())
    note.reason += "; the only storage weighed (" + ruledOut + ")";
  else
    note.reason += " (" + llvm::join(others, ", ") +
                   "; another storage must predict " +
                   percentText(1 - kLayoutGain) + " less time than aos)";
  return note;
}

std::vector<KernelOptionNote> chooseLinkStorage(StencilModel &model) {
  std::vector<KernelOptionNote> notes;
  if (model.links.present() && !model.links.layoutWritten) {
    LinkField &links = model.links;
    links.order = LayoutOrder::ComponentMajor;
    links.block = 1;
    // Pairs always fit: a link holds 2 N^2 or 12 reals, and two doubles
    // are 16 bytes.
    links.vector = 2;
    notes.push_back(
        {"links.layout", specLayoutText(links.storageOrder()), false,
         "one array per real, 2 reals a load, which asks nothing of the "
         "lattice (blocks of 32 sites ask a multiple of 32); on an H200 at "
         "32^3 x 64 pairs so ran a gauge-covariant Laplacian 2.7x and a "
         "Wilson-clover hop 1.7x faster than a site's matrices together, "
         "within 1% of blocks of 32 sites"});
  }
  if (model.clover.present() && !model.clover.layoutWritten) {
    CloverTerm &clover = model.clover;
    clover.order = LayoutOrder::ComponentMajor;
    clover.block = 1;
    clover.vector = 16 / model.arrayElementBytes();
    notes.push_back(
        {"clover.layout", specLayoutText(clover.storageOrder()), false,
         "one array per real, 16 bytes a load; on an H200 at 32^3 x 64 the "
         "Wilson-clover hop so ran 1.16x faster than with a site's blocks "
         "together, level with blocks of 32 sites"});
  }
  return notes;
}

} // namespace stencilc
