//===- ChooseOptions.h - The planner's choice of open kernel options -*- C++ -*-===//
//
// A spec may leave any kernel option open (block, tile, vector width,
// components per thread, launch bounds, load order, stores). The planner
// fills them with the candidate the cost model (CostModel.h) predicts
// fastest on the device, keeping every option the spec wrote, and records
// each decision with its reason in StencilModel::optionNotes, which
// `stencilc plan` prints and the manifest carries.
//
//===----------------------------------------------------------------------===//
#ifndef STENCILC_PLAN_CHOOSEOPTIONS_H
#define STENCILC_PLAN_CHOOSEOPTIONS_H

#include "check/Model.h"
#include "plan/CostModel.h"

#include <optional>

namespace stencilc {

/// What the choice weighed.
struct OptionSearch {
  int candidates = 0;
  /// The cost model's prediction for its cheapest candidate; a rule the
  /// model does not weigh (a march) may then change the model's kernels.
  KernelCost chosen;
};

/// Chooses `model`'s open kernel options on `device`, and fills
/// model.optionNotes for every option, written or chosen; first, where the
/// spec leaves them open, the storage of an even/odd field
/// (chooseFieldLayout) and of the links and clover term
/// (chooseLinkStorage).
OptionSearch chooseOpenOptions(StencilModel &model,
                               const DeviceModel &device = h100Device());

/// An even/odd field of several values a site whose spec writes no
/// field.layout: site-major (aos), or each half component-major with groups
/// of 2 or 4 values a load ({order: soa, vector: V}; no lattice constraint,
/// unlike blocks of sites), whichever the first known device's cost model
/// predicts fastest for the hops (and the inner precision's, which share
/// the storage), aos unless another predicts 3% less time. Sets
/// model.layout and returns the note `stencilc plan` prints; none where
/// the storage is not open.
std::optional<KernelOptionNote> chooseFieldLayout(StencilModel &model);

/// Links and a clover term whose spec writes no layout: one array per real
/// ('soa'), links in pairs of reals a load, the clover term in 16-byte
/// loads (QUDA's float2/float4 order without its blocks of sites, which ask
/// the lattice for a multiple of their sites). A rule, measured on the
/// H200 (docs/performance.md, "Links and clover stored by the planner");
/// the cost model does not see the caches' waste of site-major matrices.
/// One choice for every GPU; an inner precision's kernels share it. Sets
/// model.links and model.clover and returns the notes `stencilc plan`
/// prints, none where nothing is open.
std::vector<KernelOptionNote> chooseLinkStorage(StencilModel &model);

/// The predicted cost of `model`'s timed kernel with its options as they
/// are: the whole-lattice apply, or for even/odd storage the even-to-odd
/// hop (what the tuner and the benchmark time).
KernelCost predictedCost(const StencilModel &model,
                         const DeviceModel &device = h100Device());

/// The predicted cost of CG's fold pass (apply_fold_dot: the stencil with
/// p' = r + beta p folded in) of `model`'s kernels with their options as
/// they are; none where they have no fold pass.
std::optional<KernelCost>
predictedFoldCost(const StencilModel &model,
                  const DeviceModel &device = h100Device());

/// `model` with every kernel option open, as if its spec had no `kernel`
/// section (the storage, links and clover layouts stay as written): for
/// comparing the cost model's defaults with the spec's own options. Named
/// NAME_auto.
StencilModel withKernelOptionsOpen(const StencilModel &model);

} // namespace stencilc

#endif
