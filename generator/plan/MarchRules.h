//===- MarchRules.h - Kernels the planner marches by rule -------*- C++ -*-===//
//
// The cost model (CostModel.h) does not weigh a march along the slowest
// axis (kernel.march), so where the spec leaves the tile open the planner
// marches by rule the kernels that measured faster marching on an H200:
// the groups' kernels of some single-component fields (marchingGroups), and
// the spec's own kernels of 4-D site-major float tori that move whole
// vectors a tap, at least 16 bytes where the share is open
// (marchingVectorSites). Each rule returns the options it would run, with
// its reason for `stencilc plan`, or none where it does not apply.
//
//===----------------------------------------------------------------------===//
#ifndef STENCILC_PLAN_MARCHRULES_H
#define STENCILC_PLAN_MARCHRULES_H

#include "check/Model.h"

#include <optional>
#include <string>

namespace stencilc {

/// A kernel the planner marches by rule, and the rule's words for the note.
struct MarchRule {
  KernelOptions options;
  std::string reason;
  /// The threads a multiprocessor keeps resident by the rule's minimum of
  /// resident blocks; 0 where the rule sets no minimum.
  int residentThreads = 0;
  /// The rule's words for its resident minimum and for the values a
  /// thread moves (marchingVectorSites; empty where the rule leaves them).
  std::string minimum;
  std::string share;
};

/// The groups' kernels (`grouped`: the model with its groups of sites
/// along x chosen) marching along the slowest axis, where the spec leaves
/// the tile open: 3-D Dirichlet fields whose taps off the z axis reach along
/// z, and 4-D tori whose taps reach along t; single-component fields only.
std::optional<MarchRule> marchingGroups(const StencilModel &grouped);

/// The spec's own kernels (`chosen`: the cost model's choice) marching
/// along t, where the spec leaves the tile, the launch bounds and the
/// resident minimum open: 4-D site-major float tori in plain storage whose
/// threads move whole vectors of a site a tap (one vector, or the fewest
/// that move 16 bytes).
std::optional<MarchRule> marchingVectorSites(const StencilModel &chosen);

/// The share of the device's L2 (percent) past which two slices along t of
/// a component-major field's traffic make the planner's groups march
/// (marchingComponentRows, stencil::slices_exceed_l2).
constexpr int kRowMarchL2Percent = 60;

/// The groups' kernels (`grouped`: the model with its groups of sites
/// along x chosen) of a component-major (soa or aosoa) 4-D float torus
/// marching along t, for lattices too large for the L2 to keep two slices
/// of their traffic (kRowMarchL2Percent): where the spec leaves the tile,
/// the components a thread, the launch bounds and the resident minimum
/// open. Such marches lose on smaller lattices, so they are compiled beside
/// the groups (StencilModel::largeAlongX), not in their place.
std::optional<MarchRule> marchingComponentRows(const StencilModel &grouped);

/// The values of a site a thread moves a tap, for the march and the H200's
/// rule for unmarched vector sites (DeviceRules.h): one vector where the
/// spec writes that share or leaves it open and a vector moves 16 bytes;
/// where it is open and a vector moves fewer, the fewest whole vectors that
/// divide the site and move at least 16 bytes (a whole site of 6 floats in
/// vectors of 2). 0 where none fits.
int wholeVectorShare(const StencilModel &chosen);

} // namespace stencilc

#endif
