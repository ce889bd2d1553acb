//===- DeviceRules.h - A GPU's rules where its model is unfit ---*- C++ -*-===//
//
// A known GPU whose cost model was not fitted to a stencil
// (DeviceModel::fitted) runs the first device's choice of the stencil's open
// options (tune/DevicePlans.h). Where that GPU's own runs found a change of
// such a choice faster on stencils of one kind, the change is a rule of
// that device, applied to the first device's choice; the kernels that
// differ are compiled beside as NAME_<tag>. Each rule records its reason in
// the options' notes for `stencilc plan --device`.
//
//===----------------------------------------------------------------------===//
#ifndef STENCILC_PLAN_DEVICERULES_H
#define STENCILC_PLAN_DEVICERULES_H

#include "check/Model.h"
#include "plan/CostModel.h"

#include <optional>
#include <string>

namespace stencilc {

/// The device whose choice of `open`'s options `generate` compiles for a
/// GPU of `device`'s name: `device` itself where it is the first known
/// device or its model was fitted to stencils like `open`
/// (DeviceModel::fitted), else the first device, whose choice then runs
/// there as `device`'s rules change it (plannedModel).
const DeviceModel &plannedFor(const StencilModel &open,
                              const DeviceModel &device);

/// What `generate` compiles for a GPU of `device`'s name: `open` with its
/// options chosen by plannedFor's cost model, and where that is the first
/// device's, with `device`'s rules for such stencils (applyDeviceRules);
/// `changedByRules`, where given, says whether a rule changed that choice.
StencilModel plannedModel(const StencilModel &open, const DeviceModel &device,
                          bool *changedByRules = nullptr);

/// A rule's options for the spec's own kernels, and its words.
struct DeviceRule {
  KernelOptions options;
  std::string minimum; ///< for the min_blocks_per_sm note
  std::string share;   ///< for components_per_thread's; empty if unchanged
};

/// `device`'s rule for unmarched kernels of 4-D site-major vector fields
/// (DeviceModel::vectorSiteResidentThreads), applied to `chosen` (the first
/// device's choice): a minimum of resident blocks that keeps that many
/// threads an SM, and a thread moving at least 16 bytes of a site a tap
/// (wholeVectorShare) where its share moved fewer; none where the rule
/// does not apply or the spec writes what it would change.
std::optional<DeviceRule> residentVectorSites(const StencilModel &chosen,
                                              const DeviceModel &device);

/// Applies `device`'s rules to `chosen`, the first known device's choice
/// of its options, and says so in its notes; CG's fold pass keeps the
/// first device's kernels. Returns whether a rule changed it.
bool applyDeviceRules(StencilModel &chosen, const DeviceModel &device);

} // namespace stencilc

#endif
