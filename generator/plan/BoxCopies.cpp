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
  fields.arrays = "fields";
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
  if (siteParameterReals(model) > 0) {
    // The kernels index a site parameter's array by site: one value, or a
    // complex one's (re, im) pair together, whatever the field's order and
    // groups (StencilOperator::site_lattice).
    BoxCopyPlan sites;
    sites.kernelName = model.name + "_copy_site_box_kernel";
    sites.function = "copy_site_box";
    sites.arrays = "site parameter arrays";
    sites.layout = model.layout;
    sites.layout.order = LayoutOrder::SiteMajor;
    sites.layout.block = 1;
    sites.layout.vector = 1;
    plans.push_back(sites);
  }
  return plans;
}

} // namespace stencilc
