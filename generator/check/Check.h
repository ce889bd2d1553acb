//===- Check.h - Semantic validation of a parsed spec ----------*- C++ -*-===//
#ifndef STENCILC_CHECK_CHECK_H
#define STENCILC_CHECK_CHECK_H

#include "check/Model.h"
#include "spec/Spec.h"
#include "support/Diagnostics.h"

#include "llvm/ADT/StringRef.h"

#include <optional>

namespace stencilc {

/// Validates `spec`, reporting every problem found to `diags`, and returns the
/// model only when there were no errors (warnings are allowed).
std::optional<StencilModel> checkSpec(const Spec &spec,
                                      DiagnosticEngine &diags);

/// Parses and checks the spec file at `path` (or buffer `bufferID` of the
/// engine's SourceMgr); the model only when neither stage reported an error.
std::optional<StencilModel> loadModel(llvm::StringRef path,
                                      DiagnosticEngine &diags);
std::optional<StencilModel> loadModel(unsigned bufferID, llvm::StringRef path,
                                      DiagnosticEngine &diags);

/// Whether a spec may name a parameter `name`: a C identifier that is
/// neither reserved nor a variable of the generated kernels.
bool isUsableParameterName(llvm::StringRef name);

/// Why a single-component `model` cannot move `width` consecutive sites
/// along x per access (kernel.vector_width), as the end of a sentence
/// ("needs a Dirichlet grid; ..."), or "" when it can.
std::string siteVectorProblem(const StencilModel &model, int width);

/// Why a vector field of `model` cannot move `width` consecutive components
/// of a site per access (kernel.vector_width), as the end of a sentence
/// ("needs the site-major (aos) layout, ..."), or "" when it can.
std::string componentVectorProblem(const StencilModel &model, int width);

/// Why `model`'s links (their order and reals per matrix already final)
/// cannot be read `vector` adjacent reals per load (links.layout.vector), as
/// the end of a sentence, or "" when they can.
std::string linkVectorProblem(const StencilModel &model, int vector);

/// Why `model`'s field (its order, components and storage already final)
/// cannot be stored `vector` adjacent values of a site per load
/// (field.layout.vector), as the end of a sentence, or "" when it can.
std::string fieldVectorProblem(const StencilModel &model, int vector);

/// Why `model` cannot split each site's components over threads with
/// `perThread` components each (kernel.components_per_thread), as the end
/// of a sentence ("does not divide ..."), or "" when it can. The model's
/// vector width and storage must already be final.
std::string componentSplitProblem(const StencilModel &model, int perThread);

/// Why the hopping kernels of `model` cannot walk the half lattice in slabs
/// of `slab` slices of the slowest axis (kernel.slab; 1 is storage order,
/// always possible for even/odd storage), as the end of a sentence, or ""
/// when they can. The model's storage must already be final.
std::string slabProblem(const StencilModel &model, int slab);
constexpr int kMaxSlab = 64;

/// kernel.staging: shared. The box a block of `model`'s whole-lattice
/// kernels stages: per axis its threads times the tile plus the taps' halo
/// below and above (tapHalo); its sites, and its bytes with this thread
/// group's components (the same for A and A^T, whose halos mirror).
long long stagedSites(const StencilModel &model);
long long stagedBytes(const StencilModel &model);
/// The most shared memory a kernel may declare statically (CUDA's limit;
/// AMD allows 64 KiB).
constexpr int kMaxStaticSharedBytes = 48 * 1024;
/// Why `model`'s kernels cannot stage their blocks in shared memory as its
/// options stand (block, tile, storage and split final), as the end of a
/// sentence, or "" when they can or do not stage.
std::string stagingProblem(const StencilModel &model);

/// kernel.march. Why `model`'s kernels cannot march along their slowest
/// axis as its options
/// and storage stand, as the end of a sentence, or "" when they can or do
/// not march.
std::string marchProblem(const StencilModel &model);

/// The threads per block that a wavefront of this size fills exactly; blocks
/// that are not a multiple of it get a warning (see README, "Validation").
constexpr int kWavefrontSize = 64;
constexpr int kMaxThreadsPerBlock = 1024;
/// Threads resident per multiprocessor on the GPUs stencilc targets (2048
/// on NVIDIA sm_70 and later; 2560 on gfx908/gfx90a CUs).
constexpr int kMaxThreadsPerMultiprocessor = 2048;
/// NVIDIA's register file per multiprocessor since sm_70 (H100, H200), in
/// 32-bit words, which resident threads share; on AMD GPUs a minimum of
/// resident blocks means waves per SIMD, another cap.
constexpr int kRegistersPerMultiprocessor = 65536;
constexpr int kMaxTileFactor = 64;
constexpr int kMaxComponents = 256;

/// Reads an explicit load order (README, "Load order"; the grammar is
/// spec/LoadOrder.h) and resolves it into tap indices: every tap of `model`
/// exactly once. On error, reports at the offending character of `range`
/// (the YAML scalar holding `text`), with a note at the tap written at
/// `tapRanges` that the order leaves out, and returns nullopt. Exposed for
/// tests.
std::optional<std::vector<int>>
resolveLoadOrder(llvm::StringRef text, llvm::SMRange range,
                 const StencilModel &model,
                 const std::vector<llvm::SMRange> &tapRanges,
                 DiagnosticEngine &diags);

} // namespace stencilc

#endif
