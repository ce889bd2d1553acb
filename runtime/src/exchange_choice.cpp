#include "stencil/exchange_choice.hpp"

#include "stencil/device.hpp"
#include "stencil/environment.hpp"
#include "stencil/halo_exchange.hpp"
#include "stencil/tuning.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <vector>

namespace stencil {

namespace {

constexpr ExchangeTransport kTransports[] = {
    ExchangeTransport::Auto, ExchangeTransport::Peer,
    ExchangeTransport::Staged, ExchangeTransport::GpuAware};

std::string trimmed(const std::string &text) {
  const size_t first = text.find_first_not_of(" \t");
  if (first == std::string::npos)
    return "";
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

bool transport_named(const std::string &name, ExchangeTransport &out) {
  for (ExchangeTransport t : kTransports)
    if (name == exchange_transport_name(t)) {
      out = t;
      return true;
    }
  return false;
}

std::string describe(const ExchangeOptions &options) {
  return std::string("transport ") +
         exchange_transport_name(options.transport) + ", overlap " +
         (options.overlap ? "on" : "off");
}

/// Step 2: the last exchange entry of the file for this stencil, device,
/// extents and grid.
Status from_cache_file(const std::string &path, const KernelInfo &spec,
                       const std::string &size, const int *grid,
                       const std::string &device, ExchangeSelection &out,
                       bool &found) {
  found = false;
  std::vector<TuningCacheLine> lines;
  STENCIL_TRY(read_tuning_cache(path, lines));
  const int dims = spec.shape.dims;
  for (const TuningCacheLine &entry : lines) {
    if (entry.spec != spec.name || entry.fingerprint != spec.fingerprint ||
        entry.device != device || entry.extents != size ||
        !is_exchange_entry(entry.options))
      continue;
    int recorded[kMaxDims] = {1, 1, 1, 1};
    ExchangeOptions options{};
    const Status parsed =
        parse_exchange_options(entry.options, dims, recorded, options);
    if (!parsed.ok())
      return Status::failure(path + ":" + std::to_string(entry.line) + ": " +
                             parsed.message());
    // read_tuning_cache checked its time and rate, as `stencilc generate
    // --tune-cache` does.
    bool same = true;
    for (int axis = 0; axis < dims; ++axis)
      same = same && recorded[axis] == grid[axis];
    if (!same)
      continue;
    found = true; // the last entry wins: later tuning runs append
    out.options = options;
    out.description = "tuned: " + describe(options) + " (" + path + ":" +
                      std::to_string(entry.line) + ", " + entry.ms +
                      " ms per application when tuned)";
  }
  return Status();
}

} // namespace

const char *exchange_transport_name(ExchangeTransport transport) {
  switch (transport) {
  case ExchangeTransport::Auto:
    return "auto";
  case ExchangeTransport::Peer:
    return "peer";
  case ExchangeTransport::Staged:
    return "staged";
  case ExchangeTransport::GpuAware:
    return "gpu-aware";
  }
  return "?";
}

std::string exchange_options_text(const int *grid, int dims,
                                  const ExchangeOptions &options) {
  std::string text = "grid=";
  for (int axis = 0; axis < dims; ++axis)
    text += (axis ? "x" : "") + std::to_string(grid[axis]);
  return text + "; transport=" + exchange_transport_name(options.transport) +
         "; overlap=" + (options.overlap ? "on" : "off");
}

Status parse_exchange_options(const std::string &text, int dims, int *grid,
                              ExchangeOptions &out) {
  bool have_grid = false, have_transport = false, have_overlap = false;
  std::stringstream items(text);
  std::string item;
  while (std::getline(items, item, ';')) {
    item = trimmed(item);
    if (item.empty())
      continue;
    const size_t equals = item.find('=');
    const std::string key =
        trimmed(equals == std::string::npos ? item : item.substr(0, equals));
    const std::string value =
        equals == std::string::npos ? "" : trimmed(item.substr(equals + 1));
    const std::string bad = "'" + item + "': ";
    // A repeated item had replaced the first without a word.
    if ((key == "grid" && have_grid) ||
        (key == "transport" && have_transport) ||
        (key == "overlap" && have_overlap))
      return Status::failure(bad + "'" + key + "' given twice");
    if (key == "grid") {
      if (!value.empty() && value.back() == 'x')
        return Status::failure(bad + "expected " + std::to_string(dims) +
                               " ranks per axis");
      std::stringstream parts(value);
      std::string part;
      int axis = 0;
      while (std::getline(parts, part, 'x')) {
        char *end = nullptr;
        const long n = std::strtol(part.c_str(), &end, 10);
        if (part.empty() || *end != '\0' || n < 1 || n > 1 << 20 ||
            axis >= dims)
          return Status::failure(bad + "expected " + std::to_string(dims) +
                                 " positive ranks per axis, e.g. grid=" +
                                 (dims == 4 ? "1x1x2x2" : "1x1x2"));
        grid[axis++] = static_cast<int>(n);
      }
      if (axis != dims)
        return Status::failure(bad + "expected " + std::to_string(dims) +
                               " ranks per axis");
      have_grid = true;
    } else if (key == "transport") {
      if (!transport_named(value, out.transport))
        return Status::failure(bad +
                               "expected auto, peer, staged or gpu-aware");
      have_transport = true;
    } else if (key == "overlap") {
      if (value != "on" && value != "off")
        return Status::failure(bad + "expected on or off");
      out.overlap = value == "on";
      have_overlap = true;
    } else {
      return Status::failure(bad + "unknown item of a halo-exchange entry "
                                   "(grid, transport, overlap)");
    }
  }
  if (!have_grid || !have_transport || !have_overlap)
    return Status::failure("'" + text + "': a halo-exchange entry names "
                                        "grid, transport and overlap");
  return Status();
}

Status check_exchange_environment() {
  if (const char *asked = environment_value("STENCILC_EXCHANGE")) {
    const std::string value = asked;
    if (value != "peer" && value != "staged" && value != "gpu-aware")
      return Status::failure("STENCILC_EXCHANGE='" + value +
                             "': expected peer, staged or gpu-aware");
  }
  if (const char *asked = environment_value("STENCILC_OVERLAP")) {
    const std::string value = asked;
    if (value != "on" && value != "off")
      return Status::failure("STENCILC_OVERLAP='" + value +
                             "': expected on or off");
  }
  return Status();
}

Status select_exchange(const KernelInfo &spec, const int *extents,
                       const int *grid, const std::string &device,
                       ExchangeSelection &out) {
  if (!spec.distributed)
    return Status::failure(std::string(spec.name) +
                           ": its spec does not declare grid.split");
  const DistributedInfo &d = *spec.distributed;
  const int dims = spec.shape.dims;
  out.options = d.exchange;
  out.description = "the spec's grid.exchange: " + describe(d.exchange);
  bool off = false;
  STENCIL_TRY(tuning_switch(off));
  const bool tuning = !off;
  if (!tuning)
    out.description += " (STENCILC_TUNING=off)";
  const std::string size = extents_text(extents, dims);
  bool found = false;
  const char *path = environment_value("STENCILC_TUNE_CACHE");
  if (tuning && path)
    STENCIL_TRY(from_cache_file(path, spec, size, grid, device, out, found));
  for (int i = 0; tuning && !found && i < d.num_tuned_exchange; ++i) {
    const TunedExchange &entry = d.tuned_exchange[i];
    bool same = device == entry.device;
    for (int axis = 0; axis < dims; ++axis)
      same = same && entry.extents[axis] == extents[axis] &&
             entry.grid[axis] == grid[axis];
    if (!same)
      continue;
    found = true;
    out.options = entry.options;
    std::ostringstream ms;
    ms << entry.ms;
    out.description = "tuned: " + describe(entry.options) +
                      " (compiled-in tuning-cache entry, " + ms.str() +
                      " ms per application when tuned)";
  }
  std::string source = found ? "the tuning cache" : "the spec's grid.exchange";
  STENCIL_TRY(check_exchange_environment());
  if (const char *asked = environment_value("STENCILC_EXCHANGE")) {
    const std::string value = asked;
    transport_named(value, out.options.transport);
    out.description += "; transport " + value + " (STENCILC_EXCHANGE)";
    source = "STENCILC_EXCHANGE";
  }
  if (const char *asked = environment_value("STENCILC_OVERLAP")) {
    const std::string value = asked;
    out.options.overlap = value == "on";
    out.description += "; overlap " + value + " (STENCILC_OVERLAP)";
  }
  if (out.options.transport == ExchangeTransport::GpuAware &&
      backend_name() != "host" && !mpi_gpu_aware())
    return Status::failure(
        std::string(spec.name) + ": " + source +
        " asks for the gpu-aware transport, but the MPI library does not "
        "move GPU memory (MPIX_Query_cuda_support / "
        "MPIX_Query_rocm_support); choose peer or staged");
  return Status();
}

} // namespace stencil
