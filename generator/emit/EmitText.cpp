//===- EmitText.cpp - Source-text helpers shared by the kernel writers ----===//
#include "emit/EmitText.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

namespace stencilc {

std::string join(const std::vector<std::string> &parts,
                 llvm::StringRef separator) {
  return llvm::join(parts.begin(), parts.end(), separator);
}

std::string listOf(const std::vector<std::string> &items) {
  return "{" + join(items, ", ") + "}";
}

std::string extentName(int axis) { return std::string("n") + axisName(axis); }

std::string wrappedName(int axis, int delta) {
  if (delta == 0)
    return axisName(axis);
  return std::string(axisName(axis)) + (delta < 0 ? "_m" : "_p") +
         std::to_string(delta < 0 ? -delta : delta);
}

std::string threadPosition(const StencilModel &model, int axis) {
  const std::array<int, kMaxDims> &block = model.kernel.block;
  switch (axis) {
  case 0:
    // With a component split, blockIdx.x also counts the component share
    // (stencil/launch_config.hpp).
    if (const int groups = model.componentGroups(); groups > 1)
      return "(blockIdx.x / " + std::to_string(groups) + "u) * " +
             std::to_string(block[0]) + "u + threadIdx.x";
    return "blockIdx.x * " + std::to_string(block[0]) + "u + threadIdx.x";
  case 1:
    return "blockIdx.y * " + std::to_string(block[1]) + "u + threadIdx.y";
  case 2:
    // Axes z and t share the launch's z dimension in 4-D.
    return model.dims == 4
               ? "(blockIdx.z % blocks_z) * " + std::to_string(block[2]) +
                     "u + threadIdx.z % " + std::to_string(block[2]) + "u"
               : "blockIdx.z * " + std::to_string(block[2]) +
                     "u + threadIdx.z";
  default:
    return "(blockIdx.z / blocks_z) * " + std::to_string(block[3]) +
           "u + threadIdx.z / " + std::to_string(block[2]) + "u";
  }
}

std::string weightExpression(const StencilModel &model,
                             const Coefficient &coefficient) {
  std::string text;
  auto literal = [](double value) {
    return "static_cast<value_type>(" + shortestNumberText(value) + ")";
  };
  bool anyScalar = llvm::any_of(coefficient.terms, [&](const auto &term) {
    return !model.parameters[term.first].site;
  });
  if (coefficient.constant != 0.0 || !anyScalar)
    text = literal(coefficient.constant);
  for (const auto &[index, factor] : coefficient.terms) {
    if (model.parameters[index].site)
      continue;
    const std::string &name = model.parameters[index].name;
    double magnitude = factor < 0 ? -factor : factor;
    std::string term =
        magnitude == 1.0 ? name : literal(magnitude) + " * " + name;
    if (text.empty())
      text = (factor < 0 ? "-" : "") + term;
    else
      text += (factor < 0 ? " - " : " + ") + term;
  }
  return text;
}

std::string siteParameterTerms(const StencilModel &model,
                               const Coefficient &coefficient,
                               const std::string &index) {
  std::string text;
  for (const auto &[param, factor] : coefficient.terms) {
    if (!model.parameters[param].site)
      continue;
    std::string value = model.parameters[param].name + "[" + index + "]";
    double magnitude = factor < 0 ? -factor : factor;
    text += (factor < 0 ? " - " : " + ") +
            (magnitude == 1.0 ? value
                              : "static_cast<value_type>(" +
                                    shortestNumberText(magnitude) + ") * " +
                                    value);
  }
  return text;
}

std::string kernelParameterList(const StencilModel &model, bool withBlocksZ) {
  std::vector<std::string> params;
  for (int axis = 0; axis < model.dims; ++axis)
    params.push_back("const int " + extentName(axis));
  if (model.dims == 4 && withBlocksZ)
    params.push_back("const unsigned blocks_z");
  for (const Parameter &param : model.parameters)
    params.push_back(param.site
                         ? "const value_type *STENCIL_RESTRICT " + param.name
                         : "const value_type " + param.name);
  return join(params, ",\n    ");
}

std::string layoutInitializer(const FieldLayout &l) {
  return "{" + std::to_string(static_cast<int>(l.order)) + ", " +
         std::to_string(l.block) + ", {" + std::to_string(l.subdomain[0]) +
         ", " + std::to_string(l.subdomain[1]) + ", " +
         std::to_string(l.subdomain[2]) + ", " +
         std::to_string(l.subdomain[3]) + "}" + (l.evenOdd ? ", 1" : "") +
         "}";
}

std::string orderDescription(const FieldLayout &l) {
  return std::string(layoutOrderName(l.order)) +
         (l.order == LayoutOrder::Blocked
              ? " in blocks of " + std::to_string(l.block) + " sites"
              : std::string());
}

std::string launchBoundsText(const StencilModel &model) {
  return model.kernel.launchBounds
             ? "STENCIL_LAUNCH_BOUNDS(" +
                   std::to_string(model.kernel.launchBounds) + ")\n"
             : std::string();
}

} // namespace stencilc
