// stencil/tuning.hpp - which kernels run: the spec's own, or a variant the
// tuning cache recorded as fastest for this device and these extents.
//
// `stencilc tune` times variants of a stencil on a GPU and records the best
// in a tuning cache (a tab-separated file, one line per stencil, device and
// extents; see docs/performance.md). `stencilc generate --tune-cache FILE`
// compiles the recorded variants into the stencil's code (KernelInfo::tuned).
// StencilOperator::create then chooses, in this order:
//   1. STENCILC_TUNING=off in the environment: the spec's own options;
//   2. STENCILC_TUNE_CACHE=FILE: the file's last entry for this stencil (name
//      and fingerprint), device and extents, which must name a variant that
//      was compiled in (else an error says to regenerate);
//   3. the compiled-in entry for exactly this device and these extents;
//   4. the planner's groups of sites along x (NAME_xW, compiled in where a
//      single-component or soa/aosoa vector spec leaves vector_width open),
//      when nx is a multiple of W: one site per thread serves every nx,
//      groups only those whose rows start aligned (and fields aligned to
//      the W-value accesses, as device allocations are: else the launch
//      says so). The spec's kernels are planned for the generator's first
//      device model (the H100); where another known GPU's model chose other
//      options, its kernels are compiled beside them (NAME_<tag>, its
//      groups NAME_<tag>_xW, its fold pass NAME_<tag>_fold) and on a GPU of
//      that name they replace the planner's kernels for any device: its
//      groups where nx allows them, else its kernels for every nx; those
//      for any device only where none of its own can launch. (One rank:
//      distributed operators run the spec's rank kernels.) Ahead of the
//      groups, the planner's groups marching along the slowest axis
//      (NAME_xW_march, TunedChoice::l2_percent) where two slices across
//      that axis exceed their share of the device's L2 (`l2_bytes`).
//      Not on the host backend, whose L2 is unknown (0).
//   5. otherwise the spec's own options.
// CG's fold pass (apply_fold_dot) may have entries of its own (options
// "kernel=fold; ...", written by the timing program's --kernel fold):
// select_fold_kernels looks for one in steps 1-3; then, where no
// tuning-cache entry chose the other kernels, for the planner's kernels for
// the fold pass (NAME_fold, compiled in where a spec leaves options open
// and other ones predict a faster fold pass) when nx is a multiple of their
// groups along x; otherwise the fold pass runs with the kernels
// select_kernels chose.
#ifndef STENCIL_TUNING_HPP
#define STENCIL_TUNING_HPP

#include "stencil/kernel_info.hpp"
#include "stencil/types.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace stencil {

struct KernelSelection {
  const KernelInfo *info = nullptr; ///< the kernels to run
  std::string description;          ///< which, and why, for reports
  /// Chosen by a tuning-cache entry (steps 2 and 3), a measurement.
  bool from_cache = false;
};

/// Chooses the kernels for `spec` on `device`, whose L2 holds `l2_bytes`
/// (stencil::device_l2_bytes; 0 unknown), with `extents` (dims entries), as
/// above. Fails on an unreadable or malformed cache file, or one that names
/// a variant this build does not have.
Status select_kernels(const KernelInfo &spec, const int *extents,
                      const std::string &device, std::int64_t l2_bytes,
                      KernelSelection &out);

/// CG's fold pass on its own, where select_kernels chose `chosen`: `found`
/// says whether the cache file or the compiled-in table has a fold-pass
/// entry for `spec`, `device` and `extents`, or the planner's fold-pass
/// kernels serve them (out then names the kernels; otherwise its
/// description, if any, says why the planner's do not fit);
/// STENCILC_TUNING=off finds none.
Status select_fold_kernels(const KernelInfo &spec, const int *extents,
                           const std::string &device,
                           const KernelSelection &chosen, KernelSelection &out,
                           bool &found);

/// "64x64x64"
std::string extents_text(const int *extents, int dims);

/// STENCILC_TUNING: unset or empty, "on" or "off" (`off` true); another
/// value is an error naming it.
Status tuning_switch(bool &off);

/// One entry of a tuning-cache file, its fields as written.
struct TuningCacheLine {
  int line = 0;
  std::string spec, fingerprint, device, extents, options, ms, gb_s;
};
/// Reads a cache file (blank lines and lines starting with '#' skipped);
/// a line without 7 tab-separated fields is an error naming path:line.
Status read_tuning_cache(const std::string &path,
                         std::vector<TuningCacheLine> &out);
/// Whether an entry's options record a halo-exchange policy ("grid=...";
/// stencil/exchange_choice.hpp) rather than kernel options.
bool is_exchange_entry(const std::string &options);
/// Whether an entry's options are for CG's fold pass alone ("kernel=fold;
/// block=..."); fold_entry_options() gives them without that prefix.
bool is_fold_entry(const std::string &options);
std::string fold_entry_options(const std::string &options);

} // namespace stencil

#endif
