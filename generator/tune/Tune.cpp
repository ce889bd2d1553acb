//===- Tune.cpp - Autotuning: the variant space and its build directory ---===//
#include "tune/Tune.h"

#include "emit/Emit.h"
#include "emit/TemplateEngine.h"
#include "plan/Plan.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <set>

using namespace llvm;

namespace stencilc {

namespace {

std::string blockText(const StencilModel &m) {
  std::string text;
  for (int axis = 0; axis < m.dims; ++axis)
    text += (axis ? "x" : "") + std::to_string(m.kernel.block[axis]);
  return text;
}

std::string summaryOf(const StencilModel &m) {
  const KernelOptions &k = m.kernel;
  return "block " + blockText(m) + ", tile " + axisName(k.tileAxis) + " x " +
         std::to_string(k.tileFactor) + ", " +
         (k.loadOrder == LoadOrder::Explicit ? "'" + k.loadOrderText + "'"
                                             : loadOrderName(k.loadOrder)) +
         ", " + (k.nontemporalStore ? "non-temporal" : "regular") + " stores";
}

/// Candidate block shapes (threads per axis) for a grid of `dims` axes.
std::vector<std::array<int, kMaxDims>> blockShapes(int dims) {
  switch (dims) {
  case 1:
    return {{128, 1, 1, 1}, {256, 1, 1, 1}, {512, 1, 1, 1}};
  case 2:
    return {{64, 4, 1, 1}, {128, 2, 1, 1}, {256, 1, 1, 1}, {32, 8, 1, 1}};
  case 3:
    return {{64, 4, 1, 1}, {128, 2, 1, 1}, {256, 1, 1, 1}, {32, 4, 2, 1},
            {64, 2, 2, 1}};
  default:
    return {{32, 4, 1, 1}, {32, 4, 2, 1}, {64, 2, 1, 1}, {16, 4, 2, 2}};
  }
}

/// A built-in load order, dropping any explicit one.
void setLoadOrder(KernelOptions &k, LoadOrder order) {
  k.loadOrder = order;
  k.loadOrderText.clear();
  k.tapOrder.clear();
}

} // namespace

StencilModel naiveModel(const StencilModel &model) {
  StencilModel m = model;
  m.name = model.name + "_naive";
  m.kernel.tileFactor = 1;
  setLoadOrder(m.kernel, LoadOrder::AsWritten);
  m.description = "Naive baseline of " + model.name +
                  " (no tile, loads as written). " + model.description;
  return m;
}

std::vector<Variant> tuningVariants(const StencilModel &model, int limit) {
  std::vector<Variant> variants;
  std::set<std::string> seen;
  auto add = [&](StencilModel m) {
    std::string summary = summaryOf(m);
    if (static_cast<int>(variants.size()) >= limit ||
        !seen.insert(summary).second)
      return;
    char suffix[16];
    std::snprintf(suffix, sizeof suffix, "_t%03zu", variants.size());
    m.name = model.name + suffix;
    variants.push_back({std::move(m), summary});
  };
  add(model); // the spec's own choice first
  std::vector<std::pair<int, int>> tiles = {{0, 1}};
  if (!model.layout.evenOdd)
    for (int axis = model.dims > 1 ? 1 : 0; axis < model.dims; ++axis)
      for (int factor : {2, 4})
        tiles.push_back({axis, factor});
  for (const auto &block : blockShapes(model.dims))
    for (auto [axis, factor] : tiles)
      for (LoadOrder order : {LoadOrder::Ascending, LoadOrder::AsWritten})
        for (bool nontemporal : {false, true}) {
          StencilModel m = model;
          m.kernel.block = block;
          m.kernel.launchBounds = 0;
          m.kernel.tileAxis = axis;
          m.kernel.tileFactor = factor;
          setLoadOrder(m.kernel, order);
          m.kernel.nontemporalStore = nontemporal;
          add(std::move(m));
        }
  return variants;
}

Error writeTuningDirectory(const StencilModel &model,
                           const std::vector<Variant> &variants,
                           const std::vector<int> &extents,
                           StringRef directory) {
  SmallString<256> generated(directory);
  sys::path::append(generated, "generated");
  std::vector<std::string> includes, entries, names;
  for (const Variant &v : variants) {
    std::vector<KernelPlan> plans = planKernels(v.model);
    Expected<EmittedStencil> files = emitStencil(v.model, plans);
    if (!files)
      return files.takeError();
    if (Error error = writeStencil(v.model, *files, generated))
      return error;
    includes.push_back("#include \"" + v.model.name + ".hpp\"");
    entries.push_back("    {&stencilc_kernels::" + v.model.name +
                      "::info(), \"" + v.summary + "\"},");
  }
  std::vector<std::string> sizes;
  for (int e : extents)
    sizes.push_back(std::to_string(e));
  auto write = [&](StringRef name, StringRef templateName,
                   const TemplateValues &values) -> Error {
    Expected<StringRef> source = getTemplate(templateName);
    if (!source)
      return source.takeError();
    Expected<std::string> text = renderTemplate(templateName, *source, values);
    if (!text)
      return text.takeError();
    SmallString<256> path(directory);
    sys::path::append(path, name);
    std::error_code ec;
    raw_fd_ostream os(path, ec);
    if (ec)
      return createStringError(ec, "cannot write '%s'", path.c_str());
    os << *text;
    return Error::success();
  };
  if (Error error = write("tune_main.cpp", "tune_main.cpp.in",
                          {{"name", model.name},
                           {"includes", join(includes, "\n")},
                           {"entries", join(entries, "\n")},
                           {"extents", join(sizes, ", ")},
                           {"version", generatorVersion().str()}}))
    return error;
  return write("CMakeLists.txt", "tune_CMakeLists.txt.in",
               {{"name", model.name}, {"version", generatorVersion().str()}});
}

} // namespace stencilc
