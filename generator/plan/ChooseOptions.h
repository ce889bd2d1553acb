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
/// spec leaves them open, the storage of an even/odd field and of the
/// links and clover term (ChooseStorage.h).
OptionSearch chooseOpenOptions(StencilModel &model,
                               const DeviceModel &device = h100Device());

/// Whether `model`'s kernel options can be compiled and launched as they
/// stand: the launch bounds cover the block, the resident minimum fits a
/// multiprocessor, the site's components split evenly, a staged box fits
/// shared memory and a march keeps its one thread and tile of one along its
/// axis. The planner weighs only such candidates.
bool optionsAdmissible(const StencilModel &model);

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
