//===- StagingPrinter.cpp - A SharedStaging node as source ----------------===//
//
// The shared array, the stage phase's cooperative load and the loads that
// read the box, as the plan's SharedStaging node and LoadSource say.
//
//===----------------------------------------------------------------------===//
#include "emit/EmitText.h"
#include "emit/KernelParts.h"

#include <cassert>
#include <cstdlib>

namespace stencilc {

namespace {

std::string boxStride(int axis) {
  return std::string("box_s") + axisName(axis);
}

/// `k * name` with k an integer: "", "name", "-name", "3 * name".
std::string scaled(int k, const std::string &name) {
  if (k == 0)
    return "";
  if (k == 1)
    return name;
  if (k == -1)
    return "-" + name;
  return std::to_string(k) + " * " + name;
}

/// `first + terms`, signs folded: "box_site - 1 + box_sy".
std::string sumText(std::string text, const std::vector<std::string> &terms) {
  for (const std::string &term : terms) {
    if (term.empty())
      continue;
    if (term[0] == '-')
      text += " - " + term.substr(1);
    else
      text += " + " + term;
  }
  return text;
}

/// `base + k * value` without the terms that vanish.
std::string affine(int base, int k, const std::string &value) {
  std::string text = scaled(k, value);
  if (base == 0)
    return text.empty() ? "0" : text;
  if (text.empty())
    return std::to_string(base);
  return std::to_string(base) + " + " + text;
}

/// The position of this thread's block along `axis` in the launch grid
/// (stencil/launch_config.hpp), unsigned, threads from the block's first.
std::string blockPosition(const LatticeThreads &t, int axis) {
  // A block's box holds whole rows of its sites: one share per block.
  assert(!t.shares.byLane() && "a staged box needs a share per block");
  const std::string threads = std::to_string(t.block[axis]) + "u";
  switch (axis) {
  case 0:
    if (t.shares.split())
      return "(blockIdx.x / " + std::to_string(t.shares.groups) + "u) * " +
             threads;
    return "blockIdx.x * " + threads;
  case 1:
    return "blockIdx.y * " + threads;
  case 2:
    return t.zSharesWithT ? "(blockIdx.z % blocks_z) * " + threads
                          : "blockIdx.z * " + threads;
  default:
    return "(blockIdx.z / blocks_z) * " + threads;
  }
}

/// This thread's position along `axis` within its block.
std::string threadInBlock(const LatticeThreads &t, int axis) {
  switch (axis) {
  case 0:
    return "threadIdx.x";
  case 1:
    return "threadIdx.y";
  case 2:
    return t.zSharesWithT
               ? "threadIdx.z % " + std::to_string(t.block[2]) + "u"
               : "threadIdx.z";
  default:
    return "threadIdx.z / " + std::to_string(t.block[2]) + "u";
  }
}

} // namespace

void StagingPrinter::declarations(CodePrinter &p) const {
  const SharedStaging &s = staging;
  std::string box;
  for (int axis = 0; axis < s.dims; ++axis)
    box += (axis ? " x " : "") + std::to_string(s.axes[axis].extent());
  wrappedComment(
      p, "//",
      "The block's box in shared memory: its sites and the halo its taps "
      "reach, " +
          box + " sites, " +
          (s.components == 1
               ? std::string("one value each")
               : std::to_string(s.components) +
                     " components each, component by component") +
          " (" + std::to_string(s.bytes()) +
          " bytes). Every thread stages part of it, then all compute from "
          "it.");
  p.line("STENCIL_SHARED_ARRAY(value_type, " + s.array + ", " +
         std::to_string(s.elements()) + ");");
  long long stride = 1;
  for (int axis = 1; axis < s.dims; ++axis) {
    stride *= s.axes[axis - 1].extent();
    p.line("constexpr int " + boxStride(axis) + " = " +
           std::to_string(stride) + ";");
  }
  if (s.components > 1)
    p.line("constexpr int box_sites = " + std::to_string(s.sites()) + ";");
}

void StagingPrinter::cooperativeLoad(CodePrinter &p) const {
  const SharedStaging &s = staging;
  const LatticeThreads &t = plan.threads.lattice;
  bool skips = false, negates = false;
  for (int axis = 0; axis < s.dims; ++axis) {
    skips |= s.axes[axis].edge == StagingEdge::SkipPastEnd;
    negates |= s.axes[axis].edge == StagingEdge::WrapNegate;
  }
  std::string comment =
      "The block's threads copy the box together, consecutive threads "
      "consecutive " +
      std::string(s.order == StagingOrder::ComponentsFastest
                      ? "components of a site"
                      : "sites along x") +
      " of `in`" + (s.foldsDirection ? " and `direction`" : "") + ".";
  if (skips)
    comment += " Elements past the array's end are not read: they hold 0, "
               "which only sites that are never stored consume.";
  if (negates)
    comment += " Values across an antiperiodic wrap are stored negated.";
  wrappedComment(p, "//", comment);
  for (int axis = 0; axis < s.dims; ++axis) {
    const StagingAxis &a = s.axes[axis];
    const std::string name = std::string("box_") + axisName(axis);
    p.line("const int " + name + " = " +
           affine(t.origin[axis] - a.below, a.sitesPerThread,
                  "static_cast<int>(" + blockPosition(t, axis) + ")") +
           ";");
  }
  p.line("const int thread = static_cast<int>(threadIdx.x + " +
         std::to_string(t.block[0]) + "u * (threadIdx.y +");
  p.line("    " + std::to_string(t.block[1]) + "u * threadIdx.z));");
  if (s.address == StagingAddress::PlainSite) {
    for (int axis = 1; axis < s.dims; ++axis)
      p.line("const stencil::index_t s" + std::string(axisName(axis)) +
             " = " +
             (axis == 1 ? std::string("static_cast<stencil::index_t>(nx)")
                        : "s" + std::string(axisName(axis - 1)) + " * " +
                              extentName(axis - 1)) +
             ";");
  } else {
    p.line("constexpr stencil::Layout layout = " +
           layoutInitializer(s.layout) + ";");
    if (s.fieldComponents > 1) {
      std::vector<std::string> factors;
      for (int axis = 0; axis < s.dims; ++axis)
        factors.push_back(axis == 0 ? "static_cast<stencil::index_t>(nx)"
                                    : extentName(axis));
      p.line("const stencil::index_t sites = " + join(factors, " * ") + ";");
    }
  }
  const std::string elements = std::to_string(s.elements());
  p.line("for (int e = thread; e < " + elements + "; e += " +
         std::to_string(s.threadsPerBlock) + ") {");
  {
    CodePrinter::Indent loop(p);
    elementCopy(p);
  }
  p.line("}");
}

void StagingPrinter::elementCopy(CodePrinter &p) const {
  const SharedStaging &s = staging;
  bool negates = false;
  for (int axis = 0; axis < s.dims; ++axis)
    negates |= s.axes[axis].edge == StagingEdge::WrapNegate;
  const std::string sites = std::to_string(s.sites());
  const std::string k = std::to_string(s.components);
  std::string site = "e", target = "e";
  if (s.components > 1) {
    if (s.order == StagingOrder::ComponentsFastest) {
      p.line("const int c = e % " + k + ";");
      p.line("const int b = e / " + k + ";");
      site = "b";
      target = "c * box_sites + b";
    } else {
      p.line("const int b = e % " + sites + ";");
      p.line("const int c = e / " + sites + ";");
      site = "b";
    }
  }
  // The element's lattice coordinates, before and after any wrap.
  long long stride = 1;
  std::vector<std::string> inside;
  for (int axis = 0; axis < s.dims; ++axis) {
    const StagingAxis &a = s.axes[axis];
    const std::string name = axisName(axis);
    std::string offset = site;
    if (stride > 1)
      offset += " / " + std::to_string(stride);
    if (axis + 1 < s.dims)
      offset += " % " + std::to_string(a.extent());
    stride *= a.extent();
    const std::string unwrapped = "box_" + name + " + " + offset;
    switch (a.edge) {
    case StagingEdge::SkipPastEnd:
      p.line("const int g" + name + " = " + unwrapped + ";");
      inside.push_back("g" + name + " < " + extentName(axis));
      break;
    case StagingEdge::Wrap:
      p.line("const int g" + name + " = stencil::wrap(" + unwrapped + ", " +
             extentName(axis) + ");");
      break;
    case StagingEdge::WrapNegate:
      p.line("const int u" + name + " = " + unwrapped + ";");
      p.line("const int g" + name + " = stencil::wrap(u" + name + ", " +
             extentName(axis) + ");");
      break;
    }
  }
  // One staged component of a split site is the thread group's own, c0.
  const std::string component = !s.split            ? "c"
                                : s.components == 1 ? "c0"
                                                    : "c0 + c";
  std::string at;
  if (s.address == StagingAddress::PlainSite) {
    std::vector<std::string> terms;
    for (int axis = 1; axis < s.dims; ++axis)
      terms.push_back(std::string("g") + axisName(axis) + " * s" +
                      axisName(axis));
    at = sumText("gx", terms);
    if (s.fieldComponents > 1)
      at = "(" + at + ") * " + std::to_string(s.fieldComponents) + " + " +
           component;
  } else {
    std::vector<std::string> coordinates, extents;
    for (int axis = 0; axis < kMaxDims; ++axis) {
      coordinates.push_back(axis < s.dims ? std::string("g") + axisName(axis)
                                          : "0");
      extents.push_back(axis < s.dims ? extentName(axis) : "1");
    }
    at = "stencil::layout_site(layout, " + join(coordinates, ", ") + ", " +
         join(extents, ", ") + ")";
    if (s.fieldComponents > 1)
      at = "stencil::layout_element(layout, " + at + ", " + component + ", " +
           std::to_string(s.fieldComponents) + ", sites)";
  }
  // The element's index, on two lines when one would pass 80 columns.
  auto declareAt = [&](CodePrinter &out) {
    const std::string head = "const stencil::index_t at =";
    if (out.indentation() + head.size() + at.size() + 2 <= 80) {
      out.line(head + " " + at + ";");
      return;
    }
    out.line(head);
    CodePrinter::Indent indent(out, 4);
    out.line(at + ";");
  };
  const std::string value = s.foldsDirection
                                ? "in[at] + beta * direction[at]"
                                : "in[at]";
  if (!inside.empty()) {
    p.line("value_type v = static_cast<value_type>(0);");
    p.line("if (" + join(inside, " && ") + ") {");
    {
      CodePrinter::Indent indent(p);
      declareAt(p);
      p.line("v = " + value + ";");
    }
    p.line("}");
  } else {
    declareAt(p);
    p.line(std::string(negates ? "value_type" : "const value_type") +
           " v = " + value + ";");
  }
  for (int axis = 0; axis < s.dims; ++axis)
    if (s.axes[axis].edge == StagingEdge::WrapNegate) {
      const std::string name = axisName(axis);
      p.line("if (u" + name + " < 0 || u" + name + " >= " + extentName(axis) +
             ")");
      p.line("  v = -v;");
    }
  p.line(s.array + "[" + target + "] = v;");
}

void StagingPrinter::boxSite(CodePrinter &p) const {
  const SharedStaging &s = staging;
  const LatticeThreads &t = plan.threads.lattice;
  std::vector<std::string> terms;
  for (int axis = 0; axis < s.dims; ++axis) {
    const StagingAxis &a = s.axes[axis];
    std::string local = affine(a.below, a.sitesPerThread,
                               "static_cast<int>(" + threadInBlock(t, axis) +
                                   ")");
    if (axis == 0) {
      terms.push_back(local);
      continue;
    }
    if (local.find(' ') != std::string::npos)
      local = "(" + local + ")";
    terms.push_back(boxStride(axis) + " * " + local);
  }
  p.line("// This thread's first site in the box.");
  p.line("const int box_site = " + terms.front() +
         (terms.size() > 1 ? " +" : ";"));
  CodePrinter::Indent indent(p, 4);
  for (size_t i = 1; i < terms.size(); ++i)
    p.line(terms[i] + (i + 1 < terms.size() ? " +" : ";"));
}

void StagingPrinter::load(CodePrinter &p, const PlanStep &step) const {
  const SharedStaging &s = staging;
  const PlannedLoad &load = plan.loads[step.load];
  std::vector<std::string> terms;
  for (int axis = 0; axis < s.dims; ++axis)
    terms.push_back(axis == 0 ? (load.offset[0] ? std::to_string(load.offset[0])
                                                : std::string())
                              : scaled(load.offset[axis], boxStride(axis)));
  const std::string at = sumText("box_site", terms);
  const std::string name = "u" + std::to_string(step.load);
  const std::string pointer =
      at.find(' ') == std::string::npos ? at : "(" + at + ")";
  if (s.components == 1) {
    // A split site's one component still has array accumulators.
    const std::string index =
        plan.accumulators.declaredAsArrays() ? "[0]" : "";
    p.line("const value_type " + name + " = " + s.array + "[" + at + "];");
    for (const PlannedAccumulation &acc : step.accumulations)
      p.line(accumulationText(acc, index, name));
    return;
  }
  p.emit({{"name", name},
          {"array", s.array},
          {"at", pointer},
          {"count", std::to_string(s.components)}},
         R"(
           const value_type *$name$ = $array$ + $at$;
           STENCIL_UNROLL
           for (int c = 0; c < $count$; ++c) {
         )");
  {
    CodePrinter::Indent indent(p);
    for (const PlannedAccumulation &acc : step.accumulations)
      p.line(accumulationText(acc, "[c]", name + "[c * box_sites]"));
  }
  p.line("}");
}

} // namespace stencilc
