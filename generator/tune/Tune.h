//===- Tune.h - Autotuning: the variant space and its build directory -*- C++ -*-===//
//
// `stencilc tune` runs in two phases, so that the generator (this machine,
// with LLVM) and the GPU (another machine, without) can be apart:
//   1. emit: every variant of the spec's kernel options (block shape, tile
//      axis and factor, load order, non-temporal stores) generated into a
//      directory that builds, against the installed stencilc package, one
//      program timing them all;
//   2. that program, run on the GPU, times each variant and prints the
//      best.
//
//===----------------------------------------------------------------------===//
#ifndef STENCILC_TUNE_TUNE_H
#define STENCILC_TUNE_TUNE_H

#include "check/Model.h"
#include "emit/Emit.h"
#include "tune/TuningCache.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <vector>

namespace stencilc {

/// The model with one combination of kernel options, named NAME_tNNN.
struct Variant {
  StencilModel model;
  std::string summary; ///< "block 64x4x1, tile y x 2, ascending, regular"
  /// Timed first whatever the order (--predicted-first): the spec's own
  /// options, and what the runtime runs at the size (RuntimeKernels).
  bool pinned = false;
};

/// The naive baseline of `model` for benchmarks: named NAME_naive, no
/// tile, loads in the order written.
StencilModel naiveModel(const StencilModel &model);

/// The kernels the runtime runs at `extents` where no tuning-cache entry
/// names one, of `planned` (the spec with its open options chosen for the
/// GPU, as generated), on a GPU whose L2 holds `l2Bytes`: the planner's
/// marching groups for large lattices (planned.largeAlongX) where nx takes
/// their groups and the extents' slices exceed their share of the L2 (not
/// for CG's fold pass, which keeps the groups), else
/// its groups of sites along x (planned.alongX) where nx is a multiple of
/// their groups, else the spec's own; with `foldPass`, for CG's fold pass: the
/// planner's fold kernels (planned.foldPass) where nx takes their groups, else
/// as the others.
struct RuntimeKernels {
  StencilModel model;
  std::string what; ///< "the planner's groups of sites along x"
  bool fromCache = false; ///< a tuning-cache entry (entryRunAt)
};
RuntimeKernels kernelsRunAt(const StencilModel &planned,
                            const std::vector<int> &extents, bool foldPass,
                            long long l2Bytes);

/// What the runtime runs on the GPU named `device` at `extents` where
/// `entries` (a tuning cache, read from `cachePath`) has an entry for
/// `planned` there (the last one; with `foldPass`, a fold-pass entry, else
/// an entry for the other passes, whose kernels the runtime then runs for
/// CG's fold pass too): that entry's options, described with its cache
/// line. None where the cache
/// has no such entry; entries for another version of the stencil are
/// skipped with a warning on `warnings`, as `generate` skips them; an entry
/// whose options the model cannot take is an error naming its line.
llvm::Expected<std::optional<RuntimeKernels>>
entryRunAt(const StencilModel &planned,
           const std::vector<TuningCacheEntry> &entries,
           llvm::StringRef cachePath, llvm::StringRef device,
           const std::vector<int> &extents, bool foldPass,
           llvm::raw_ostream &warnings);

/// The variants to time: the spec's own options first; second, given
/// `runtime` (kernelsRunAt or entryRunAt) and where it differs, what the
/// runtime runs at the size, so that an entry is recorded only where it
/// beats that; then the product of the candidate block shapes, tiles, load
/// orders and store kinds that the model allows (no tiles for even/odd storage), at most `limit` of them.
/// With `extents` (the size to tune for), single-component fields also try
/// groups of 4 and 2 sites along x per access where nx allows them.
std::vector<Variant> tuningVariants(const StencilModel &model, int limit,
                                    const std::vector<int> &extents = {},
                                    const StencilModel *runtime = nullptr);

/// The spec's own options (and, as tuningVariants, `runtime`), then one
/// variant per line of `text` (the file `path`): the options of a
/// tuning-cache entry ("block=128x1x1x1; launch_bounds=128;
/// min_blocks_per_sm=2; ..."), blank lines and lines starting with '#'
/// skipped. A line the model cannot take is an error
/// naming path:line. For timing a few chosen candidates instead of the
/// whole space.
llvm::Expected<std::vector<Variant>>
listedVariants(const StencilModel &model, llvm::StringRef text,
               llvm::StringRef path, const StencilModel *runtime = nullptr);

/// Each of `variants` followed by its siblings with launch bounds of its
/// block's threads and the minimum of resident blocks that caps a thread's
/// registers at 128, 80, 64 and 40 on NVIDIA GPUs (link stencils also one
/// block at least: all 255), each named after its variant and the cap its
/// minimum gives (NAME_tNNN_cap64), where that many blocks fit a
/// multiprocessor; repeats dropped. nvcc spends about the cap: loads in
/// flight per thread against threads, which no planner rule predicts, so it
/// is a second, narrow search around chosen variants.
std::vector<Variant> withRegisterCaps(const StencilModel &model,
                                      std::vector<Variant> variants);

/// The variants that `entries` (a tuning cache, read from `cachePath`)
/// record for `model`, emitted, with the table of which runs where.
/// Entries for another version of the stencil (other fingerprint) are
/// skipped with a warning on `warnings`; entries whose options the model
/// cannot take are errors naming the cache line.
llvm::Expected<TunedKernels>
tunedKernels(const StencilModel &model,
             const std::vector<TuningCacheEntry> &entries,
             llvm::StringRef cachePath, llvm::raw_ostream &warnings);

/// Adds the planner's second kernels (for NAME_inner too) to `tuned`, each
/// emitted and chosen on any device after the cache's entries for exact
/// extents: its groups of sites along x (model.alongX, NAME_xW) for every
/// nx that is a multiple of W, and its kernels for CG's fold pass alone
/// (model.foldPass, NAME_fold) for every nx that is a multiple of their
/// groups along x.
llvm::Error addPlannerVariants(const StencilModel &model, TunedKernels &tuned);

/// Writes the variants' generated sources, the timing program and its
/// CMakeLists.txt into `directory`; the program times `kernel` ("apply" or
/// "fold", CG's fold pass) unless told otherwise.
llvm::Error writeTuningDirectory(const StencilModel &model,
                                 const std::vector<Variant> &variants,
                                 const std::vector<int> &extents,
                                 llvm::StringRef directory,
                                 llvm::StringRef kernel = "apply");

} // namespace stencilc

#endif
