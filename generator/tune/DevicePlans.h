//===- DevicePlans.h - The planner's choices for each known GPU -*- C++ -*-===//
//
// The planner chooses the options a spec leaves open with a cost model of
// one device (plan/CostModel.h); the spec's own kernels are planned for the
// first of knownDevices(). Where another known device's model chooses
// otherwise (the H200's higher bandwidth against the same L2 and
// multiprocessors favours tiles along z, for example), its choice is
// compiled beside the spec's kernels as planner variants for that device
// alone, NAME_<tag> (and NAME_<tag>_xW, NAME_<tag>_fold, and the inner
// precision's NAME_inner_<tag>...), which the runtime picks on a GPU of that
// name (stencil/tuning.hpp). A device whose model was not fitted to the
// stencil runs the first device's choice, changed by its own rules where
// they apply (plan/DeviceRules.h).
//
//===----------------------------------------------------------------------===//
#ifndef STENCILC_TUNE_DEVICEPLANS_H
#define STENCILC_TUNE_DEVICEPLANS_H

#include "check/Model.h"
#include "emit/Emit.h"
#include "plan/CostModel.h"
#include "plan/DeviceRules.h"
#include "plan/Plan.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <vector>

namespace stencilc {

/// One device's choice of `open`'s options.
struct DevicePlan {
  const DeviceModel *device = nullptr;
  StencilModel model; ///< open as plannedModel plans it for `device`
};

/// The planner's choice (plannedModel) on every known device after the
/// first whose planned kernels differ from `chosen` (`open` with the first
/// device's choice): its own model's choice where it was fitted to
/// stencils like `open` (DeviceModel::fitted), else the first device's
/// with its rules. `open` is the model before any choice. Empty where the
/// spec leaves no option open or every device compiles the same.
std::vector<DevicePlan> otherDevicePlans(const StencilModel &open,
                                         const StencilModel &chosen);

/// Whether two choices compile the same kernels: the same options for the
/// spec's kernels, its groups along x and its fold pass, and (inner
/// precision) the inner kernels' likewise.
bool samePlannedKernels(const StencilModel &a, const StencilModel &b);

/// What `plan` compiles beside `chosen`'s kernels, as `stencilc plan`
/// reports it: the levels (the spec's precision, the inner one) whose
/// kernels differ, named as compiled.
DeviceChoice compiledChoice(const StencilModel &chosen, const DevicePlan &plan);

/// "planned for NVIDIA H200 (...):" and a line per kernel set compiled for
/// that GPU, with its options; nothing for an empty choice.
void printDeviceChoice(const DeviceChoice &choice, llvm::raw_ostream &os);

/// Adds `plan`'s kernels to `tuned` (and to tuned.inner for the inner
/// precision's), chosen on a GPU named plan.device->name for any extents:
/// its groups along x where nx allows them, else its kernels for one site
/// per thread (the spec's own kernels where they have the same options);
/// its fold pass as CG's fold-pass kernels. Levels (outer, inner) whose
/// kernels equal `chosen`'s add nothing: the spec's planner variants serve.
llvm::Error addDevicePlanVariants(const StencilModel &chosen,
                                  const DevicePlan &plan, TunedKernels &tuned);

} // namespace stencilc

#endif
