#include "stencil/tuning.hpp"

#include "stencil/device.hpp"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

namespace stencil {

std::string extents_text(const int *extents, int dims) {
  std::string text;
  for (int axis = 0; axis < dims; ++axis)
    text += (axis ? "x" : "") + std::to_string(extents[axis]);
  return text;
}

namespace {

std::vector<std::string> split_tabs(const std::string &line) {
  std::vector<std::string> fields;
  std::string field;
  std::stringstream stream(line);
  while (std::getline(stream, field, '\t'))
    fields.push_back(field);
  return fields;
}

/// The compiled-in variant (or the spec itself) with these options.
const KernelInfo *variant_with(const KernelInfo &spec,
                               const std::string &options) {
  if (options == spec.tuning_options)
    return &spec;
  for (int i = 0; i < spec.num_tuned; ++i) {
    const KernelInfo &variant = spec.tuned[i].info();
    if (options == variant.tuning_options)
      return &variant;
  }
  return nullptr;
}

/// Step 2: the cache file named by STENCILC_TUNE_CACHE. `found` says
/// whether it has an entry for this stencil, device and extents.
Status from_cache_file(const std::string &path, const KernelInfo &spec,
                       const std::string &size, const std::string &device,
                       KernelSelection &out, bool &found) {
  found = false;
  std::ifstream file(path);
  if (!file)
    return Status::failure("STENCILC_TUNE_CACHE: cannot read '" + path + "'");
  std::string line, options, gbs;
  int number = 0, chosen = 0;
  while (std::getline(file, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    if (line.empty() || line[0] == '#')
      continue;
    std::vector<std::string> fields = split_tabs(line);
    if (fields.size() != 7)
      return Status::failure(path + ":" + std::to_string(number) +
                             ": expected 7 tab-separated fields (spec, "
                             "fingerprint, device, extents, options, ms, "
                             "GB/s), found " +
                             std::to_string(fields.size()));
    if (fields[0] == spec.name && fields[1] == spec.fingerprint &&
        fields[2] == device && fields[3] == size) {
      found = true; // the last entry wins: later tuning runs append
      options = fields[4];
      gbs = fields[6];
      chosen = number;
    }
  }
  if (!found)
    return Status();
  out.info = variant_with(spec, options);
  if (!out.info)
    return Status::failure(
        path + ":" + std::to_string(chosen) + ": the tuning cache chooses '" +
        options + "' for " + spec.name + " on " + device + " at " + size +
        ", but this build has no such variant of " + spec.name +
        ": regenerate its code with `stencilc generate --tune-cache " + path +
        "`, or unset STENCILC_TUNE_CACHE");
  out.description = "tuned: " + options + " (" + path + ":" +
                    std::to_string(chosen) + ", " + gbs + " GB/s when tuned)";
  return Status();
}

} // namespace

Status select_kernels(const KernelInfo &spec, const int *extents,
                      const std::string &device, KernelSelection &out) {
  out.info = &spec;
  out.description = std::string("the spec's own options: ") +
                    spec.tuning_options;
  const char *switch_ = std::getenv("STENCILC_TUNING");
  if (switch_ && std::strcmp(switch_, "off") == 0) {
    out.description += " (STENCILC_TUNING=off)";
    return Status();
  }
  const std::string size = extents_text(extents, spec.shape.dims);
  const char *path = std::getenv("STENCILC_TUNE_CACHE");
  if (path && *path) {
    bool found = false;
    STENCIL_TRY(from_cache_file(path, spec, size, device, out, found));
    if (found)
      return Status();
  }
  for (int i = 0; i < spec.num_tuned; ++i) {
    const TunedChoice &choice = spec.tuned[i];
    bool same = device == choice.device;
    for (int axis = 0; axis < spec.shape.dims; ++axis)
      same = same && choice.extents[axis] == extents[axis];
    if (!same)
      continue;
    out.info = &choice.info();
    out.description = std::string("tuned: ") + out.info->tuning_options +
                      " (compiled-in tuning-cache entry, " +
                      std::to_string(choice.gb_s) + " GB/s when tuned)";
    return Status();
  }
  if (spec.num_tuned > 0)
    out.description += " (no tuning-cache entry for " + device + " at " +
                       size + ")";
  return Status();
}

} // namespace stencil
