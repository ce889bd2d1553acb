//===- BoxCopies.cpp - The halo exchange's pack and unpack kernels ---------===//
#include "plan/Plan.h"

namespace stencilc {

std::vector<BoxCopyPlan> planBoxCopies(const StencilModel &model) {
  std::vector<BoxCopyPlan> plans;
  if (!model.rankKernels)
    return plans;
  BoxCopyPlan fields;
  fields.kernelName = model.name + "_copy_box_kernel";
  fields.function = "copy_box";
  fields.arrays = "fields and site parameter arrays";
  fields.layout = model.layout;
  plans.push_back(fields);
  if (model.hasLinkTaps()) {
    BoxCopyPlan links;
    links.kernelName = model.name + "_copy_link_box_kernel";
    links.function = "copy_link_box";
    links.arrays = "the link array";
    links.layout = model.linkLayout();
    plans.push_back(links);
  }
  return plans;
}

} // namespace stencilc
