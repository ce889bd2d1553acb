//===- DevicePlans.cpp - The planner's choices for each known GPU ---------===//

#include "tune/DevicePlans.h"

#include "plan/ChooseOptions.h"
#include "plan/Plan.h"
#include "tune/TuningCache.h"

using namespace llvm;

namespace stencilc {

namespace {

/// What one level (the spec's kernels, or the inner precision's) compiles:
/// its kernels' options, its groups along x' and its fold pass's.
std::string levelKey(const StencilModel &m) {
  return tuningOptionsText(m) + " | along x: " +
         (m.alongX ? tuningOptionsText(alongXVariantModel(m)) : "") +
         " | fold: " +
         (m.foldPass ? tuningOptionsText(foldPassVariantModel(m)) : "");
}

/// Adds `forDevice`'s kernels of one level to `tuned`, named after `base`
/// (that level's kernels as planned for the first device).
Error addLevel(const StencilModel &base, const StencilModel &forDevice,
               const DeviceModel &device, TunedKernels &tuned) {
  if (levelKey(base) == levelKey(forDevice))
    return Error::success();
  auto add = [&](StencilModel variant, bool foldPass) -> Error {
    if (foldPass && !planFoldPass(variant))
      return createStringError(
          inconvertibleErrorCode(),
          "the planner's kernels for CG's fold pass on %s, %s, have no fold "
          "pass",
          device.name.c_str(), variant.name.c_str());
    TunedChoice choice;
    choice.device = device.name;
    choice.xMultiple = variant.sitesPerThreadX();
    choice.foldPass = foldPass;
    if (!foldPass && tuningOptionsText(variant) == tuningOptionsText(base)) {
      choice.variant = -1; // the spec's own kernels have these options
    } else {
      Expected<EmittedStencil> files =
          emitStencil(variant, planKernels(variant));
      if (!files)
        return files.takeError();
      choice.variant = static_cast<int>(tuned.variants.size());
      tuned.variants.push_back(
          {std::move(variant), std::move(*files), true, device.name});
    }
    tuned.choices.push_back(std::move(choice));
    return Error::success();
  };
  // Named NAME_<tag>, its second kernels NAME_<tag>_xW and NAME_<tag>_fold.
  StencilModel named = forDevice;
  named.name = base.name + "_" + device.tag;
  // In the runtime's order of preference: groups along x where nx allows
  // them, then one site per thread for every nx.
  if (named.alongX)
    if (Error error = add(alongXVariantModel(named), false))
      return error;
  if (Error error =
          add(plannerKernelsModel(named, named.kernel, named.name), false))
    return error;
  if (named.foldPass)
    if (Error error = add(foldPassVariantModel(named), true))
      return error;
  return Error::success();
}

} // namespace

bool samePlannedKernels(const StencilModel &a, const StencilModel &b) {
  if (levelKey(a) != levelKey(b) || a.hasInner != b.hasInner)
    return false;
  return !a.hasInner ||
         levelKey(innerKernelsModel(a)) == levelKey(innerKernelsModel(b));
}

std::vector<DevicePlan> otherDevicePlans(const StencilModel &open,
                                         const StencilModel &chosen) {
  std::vector<DevicePlan> plans;
  const std::vector<const DeviceModel *> &devices = knownDevices();
  for (size_t i = 1; i < devices.size(); ++i) {
    if (!devices[i]->fitted(open))
      continue;
    StencilModel m = open;
    chooseOpenOptions(m, *devices[i]);
    if (!samePlannedKernels(m, chosen))
      plans.push_back({devices[i], std::move(m)});
  }
  return plans;
}

Error addDevicePlanVariants(const StencilModel &chosen, const DevicePlan &plan,
                            TunedKernels &tuned) {
  if (Error error = addLevel(chosen, plan.model, *plan.device, tuned))
    return error;
  if (!chosen.hasInner)
    return Error::success();
  if (!tuned.inner)
    tuned.inner = std::make_shared<TunedKernels>();
  return addLevel(innerKernelsModel(chosen), innerKernelsModel(plan.model),
                  *plan.device, *tuned.inner);
}

} // namespace stencilc
