#include "stencil/tuning.hpp"

#include "stencil/device.hpp"
#include "stencil/environment.hpp"
#include "stencil/exchange_choice.hpp"
#include "stencil/launch_config.hpp"
#include "stencil/launch_graph.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>
#include <vector>

namespace stencil {

std::string extents_text(const int *extents, int dims) {
  std::string text;
  for (int axis = 0; axis < dims; ++axis)
    text += (axis ? "x" : "") + std::to_string(extents[axis]);
  return text;
}

namespace {

constexpr char kFoldPrefix[] = "kernel=fold;";

/// Whether an entry's options begin (after spaces) with `prefix`.
bool options_start_with(const std::string &options, const char *prefix) {
  const size_t first = options.find_first_not_of(' ');
  return first != std::string::npos &&
         options.compare(first, std::strlen(prefix), prefix) == 0;
}

/// Whether a compiled-in cache entry was recorded on `device` at exactly
/// these extents (the planner's choices for a device are predictions, not
/// entries).
bool recorded_for(const TunedChoice &choice, const std::string &device,
                  const int *extents, int dims) {
  if (!choice.device || device != choice.device || choice.x_multiple > 0)
    return false;
  for (int axis = 0; axis < dims; ++axis)
    if (choice.extents[axis] != extents[axis])
      return false;
  return true;
}

} // namespace

bool is_exchange_entry(const std::string &options) {
  return options_start_with(options, "grid=");
}

bool is_fold_entry(const std::string &options) {
  return options_start_with(options, kFoldPrefix);
}

std::string fold_entry_options(const std::string &options) {
  if (!is_fold_entry(options))
    return options;
  const size_t rest = options.find_first_not_of(
      ' ', options.find_first_not_of(' ') + sizeof kFoldPrefix - 1);
  return rest == std::string::npos ? std::string() : options.substr(rest);
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
/// With `fold`, only the fold pass's entries ("kernel=fold; ..."); without,
/// only the entries for all kernels. `stale` names the last entry that
/// matches but for another version of the stencil (its fingerprint), which
/// is not used: the reports say so rather than "no entry".
Status from_cache_file(const std::string &path, const KernelInfo &spec,
                       const std::string &size, const std::string &device,
                       bool fold, KernelSelection &out, bool &found,
                       std::string &stale) {
  found = false;
  stale.clear();
  std::vector<TuningCacheLine> lines;
  STENCIL_TRY(read_tuning_cache(path, lines));
  const TuningCacheLine *chosen = nullptr;
  for (const TuningCacheLine &entry : lines) {
    if (entry.spec != spec.name || entry.device != device ||
        entry.extents != size || is_exchange_entry(entry.options))
      continue;
    if (entry.fingerprint != spec.fingerprint) {
      if (is_fold_entry(entry.options) == fold)
        stale = path + ":" + std::to_string(entry.line) +
                "'s entry was tuned for another version of " + spec.name +
                " (fingerprint " + entry.fingerprint + ", this build's " +
                spec.fingerprint + ") and is not used";
      continue;
    }
    if (!is_fold_entry(entry.options) &&
        options_start_with(entry.options, "kernel"))
      return Status::failure(
          path + ":" + std::to_string(entry.line) + ": '" + entry.options +
          "': an entry names its kernels only as 'kernel=fold; ' before the "
          "options (CG's fold pass alone); entries for all kernels name none");
    if (is_fold_entry(entry.options) == fold)
      chosen = &entry; // the last entry wins: later tuning runs append
  }
  if (!chosen)
    return Status();
  found = true;
  out.from_cache = true;
  out.info = variant_with(spec, fold_entry_options(chosen->options));
  if (!out.info)
    return Status::failure(
        path + ":" + std::to_string(chosen->line) +
        ": the tuning cache chooses '" + chosen->options + "' for " +
        spec.name + " on " + device + " at " + size +
        ", but this build has no such variant of " + spec.name +
        ": regenerate its code with `stencilc generate --tune-cache " + path +
        "`, or unset STENCILC_TUNE_CACHE");
  out.description = "tuned: " + fold_entry_options(chosen->options) + " (" +
                    path + ":" +
                    std::to_string(chosen->line) + ", " + chosen->gb_s +
                    " GB/s when tuned)";
  return Status();
}

/// `out`'s report with a cache entry that was passed over (from_cache_file's
/// `stale`), if any.
Status note_stale(KernelSelection &out, const std::string &stale) {
  if (!stale.empty())
    out.description += (out.description.empty() ? "" : "; ") + stale;
  return Status();
}

} // namespace

Status check_environment() {
  bool off = false;
  STENCIL_TRY(tuning_switch(off));
  LaunchGraphs graphs;
  STENCIL_TRY(LaunchGraphs::from_environment(graphs));
  long long planes = 0;
  STENCIL_TRY(march_planes_override(planes));
  return check_exchange_environment();
}

Status tuning_switch(bool &off) {
  const char *value = environment_value("STENCILC_TUNING");
  off = value && std::strcmp(value, "off") == 0;
  // "OFF", "0" or a misspelling had silently meant on.
  if (value && !off && std::strcmp(value, "on") != 0)
    return Status::failure(std::string("STENCILC_TUNING='") + value +
                           "': expected on or off");
  return Status();
}

Status read_tuning_cache(const std::string &path,
                         std::vector<TuningCacheLine> &out) {
  out.clear();
  // An ifstream opens a directory and reads it as empty.
  std::error_code error; // other failures: the ifstream below reports them
  if (std::filesystem::is_directory(path, error))
    return Status::failure("STENCILC_TUNE_CACHE: '" + path +
                           "' is a directory, not a tuning cache");
  std::ifstream file(path);
  if (!file)
    return Status::failure("STENCILC_TUNE_CACHE: cannot read '" + path + "'");
  std::string line;
  int number = 0;
  while (std::getline(file, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    // An editor's UTF-8 byte order mark had hidden the first entry.
    if (number == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0)
      line.erase(0, 3);
    if (line.empty() || line[0] == '#')
      continue;
    std::vector<std::string> fields = split_tabs(line);
    if (fields.size() != 7)
      return Status::failure(path + ":" + std::to_string(number) +
                             ": expected 7 tab-separated fields (spec, "
                             "fingerprint, device, extents, options, ms, "
                             "GB/s), found " +
                             std::to_string(fields.size()));
    // The time and rate the reports quote, as `stencilc generate
    // --tune-cache` takes them: a positive time, a rate of at least 0 (the
    // exchange tuner's tenths of a GB/s can round to 0.0).
    auto finite = [](const std::string &text, double &value) {
      char *end = nullptr;
      value = std::strtod(text.c_str(), &end);
      while (*end == ' ')
        ++end;
      return !text.empty() && *end == '\0' && std::isfinite(value);
    };
    double ms = 0.0, gbs = 0.0;
    if (!finite(fields[5], ms) || !(ms > 0))
      return Status::failure(path + ":" + std::to_string(number) +
                             ": time must be a positive number of "
                             "milliseconds, not '" +
                             fields[5] + "'");
    if (!finite(fields[6], gbs) || !(gbs >= 0))
      return Status::failure(path + ":" + std::to_string(number) +
                             ": bandwidth must be a number of GB/s, at "
                             "least 0, not '" +
                             fields[6] + "'");
    out.push_back({number, fields[0], fields[1], fields[2], fields[3],
                   fields[4], fields[5], fields[6]});
  }
  return Status();
}

namespace {

/// Step 4: the planner's compiled-in kernels of `kind`, for any extents,
/// where nx is a multiple of their groups along x and their launch fits;
/// null if none. A GPU the planner chose for (rows with its name, when a
/// known GPU's model chose otherwise than the default device's) takes its
/// own rows: the rows for any device only where it has rows of `kind` and
/// none fits (a launch they cannot make), not where its choice has none of
/// that kind (a fold pass run with the kernels chosen). Where nx allows
/// some whose launch does not fit, `unfit` is the first and `why` says why.
/// Rows for large lattices only (l2_percent) serve where the extents' slices
/// exceed their share of an L2 of `l2_bytes`.
const TunedChoice *planner_choice(const KernelInfo &spec, const int *extents,
                                  const std::string &device,
                                  std::int64_t l2_bytes, TunedKernels kind,
                                  const TunedChoice *&unfit, std::string &why) {
  unfit = nullptr;
  auto planned = [](const TunedChoice &c) { return c.x_multiple > 0; };
  auto mine = [&](const TunedChoice &c) {
    return planned(c) && c.device && device == c.device;
  };
  bool own = false, ownOfKind = false;
  for (int i = 0; i < spec.num_tuned; ++i) {
    own = own || mine(spec.tuned[i]);
    ownOfKind = ownOfKind || (mine(spec.tuned[i]) && spec.tuned[i].kernels == kind);
  }
  auto first = [&](auto serves) -> const TunedChoice * {
    for (int i = 0; i < spec.num_tuned; ++i) {
      const TunedChoice &choice = spec.tuned[i];
      if (!serves(choice) || choice.kernels != kind ||
          extents[0] % choice.x_multiple != 0)
        continue;
      if (choice.l2_percent > 0 &&
          !slices_exceed_l2(spec.shape.dims, extents,
                            choice.info().bytes_per_site, choice.l2_percent,
                            l2_bytes))
        continue;
      LaunchConfig config;
      if (Status fits =
              launch_config(choice.info(), extents, config);
          !fits.ok()) {
        if (!unfit) {
          unfit = &choice;
          why = fits.message();
        }
        continue;
      }
      return &choice;
    }
    return nullptr;
  };
  if (own && !ownOfKind)
    return nullptr;
  if (own)
    if (const TunedChoice *choice = first(mine))
      return choice;
  return first([&](const TunedChoice &c) { return planned(c) && !c.device; });
}

/// "the planner's groups along x, NAME," or "the planner's kernels, NAME,"
/// for a row whose launch does not fit.
std::string unfit_text(const TunedChoice &choice) {
  return std::string("the planner's ") +
         (choice.x_multiple > 1 ? "groups along x, " : "kernels, ") +
         choice.info().name + ",";
}

/// Megabytes (10^6 bytes) with one decimal.
std::string megabytes(std::int64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", static_cast<double>(bytes) / 1e6);
  return text;
}

/// How the planner's choice reads in reports.
std::string planner_text(const TunedChoice &choice, const int *extents,
                         int dims, std::int64_t l2_bytes) {
  std::string text =
      std::string("the planner's") +
      (choice.device ? std::string(" for ") + choice.device : std::string()) +
      ": " + choice.info().tuning_options;
  if (choice.x_multiple > 1)
    text += " (nx = " + std::to_string(extents[0]) + " a multiple of " +
            std::to_string(choice.x_multiple) + ")";
  if (choice.l2_percent > 0)
    text += " (two slices along " + std::string(axis_name(dims - 1)) +
            " move " +
            megabytes(
                two_slices_bytes(dims, extents, choice.info().bytes_per_site)) +
            " MB, past " + std::to_string(choice.l2_percent) + "% of the " +
            megabytes(l2_bytes) + " MB L2)";
  return text;
}

} // namespace

Status select_kernels(const KernelInfo &spec, const int *extents,
                      const std::string &device, std::int64_t l2_bytes,
                      KernelSelection &out) {
  out = KernelSelection{&spec, std::string("the spec's own options: ") +
                                   spec.tuning_options};
  bool off = false;
  STENCIL_TRY(tuning_switch(off));
  if (off) {
    out.description += " (STENCILC_TUNING=off)";
    return Status();
  }
  const std::string size = extents_text(extents, spec.shape.dims);
  const char *path = environment_value("STENCILC_TUNE_CACHE");
  std::string stale;
  if (path) {
    bool found = false;
    STENCIL_TRY(
        from_cache_file(path, spec, size, device, false, out, found, stale));
    if (found)
      return Status();
  }
  bool cached = false;
  for (int i = 0; i < spec.num_tuned; ++i) {
    const TunedChoice &choice = spec.tuned[i];
    if (!choice.device || choice.x_multiple > 0 ||
        choice.kernels != TunedKernels::All)
      continue;
    cached = true;
    if (!recorded_for(choice, device, extents, spec.shape.dims))
      continue;
    out.info = &choice.info();
    out.from_cache = true;
    out.description = std::string("tuned: ") + out.info->tuning_options +
                      " (compiled-in tuning-cache entry, " +
                      std::to_string(choice.gb_s) + " GB/s when tuned)";
    return note_stale(out, stale);
  }
  const std::string why =
      cached ? " (no tuning-cache entry for " + device + " at " + size + ")"
             : "";
  // Step 4: the planner's groups of sites along x, where nx allows them
  // and their launch fits (their block may differ from the spec's).
  const TunedChoice *unfit = nullptr;
  std::string misfit;
  if (const TunedChoice *planned = planner_choice(
          spec, extents, device, l2_bytes, TunedKernels::All, unfit, misfit)) {
    out.info = &planned->info();
    out.description =
        planner_text(*planned, extents, spec.shape.dims, l2_bytes) + why;
    if (unfit)
      out.description += " (" + unfit_text(*unfit) + " do not fit: " +
                         misfit + ")";
    return note_stale(out, stale);
  }
  out.description += why;
  if (unfit)
    out.description +=
        " (" + unfit_text(*unfit) + " do not fit: " + misfit + ")";
  return note_stale(out, stale);
}

Status select_fold_kernels(const KernelInfo &spec, const int *extents,
                           const std::string &device,
                           const KernelSelection &chosen, KernelSelection &out,
                           bool &found) {
  const bool measured = chosen.from_cache; // before `out`, which may be it
  found = false;
  out = KernelSelection{};
  bool off = false;
  STENCIL_TRY(tuning_switch(off));
  if (off)
    return Status();
  const std::string size = extents_text(extents, spec.shape.dims);
  const char *path = environment_value("STENCILC_TUNE_CACHE");
  std::string stale;
  if (path) {
    STENCIL_TRY(
        from_cache_file(path, spec, size, device, true, out, found, stale));
    if (found)
      return Status();
  }
  // Whatever is chosen below, a fold-pass entry passed over is named.
  for (int i = 0; i < spec.num_tuned; ++i) {
    const TunedChoice &choice = spec.tuned[i];
    if (choice.kernels != TunedKernels::FoldPass ||
        !recorded_for(choice, device, extents, spec.shape.dims))
      continue;
    found = true;
    out.info = &choice.info();
    out.from_cache = true;
    out.description = std::string("tuned: ") + out.info->tuning_options +
                      " (compiled-in tuning-cache entry for CG's fold pass, " +
                      std::to_string(choice.gb_s) + " GB/s when tuned)";
    return note_stale(out, stale);
  }
  // Step 4: the planner's predictions give way to a measurement of the
  // other kernels (whose storage they share); where their launch does not
  // fit, the fold pass runs with the chosen kernels.
  if (measured)
    return note_stale(out, stale);
  const TunedChoice *unfit = nullptr;
  std::string misfit;
  if (const TunedChoice *planned =
          planner_choice(spec, extents, device, device_l2_bytes(),
                         TunedKernels::FoldPass, unfit, misfit)) {
    found = true;
    out.info = &planned->info();
    out.description =
        planner_text(*planned, extents, spec.shape.dims, device_l2_bytes());
  } else if (unfit) {
    out.description = "the kernels chosen (the planner's fold kernels, " +
                      std::string(unfit->info().name) + ", do not fit: " +
                      misfit + ")";
  }
  return note_stale(out, stale);
}

} // namespace stencil
