//===- Emit.cpp - HIP kernels, host header and manifest from a plan -------===//
//
// The templates in templates/ hold the fixed text; this file computes the
// parts that depend on the spec: the kernel's site mapping, its straight-line
// program (from the plan, load by load) and its stores.
//
//===----------------------------------------------------------------------===//
#include "emit/Emit.h"
#include "tune/TuningCache.h"

#include "emit/EmitText.h"
#include "emit/Hopping.h"
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


/// Text of `stride(axis)`: the distance in sites between neighbours along
/// `axis`; x's is 1 and has no variable.
std::string strideName(int axis) { return std::string("s") + axisName(axis); }

/// `a + b * s`-style sum of terms; terms are "" when zero.
std::string sumOfTerms(const std::vector<std::string> &terms) {
  std::string text;
  for (const std::string &term : terms) {
    if (term.empty())
      continue;
    if (text.empty())
      text = term;
    else if (term[0] == '-')
      text += " - " + term.substr(1);
    else
      text += " + " + term;
  }
  return text.empty() ? "0" : text;
}

/// `k * s` with k an integer: "", "s", "-s", "3 * s", "-3 * s".
std::string scaledStride(int k, const std::string &stride) {
  if (k == 0)
    return "";
  if (k == 1)
    return stride;
  if (k == -1)
    return "-" + stride;
  return std::to_string(k) + " * " + stride;
}


std::string optionsSummary(const StencilModel &model) {
  const KernelOptions &k = model.kernel;
  std::string block;
  for (int axis = 0; axis < model.dims; ++axis)
    block += (axis ? "x" : "") + std::to_string(k.block[axis]);
  std::string text = "block " + block + ", launch bounds " +
                     (k.launchBounds ? std::to_string(k.launchBounds)
                                     : std::string("none")) +
                     ", tile " + axisName(k.tileAxis) + " x " +
                     std::to_string(k.tileFactor) + ", load order " +
                     loadOrderName(k.loadOrder);
  if (k.loadOrder == LoadOrder::Explicit)
    text += " \"" + k.loadOrderText + "\"";
  text += std::string(", ") +
          (k.nontemporalStore ? "non-temporal" : "regular") + " stores";
  if (model.componentGroups() > 1)
    text += ", " + std::to_string(model.componentsPerThread()) + " of " +
            std::to_string(model.components) + " components per thread";
  return text;
}

/// CG's fused stencil-and-dot kernel is emitted for whole-lattice CG specs
/// whose block is made of whole wavefronts (64 threads on AMD, 2 warps on
/// NVIDIA): stencil::block_sum's shuffles need whole warps.
bool hasFusedDotKernel(const StencilModel &model) {
  return model.solver == Solver::CG && !model.layout.evenOdd &&
         model.kernel.threadsPerBlock() % 64 == 0;
}

std::string dotKernelName(const KernelPlan &plan) {
  StringRef name(plan.kernelName);
  name.consume_back("_kernel");
  return name.str() + "_dot_kernel";
}

/// Builds the pieces of templates/kernel.in.
class KernelWriter {
public:
  /// With `fusedDot`, the kernel also sums in . out over the sites it
  /// stores into one partial per block (templates/dot_kernel.in).
  KernelWriter(const StencilModel &model, const KernelPlan &plan,
               bool fusedDot = false)
      : model(model), plan(plan), tile(plan.tileAxis), xWidth(plan.xWidth),
        periodic(model.boundary == Boundary::Periodic),
        general(!model.layout.isPlain()), fusedDot(fusedDot),
        perThread(model.componentsPerThread()),
        split(model.componentGroups() > 1) {}

  Expected<std::string> render();

private:
  std::string siteCoordinates();
  std::string outsideCondition();
  std::string dotTerm(const std::string &address, const std::string &acc);
  std::string strides();
  std::string weights();
  std::string accumulators();
  std::string program();
  std::string stores();
  std::string loadAddress(const PlannedLoad &load);
  std::string accumulate(const PlannedAccumulation &acc, int load);
  const std::string &weightFor(const PlannedAccumulation &acc);

  const StencilModel &model;
  const KernelPlan &plan;
  const int tile;
  /// Aligned sites per thread along x (KernelPlan::xWidth).
  const int xWidth;
  const bool periodic;
  /// Not plain site-major storage: addresses go through stencil::layout_site
  /// from per-row coordinates instead of offsets from `site`.
  const bool general;
  const bool fusedDot;
  /// Components this thread computes: all of a site's, or with a split
  /// (kernel.components_per_thread) the `perThread` from `c0` on.
  const int perThread;
  const bool split;
  /// The component index of loop counter `c`: "c" or "c0 + c".
  std::string component() const { return split ? "c0 + c" : "c"; }
  /// " + c0" with a split, else "": added to a site-major element index.
  std::string firstComponent() const { return split ? " + c0" : ""; }
  std::string layoutSite(const Offset &offset);
  std::string coordinateDefinitions();
  std::string roomDefinition();
  std::string groupStores(const std::string &address, const std::string &acc,
                          const char *store);
  std::vector<std::string> tapWeight; ///< weight variable of each tap
  /// Per tile site, for taps whose coefficient has site parameters.
  std::vector<std::vector<std::string>> siteWeights;
};

std::string KernelWriter::siteCoordinates() {
  std::string text = "// This thread's first site; it updates " +
                     std::to_string(plan.tileFactor) + " consecutive site" +
                     (plan.tileFactor == 1 ? "" : "s") + " along " +
                     axisName(tile);
  if (xWidth > 1)
    text += ", each with the " + std::to_string(xWidth) +
            " sites of an aligned group along x (halo sites among them are "
            "not stored)";
  text += ".\n";
  for (int axis = 0; axis < model.dims; ++axis) {
    std::string value = "static_cast<int>(" + threadPosition(model, axis) + ")";
    if (axis == tile && plan.tileFactor > 1)
      value = std::to_string(plan.tileFactor) + " * " + value;
    if (axis == 0 && xWidth > 1)
      value = std::to_string(xWidth) + " * " + value;
    else if (!periodic && model.reach[axis] > 0)
      value = std::to_string(model.reach[axis]) + " + " + value;
    text += "const int " + std::string(axisName(axis)) + " = " + value + ";\n";
  }
  if (split)
    text += "// This thread's " + std::to_string(perThread) + " of the site's " +
            std::to_string(model.components) +
            " components, from c0; blockIdx.x counts\n// the " +
            std::to_string(model.componentGroups()) +
            " shares of a block's sites fastest.\n"
            "const int c0 = static_cast<int>(blockIdx.x % " +
            std::to_string(model.componentGroups()) + "u) * " +
            std::to_string(perThread) + ";\n";
  return StringRef(text).rtrim("\n").str();
}

std::string KernelWriter::outsideCondition() {
  std::vector<std::string> outside;
  for (int axis = 0; axis < model.dims; ++axis) {
    std::string limit = extentName(axis);
    if (!periodic && model.reach[axis] > 0)
      limit += " - " + std::to_string(model.reach[axis]);
    outside.push_back(std::string(axisName(axis)) + " >= " + limit);
  }
  return join(outside, " || ");
}

/// `dot += in . out` for one stored site, reading `in` back at the site
/// (this thread loaded it for the centre tap, so the read hits the cache).
std::string KernelWriter::dotTerm(const std::string &address,
                                  const std::string &acc) {
  const int nc = model.components;
  if (nc == 1)
    return "dot += static_cast<double>(in[" + address +
           "]) * static_cast<double>(" + acc + ");";
  std::string element =
      general ? "stencil::layout_element(layout, " + address + ", " +
                    component() + ", " + std::to_string(nc) + ", sites)"
              : "(" + address + ") * " + std::to_string(nc) + " + " +
                    component();
  return "for (int c = 0; c < " + std::to_string(perThread) +
         "; ++c)\n  dot += static_cast<double>(in[" + element +
         "]) * static_cast<double>(" + acc + "[c]);";
}

/// One coordinate per distinct row the tile reads: wrapped on periodic
/// grids, clamped along the tile axis where PlannedLoad says so.
std::string KernelWriter::coordinateDefinitions() {
  std::set<std::pair<int, int>> deltas;
  for (const PlannedLoad &load : plan.loads)
    for (int axis = 0; axis < model.dims; ++axis)
      if (load.offset[axis] != 0)
        deltas.insert({axis, load.offset[axis]});
  std::string text;
  if (!deltas.empty())
    text += periodic ? "\n// Periodic neighbours' coordinates."
                     : "\n// Neighbours' coordinates.";
  for (auto [axis, delta] : deltas) {
    std::string value;
    if (periodic)
      value = "stencil::wrap(" + std::string(axisName(axis)) +
              (delta < 0 ? " - " : " + ") + std::to_string(std::abs(delta)) +
              ", " + extentName(axis) + ")";
    else if (axis == tile && delta > model.reach[tile])
      value = std::string(axisName(axis)) + " + stencil::clamp_above(" +
              std::to_string(delta) + ", room)";
    else
      value = std::string(axisName(axis)) + (delta < 0 ? " - " : " + ") +
              std::to_string(std::abs(delta));
    text += "\nconst int " + wrappedName(axis, delta) + " = " + value + ";";
  }
  return text;
}

/// `room`, the tile-axis clamp of loads past the array's end (Dirichlet
/// tiles only); empty when no load needs it.
std::string KernelWriter::roomDefinition() {
  std::string text;
  if (!periodic && llvm::any_of(plan.loads, [](const PlannedLoad &l) {
        return l.clampTileAxis;
      }))
    text = "// Farthest row along " + std::string(axisName(tile)) +
           " inside the array, relative to this tile.\nconst int room = " +
           extentName(tile) + " - 1 - " + axisName(tile) + ";";
  if (llvm::any_of(plan.loads, [](const PlannedLoad &l) { return l.clampX; }))
    text += std::string(text.empty() ? "" : "\n") +
            "// Farthest site along x inside the array, relative to this "
            "group.\nconst int xroom = nx - 1 - x;";
  return text;
}

/// Storage index of the site at `offset` from the tile's first site.
std::string KernelWriter::layoutSite(const Offset &offset) {
  std::vector<std::string> coordinates, extents;
  for (int axis = 0; axis < kMaxDims; ++axis) {
    coordinates.push_back(axis < model.dims ? wrappedName(axis, offset[axis])
                                            : std::string("0"));
    extents.push_back(axis < model.dims ? extentName(axis) : std::string("1"));
  }
  return "stencil::layout_site(layout, " + join(coordinates, ", ") + ", " +
         join(extents, ", ") + ")";
}

std::string KernelWriter::strides() {
  std::string text;
  if (general) {
    const FieldLayout &l = model.layout;
    text += "// Storage: " + orderDescription(l) +
            (l.hasSubdomains() ? ", subdomains of " +
                                     std::to_string(l.subdomain[0]) + "x" +
                                     std::to_string(l.subdomain[1]) + "x" +
                                     std::to_string(l.subdomain[2]) + "x" +
                                     std::to_string(l.subdomain[3]) + " sites"
                               : std::string()) +
            (l.evenOdd ? ", even sites then odd sites" : "") +
            " (stencil/layout.hpp).\n";
    text += "constexpr stencil::Layout layout = " + layoutInitializer(l) +
            ";\n";
    std::vector<std::string> factors;
    for (int axis = 0; axis < model.dims; ++axis)
      factors.push_back(axis == 0 ? "static_cast<stencil::index_t>(nx)"
                                  : extentName(axis));
    // layout_element() needs the site count; vector accesses of site-major
    // fields and single-component fields do not.
    if (model.components > 1 && model.kernel.vectorWidth == 1)
      text += "const stencil::index_t sites = " + join(factors, " * ") +
              ";\n";
    if (std::string room = roomDefinition(); !room.empty())
      text += room + "\n";
    text += "const stencil::index_t site = " + layoutSite(Offset{}) + ";";
    return text + coordinateDefinitions();
  }
  for (int axis = 1; axis < model.dims; ++axis) {
    std::string previous =
        axis == 1 ? "static_cast<stencil::index_t>(nx)"
                  : strideName(axis - 1) + " * " + extentName(axis - 1);
    text += "const stencil::index_t " + strideName(axis) + " = " + previous +
            ";\n";
  }
  std::vector<std::string> terms;
  for (int axis = 0; axis < model.dims; ++axis)
    terms.push_back(axis == 0 ? std::string("x")
                              : std::string(axisName(axis)) + " * " +
                                    strideName(axis));
  text += "const stencil::index_t site = " + sumOfTerms(terms) + ";";
  if (periodic)
    text += coordinateDefinitions();
  else if (std::string room = roomDefinition(); !room.empty())
    text += "\n" + room;
  return text;
}

std::string KernelWriter::weights() {
  std::map<std::string, std::string> byText;
  std::string text = "// Tap weights.";
  for (const Tap &tap : model.taps) {
    std::string value = coefficientText(model, tap.coefficient);
    auto [it, inserted] =
        byText.emplace(value, "w" + std::to_string(byText.size()));
    if (inserted) {
      std::string expression = weightExpression(model, tap.coefficient);
      std::string line = "const value_type " + it->second + " = ";
      if (line.size() + expression.size() > 76)
        line += "\n    ";
      text += "\n" + line + expression + ";";
    }
    tapWeight.push_back(it->second);
  }
  // Taps with site parameters get one weight per tile site.
  siteWeights.assign(model.taps.size(), {});
  for (size_t t = 0; t < model.taps.size(); ++t) {
    const Coefficient &coefficient = model.taps[t].coefficient;
    if (llvm::none_of(coefficient.terms, [&](const auto &term) {
          return model.parameters[term.first].site;
        }))
      continue;
    for (int site = 0; site < plan.tileFactor; ++site)
      for (int lane = 0; lane < xWidth; ++lane) {
        PlannedLoad at;
        at.offset[tile] = site;
        at.offset[0] += lane;
        at.clampTileAxis = !periodic && site > model.reach[tile];
        std::string address = loadAddress(at);
        std::string expression =
            tapWeight[t] + siteParameterTerms(model, coefficient, address);
        std::string name = tapWeight[t] + "_s" + std::to_string(site) +
                           (xWidth > 1 ? "_" + std::to_string(lane) : "");
        text += "\nconst value_type " + name + " =\n    " + expression + ";";
        siteWeights[t].push_back(name);
      }
  }
  return text;
}

std::string KernelWriter::accumulators() {
  std::string alias;
  if (model.kernel.vectorWidth > 1)
    alias = std::string(xWidth > 1 ? "// A row's sites" : "// A site's components") +
            " move " + std::to_string(model.kernel.vectorWidth) +
            " at a time.\nusing vec_t = stencil::vec<value_type, " +
            std::to_string(model.kernel.vectorWidth) + ">;\n";
  std::vector<std::string> names;
  const int perSite = model.components > 1 ? perThread : xWidth;
  for (int site = 0; site < plan.tileFactor; ++site)
    names.push_back("acc" + std::to_string(site) +
                    (perSite > 1 ? "[" + std::to_string(perSite) + "]" : ""));
  return alias + "value_type " + join(names, ", ") + ";";
}

std::string KernelWriter::loadAddress(const PlannedLoad &load) {
  if (general)
    return layoutSite(load.offset);
  std::vector<std::string> terms;
  if (periodic) {
    for (int axis = 0; axis < model.dims; ++axis) {
      std::string coordinate = wrappedName(axis, load.offset[axis]);
      terms.push_back(axis == 0 ? coordinate
                                : coordinate + " * " + strideName(axis));
    }
    return sumOfTerms(terms);
  }
  terms.push_back("site");
  for (int axis = 0; axis < model.dims; ++axis) {
    int delta = load.offset[axis];
    if (axis == tile && load.clampTileAxis) {
      std::string clamped =
          "stencil::clamp_above(" + std::to_string(delta) + ", room)";
      terms.push_back(axis == 0 ? clamped
                                : clamped + " * " + strideName(axis));
    } else if (axis == 0 && load.clampX) {
      terms.push_back(delta > 0 ? "stencil::clamp_above(" +
                                      std::to_string(delta) + ", xroom)"
                                : "stencil::clamp_below(" +
                                      std::to_string(delta) + ", -x)");
    } else if (axis == 0) {
      terms.push_back(delta == 0 ? "" : std::to_string(delta));
    } else {
      terms.push_back(scaledStride(delta, strideName(axis)));
    }
  }
  return sumOfTerms(terms);
}

/// The weight variable of the accumulation's tap at its tile site.
const std::string &KernelWriter::weightFor(const PlannedAccumulation &acc) {
  return siteWeights[acc.tap].empty()
             ? tapWeight[acc.tap]
             : siteWeights[acc.tap][acc.site * xWidth + acc.lane];
}

std::string KernelWriter::accumulate(const PlannedAccumulation &acc,
                                     int load) {
  std::string target = "acc" + std::to_string(acc.site);
  std::string value = "u" + std::to_string(load);
  if (xWidth > 1) {
    target += "[" + std::to_string(acc.lane) + "]";
    if (plan.loads[load].width > 1)
      value += ".v[" + std::to_string(acc.element) + "]";
  } else if (model.components > 1) {
    target += "[c]";
    value = general ? "v" : value + "[c]";
  }
  return target + (acc.first ? " = " : " += ") + weightFor(acc) + " * " +
         value + ";";
}

std::string KernelWriter::program() {
  std::string text = "// Each value is loaded once and feeds every site of "
                     "the tile that needs it.";
  const int nc = model.components;
  for (const PlanStep &step : plan.steps) {
    const PlannedLoad &load = plan.loads[step.load];
    std::string name = "u" + std::to_string(step.load);
    std::string address = loadAddress(load);
    text += "\n";
    if (nc == 1) {
      text += load.width > 1 ? "const vec_t " + name +
                                   " = *reinterpret_cast<const vec_t *>(in + " +
                                   address + ");"
                             : "const value_type " + name + " = in[" +
                                   address + "];";
      for (const PlannedAccumulation &acc : step.accumulations)
        text += "\n" + accumulate(acc, step.load);
      continue;
    }
    const int width = model.kernel.vectorWidth;
    if (width > 1) {
      // Site-major: the site's components are contiguous, so they move
      // `width` at a time.
      const std::string vecType = "vec_t";
      text += "const " + vecType + " *" + name + " = reinterpret_cast<const " +
              vecType + " *>(in + (" + address + ") * " + std::to_string(nc) +
              firstComponent() + ");\nSTENCIL_UNROLL\nfor (int j = 0; j < " +
              std::to_string(perThread / width) + "; ++j) {\n  const " + vecType +
              " v = " + name + "[j];\n  STENCIL_UNROLL\n  for (int l = 0; l < " +
              std::to_string(width) + "; ++l) {";
      for (const PlannedAccumulation &acc : step.accumulations)
        text += "\n    acc" + std::to_string(acc.site) + "[j * " +
                std::to_string(width) + " + l]" +
                (acc.first ? " = " : " += ") + weightFor(acc) + " * v.v[l];";
      text += "\n  }\n}";
      continue;
    }
    if (general)
      text += "const stencil::index_t " + name + " = " + address +
              ";\nSTENCIL_UNROLL\nfor (int c = 0; c < " +
              std::to_string(perThread) +
              "; ++c) {\n  const value_type v = in[stencil::layout_element("
              "layout, " +
              name + ", " + component() + ", " + std::to_string(nc) +
              ", sites)];";
    else
      text += "const value_type *" + name + " = in + (" + address + ") * " +
              std::to_string(nc) + firstComponent() +
              ";\nSTENCIL_UNROLL\nfor (int c = 0; c < " +
              std::to_string(perThread) + "; ++c) {";
    for (const PlannedAccumulation &acc : step.accumulations)
      text += "\n  " + accumulate(acc, step.load);
    text += "\n}";
  }
  return text;
}

std::string KernelWriter::stores() {
  const char *store =
      model.kernel.nontemporalStore ? "STENCIL_STORE_NT" : "STENCIL_STORE";
  const int nc = model.components;
  std::string text = "// Store the tile's sites that lie inside the update "
                     "region.";
  std::string limit = extentName(tile);
  if (!periodic && model.reach[tile] > 0)
    limit += " - " + std::to_string(model.reach[tile]);
  if (xWidth > 1) {
    const std::string reach = std::to_string(model.reach[0]);
    text += "\n// Groups that lie wholly inside the update region store with "
            "one access.\nconst bool whole_group = x >= " +
            reach + " && x + " + std::to_string(xWidth) + " <= nx - " + reach +
            ";";
  }
  for (int site = 0; site < plan.tileFactor; ++site) {
    Offset at{};
    at[tile] = site;
    std::string address =
        general ? (site == 0 ? std::string("site") : layoutSite(at))
                : sumOfTerms({"site", tile == 0
                                          ? (site ? std::to_string(site) : "")
                                          : scaledStride(site, strideName(tile))});
    std::string acc = "acc" + std::to_string(site);
    std::string statement;
    const int width = model.kernel.vectorWidth;
    if (xWidth > 1)
      statement = groupStores(address, acc, store);
    else if (nc == 1)
      statement = std::string(store) + "(&out[" + address + "], " + acc + ");";
    else if (width > 1) {
 const std::string vecType = "vec_t";
      statement = "for (int j = 0; j < " + std::to_string(perThread / width) +
                  "; ++j) {\n  " + vecType + " r;\n  STENCIL_UNROLL\n  for " +
                  "(int l = 0; l < " + std::to_string(width) +
                  "; ++l)\n    r.v[l] = " + acc + "[j * " +
                  std::to_string(width) + " + l];\n  " + store +
                  "(&reinterpret_cast<" + vecType + " *>(out + (" + address +
                  ") * " + std::to_string(nc) + firstComponent() +
                  ")[j], r);\n}";
    } else if (general)
      statement = "for (int c = 0; c < " + std::to_string(perThread) +
                  "; ++c)\n  " + store +
                  "(&out[stencil::layout_element(layout, " + address + ", " +
                  component() + ", " + std::to_string(nc) + ", sites)], " +
                  acc + "[c]);";
    else
      statement = "for (int c = 0; c < " + std::to_string(perThread) +
                  "; ++c)\n  " + store + "(&out[(" + address + ") * " +
                  std::to_string(nc) + " + " + component() + "], " + acc +
                  "[c]);";
    if (fusedDot && xWidth == 1)
      statement += "\n" + std::string(nc == 1 ? "" : "STENCIL_UNROLL\n") +
                   dotTerm(address, acc);
    text += "\n";
    if (site == 0) {
      text += (nc == 1 ? "" : "STENCIL_UNROLL\n") + statement;
      continue;
    }
    text += "if (" + std::string(axisName(tile)) + " + " +
            std::to_string(site) + " < " + limit + ") {\n";
    if (nc > 1)
      text += "  STENCIL_UNROLL\n";
    SmallVector<StringRef, 2> lines;
    StringRef(statement).split(lines, '\n');
    for (StringRef line : lines)
      text += "  " + line.str() + "\n";
    text += "}";
  }
  return text;
}

/// Stores of one tile site's aligned group along x: one vector store when
/// the whole group is inside the update region, else site by site (the
/// array's first and last groups hold halo sites). With the fused dot, its
/// terms over the same sites.
std::string KernelWriter::groupStores(const std::string &address,
                                      const std::string &acc,
                                      const char *store) {
  const std::string w = std::to_string(xWidth);
  const std::string reach = std::to_string(model.reach[0]);
  std::string text = "if (whole_group) {\n  vec_t r;\n  STENCIL_UNROLL\n"
                     "  for (int l = 0; l < " + w + "; ++l)\n    r.v[l] = " +
                     acc + "[l];\n  " + store +
                     "(reinterpret_cast<vec_t *>(out + " + address + "), r);";
  if (fusedDot)
    text += "\n  const vec_t c = *reinterpret_cast<const vec_t *>(in + " +
            address + ");\n  STENCIL_UNROLL\n  for (int l = 0; l < " + w +
            "; ++l)\n    dot += static_cast<double>(c.v[l]) * "
            "static_cast<double>(r.v[l]);";
  text += "\n} else {\n  STENCIL_UNROLL\n  for (int l = 0; l < " + w +
          "; ++l)\n    if (x + l >= " + reach + " && x + l < nx - " + reach +
          ") {\n      " + store + "(&out[" + address + " + l], " + acc +
          "[l]);";
  if (fusedDot)
    text += "\n      dot += static_cast<double>(in[" + address +
            " + l]) * static_cast<double>(" + acc + "[l]);";
  text += "\n    }\n}";
  return text;
}

Expected<std::string> KernelWriter::render() {
  const char *templateName = fusedDot ? "dot_kernel.in" : "kernel.in";
  Expected<StringRef> source = getTemplate(templateName);
  if (!source)
    return source.takeError();
  std::string comment =
      std::to_string(model.dims) + "-D " + boundaryName(model.boundary) + " " +
      std::to_string(model.taps.size()) + "-point stencil; " +
      std::to_string(plan.loadsPerTile()) + " loads and " +
      std::to_string(plan.storesPerTile()) + " stores per thread.";
  TemplateValues values = {
      {"kernel_comment", comment},
      {"launch_bounds", launchBoundsText(model)},
      {"kernel_name", fusedDot ? dotKernelName(plan) : plan.kernelName},
      {"kernel_parameters", kernelParameterList(model, true)},
      {"site_coordinates", siteCoordinates()},
      {"outside", outsideCondition()},
      {"strides", strides()},
      {"weights", weights()},
      {"accumulators", accumulators()},
      {"program", program()},
      {"stores", stores()},
  };
  Expected<std::string> text = renderTemplate(templateName, *source, values);
  if (text)
    *text = StringRef(*text).rtrim("\n").str();
  return text;
}


std::string manifest(const StencilModel &model,
                     const std::vector<KernelPlan> &plans) {
  std::string text;
  raw_string_ostream os(text);
  json::OStream j(os, 2);
  auto offsetArray = [&](const Offset &offset) {
    j.array([&] {
      for (int axis = 0; axis < model.dims; ++axis)
        j.value(offset[axis]);
    });
  };
  j.object([&] {
    j.attribute("generator", "stencilc " + generatorVersion().str());
    j.attribute("name", model.name);
    j.attribute("description", model.description);
    j.attribute("spec", model.specFileName);
    j.attributeObject("grid", [&] {
      j.attribute("dimensions", model.dims);
      j.attributeArray("axes", [&] {
        for (int axis = 0; axis < model.dims; ++axis)
          j.value(axisName(axis));
      });
      j.attribute("boundary", boundaryName(model.boundary));
      j.attributeBegin("reach");
      offsetArray(model.reach);
      j.attributeEnd();
    });
    j.attributeObject("field", [&] {
      j.attribute("precision", precisionName(model.precision));
      j.attribute("components", model.components);
      j.attribute("layout", layoutOrderName(model.layout.order));
      if (model.layout.order == LayoutOrder::Blocked)
        j.attribute("block", model.layout.block);
      if (model.layout.hasSubdomains())
        j.attributeArray("subdomain", [&] {
          for (int axis = 0; axis < model.dims; ++axis)
            j.value(model.layout.subdomain[axis]);
        });
      j.attribute("even_odd", model.layout.evenOdd);
    });
    j.attributeArray("parameters", [&] {
      for (const Parameter &param : model.parameters)
        j.object([&] {
          j.attribute("name", param.name);
          j.attribute("default", param.defaultValue);
        });
    });
    j.attributeArray("taps", [&] {
      for (const Tap &tap : model.taps)
        j.object([&] {
          j.attributeBegin("offset");
          offsetArray(tap.offset);
          j.attributeEnd();
          j.attribute("coefficient", coefficientText(model, tap.coefficient));
        });
    });
    j.attribute("solver", solverName(model.solver));
    j.attribute("symmetric", findPlan(plans, KernelRole::Adjoint) == nullptr);
    j.attributeArray("kernels", [&] {
      for (const KernelPlan &plan : plans)
      j.object([&] {
        const KernelOptions &k = model.kernel;
        j.attribute("name", plan.kernelName);
        j.attribute("role",
                    plan.role == KernelRole::Adjoint ? "adjoint" : "apply");
        if (plan.hop != Hop::None)
          j.attribute("hop", hopName(plan.hop));
        j.attributeArray("block", [&] {
          for (int axis = 0; axis < model.dims; ++axis)
            j.value(k.block[axis]);
        });
        j.attribute("launch_bounds", k.launchBounds);
        j.attributeObject("tile", [&] {
          j.attribute("axis", axisName(k.tileAxis));
          j.attribute("factor", k.tileFactor);
        });
        j.attribute("load_order", k.loadOrder == LoadOrder::Explicit
                                      ? k.loadOrderText
                                      : loadOrderName(k.loadOrder));
        j.attribute("nontemporal_store", k.nontemporalStore);
        j.attribute("vector_width", k.vectorWidth);
        j.attribute("components_per_thread", model.componentsPerThread());
        j.attribute("loads_per_tile", plan.loadsPerTile());
        j.attribute("stores_per_tile", plan.storesPerTile());
        j.attribute("loads_per_site", plan.loadsPerSite());
        j.attribute("bytes_read_per_site", plan.bytesReadPerSite);
        j.attribute("bytes_written_per_site", plan.bytesWrittenPerSite);
        j.attribute("bytes_per_site", plan.bytesPerSite());
        j.attribute("flops_per_site", plan.flopsPerSite);
        j.attribute("arithmetic_intensity", plan.arithmeticIntensity());
      });
    });
    j.attributeArray("files", [&] {
      j.value(model.name + ".hip");
      j.value(model.name + ".hpp");
    });
  });
  os << "\n";
  os.flush();
  return text;
}

} // namespace

namespace {

/// The KernelInfo table of tuned choices and the variants' code.
struct TunedText {
  std::string headers, kernels, table, reference = "0, nullptr";
};

TunedText tunedText(const TunedKernels &tuned) {
  TunedText text;
  for (const TunedVariant &v : tuned.variants) {
    text.headers += "\n// Tuned variant " + v.model.name + " (" +
                    tuningOptionsText(v.model) + ").\n" + v.files.header;
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
  for (const TunedChoice &c : tuned.choices) {
    std::vector<std::string> extents;
    for (int axis = 0; axis < kMaxDims; ++axis)
      extents.push_back(std::to_string(
          axis < static_cast<int>(c.extents.size()) ? c.extents[axis] : 1));
    std::string device;
    for (char ch : c.device)
      device += ch == '"' || ch == '\\' ? std::string("\\") + ch
                                          : std::string(1, ch);
    rows.push_back("{\"" + device + "\", " + listOf(extents) + ", &" +
                   (c.variant < 0
                        ? std::string("info")
                        : "stencilc_kernels::" +
                              tuned.variants[c.variant].model.name + "::info") +
                   ", " + shortestNumberText(c.gbs) + "}");
  }
  text.table = "// From the tuning cache: device, extents, kernels, GB/s "
               "when tuned.\nstatic const stencil::TunedChoice tuned[] = {\n    " +
               join(rows, ",\n    ") + "};";
  text.reference = std::to_string(rows.size()) + ", tuned";
  return text;
}

} // namespace

Expected<EmittedStencil> emitStencil(const StencilModel &model,
                                     const std::vector<KernelPlan> &plans,
                                     const TunedKernels &tuned) {
  const TunedText tunedCode = tunedText(tuned);
  const KernelPlan &applyPlan = *findPlan(plans, KernelRole::Apply);
  const KernelPlan *adjointPlan = findPlan(plans, KernelRole::Adjoint);
  std::vector<std::string> kernelTexts;
  for (const KernelPlan &plan : plans) {
    Expected<std::string> kernel =
        plan.hop != Hop::None
            ? renderHoppingKernel(model, plan)
            : KernelWriter(modelForRole(model, plan.role), plan).render();
    if (!kernel)
      return kernel.takeError();
    kernelTexts.push_back(*kernel);
  }
  const bool fusedDot = hasFusedDotKernel(model);
  if (fusedDot) {
    Expected<std::string> kernel =
        KernelWriter(model, applyPlan, /*fusedDot=*/true).render();
    if (!kernel)
      return kernel.takeError();
    kernelTexts.push_back(*kernel);
  }

  std::string description =
      model.description.empty() ? model.name : model.description;
  // One comment line per description line.
  std::string commented;
  SmallVector<StringRef, 4> lines;
  StringRef(description).trim().split(lines, '\n');
  for (size_t i = 0; i < lines.size(); ++i)
    commented += (i ? "\n// " : "") + lines[i].rtrim().str();

  std::vector<std::string> extentList, extentFields, genericExtents,
      launchArgs = {"out", "in"};
  for (int axis = 0; axis < kMaxDims; ++axis)
    extentList.push_back(axis < model.dims ? "extents." + extentName(axis)
                                           : std::string("1"));
  std::vector<std::string> valueCountTerms;
  for (int axis = 0; axis < model.dims; ++axis) {
    extentFields.push_back("int " + extentName(axis) + " = 0;");
    genericExtents.push_back("typed_extents." + extentName(axis) +
                             " = extents[" + std::to_string(axis) + "];");
    launchArgs.push_back("extents." + extentName(axis));
    valueCountTerms.push_back("static_cast<std::int64_t>(extents." +
                              extentName(axis) + ")");
  }
  std::vector<std::string> siteCountTerms = valueCountTerms;
  if (model.components > 1)
    valueCountTerms.push_back(std::to_string(model.components));
  if (model.dims == 4)
    launchArgs.push_back("config.blocks_z");
  std::vector<std::string> paramFields, genericParams, paramNames,
      paramDefaults, paramSites, siteChecks, hopSiteChecks;
  for (size_t i = 0; i < model.parameters.size(); ++i) {
    const Parameter &param = model.parameters[i];
    std::string index = std::to_string(i);
    if (param.site) {
      paramFields.push_back("const value_type *" + param.name +
                            " = nullptr; ///< one value per site (device "
                            "memory)");
      genericParams.push_back(
          "typed_params." + param.name +
          " = fields ? static_cast<const value_type *>(fields[" + index +
          "]) : nullptr;");
      siteChecks.push_back(
          "if (params." + param.name +
          " == nullptr)\n  return stencil::Status::failure(\"" + model.name +
          ": site parameter '" + param.name +
          "' has no array\");\nif (overlaps(out, params." + param.name + ", " +
          join(siteCountTerms, " * ") +
          "))\n  return stencil::Status::failure(\"" + model.name +
          ": 'out' overlaps site parameter '" + param.name + "'\");");
      // A hopping kernel's `out` is one half; the array is whole.
      hopSiteChecks.push_back(
          "if (params." + param.name +
          " == nullptr)\n  return stencil::Status::failure(\"" + model.name +
          ": site parameter '" + param.name +
          "' has no array\");\nif (overlaps(out, values, params." +
          param.name + ", " + join(siteCountTerms, " * ") +
          "))\n  return stencil::Status::failure(\"" + model.name +
          ": 'out' overlaps site parameter '" + param.name + "'\");");
    } else {
      paramFields.push_back("value_type " + param.name +
                            " = static_cast<value_type>(" +
                            shortestNumberText(param.defaultValue) + ");");
      genericParams.push_back("typed_params." + param.name +
                              " = static_cast<value_type>(params[" + index +
                              "]);");
    }
    launchArgs.push_back("params." + param.name);
    paramNames.push_back("\"" + param.name + "\"");
    paramDefaults.push_back(shortestNumberText(param.defaultValue));
    paramSites.push_back(param.site ? "true" : "false");
  }

  if (const int width = model.kernel.vectorWidth; width > 1) {
    const std::string bytes = std::to_string(width * model.elementBytes());
    siteChecks.push_back(
        "if (!stencil::is_aligned(out, " + bytes +
        ") || !stencil::is_aligned(in, " + bytes +
        "))\n  return stencil::Status::failure(\"" + model.name +
        ": 'out' and 'in' must be aligned to " + bytes + " bytes for the " +
        bytes + "-byte accesses of kernel.vector_width " +
        std::to_string(width) + "\");");
  }

  std::vector<std::string> tapOffsets, tapConstants, tapFactors;
  for (size_t t = 0; t < model.taps.size(); ++t) {
    const Tap &tap = model.taps[t];
    std::vector<std::string> entries;
    for (int axis = 0; axis < kMaxDims; ++axis)
      entries.push_back(std::to_string(tap.offset[axis]));
    tapOffsets.push_back(listOf(entries));
    tapConstants.push_back(shortestNumberText(tap.coefficient.constant));
    std::vector<double> factors(model.parameters.size(), 0.0);
    for (const auto &[index, factor] : tap.coefficient.terms)
      factors[index] = factor;
    for (double factor : factors)
      tapFactors.push_back(shortestNumberText(factor));
  }

  auto intList = [](const std::array<int, kMaxDims> &values) {
    std::vector<std::string> items;
    for (int v : values)
      items.push_back(std::to_string(v));
    return listOf(items);
  };
  std::string shape =
      "{" + std::to_string(model.dims) + ", " +
      (model.boundary == Boundary::Periodic ? "true" : "false") + ", " +
      intList(model.reach) + ", " + intList(model.kernel.block) + ", " +
      std::to_string(model.kernel.tileAxis) + ", " +
      std::to_string(model.kernel.tileFactor) + ", " +
      std::to_string(model.sitesPerThreadX()) + ", " +
      std::to_string(model.componentGroups()) + "}";

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

  std::string applyDoc;
  if (model.boundary == Boundary::Dirichlet)
    applyDoc = " on the interior; the halo of `out` is never written, and "
               "the halo of `in` supplies the boundary values";
  else
    applyDoc = " on every site, neighbours wrapping around";

  TemplateValues common = {
      {"name", model.name},
      {"version", generatorVersion().str()},
      {"spec_file", model.specFileName},
      {"description", commented},
      {"options", optionsSummary(model)},
  };

  Expected<StringRef> launcherTemplate = getTemplate("launcher.in");
  if (!launcherTemplate)
    return launcherTemplate.takeError();
  // What the whole-lattice launchers (launcher.in, dot_launcher.in) share.
  const TemplateValues launcherCommon = {
      {"name", model.name},
      {"extent_list", listOf(extentList)},
      {"value_count", join(valueCountTerms, " *\n      ")},
      {"site_checks", join(siteChecks, "\n")},
      {"launch_arguments", join(launchArgs, ",\n                 ")},
      {"generic_extents", join(genericExtents, "\n")},
      {"generic_params", join(genericParams, "\n")},
  };
  std::vector<std::string> launchers;
  for (bool adjoint : {false, true}) {
    const KernelPlan &plan = adjoint && adjointPlan ? *adjointPlan : applyPlan;
    std::string summary =
        adjoint ? (adjointPlan ? "out = A^T in: the transposed stencil, "
                                 "offsets negated."
                               : "out = A^T in: A is symmetric, so this is "
                                 "apply().")
                : "out = A in.";
    TemplateValues values = launcherCommon;
    values.insert({{"summary", summary},
                   {"function", adjoint ? "apply_adjoint" : "apply"},
                   {"kernel_name", plan.kernelName}});
    Expected<std::string> launcher =
        renderTemplate("launcher.in", *launcherTemplate, values);
    if (!launcher)
      return launcher.takeError();
    launchers.push_back(*launcher);
  }

  std::string dotApi;
  if (fusedDot) {
    Expected<StringRef> dotTemplate = getTemplate("dot_launcher.in");
    if (!dotTemplate)
      return dotTemplate.takeError();
    TemplateValues values = launcherCommon;
    values.insert({{"kernel_name", dotKernelName(applyPlan)}});
    Expected<std::string> launcher =
        renderTemplate("dot_launcher.in", *dotTemplate, values);
    if (!launcher)
      return launcher.takeError();
    launchers.push_back(*launcher);
    // Declarations for the header, beside apply()'s.
    Expected<StringRef> api = getTemplate("dot_api.in");
    if (!api)
      return api.takeError();
    dotApi = api->str();
  }

  HoppingHostCode hopping;
  if (model.layout.evenOdd) {
    LauncherText text;
    text.extentList = listOf(extentList);
    // Hopping kernels launch one-dimensional grids: no blocks_z.
    std::vector<std::string> hopArgs;
    for (size_t i = 2; i < launchArgs.size(); ++i)
      if (launchArgs[i] != "config.blocks_z")
        hopArgs.push_back(launchArgs[i]);
    text.launchArguments = join(hopArgs, ",\n                 ");
    text.genericExtents = join(genericExtents, "\n");
    text.genericParams = join(genericParams, "\n");
    text.halfValueCount = join(valueCountTerms, " *\n      ") + " / 2";
    text.siteChecks = join(hopSiteChecks, "\n");
    Expected<HoppingHostCode> code =
        renderHoppingHostCode(model, plans, text);
    if (!code)
      return code.takeError();
    hopping = std::move(*code);
    launchers.push_back(hopping.launchers);
  }

  TemplateValues kernelValues = common;
  kernelValues.insert({
      {"kernels", join(kernelTexts, "\n\n")},
      {"launchers", join(launchers, "\n\n")},
      {"tuned_kernels", tunedCode.kernels},
  });
  TemplateValues headerValues = common;
  headerValues.insert({
      {"guard", StringRef(model.name).upper()},
      {"value_type", model.valueType()},
      {"dims", std::to_string(model.dims)},
      {"components", std::to_string(model.components)},
      {"periodic", model.boundary == Boundary::Periodic ? "true" : "false"},
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
      {"apply_doc", applyDoc},
      {"adjoint_doc", adjointPlan ? "the transposed stencil (offsets negated)"
                                  : "A is symmetric, so this equals apply()"},
      {"tap_offsets", listOf(tapOffsets)},
      {"tap_constants", listOf(tapConstants)},
      {"param_tables", paramTables},
      {"element_bytes", std::to_string(model.elementBytes())},
      {"num_taps", std::to_string(model.taps.size())},
      {"num_params", std::to_string(model.parameters.size())},
      {"param_names_ref", model.parameters.empty() ? "nullptr" : "param_names"},
      {"param_defaults_ref",
       model.parameters.empty() ? "nullptr" : "param_defaults"},
      {"param_sites_ref",
       model.parameters.empty() ? "nullptr" : "param_is_site"},
      {"tap_factors_ref", model.parameters.empty() ? "nullptr" : "tap_factors"},
      {"centre_tap", std::to_string(centreTapIndex(model))},
      {"symmetric", adjointPlan ? "false" : "true"},
      {"solver", solverName(model.solver)},
      {"loads_per_tile", std::to_string(applyPlan.loadsPerTile())},
      {"bytes_per_site", std::to_string(applyPlan.bytesPerSite())},
      {"flops_per_site", std::to_string(applyPlan.flopsPerSite)},
      {"dot_api", dotApi},
      {"tuned_headers", tunedCode.headers},
      {"tuned_table", tunedCode.table},
      {"tuned_ref", tunedCode.reference},
      {"fingerprint", stencilFingerprint(model)},
      {"tuning_options", tuningOptionsText(model)},
      {"apply_dot_ref", fusedDot ? "&apply_dot_generic" : "nullptr"},
      {"hopping_api", hopping.api},
      {"even_odd_table", hopping.table},
      {"even_odd_ref", model.layout.evenOdd ? "&even_odd_kernels" : "nullptr"},
  });

  Expected<StringRef> kernelsTemplate = getTemplate("kernels.hip.in");
  if (!kernelsTemplate)
    return kernelsTemplate.takeError();
  Expected<StringRef> headerTemplate = getTemplate("kernels.hpp.in");
  if (!headerTemplate)
    return headerTemplate.takeError();

  EmittedStencil files;
  Expected<std::string> kernels =
      renderTemplate("kernels.hip.in", *kernelsTemplate, kernelValues);
  if (!kernels)
    return kernels.takeError();
  Expected<std::string> header =
      renderTemplate("kernels.hpp.in", *headerTemplate, headerValues);
  if (!header)
    return header.takeError();
  files.kernels = std::move(*kernels);
  files.header = std::move(*header);
  files.manifest = manifest(model, plans);
  return files;
}

static Error writeIfChanged(StringRef path, StringRef contents) {
  if (ErrorOr<std::unique_ptr<MemoryBuffer>> existing =
          MemoryBuffer::getFile(path, /*IsText=*/false))
    if ((*existing)->getBuffer() == contents)
      return Error::success();
  std::error_code ec;
  raw_fd_ostream os(path, ec, sys::fs::OF_None);
  if (ec)
    return createStringError(ec, "cannot write '%s': %s", path.str().c_str(),
                             ec.message().c_str());
  os << contents;
  os.close();
  if (os.has_error())
    return createStringError(os.error(), "cannot write '%s': %s",
                             path.str().c_str(), os.error().message().c_str());
  return Error::success();
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
