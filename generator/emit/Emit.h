//===- Emit.h - HIP kernels, host header and manifest from a plan -*- C++ -*-=//
#ifndef STENCILC_EMIT_EMIT_H
#define STENCILC_EMIT_EMIT_H

#include "check/Model.h"
#include "plan/Plan.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace stencilc {

/// The generator's version, written into every generated file.
llvm::StringRef generatorVersion();

struct EmittedStencil {
  std::string kernels;  ///< NAME.hip
  std::string header;   ///< NAME.hpp
  std::string manifest; ///< NAME.json
};

/// Kernel variants compiled into the stencil's files beside its own
/// kernels: from the tuning cache (tune/TuningCache.h), and the planner's
/// groups of sites along x (StencilModel::alongX); and which of them the
/// runtime picks for which device and extents (stencil::TunedChoice).
struct TunedVariant {
  StencilModel model; ///< named NAME_tunedK or NAME_xW
  EmittedStencil files;
  bool planned = false; ///< the planner's NAME_xW, not a cache entry's
};
struct TunedChoice {
  std::string device;       ///< empty: any device
  std::vector<int> extents; ///< empty: any extents
  int variant = -1; ///< index into variants; -1: the spec's own options
  double gbs = 0.0; ///< measured when tuned; 0 for the planner's choice
  /// The planner's choice for every nx that is a multiple of it; 0 for a
  /// tuning-cache entry.
  int xMultiple = 0;
  /// A fold-pass entry (isFoldEntry): the variant runs CG's fold pass only.
  bool foldPass = false;
  /// The planner's choice for large lattices only: where two slices across
  /// the slowest axis exceed this percentage of the device's L2
  /// (stencil::TunedChoice::l2_percent); 0: any lattice.
  int l2Percent = 0;
};
/// A halo-exchange policy the cache recorded for a device, extents and
/// process grid (stencil::TunedExchange).
struct TunedExchangeChoice {
  std::string device;
  std::vector<int> extents, grid;
  ExchangeOptions options;
  double milliseconds = 0.0; ///< per application, when tuned
};
struct TunedKernels {
  std::vector<TunedVariant> variants;
  std::vector<TunedChoice> choices;
  std::vector<TunedExchangeChoice> exchanges;
  /// The inner kernels' own (inner_precision; entries for NAME_inner).
  std::shared_ptr<TunedKernels> inner;
};

/// Renders the three files from the model and planKernels(model), with the
/// tuned variants if any. Deterministic: the same model and plan give the
/// same bytes, with no timestamps and no paths beyond the spec's file name.
llvm::Expected<EmittedStencil>
emitStencil(const StencilModel &model, const std::vector<KernelPlan> &plans,
            const TunedKernels &tuned = TunedKernels());

/// Writes `contents` to `path`. A failed open or write (a full disk) is an
/// error naming the path, and the partial file is removed.
llvm::Error writeFile(llvm::StringRef path, llvm::StringRef contents);

/// Writes NAME.hip, NAME.hpp and NAME.json into `directory` (created if
/// needed). Files whose contents are unchanged are left untouched, so that
/// build systems do not recompile them.
llvm::Error writeStencil(const StencilModel &model,
                         const EmittedStencil &files,
                         llvm::StringRef directory);

} // namespace stencilc

#endif
