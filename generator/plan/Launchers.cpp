//===- Launchers.cpp - The host functions that launch the kernels ---------===//
#include "plan/Plan.h"

#include <algorithm>
#include <string>

namespace stencilc {

std::vector<LauncherPlan> planLaunchers(const StencilModel &model,
                                        const std::vector<KernelPlan> &plans) {
  const KernelPlan &apply = *findPlan(plans, KernelRole::Apply);
  const KernelPlan *adjoint = findPlan(plans, KernelRole::Adjoint);
  std::vector<LauncherPlan::SiteArray> siteArrays;
  for (const Parameter &param : model.parameters)
    if (param.site)
      siteArrays.push_back({param.name, param.realsPerSite()});
  // Vector accesses need fields aligned to the access size: the vector
  // width's, or a group of field.layout.vector values (the two exclude
  // each other on vector fields).
  const int width = model.kernel.vectorWidth;
  const int group = std::max(width, model.layout.vector);
  const int alignment = group > 1 ? group * model.elementBytes() : 0;
  const std::string alignmentReason =
      width > 1 ? "kernel.vector_width " + std::to_string(width)
                : "field.layout.vector " + std::to_string(group);

  std::vector<LauncherPlan> launchers;
  auto add = [&](LauncherKind kind, std::string function,
                 const KernelPlan &plan, std::string summary) {
    LauncherPlan l;
    l.kind = kind;
    l.function = std::move(function);
    l.kernelName = plan.kernelName;
    l.kernelParameters = plan.parameters;
    l.summary = std::move(summary);
    // The hops' vector accesses: a site's adjacent values or a group of
    // the layout (groups of sites along x need a whole lattice).
    l.alignmentBytes = alignment;
    l.alignmentReason = alignmentReason;
    if (plan.gathersPlane) {
      l.planeOffsetValues = plan.access.components;
      l.marchAxis = plan.tileAxis;
    }
    l.vectorWidth = width;
    l.threadsPerBlock = model.kernel.threadsPerBlock();
    l.phases = plan.staging ? plan.staging->phases() : 1;
    l.region = model.rankKernels;
    l.siteArrays = siteArrays;
    if (model.hasLinkTaps()) {
      l.linkArray = model.links.name;
      l.linkComponents = model.linkComponents();
      if (model.links.vector > 1)
        l.linkAlignmentBytes = model.links.vector * model.arrayElementBytes();
    }
    if (model.hasCloverTap()) {
      l.cloverArray = model.clover.name;
      l.cloverComponents = model.cloverComponents();
      if (model.clover.vector > 1)
        l.cloverAlignmentBytes =
            model.clover.vector * model.arrayElementBytes();
    }
    launchers.push_back(std::move(l));
  };
  add(LauncherKind::Lattice, "apply", apply, "out = A in.");
  add(LauncherKind::Lattice, "apply_adjoint", adjoint ? *adjoint : apply,
      adjoint ? "out = A^T in: the transposed stencil, offsets negated."
              : "out = A^T in: A is symmetric, so this is apply().");
  if (const KernelPlan *dot = findPlan(plans, KernelRole::Apply, Hop::None,
                                       EpilogueKind::BlockSum))
    add(LauncherKind::LatticeDot, "apply_dot", *dot,
        "out = A in, and partials[b] = block b's share of in . out "
        "(double). `partials` is device memory for one double per block of "
        "the launch (grid.x * grid.y * grid.z of make_launch_config); the "
        "caller adds them.");
  if (const KernelPlan *fold = findPlan(plans, KernelRole::Apply, Hop::None,
                                        EpilogueKind::DirectionBlockSum))
    add(LauncherKind::LatticeFoldDot, "apply_fold_dot", *fold,
        "CG's direction update folded into the stencil: next_direction = p' "
        "= in + beta direction (beta read from device memory), out = A p', "
        "and partials[b] = block b's "
        "share of p' . out (double), as apply_dot() sums them; given a "
        "solution, also the last step's solution += alpha direction "
        "(*alpha: device memory) on the sites out gets, the update CG's "
        "next pass would otherwise read direction again for. The fields "
        "must not overlap.");
  if (!model.layout.evenOdd)
    return launchers;
  const bool symmetric = adjoint == nullptr;
  for (KernelRole role : {KernelRole::Apply, KernelRole::Adjoint})
    for (Hop hop : {Hop::EvenToOdd, Hop::OddToEven}) {
      const KernelPlan *plan =
          findPlan(plans, symmetric ? KernelRole::Apply : role, hop);
      const bool isAdjoint = role == KernelRole::Adjoint;
      std::string function =
          std::string(hop == Hop::EvenToOdd ? "even_to_odd" : "odd_to_even") +
          (isAdjoint ? "_adjoint" : "");
      std::string block = hop == Hop::EvenToOdd ? "A_oe" : "A_eo";
      std::string summary =
          std::string(hop == Hop::EvenToOdd ? "Odd sites from even ones"
                                            : "Even sites from odd ones") +
          ": the " + (isAdjoint ? "transposed stencil's " : "") + "block " +
          (isAdjoint ? std::string(hop == Hop::EvenToOdd ? "(A_eo)^T"
                                                         : "(A_oe)^T")
                     : block) +
          (isAdjoint && symmetric ? ", equal to " + block + " (A is symmetric)"
                                  : std::string()) +
          ".";
      add(LauncherKind::Hopping, function, *plan, summary);
      launchers.back().slab = plan->threads.half.slab;
      launchers.back().componentGroups = plan->threads.half.shares.groups;
      launchers.back().slabBytesPerSite =
          findPlan(plans, KernelRole::Apply, Hop::EvenToOdd)->bytesPerSite();
    }
  return launchers;
}

} // namespace stencilc
