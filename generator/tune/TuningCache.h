//===- TuningCache.h - The tuning cache: best kernel options per device -*- C++ -*-===//
//
// `stencilc tune`'s timing program records, per stencil, device and lattice
// extents, the fastest kernel options in a tab-separated file (the way
// QUDA's autotuner keeps tunecache.tsv). The generator reads it to compile
// the recorded variants into the stencil's code; the runtime picks among
// them by device and extents (stencil/tuning.hpp). One line per entry:
//
//   spec <TAB> fingerprint <TAB> device <TAB> NxNxN <TAB> options <TAB> ms <TAB> GB/s
//
// `fingerprint` hashes what the stencil computes (not how), so that entries
// recorded for another version of the spec are not applied; `options` is
// tuningOptionsText(), e.g. "block=256x1x1; tile=y4; order=ascending;
// stores=regular; launch_bounds=0; layout=aos; vector_width=1".
//
//===----------------------------------------------------------------------===//
#ifndef STENCILC_TUNE_TUNINGCACHE_H
#define STENCILC_TUNE_TUNINGCACHE_H

#include "check/Model.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace stencilc {

/// 16 hex digits over dims, boundary, precision, components, even/odd
/// storage, parameters and taps: what a tuning result is valid for besides
/// the kernel options themselves.
std::string stencilFingerprint(const StencilModel &model);

/// The kernel options and layout of `model` as one line of text.
std::string tuningOptionsText(const StencilModel &model);

/// `model` with the options of a tuningOptionsText() line; an error names
/// the item that is malformed or that the model cannot take.
llvm::Expected<StencilModel> withTuningOptions(const StencilModel &model,
                                               llvm::StringRef text);

/// Halo-exchange entries share the file: their options start with "grid="
/// and name the process grid they were measured on and the fastest policy,
///   grid=1x1x2x2; transport=peer; overlap=on
/// (the solver programs' --tune-exchange writes them; docs/distributed.md).
struct ExchangeCacheOptions {
  std::vector<int> grid; ///< ranks per axis
  ExchangeOptions options;
};
bool isExchangeEntry(llvm::StringRef options);
std::string exchangeOptionsText(const std::vector<int> &grid,
                                const ExchangeOptions &options);
/// An error names the item that is malformed or that the model cannot take
/// (a grid that splits an axis grid.split does not list).
llvm::Expected<ExchangeCacheOptions>
parseExchangeOptions(const StencilModel &model, llvm::StringRef text);

/// Entries for CG's fold pass alone (apply_fold_dot, timed by the timing
/// program's --kernel fold) share the file too: their options are kernel
/// options after "kernel=fold; ". The runtime runs the fold pass with them
/// and every other kernel with the stencil's ordinary entry.
bool isFoldEntry(llvm::StringRef options);
/// The kernel options of a fold-pass entry (the text after the prefix).
llvm::StringRef foldEntryOptions(llvm::StringRef options);

/// The storage items of tuningOptionsText(): "layout=...", then "links=..."
/// and "clover=..." where the stencil has them. Variants of one model store
/// their arrays alike exactly when these agree.
std::string storageOptionsText(const StencilModel &model);

struct TuningCacheEntry {
  std::string spec, fingerprint, device, options;
  std::vector<int> extents;
  double milliseconds = 0.0, gbs = 0.0;
  unsigned line = 0;
};

/// Parses a cache file; errors name path:line:column.
llvm::Expected<std::vector<TuningCacheEntry>>
readTuningCache(llvm::StringRef path);

} // namespace stencilc

#endif
