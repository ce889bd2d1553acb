//===- AccessRules.cpp - What vector accesses and split sites need --------===//
//
// The rules behind kernel.vector_width, kernel.components_per_thread,
// kernel.slab, links.layout.vector and field.layout.vector (declared in
// Check.h): the checker applies them to the spec's options, and the tuner
// and the tuning-cache reader to the variants they build or read.
//
//===----------------------------------------------------------------------===//
#include "check/Check.h"

#include <string>

namespace stencilc {

std::string slabProblem(const StencilModel &model, int slab) {
  if (!model.layout.evenOdd)
    return "orders the threads of the even/odd hopping kernels, and this "
           "stencil has no even/odd storage ('field.even_odd: true')";
  if (slab < 1 || slab > kMaxSlab)
    return "must be 'auto' or a number of slices from 1 to " +
           std::to_string(kMaxSlab);
  if (slab > 1 && model.dims < 3)
    return "needs at least 3 axes: the walk keeps the fastest axes' rows "
           "whole and takes the slowest axis in slabs inside the one before "
           "it, and a " +
           std::to_string(model.dims) + "-D lattice has no axis between them";
  return "";
}

std::string componentSplitProblem(const StencilModel &model, int perThread) {
  const int nc = model.components;
  if (perThread == nc)
    return "";
  if (nc % perThread != 0)
    return "does not divide the " + std::to_string(nc) +
           " components per site; each thread of a site needs the same share";
  if (model.hasCloverTap())
    return "splits a site that its clover term mixes as a whole; keep "
           "whole sites";
  if (const int spinor = 8 * model.links.colours;
      hasSpinTaps(model) && perThread % spinor != 0)
    return "splits a spinor (" + std::to_string(spinor) +
           " reals) that a spin projector mixes as a whole; give each thread "
           "whole spinors";
  if (const int vector = 2 * model.links.colours;
      model.hasLinkTaps() && perThread % vector != 0)
    return "splits a colour vector (" + std::to_string(vector) +
           " reals) that a link multiplies as a whole; give each thread "
           "whole colour vectors";
  if (hasComplexCoefficients(model) && perThread % 2 != 0)
    return "splits a complex value (re, im) that a complex coefficient "
           "multiplies as a whole; give each thread whole complex values";
  if (const int width = model.componentsPerAccess(); perThread % width != 0)
    return "is not a multiple of 'kernel.vector_width' " +
           std::to_string(width) + "; each thread's components must be " +
           "whole vector accesses";
  if (const int vector = model.layout.vector; perThread % vector != 0)
    return "is not a multiple of 'field.layout.vector' " +
           std::to_string(vector) + "; each thread's components must be " +
           "whole groups of the layout";
  return "";
}

namespace {

/// The access-size rule both kinds of vector access share.
std::string vectorBytesProblem(const StencilModel &model, int width) {
  if (width * model.elementBytes() > 16)
    return std::string("of ") + model.valueType() + " makes " +
           std::to_string(width * model.elementBytes()) +
           "-byte accesses; GPUs load at most 16 bytes per instruction";
  return "";
}

} // namespace

std::string componentVectorProblem(const StencilModel &model, int width) {
  if (width == 1)
    return "";
  if (model.layout.order != LayoutOrder::SiteMajor)
    return std::string("needs the site-major (aos) layout, whose components "
                       "are contiguous; the '") +
           layoutOrderName(model.layout.order) +
           "' layout stores a site's components apart";
  if (model.components % width != 0)
    return "does not divide the " + std::to_string(model.components) +
           " components per site";
  return vectorBytesProblem(model, width);
}

std::string linkVectorProblem(const StencilModel &model, int vector) {
  if (vector == 1)
    return "";
  if (model.links.order == LayoutOrder::SiteMajor)
    return "groups the reals of one array per real ('soa') or of a block of "
           "sites ('aosoa'); the 'aos' layout already keeps a matrix's reals "
           "together";
  if (model.links.realsPerLink() % vector != 0)
    return "does not divide the " + std::to_string(model.links.realsPerLink()) +
           " reals of a link; a load must not straddle two matrices";
  return vectorBytesProblem(model, vector);
}

std::string fieldVectorProblem(const StencilModel &model, int vector) {
  if (vector == 1)
    return "";
  if (vector != 2 && vector != 4)
    return "must be 1, 2 or 4 values per load";
  if (model.components == 1)
    return "groups a site's values, and this field has one per site; "
           "'kernel.vector_width' moves sites along x together";
  if (model.layout.order == LayoutOrder::SiteMajor)
    return "groups the values of one component's array ('soa') or of a "
           "block of sites ('aosoa'); the 'aos' layout already keeps a "
           "site's values together ('kernel.vector_width' loads them)";
  if (model.components % vector != 0)
    return "does not divide the " + std::to_string(model.components) +
           " values per site";
  if (model.kernel.vectorWidth > 1)
    return "cannot be combined with 'kernel.vector_width' " +
           std::to_string(model.kernel.vectorWidth) +
           ", which moves each component's row of sites along x; the "
           "layout's groups interleave the components' rows";
  return vectorBytesProblem(model, vector);
}

std::string siteVectorProblem(const StencilModel &model, int width) {
  if (std::string problem = vectorBytesProblem(model, width); !problem.empty())
    return problem;
  const FieldLayout &layout = model.layout;
  if (layout.hasSubdomains() || layout.evenOdd)
    return "needs rows stored whole; subdomains and even/odd storage break "
           "rows into pieces";
  if (model.components > 1) {
    if (layout.vector > 1)
      return "moves each component's row of sites along x, and the layout's "
             "groups of " +
             std::to_string(layout.vector) +
             " values ('field.layout.vector') interleave the components' "
             "rows";
    // Each component's row moves as one run: the layout must keep a row's
    // sites of one component adjacent, a group never straddling a block.
    if (layout.order == LayoutOrder::Blocked && layout.block % width != 0)
      return "needs blocks of sites ('aosoa:" + std::to_string(layout.block) +
             "') that hold whole groups; use a block that is a multiple of " +
             std::to_string(width);
    if (model.hasLinkTaps() || model.hasCloverTap() ||
        hasComplexCoefficients(model))
      return "moves each component's row on its own, and link, clover and "
             "complex taps mix a site's components; keep one site per thread";
  } else if (layout.order != LayoutOrder::SiteMajor) {
    return std::string("takes a single component in the 'aos' layout (its "
                       "'") +
           layoutOrderName(layout.order) +
           "' storage is the same array); write 'layout: aos'";
  }
  if (model.kernel.tileAxis == 0 && model.kernel.tileFactor > 1)
    return "cannot be combined with tiling along x; tile along another axis";
  return "";
}

} // namespace stencilc
