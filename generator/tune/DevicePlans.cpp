//===- DevicePlans.cpp - The planner's choices for each known GPU ---------===//

#include "tune/DevicePlans.h"

#include "plan/ChooseOptions.h"
#include "plan/MarchRules.h"
#include "plan/Plan.h"
#include "tune/TuningCache.h"

#include "llvm/ADT/STLExtras.h"

using namespace llvm;

namespace stencilc {

namespace {

/// What one level (the spec's kernels, or the inner precision's) compiles:
/// its kernels' options, its groups along x' and its fold pass's.
std::string levelKey(const StencilModel &m) {
  return tuningOptionsText(m) + " | along x: " +
         (m.alongX ? tuningOptionsText(alongXVariantModel(m)) : "") +
         " | large lattices: " +
         (m.largeAlongX ? tuningOptionsText(largeAlongXVariantModel(m)) : "") +
         " | fold: " +
         (m.foldPass ? tuningOptionsText(foldPassVariantModel(m)) : "");
}

/// The rows `forDevice`'s kernels of one level add beside `base` (that
/// level's kernels as planned for the first device), in the runtime's order
/// of preference: groups along x where nx allows them, then one site per
/// thread for every nx; then CG's fold pass. None where the two levels
/// compile the same kernels. Named NAME_<tag>, NAME_<tag>_xW and
/// NAME_<tag>_fold, or after the level's own kernels, its groups along x or
/// its fold pass where those have the same options (compiled once).
std::vector<DeviceChoice::Row> levelRows(const StencilModel &base,
                                         const StencilModel &forDevice,
                                         const DeviceModel &device) {
  if (levelKey(base) == levelKey(forDevice))
    return {};
  std::vector<StencilModel> existing = {base};
  if (base.largeAlongX)
    existing.push_back(largeAlongXVariantModel(base));
  if (base.alongX)
    existing.push_back(alongXVariantModel(base));
  if (base.foldPass)
    existing.push_back(foldPassVariantModel(base));
  std::vector<DeviceChoice::Row> rows;
  auto add = [&](StencilModel variant, bool foldPass, int l2Percent = 0) {
    const std::string options = tuningOptionsText(variant);
    for (const StencilModel &m : existing)
      if (tuningOptionsText(m) == options)
        variant.name = m.name;
    const int multiple = variant.sitesPerThreadX();
    rows.push_back({std::move(variant), multiple, foldPass, l2Percent});
  };
  StencilModel named = forDevice;
  named.name = base.name + "_" + device.tag;
  if (named.largeAlongX)
    add(largeAlongXVariantModel(named), false, kRowMarchL2Percent);
  if (named.alongX)
    add(alongXVariantModel(named), false);
  // CG's fold pass keeps the groups where the others march (Tune.cpp).
  if (named.largeAlongX && named.alongX && !named.foldPass)
    add(alongXVariantModel(named), true);
  add(plannerKernelsModel(named, named.kernel, named.name), false);
  if (named.foldPass)
    add(foldPassVariantModel(named), true);
  return rows;
}

/// Adds one level's rows to `tuned`, compiling the kernels not compiled
/// yet; `base` is that level's own.
Error addLevel(const StencilModel &base, const StencilModel &forDevice,
               const DeviceModel &device, TunedKernels &tuned) {
  for (DeviceChoice::Row &row : levelRows(base, forDevice, device)) {
    if (row.foldPass && !planFoldPass(row.model))
      return createStringError(
          inconvertibleErrorCode(),
          "the planner's kernels for CG's fold pass on %s, %s, have no fold "
          "pass",
          device.name.c_str(), row.model.name.c_str());
    TunedChoice choice;
    choice.device = device.name;
    choice.xMultiple = row.nxMultiple;
    choice.foldPass = row.foldPass;
    choice.l2Percent = row.l2Percent;
    auto same = llvm::find_if(tuned.variants, [&](const TunedVariant &v) {
      return v.model.name == row.model.name;
    });
    if (row.model.name == base.name) {
      choice.variant = -1; // the spec's own kernels
    } else if (same != tuned.variants.end()) {
      choice.variant = static_cast<int>(same - tuned.variants.begin());
    } else {
      Expected<EmittedStencil> files =
          emitStencil(row.model, planKernels(row.model));
      if (!files)
        return files.takeError();
      choice.variant = static_cast<int>(tuned.variants.size());
      tuned.variants.push_back({std::move(row.model), std::move(*files), true});
    }
    tuned.choices.push_back(std::move(choice));
  }
  return Error::success();
}

} // namespace

DeviceChoice compiledChoice(const StencilModel &chosen,
                            const DevicePlan &plan) {
  DeviceChoice choice{plan.device->name, plan.device->tag,
                      levelRows(chosen, plan.model, *plan.device)};
  if (chosen.hasInner)
    for (DeviceChoice::Row &row :
         levelRows(innerKernelsModel(chosen), innerKernelsModel(plan.model),
                   *plan.device))
      choice.rows.push_back(std::move(row));
  return choice;
}

void printDeviceChoice(const DeviceChoice &choice, raw_ostream &os) {
  if (choice.rows.empty())
    return;
  os << "planned for " << choice.device
     << " (compiled beside, run on that GPU; `stencilc plan --device "
     << choice.tag << "` says why):\n";
  for (const DeviceChoice::Row &row : choice.rows)
    os << "  " << row.model.name << " ("
       << (row.foldPass ? "CG's fold pass, " : "")
       << (row.nxMultiple > 1
               ? "nx a multiple of " + std::to_string(row.nxMultiple)
               : std::string("every nx"))
       << largeLatticeText(row.l2Percent)
       << "): " << tuningOptionsText(row.model) << "\n";
  os << "\n";
}

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
    const DeviceModel &device = *devices[i];
    // Where the first device's choice runs there, `chosen` is that choice:
    // only the device's rules are left to apply (plannedModel, without
    // choosing again).
    StencilModel m = chosen;
    if (&plannedFor(open, device) == &device)
      m = plannedModel(open, device);
    else if (!applyDeviceRules(m, device))
      continue;
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
