//===- Emit.cpp - NAME.hip, NAME.hpp and NAME.json from the plans ---------===//
//
// The whole-file skeletons are templates/kernels.hip.in and kernels.hpp.in;
// the kernels, the launchers and the header's declarations come from the
// printers (KernelPrinter, HostPrinter), the manifest from Manifest.cpp.
//
//===----------------------------------------------------------------------===//
#include "emit/Emit.h"
#include "tune/TuningCache.h"

#include "emit/BoxCopyPrinter.h"
#include "emit/EmitText.h"
#include "emit/HostPrinter.h"
#include "emit/KernelPrinter.h"
#include "emit/Manifest.h"
#include "emit/TemplateEngine.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <set>

#ifndef STENCILC_VERSION
#error "STENCILC_VERSION must be defined by the build"
#endif

using namespace llvm;

namespace stencilc {

StringRef generatorVersion() { return STENCILC_VERSION; }

namespace {


std::string optionsSummary(const StencilModel &model) {
  const KernelOptions &k = model.kernel;
  std::string block;
  for (int axis = 0; axis < model.dims; ++axis)
    block += (axis ? "x" : "") + std::to_string(k.block[axis]);
  std::string text = "block " + block + ", launch bounds " +
                     (k.launchBounds ? std::to_string(k.launchBounds)
                                     : std::string("none")) +
                     (k.minBlocksPerSm
                          ? " (at least " + std::to_string(k.minBlocksPerSm) +
                                " per SM)"
                          : std::string()) +
                     ", " + tileSummary(k) + ", load order " +
                     loadOrderName(k.loadOrder);
  if (k.loadOrder == LoadOrder::Explicit)
    text += " \"" + k.loadOrderText + "\"";
  text += std::string(", ") +
          (k.nontemporalStore ? "non-temporal" : "regular") + " stores";
  if (model.componentGroups() > 1)
    text += ", " + std::to_string(model.componentsPerThread()) + " of " +
            std::to_string(model.components) + " components per thread";
  if (model.layout.evenOdd && model.dims >= 3)
    text += ", slab " + slabText(k.slab);
  if (k.staging == Staging::Shared)
    text += ", staged in shared memory";
  return text;
}

} // namespace

namespace {

/// The KernelInfo table of tuned choices and the variants' code.
struct TunedText {
  std::string headers, kernels, table, reference = "0, nullptr";
};

/// The GPU whose planner rows alone run variant `index` (tune/
/// DevicePlans.h), or "" where a row for any device or a cache entry does.
std::string plannedOnlyFor(const TunedKernels &tuned, int index) {
  std::string device;
  for (const TunedChoice &c : tuned.choices) {
    if (c.variant != index)
      continue;
    if (c.xMultiple == 0 || c.device.empty() ||
        (!device.empty() && device != c.device))
      return "";
    device = c.device;
  }
  return device;
}

TunedText tunedText(const TunedKernels &tuned) {
  TunedText text;
  for (size_t i = 0; i < tuned.variants.size(); ++i) {
    const TunedVariant &v = tuned.variants[i];
    const std::string device = plannedOnlyFor(tuned, static_cast<int>(i));
    text.headers += std::string(v.planned ? "\n// The planner's variant "
                                          : "\n// Tuned variant ") +
                    v.model.name + " (" + tuningOptionsText(v.model) + ")" +
                    (device.empty() ? "" : ", for " + device) + ".\n" +
                    v.files.header;
    // Its header is already part of this stencil's header.
    std::string kernels = v.files.kernels;
    std::string include = "#include \"" + v.model.name + ".hpp\"\n";
    size_t at = kernels.find(include);
    if (at != std::string::npos)
      kernels.erase(at, include.size());
    text.kernels += "\n" + kernels;
  }
  if (tuned.choices.empty())
    return text;
  std::vector<std::string> rows;
  bool planned = false, large = false;
  for (const TunedChoice &c : tuned.choices) {
    std::vector<std::string> extents;
    for (int axis = 0; axis < kMaxDims; ++axis)
      extents.push_back(std::to_string(
          c.extents.empty()
              ? 0
              : (axis < static_cast<int>(c.extents.size()) ? c.extents[axis]
                                                           : 1)));
    std::string device;
    for (char ch : c.device)
      device +=
          ch == '"' || ch == '\\' ? std::string("\\") + ch : std::string(1, ch);
    planned = planned || c.xMultiple > 0;
    rows.push_back(
        (c.device.empty() ? std::string("{nullptr, ")
                          : "{\"" + device + "\", ") +
        listOf(extents) + ", &" +
        (c.variant < 0 ? std::string("info")
                       : "stencilc_kernels::" +
                             tuned.variants[c.variant].model.name + "::info") +
        ", " + shortestNumberText(c.gbs) + ", " + std::to_string(c.xMultiple) +
        ", " +
        (c.foldPass ? "stencil::TunedKernels::FoldPass"
                    : "stencil::TunedKernels::All") +
        (c.l2Percent > 0 ? ", " + std::to_string(c.l2Percent) : std::string()) +
        "}");
    large = large || c.l2Percent > 0;
  }
  std::string legend =
      planned
          ? "// Compiled-in variants: device (null: any; a GPU the planner\n"
            "// chose for, with nx a multiple of), extents (0: any), kernels,\n"
            "// GB/s when tuned, nx a multiple of (the planner's choices;\n"
            "// 0: a tuning-cache entry), which kernels they replace."
          : "// From the tuning cache: device, extents, kernels, GB/s when "
            "tuned,\n// nx a multiple of (0: any), which kernels they "
            "replace (all, or CG's\n// fold pass).";
  if (large)
    legend += "\n// A row with a percentage runs only where two slices along "
              "the slowest\n// axis exceed that share of the GPU's L2.";
  text.table = legend +
               "\nstatic const stencil::TunedChoice tuned[] = {\n    " +
               join(rows, ",\n    ") + "};";
  text.reference = std::to_string(rows.size()) + ", tuned";
  return text;
}

} // namespace

namespace {

/// The kernels ranks run, when they are not the stencil's own
/// (splitKernelsModel), with their code: like a tuned variant's, inside
/// this stencil's files.
struct SplitText {
  std::string headers, kernels;
  std::string table; ///< info()'s stencil::DistributedInfo
  std::string reference = "nullptr";
};

/// Whether some read of the stencil moves along two axes at once: a tap's
/// offset, or a coefficient field's shift as A (x + shift) or A^T (x +
/// shift - offset) reads it.
bool readsCorners(const StencilModel &model) {
  auto diagonal = [&](const Offset &o) {
    int axes = 0;
    for (int axis = 0; axis < model.dims; ++axis)
      axes += o[axis] != 0;
    return axes > 1;
  };
  for (const Tap &tap : model.taps) {
    if (diagonal(tap.offset))
      return true;
    for (const CoefficientTerm &term : tap.coefficient.terms) {
      Offset fromAdjoint{};
      for (int axis = 0; axis < kMaxDims; ++axis)
        fromAdjoint[axis] = term.shift[axis] - tap.offset[axis];
      if (diagonal(term.shift) || diagonal(fromAdjoint))
        return true;
    }
  }
  return false;
}

/// `{stencil::ExchangeTransport::Peer, true}`
std::string exchangeOptionsInitializer(const ExchangeOptions &options) {
  static const char *const names[] = {"Auto", "Peer", "Staged", "GpuAware"};
  return std::string("{stencil::ExchangeTransport::") +
         names[static_cast<int>(options.transport)] + ", " +
         (options.overlap ? "true" : "false") + "}";
}

/// The table of recorded exchange policies, and DistributedInfo's
/// reference to it.
std::pair<std::string, std::string>
tunedExchangeText(const std::vector<TunedExchangeChoice> &exchanges) {
  if (exchanges.empty())
    return {"", "0, nullptr"};
  auto padded = [](const std::vector<int> &values) {
    std::vector<std::string> out;
    for (int axis = 0; axis < kMaxDims; ++axis)
      out.push_back(std::to_string(
          axis < static_cast<int>(values.size()) ? values[axis] : 1));
    return listOf(out);
  };
  std::vector<std::string> rows;
  for (const TunedExchangeChoice &c : exchanges) {
    std::string device;
    for (char ch : c.device)
      device += ch == '"' || ch == '\\' ? std::string("\\") + ch
                                          : std::string(1, ch);
    rows.push_back("{\"" + device + "\", " + padded(c.extents) + ", " +
                   padded(c.grid) + ", " +
                   exchangeOptionsInitializer(c.options) + ", " +
                   shortestNumberText(c.milliseconds) + "}");
  }
  return {"// From the tuning cache: device, extents, process grid, halo "
          "exchange, ms per\n// application when tuned.\nstatic constexpr "
          "stencil::TunedExchange tuned_exchange[] = {\n    " +
              join(rows, ",\n    ") + "};\n",
          std::to_string(rows.size()) + ", tuned_exchange"};
}

Expected<SplitText> splitText(const StencilModel &model,
                              const std::vector<TunedExchangeChoice> &exchanges) {
  SplitText text;
  if (!model.splittable())
    return text;
  std::string scope; // where the ranks' kernels live
  const StencilModel ranks =
      model.splitAxisWraps() ? splitKernelsModel(model) : model;
  if (model.splitAxisWraps()) {
    Expected<EmittedStencil> files = emitStencil(ranks, planKernels(ranks));
    if (!files)
      return files.takeError();
    text.headers = "\n// The kernels ranks run (grid.split: ghost zones along " +
                   [&] {
                     std::vector<std::string> axes;
                     for (int axis = 0; axis < model.dims; ++axis)
                       if (model.split[axis] && model.wraps(axis))
                         axes.push_back(axisName(axis));
                     return join(axes, ", ");
                   }() +
                   ").\n" + files->header;
    std::string kernels = files->kernels;
    const std::string include = "#include \"" + ranks.name + ".hpp\"\n";
    if (size_t at = kernels.find(include); at != std::string::npos)
      kernels.erase(at, include.size());
    text.kernels = "\n" + kernels;
    scope = "stencilc_kernels::" + ranks.name + "::";
  }
  std::vector<std::string> split;
  for (int axis = 0; axis < kMaxDims; ++axis)
    split.push_back(axis < model.dims && model.split[axis] ? "true" : "false");
  auto entry = [&](bool exists, const std::string &function) {
    return exists ? "&" + scope + function + "_region_generic"
                  : std::string("nullptr");
  };
  // The box copies the ranks' code holds (planBoxCopies), by function.
  const std::vector<BoxCopyPlan> copies = planBoxCopies(ranks);
  auto copy = [&](const std::string &function) {
    for (const BoxCopyPlan &c : copies)
      if (c.function == function)
        return "&" + scope + function;
    return std::string("nullptr");
  };
  const bool hops = model.layout.evenOdd;
  const auto [exchangeTable, exchangeReference] = tunedExchangeText(exchanges);
  text.table = exchangeTable +
               "// The ranks' kernels, the halo exchange's box copies "
               "(grid.split) and its\n// policy (grid.exchange).\n"
               "static constexpr stencil::DistributedInfo "
               "distributed = {\n    " +
               listOf(split) + ", " + (readsCorners(model) ? "true" : "false") +
               ", &" + scope + "info, " + copy("copy_box") + ",\n    " +
               copy("copy_link_box") + ", " + copy("copy_site_box") +
               ",\n    " + entry(true, "apply") + ", " +
               entry(true, "apply_adjoint") + ",\n    " +
               entry(hasFusedDotKernel(ranks), "apply_dot") + ",\n    " +
               entry(hops, "even_to_odd") + ", " + entry(hops, "odd_to_even") +
               ",\n    " + entry(hops, "even_to_odd_adjoint") + ", " +
               entry(hops, "odd_to_even_adjoint") + ",\n    " +
               exchangeOptionsInitializer(model.exchange) + ", " +
               exchangeReference + "};";
  text.reference = "&distributed";
  return text;
}

/// The stencil's kernels in the precision of mixed-precision CG's inner
/// iterations (inner_precision), NAME_inner, inside this stencil's files;
/// and KernelInfo's reference to them.
struct InnerText {
  std::string headers, kernels, reference = "nullptr";
};

Expected<InnerText> innerText(const StencilModel &model,
                              const TunedKernels &tuned) {
  InnerText text;
  if (!model.hasInner)
    return text;
  const StencilModel inner = innerKernelsModel(model);
  Expected<EmittedStencil> files =
      emitStencil(inner, planKernels(inner), tuned);
  if (!files)
    return files.takeError();
  text.headers = std::string("\n// The kernels in ") +
                 precisionName(inner.precision) +
                 " for mixed-precision CG's inner iterations "
                 "(inner_precision).\n" +
                 files->header;
  std::string kernels = files->kernels;
  const std::string include = "#include \"" + inner.name + ".hpp\"\n";
  if (size_t at = kernels.find(include); at != std::string::npos)
    kernels.erase(at, include.size());
  text.kernels = "\n" + kernels;
  text.reference = "&stencilc_kernels::" + inner.name + "::info";
  return text;
}

/// One comment line per line of the spec's description.
std::string commentedDescription(const StencilModel &model) {
  std::string description =
      model.description.empty() ? model.name : model.description;
  std::string commented;
  SmallVector<StringRef, 4> lines;
  StringRef(description).trim().split(lines, '\n');
  for (size_t i = 0; i < lines.size(); ++i)
    commented += (i ? "\n// " : "") + lines[i].rtrim().str();
  return commented;
}

/// What apply() updates, for its doc comment: the sites inside the halo of
/// the Dirichlet axes, how the other axes wrap.
std::string applyDoc(const StencilModel &model) {
  std::string text;
  if (model.allDirichlet()) {
    text = "out = A in on the interior; the halo of `out` is never written, "
           "and the halo of `in` supplies the boundary values.";
  } else {
    bool antiperiodic = false;
    for (int axis = 0; axis < model.dims; ++axis)
      antiperiodic |= model.boundaries[axis] == Boundary::Antiperiodic;
    text = std::string("out = A in on every site") +
           (model.allWrap() ? "" : " but the halo along the Dirichlet axes") +
           ", neighbours wrapping around (" + boundaryText(model) + ")" +
           (antiperiodic ? "; a value read across an antiperiodic wrap "
                           "enters with its sign flipped."
                         : ".");
  }
  text += " The launch is asynchronous on `stream` (null: the default "
          "stream); errors of the launch itself are returned.";
  return printed([&](CodePrinter &p) { wrappedComment(p, "///", text); });
}

/// NAME.hpp's tables and declarations, from the model and its plans.
TemplateValues headerValues(const StencilModel &model,
                            const std::vector<KernelPlan> &plans,
                            const std::vector<LauncherPlan> &launchers,
                            const TunedText &tunedCode,
                            const SplitText &splitCode) {
  const KernelPlan &applyPlan = *findPlan(plans, KernelRole::Apply);
  const bool symmetric = findPlan(plans, KernelRole::Adjoint) == nullptr;
  std::vector<std::string> extentList, extentFields;
  for (int axis = 0; axis < kMaxDims; ++axis)
    extentList.push_back(axis < model.dims ? "extents." + extentName(axis)
                                           : std::string("1"));
  for (int axis = 0; axis < model.dims; ++axis)
    extentFields.push_back("int " + extentName(axis) + " = 0;");

  std::vector<std::string> paramFields, paramNames, paramDefaults, paramSites,
      paramComplex;
  for (const Parameter &param : model.parameters) {
    paramFields.push_back(
        param.site ? "const value_type *" + param.name + " = nullptr; ///< " +
                         (param.complex ? "(re, im) per site"
                                        : "one value per site") +
                         " (device memory)"
                   : "value_type " + param.name +
                         " = static_cast<value_type>(" +
                         shortestNumberText(param.defaultValue) + ");");
    paramNames.push_back("\"" + param.name + "\"");
    paramDefaults.push_back(shortestNumberText(param.defaultValue));
    paramSites.push_back(param.site ? "true" : "false");
    paramComplex.push_back(param.complex ? "true" : "false");
  }

  if (model.hasLinkTaps()) {
    const int n = model.links.colours;
    paramFields.push_back(
        "/// Links: per site " + std::to_string(model.dims) + " " +
        std::to_string(n) + "x" + std::to_string(n) +
        " complex matrices U_x, ...; " + std::to_string(model.links.realsPerLink()) +
        " reals each (device memory, info().links->layout).\n"
        "const value_type *" + model.links.name + " = nullptr;");
  }

  if (model.hasCloverTap()) {
    const int n = model.links.colours;
    const std::string block = std::to_string(2 * n);
    paramFields.push_back(
        "/// Clover term: per site two Hermitian " + block + "x" + block +
        " blocks, " + std::to_string(model.cloverComponents()) +
        " reals (device memory, info().clover->layout), with the centre "
        "tap's coefficient.\nconst value_type *" + model.clover.name +
        " = nullptr;\n/// Its inverse on the sites of one parity (a half "
        "array): kInverseDiagonalHop.\nconst value_type *" +
        model.clover.name + "_inverse = nullptr;");
  }

  std::vector<std::string> tapOffsets, tapConstants, tapFactors, fieldTerms;
  for (const Tap &tap : model.taps) {
    std::vector<std::string> entries;
    for (int axis = 0; axis < kMaxDims; ++axis)
      entries.push_back(std::to_string(tap.offset[axis]));
    tapOffsets.push_back(listOf(entries));
    tapConstants.push_back(shortestNumberText(tap.coefficient.constant));
    std::vector<double> factors(model.parameters.size(), 0.0);
    for (const CoefficientTerm &term : tap.coefficient.terms) {
      if (!model.parameters[term.parameter].site) {
        factors[term.parameter] = term.factor;
        continue;
      }
      std::vector<std::string> shift;
      for (int axis = 0; axis < kMaxDims; ++axis)
        shift.push_back(std::to_string(term.shift[axis]));
      fieldTerms.push_back(
          "{" + std::to_string(&tap - model.taps.data()) + ", " +
          std::to_string(term.parameter) + ", " +
          shortestNumberText(term.factor) + ", " + listOf(shift) + ", " +
          (term.conjugate ? "true" : "false") + "}");
    }
    for (double factor : factors)
      tapFactors.push_back(shortestNumberText(factor));
  }

  auto intList = [](const std::array<int, kMaxDims> &values) {
    std::vector<std::string> items;
    for (int v : values)
      items.push_back(std::to_string(v));
    return listOf(items);
  };
  std::array<int, kMaxDims> boundaries{};
  for (int axis = 0; axis < model.dims; ++axis)
    boundaries[axis] = static_cast<int>(model.boundaries[axis]);
  std::string shape =
      "{" + std::to_string(model.dims) + ", " + intList(boundaries) + ", " +
      intList(model.reach) + ", " + intList(model.kernel.block) + ", " +
      std::to_string(model.kernel.tileAxis) + ", " +
      std::to_string(model.kernel.tileFactor) + ", " +
      std::to_string(model.sitesPerThreadX()) + ", " +
      std::to_string(model.componentGroups()) + ", " +
      (findPlan(plans, KernelRole::Apply)->threads.kind ==
               ThreadMappingKind::BothHalves
           ? "1"
           : "0") +
      (model.kernel.march ? ", 1" : "") + "}";

  std::string paramTables;
  if (!model.parameters.empty())
    paramTables = "static constexpr const char *param_names[] = " +
                  listOf(paramNames) +
                  ";\nstatic constexpr double param_defaults[] = " +
                  listOf(paramDefaults) +
                  ";\nstatic constexpr bool param_is_site[] = " +
                  listOf(paramSites) +
                  ";\nstatic constexpr double tap_factors[] = " +
                  listOf(tapFactors) + ";";
  if (!fieldTerms.empty())
    paramTables += "\nstatic constexpr stencil::FieldTerm field_terms[] = " +
                   listOf(fieldTerms) + ";";
  const bool complexFields = llvm::any_of(
      model.parameters, [](const Parameter &p) { return p.complex; });
  if (complexFields)
    paramTables += "\nstatic constexpr bool param_is_complex[] = " +
                   listOf(paramComplex) + ";";
  // Complex values and links (stencil/kernel_info.hpp: ValueShape, LinkInfo).
  std::vector<std::string> shapeExtents;
  for (int i = 0; i < kMaxDims; ++i)
    shapeExtents.push_back(
        std::to_string(i < static_cast<int>(model.shape.size()) ? model.shape[i] : 1));
  const std::string valueShape =
      std::string("{") + (model.complexValues ? "true" : "false") + ", " +
      std::to_string(model.shape.size()) + ", " + listOf(shapeExtents) + "}";
  if (model.hasLinkTaps()) {
    std::vector<std::string> tapLinks;
    for (const Tap &tap : model.taps)
      tapLinks.push_back(tap.link ? "true" : "false");
    paramTables += std::string(paramTables.empty() ? "" : "\n") +
                   "static constexpr bool tap_link[] = " + listOf(tapLinks) +
                   ";\nstatic constexpr stencil::LinkInfo links = {\"" +
                   model.links.name + "\", " +
                   std::to_string(model.links.colours) + ", " +
                   std::to_string(model.links.realsPerLink()) + ", " +
                   layoutInitializer(model.linkLayout()) + ", tap_link};";
  }
  if (model.hasCloverTap()) {
    std::vector<std::string> cswFactors(model.parameters.size(), "0");
    for (const CoefficientTerm &term : model.clover.csw.terms)
      cswFactors[term.parameter] = shortestNumberText(term.factor);
    int tap = 0;
    while (!model.taps[tap].clover)
      ++tap;
    const bool kernel = hasCloverKernel(model);
    std::string bytes = "0", flops = "0";
    if (kernel) {
      const CloverKernelPlan plan = planCloverKernel(model);
      bytes = std::to_string(plan.bytesPerSite);
      flops = std::to_string(plan.flopsPerSite);
    }
    if (!model.parameters.empty())
      paramTables += "\nstatic constexpr double csw_factors[] = " +
                     listOf(cswFactors) + ";";
    paramTables +=
        std::string(paramTables.empty() ? "" : "\n") +
        "static constexpr stencil::CloverInfo clover = {\"" +
        model.clover.name + "\", " + std::to_string(model.links.colours) +
        ", " + std::to_string(model.cloverComponents()) + ", " +
        layoutInitializer(model.cloverLayout()) + ", " + std::to_string(tap) +
        ", " + shortestNumberText(model.clover.csw.constant) + ", " +
        (model.parameters.empty() ? "nullptr" : "csw_factors") + ", " +
        (kernel ? "&clover_generic" : "nullptr") + ", " + bytes + ", " +
        flops + "};";
  }
  const bool none = model.parameters.empty();
  const bool fusedDot =
      findPlan(plans, KernelRole::Apply, Hop::None, EpilogueKind::BlockSum);
  return {
      {"guard", StringRef(model.name).upper()},
      {"value_type", model.valueType()},
      {"field_type", fieldType(model.narrowStorage())},
      {"stored_type_name", precisionName(model.precision)},
      {"storage_include",
       model.narrowStorage() ? "#include \"stencil/bfloat16.hpp\"" : ""},
      {"storage_decl",
       model.narrowStorage()
           ? std::string("/// Fields hold ") + model.storageType() +
                 " values; the kernels compute in " + model.valueType() +
                 ".\nusing storage_type = " + model.storageType() + ";"
           : ""},
      {"dims", std::to_string(model.dims)},
      {"components", std::to_string(model.components)},
      {"boundary", intList(boundaries)},
      {"extent_fields", join(extentFields, "\n")},
      {"param_fields", join(paramFields, "\n")},
      {"shape", shape},
      {"layout", layoutInitializer(model.layout)},
      {"layout_doc",
       model.layout.isPlain()
           ? std::string("site-major, x fastest (the host order)")
           : orderDescription(model.layout) +
                 (model.layout.hasSubdomains() ? ", in subdomains"
                                               : std::string()) +
                 (model.layout.evenOdd ? ", even sites then odd sites"
                                       : std::string()) +
                 "; fields convert from and to the host order"},
      {"extent_list", listOf(extentList)},
      {"apply_doc", applyDoc(model)},
      {"adjoint_doc", symmetric ? "A is symmetric, so this equals apply()"
                                : "the transposed stencil (offsets negated)"},
      {"tap_offsets", listOf(tapOffsets)},
      {"tap_constants", listOf(tapConstants)},
      {"param_tables", paramTables},
      {"element_bytes", std::to_string(model.elementBytes())},
      {"num_taps", std::to_string(model.taps.size())},
      {"num_params", std::to_string(model.parameters.size())},
      {"param_names_ref", none ? "nullptr" : "param_names"},
      {"param_defaults_ref", none ? "nullptr" : "param_defaults"},
      {"param_sites_ref", none ? "nullptr" : "param_is_site"},
      {"tap_factors_ref", none ? "nullptr" : "tap_factors"},
      {"num_field_terms", std::to_string(fieldTerms.size())},
      {"field_terms_ref", fieldTerms.empty() ? "nullptr" : "field_terms"},
      {"centre_tap", std::to_string(centreTapIndex(model))},
      {"symmetric", symmetric ? "true" : "false"},
      {"solver", solverName(model.solver)},
      {"loads_per_tile", std::to_string(applyPlan.loadsPerTile())},
      {"bytes_per_site", std::to_string(applyPlan.bytesPerSite())},
      {"flops_per_site", std::to_string(applyPlan.flopsPerSite)},
      {"extra_declarations",
       joinNonEmpty({printExtraDeclarations(launchers, model.narrowStorage()),
                     printCloverDeclarations(model),
                     printBoxCopyDeclarations(planBoxCopies(model))},
                    "\n\n")},
      {"tuned_headers", tunedCode.headers + splitCode.headers},
      {"tuned_table", tunedCode.table},
      {"distributed_table", splitCode.table},
      {"distributed_ref", splitCode.reference},
      {"region_param",
       model.rankKernels
           ? ",\n                      const stencil::Region &region = "
             "stencil::Region()"
           : ""},
      {"tuned_ref", tunedCode.reference},
      {"fingerprint", stencilFingerprint(model)},
      {"tuning_options", tuningOptionsText(model)},
      {"apply_dot_ref", fusedDot ? "&apply_dot_generic" : "nullptr"},
      {"apply_fold_dot_ref",
       findPlan(plans, KernelRole::Apply, Hop::None,
                EpilogueKind::DirectionBlockSum)
           ? "&apply_fold_dot_generic"
           : "nullptr"},
      {"even_odd_table", printEvenOddTable(plans)},
      {"even_odd_ref", model.layout.evenOdd ? "&even_odd_kernels" : "nullptr"},
      {"value_shape", valueShape},
      {"links_ref", model.hasLinkTaps() ? "&links" : "nullptr"},
      {"param_complex_ref", complexFields ? "param_is_complex" : "nullptr"},
      {"clover_ref", model.hasCloverTap() ? "&clover" : "nullptr"},
      {"march_declaration",
       model.kernel.march
           ? "/// The device's resident blocks of a marching kernel (a\n"
             "/// stencil::MarchKernel), which size its chunks of planes.\n"
             "std::int64_t march_residency(int kernel);\n\n"
           : ""},
      {"march_residency_arg",
       model.kernel.march ? ", march_residency(stencil::kMarchApply)" : ""},
      {"march_residency_ref",
       model.kernel.march ? "&march_residency" : "nullptr"},
  };
}

/// The runtime headers a stencil's kernels use beyond stencil/platform.hpp.
std::string extraIncludes(const StencilModel &model) {
  std::vector<std::string> headers;
  if (model.hasCloverTap())
    headers.push_back("clover_algebra.hpp");
  if (hasSpinTaps(model))
    headers.push_back("dirac.hpp");
  else if (model.hasLinkTaps())
    headers.push_back("link_algebra.hpp");
  if (model.layout.evenOdd && !model.hasCloverTap())
    headers.push_back("hop_modes.hpp");
  std::vector<std::string> lines;
  for (const std::string &header : headers)
    lines.push_back("#include \"stencil/" + header + "\"");
  return join(lines, "\n");
}

Expected<std::string> render(StringRef name, const TemplateValues &values) {
  Expected<StringRef> source = getTemplate(name);
  if (!source)
    return source.takeError();
  return renderTemplate(name, *source, values);
}

} // namespace

Expected<EmittedStencil> emitStencil(const StencilModel &model,
                                     const std::vector<KernelPlan> &plans,
                                     const TunedKernels &tuned) {
  const TunedText tunedCode = tunedText(tuned);
  Expected<SplitText> splitCode = splitText(model, tuned.exchanges);
  if (!splitCode)
    return splitCode.takeError();
  Expected<InnerText> innerCode =
      innerText(model, tuned.inner ? *tuned.inner : TunedKernels());
  if (!innerCode)
    return innerCode.takeError();
  const std::vector<LauncherPlan> launchers = planLaunchers(model, plans);
  const std::vector<BoxCopyPlan> boxCopies = planBoxCopies(model);
  std::vector<std::string> kernelTexts;
  for (const KernelPlan &plan : plans)
    kernelTexts.push_back(printKernel(plan));
  if (hasCloverKernel(model))
    kernelTexts.push_back(printCloverKernel(planCloverKernel(model)));
  if (!boxCopies.empty())
    kernelTexts.push_back(printBoxCopyKernels(boxCopies));

  const TemplateValues common = {
      {"name", model.name},
      {"version", generatorVersion().str()},
      {"spec_file", model.specFileName},
      {"description", commentedDescription(model)},
      {"options", optionsSummary(model)},
  };
  TemplateValues kernelValues = common;
  kernelValues.insert({
      {"extra_includes", extraIncludes(model)},
      {"field_type", fieldType(model.narrowStorage())},
      {"kernels", join(kernelTexts, "\n\n")},
      {"launchers", printLaunchers(model, launchers) +
                        (boxCopies.empty()
                             ? std::string()
                             : "\n\n" + printBoxCopyLaunchers(model, boxCopies))},
      {"tuned_kernels",
       tunedCode.kernels + splitCode->kernels + innerCode->kernels},
  });
  TemplateValues header =
      headerValues(model, plans, launchers, tunedCode, *splitCode);
  header.insert(common.begin(), common.end());
  header["tuned_headers"] += innerCode->headers;
  header["inner_ref"] = innerCode->reference;

  Expected<std::string> kernels = render("kernels.hip.in", kernelValues);
  if (!kernels)
    return kernels.takeError();
  Expected<std::string> headerText = render("kernels.hpp.in", header);
  if (!headerText)
    return headerText.takeError();
  EmittedStencil files;
  files.kernels = std::move(*kernels);
  files.header = std::move(*headerText);
  files.manifest = printManifest(model, plans);
  return files;
}

Error writeFile(StringRef path, StringRef contents) {
  std::error_code ec;
  raw_fd_ostream os(path, ec, sys::fs::OF_None);
  if (ec)
    return createStringError(ec, "cannot write '%s': %s", path.str().c_str(),
                             ec.message().c_str());
  os << contents;
  os.close();
  if (os.has_error()) {
    const std::error_code error = os.error();
    os.clear_error();
    sys::fs::remove(path); // not a truncated file that looks written
    return createStringError(error, "cannot write '%s': %s", path.str().c_str(),
                             error.message().c_str());
  }
  return Error::success();
}

static Error writeIfChanged(StringRef path, StringRef contents) {
  if (ErrorOr<std::unique_ptr<MemoryBuffer>> existing =
          MemoryBuffer::getFile(path, /*IsText=*/false))
    if ((*existing)->getBuffer() == contents)
      return Error::success();
  return writeFile(path, contents);
}

Error writeStencil(const StencilModel &model, const EmittedStencil &files,
                   StringRef directory) {
  if (std::error_code ec = sys::fs::create_directories(directory))
    return createStringError(ec, "cannot create directory '%s': %s",
                             directory.str().c_str(), ec.message().c_str());
  auto pathOf = [&](StringRef extension) {
    SmallString<256> path(directory);
    sys::path::append(path, model.name + extension);
    return std::string(path);
  };
  if (Error error = writeIfChanged(pathOf(".hip"), files.kernels))
    return error;
  if (Error error = writeIfChanged(pathOf(".hpp"), files.header))
    return error;
  return writeIfChanged(pathOf(".json"), files.manifest);
}

} // namespace stencilc
