//===- Hopping.cpp - Even/odd hopping kernels and their host code ---------===//
//
// A hopping kernel's thread owns one site of the output parity: number `xh`
// of that parity along its row, so x = 2 xh + (parity of the rest of the
// coordinates). Its neighbours have the other parity and live in the input
// half at stencil::even_odd_site(). The centre tap never enters the sum: it
// is the diagonal D, applied (or inverted) by the epilogue that the runtime
// selects per launch.
//
//===----------------------------------------------------------------------===//
#include "emit/Hopping.h"

#include "emit/EmitText.h"
#include "emit/TemplateEngine.h"

#include "llvm/ADT/STLExtras.h"

#include <map>
#include <set>

using namespace llvm;

namespace stencilc {

namespace {

class HoppingWriter {
public:
  HoppingWriter(const StencilModel &original, const KernelPlan &plan)
      : model(modelForRole(original, plan.role)), plan(plan),
        periodic(model.boundary == Boundary::Periodic),
        outParity(plan.hop == Hop::EvenToOdd ? 1 : 0),
        nc(model.components), width(model.kernel.vectorWidth),
        siteMajor(model.layout.order == LayoutOrder::SiteMajor) {}

  Expected<std::string> render();

private:
  std::string siteMapping();
  std::string addressing();
  std::string weights();
  std::string accumulators();
  std::string program();
  std::string epilogue();
  /// Half-field index of the site at `offset` from this thread's site.
  std::string halfSite(const Offset &offset);
  /// Element of component `c` (text) of half-field site `site` (text).
  std::string element(const std::string &site, const std::string &c);
  bool needsHalfSites() const {
    // Site parameters of odd sites sit after the even half.
    return (!siteMajor && nc > 1) ||
           (siteParameterCount(model) > 0 && outParity == 1);
  }

  const StencilModel model;
  const KernelPlan &plan;
  const bool periodic;
  const int outParity;
  const int nc;
  const int width;
  const bool siteMajor;
  std::vector<std::string> tapWeight;
};

std::string HoppingWriter::siteMapping() {
  // Threads run over the half lattice in storage order, whatever its shape:
  // consecutive threads touch consecutive sites of every input and output,
  // and short rows (nx / 2 below the block) leave no thread idle.
  std::string text =
      "// This thread's site: number `site` of parity " +
      std::to_string(outParity) +
      " in storage order (x fastest,\n// x halved); the launcher checks "
      "that a parity has fewer than 2^31 sites.\n"
      "const unsigned site32 = blockIdx.x * " +
      std::to_string(model.kernel.threadsPerBlock()) +
      "u + threadIdx.x;\n";
  std::vector<std::string> extents = {"static_cast<unsigned>(nx / 2)"};
  for (int axis = 1; axis < model.dims; ++axis)
    extents.push_back("static_cast<unsigned>(" + extentName(axis) + ")");
  text += "if (site32 >= " + join(extents, " *\n                 ") +
          ")\n  return;\n";
  text += "unsigned rest = site32;\n";
  for (int axis = 0; axis < model.dims; ++axis) {
    std::string name = axis == 0 ? "xh" : axisName(axis);
    if (axis + 1 == model.dims) {
      text += "const int " + name + " = static_cast<int>(rest);\n";
      break;
    }
    text += "const int " + name + " = static_cast<int>(rest % " +
            extents[axis] + ");\nrest /= " + extents[axis] + ";\n";
  }
  std::vector<std::string> rest;
  for (int axis = 1; axis < model.dims; ++axis)
    rest.push_back(axisName(axis));
  rest.push_back(std::to_string(outParity));
  text += "const int x = 2 * xh + ((" + join(rest, " + ") + ") & 1);";
  if (!periodic) {
    std::vector<std::string> outside;
    for (int axis = 0; axis < model.dims; ++axis)
      if (model.reach[axis] > 0)
        outside.push_back(std::string(axisName(axis)) + " < " +
                          std::to_string(model.reach[axis]) + " || " +
                          axisName(axis) + " >= " + extentName(axis) + " - " +
                          std::to_string(model.reach[axis]));
    if (!outside.empty())
      text += "\nif (" + join(outside, " ||\n    ") +
              ")\n  return; // the halo is never written";
  }
  return text;
}

std::string HoppingWriter::halfSite(const Offset &offset) {
  std::vector<std::string> coordinates;
  for (int axis = 0; axis < 4; ++axis)
    coordinates.push_back(axis < model.dims ? wrappedName(axis, offset[axis])
                                            : std::string("0"));
  for (int axis = 0; axis < 3; ++axis)
    coordinates.push_back(axis < model.dims ? extentName(axis)
                                            : std::string("1"));
  return "stencil::even_odd_site(" + join(coordinates, ", ") + ")";
}

std::string HoppingWriter::element(const std::string &site,
                                   const std::string &c) {
  if (nc == 1)
    return site;
  if (siteMajor)
    return site + " * " + std::to_string(nc) + " + " + c;
  return "stencil::order_element(" +
         std::to_string(static_cast<int>(model.layout.order)) + ", " +
         std::to_string(model.layout.block) + ", " + site + ", " + c + ", " +
         std::to_string(nc) + ", half_sites)";
}

std::string HoppingWriter::addressing() {
  const FieldLayout &l = model.layout;
  std::string text = "// Storage: even/odd halves, " + orderDescription(l) +
                     " within each (stencil/layout.hpp).\n";
  if (needsHalfSites()) {
    std::vector<std::string> factors = {"static_cast<stencil::index_t>(nx)"};
    for (int axis = 1; axis < model.dims; ++axis)
      factors.push_back(extentName(axis));
    text += "const stencil::index_t half_sites = " + join(factors, " * ") +
            " / 2;\n";
  }
  text += "const stencil::index_t site = site32;";
  std::set<std::pair<int, int>> deltas;
  for (const PlannedLoad &load : plan.loads)
    for (int axis = 0; axis < model.dims; ++axis)
      if (load.offset[axis] != 0)
        deltas.insert({axis, load.offset[axis]});
  text += periodic ? "\n// Periodic neighbours' coordinates."
                   : "\n// Neighbours' coordinates.";
  for (auto [axis, delta] : deltas) {
    std::string shifted = std::string(axisName(axis)) +
                          (delta < 0 ? " - " : " + ") +
                          std::to_string(std::abs(delta));
    text += "\nconst int " + wrappedName(axis, delta) + " = " +
            (periodic ? "stencil::wrap(" + shifted + ", " + extentName(axis) +
                            ")"
                      : shifted) +
            ";";
  }
  return text;
}

std::string HoppingWriter::weights() {
  std::map<std::string, std::string> byText;
  std::string text = "// Tap weights.";
  // The checker guarantees a centre tap for even/odd storage.
  const int centre = centreTapIndex(model);
  for (size_t t = 0; t < model.taps.size(); ++t) {
    const Tap &tap = model.taps[t];
    if (static_cast<int>(t) == centre) {
      tapWeight.push_back("");
      continue;
    }
    std::string value = coefficientText(model, tap.coefficient);
    auto [it, inserted] =
        byText.emplace(value, "w" + std::to_string(byText.size()));
    if (inserted)
      text += "\nconst value_type " + it->second + " = " +
              weightExpression(model, tap.coefficient) + ";";
    tapWeight.push_back(it->second);
  }
  const Coefficient &diagonal = model.taps[centre].coefficient;
  // Site parameters are whole-lattice arrays: odd sites after the even.
  std::string expression =
      weightExpression(model, diagonal) +
      siteParameterTerms(model, diagonal,
                         outParity ? "half_sites + site" : "site");
  text += "\n// The diagonal D: the centre tap's coefficient at this site.\n"
          "const value_type diag =\n    " +
          expression + ";";
  return text;
}

std::string HoppingWriter::accumulators() {
  std::string alias;
  if (width > 1)
    alias = "// A site's components move " + std::to_string(width) +
            " at a time.\nusing vec_t = stencil::vec<value_type, " +
            std::to_string(width) + ">;\n";
  return alias + "value_type acc" +
         (nc > 1 ? "[" + std::to_string(nc) + "]" : std::string()) + ";";
}

std::string HoppingWriter::program() {
  std::string text = "// The neighbours, all of the other parity.";
  for (const PlanStep &step : plan.steps) {
    const PlannedLoad &load = plan.loads[step.load];
    const std::string name = "u" + std::to_string(step.load);
    const std::string address = halfSite(load.offset);
    text += "\n";
    auto update = [&](const PlannedAccumulation &acc, const std::string &at,
                      const std::string &value) {
      return "acc" + at + (acc.first ? " = " : " += ") + tapWeight[acc.tap] +
             " * " + value + ";";
    };
    if (nc == 1) {
      text += "const value_type " + name + " = in[" + address + "];";
      for (const PlannedAccumulation &acc : step.accumulations)
        text += "\n" + update(acc, "", name);
    } else if (width > 1) {
      text += "const vec_t *" + name +
              " = reinterpret_cast<const vec_t *>(in + " + address + " * " +
              std::to_string(nc) + ");\nSTENCIL_UNROLL\nfor (int j = 0; j < " +
              std::to_string(nc / width) + "; ++j) {\n  const vec_t v = " +
              name + "[j];\n  STENCIL_UNROLL\n  for (int l = 0; l < " +
              std::to_string(width) + "; ++l) {";
      for (const PlannedAccumulation &acc : step.accumulations)
        text += "\n    " + update(acc, "[j * " + std::to_string(width) +
                                        " + l]",
                                  "v.v[l]");
      text += "\n  }\n}";
    } else {
      text += "const stencil::index_t " + name + " = " + address +
              ";\nSTENCIL_UNROLL\nfor (int c = 0; c < " + std::to_string(nc) +
              "; ++c) {";
      for (const PlannedAccumulation &acc : step.accumulations)
        text += "\n  " + update(acc, "[c]", "in[" + element(name, "c") + "]");
      text += "\n}";
    }
  }
  return text;
}

std::string HoppingWriter::epilogue() {
  const char *store =
      model.kernel.nontemporalStore ? "STENCIL_STORE_NT" : "STENCIL_STORE";
  std::string text =
      "// out = beta H in (kHop), beta D^-1 H in (kInverseDiagonalHop) or\n"
      "// alpha D same + beta H in (kDiagonalPlusHop).\n"
      "const value_type hop_scale =\n"
      "    hop_mode == stencil::kInverseDiagonalHop ? hop_beta / diag : "
      "hop_beta;\n"
      "const bool add_same = hop_mode == stencil::kDiagonalPlusHop;\n"
      "const value_type same_scale = hop_alpha * diag;\n";
  if (nc == 1)
    return text + "value_type result = hop_scale * acc;\nif (add_same)\n  "
                  "result += same_scale * same[site];\n" +
           store + "(&out[site], result);";
  if (width > 1) {
    const std::string n = std::to_string(nc), w = std::to_string(width);
    return text + "STENCIL_UNROLL\nfor (int j = 0; j < " +
           std::to_string(nc / width) +
           "; ++j) {\n  vec_t result;\n  STENCIL_UNROLL\n  for (int l = 0; l < " +
           w + "; ++l)\n    result.v[l] = hop_scale * acc[j * " + w +
           " + l];\n  if (add_same) {\n    const vec_t v = "
           "reinterpret_cast<const vec_t *>(same + site * " +
           n + ")[j];\n    STENCIL_UNROLL\n    for (int l = 0; l < " + w +
           "; ++l)\n      result.v[l] += same_scale * v.v[l];\n  }\n  " + store +
           "(&reinterpret_cast<vec_t *>(out + site * " + n + ")[j], result);\n}";
  }
  return text + "STENCIL_UNROLL\nfor (int c = 0; c < " + std::to_string(nc) +
         "; ++c) {\n  value_type result = hop_scale * acc[c];\n  if (add_same)\n"
         "    result += same_scale * same[" +
         element("site", "c") + "];\n  " + store + "(&out[" +
         element("site", "c") + "], result);\n}";
}

Expected<std::string> HoppingWriter::render() {
  Expected<StringRef> source = getTemplate("hopping_kernel.in");
  if (!source)
    return source.takeError();
  std::string comment =
      std::string(plan.hop == Hop::EvenToOdd ? "Even-to-odd" : "Odd-to-even") +
      " hopping kernel" +
      (plan.role == KernelRole::Adjoint ? " of A^T" : "") + ": " +
      std::to_string(plan.loadsPerTile()) +
      " neighbour loads and one store per thread.";
  TemplateValues values = {
      {"kernel_comment", comment},
      {"launch_bounds", launchBoundsText(model)},
      {"kernel_name", plan.kernelName},
      {"kernel_parameters", kernelParameterList(model, false)},
      {"site_mapping", siteMapping()},
      {"addressing", addressing()},
      {"weights", weights()},
      {"accumulators", accumulators()},
      {"program", program()},
      {"epilogue", epilogue()},
  };
  Expected<std::string> text =
      renderTemplate("hopping_kernel.in", *source, values);
  if (text)
    *text = StringRef(*text).rtrim("\n").str();
  return text;
}

} // namespace

Expected<std::string> renderHoppingKernel(const StencilModel &model,
                                          const KernelPlan &plan) {
  return HoppingWriter(model, plan).render();
}

Expected<HoppingHostCode>
renderHoppingHostCode(const StencilModel &model,
                      const std::vector<KernelPlan> &plans,
                      const LauncherText &text) {
  Expected<StringRef> launcherTemplate = getTemplate("hopping_launcher.in");
  if (!launcherTemplate)
    return launcherTemplate.takeError();
  Expected<StringRef> apiTemplate = getTemplate("hopping_api.in");
  if (!apiTemplate)
    return apiTemplate.takeError();
  const bool symmetric = !findPlan(plans, KernelRole::Adjoint, Hop::EvenToOdd);
  HoppingHostCode code;
  std::vector<std::string> launchers;
  for (KernelRole role : {KernelRole::Apply, KernelRole::Adjoint})
    for (Hop hop : {Hop::EvenToOdd, Hop::OddToEven}) {
      const KernelPlan *plan =
          findPlan(plans, symmetric ? KernelRole::Apply : role, hop);
      const bool adjoint = role == KernelRole::Adjoint;
      std::string function =
          std::string(hop == Hop::EvenToOdd ? "even_to_odd" : "odd_to_even") +
          (adjoint ? "_adjoint" : "");
      std::string block = hop == Hop::EvenToOdd ? "A_oe" : "A_eo";
      std::string summary =
          std::string(hop == Hop::EvenToOdd ? "Odd sites from even ones"
                                            : "Even sites from odd ones") +
          ": the " + (adjoint ? "transposed stencil's " : "") + "block " +
          (adjoint ? std::string(hop == Hop::EvenToOdd ? "(A_eo)^T"
                                                       : "(A_oe)^T")
                   : block) +
          (adjoint && symmetric ? ", equal to " + block + " (A is symmetric)"
                                : std::string()) +
          ".";
      TemplateValues values = {
          {"summary", summary},
          {"function", function},
          {"name", model.name},
          {"kernel_name", plan->kernelName},
          {"extent_list", text.extentList},
          {"threads", std::to_string(model.kernel.threadsPerBlock())},
          {"half_value_count", text.halfValueCount},
          {"site_checks", text.siteChecks},
          {"launch_arguments",
           "out, in, same, static_cast<int>(mode),\n                 "
           "static_cast<value_type>(alpha), static_cast<value_type>(beta),\n"
           "                 " +
               text.launchArguments},
          {"generic_extents", text.genericExtents},
          {"generic_params", text.genericParams},
      };
      Expected<std::string> launcher =
          renderTemplate("hopping_launcher.in", *launcherTemplate, values);
      if (!launcher)
        return launcher.takeError();
      launchers.push_back(*launcher);
    }
  code.launchers = join(launchers, "\n\n");

  Expected<std::string> api = renderTemplate(
      "hopping_api.in", *apiTemplate,
      {{"half_values", "nx * ny * ... * components / 2"},
       {"adjoint_note", symmetric ? " (A is symmetric: the same kernels)"
                                  : " (offsets negated)"},
       {"threads", std::to_string(model.kernel.threadsPerBlock())}});
  if (!api)
    return api.takeError();
  code.api = *api;

  const KernelPlan *hop = findPlan(plans, KernelRole::Apply, Hop::EvenToOdd);
  code.table =
      "static constexpr stencil::EvenOddKernels even_odd_kernels = {\n"
      "    &even_to_odd_generic, &odd_to_even_generic,\n"
      "    &even_to_odd_adjoint_generic, &odd_to_even_adjoint_generic, " +
      std::to_string(hop->bytesPerSite()) + ", " +
      std::to_string(hop->flopsPerSite) + "};";
  return code;
}

} // namespace stencilc
