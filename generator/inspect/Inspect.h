//===- Inspect.h - What the GPU compilers made of a spec's kernels -*- C++ -*-===//
//
// `stencilc inspect`: compiles a spec's generated kernels with hipcc (AMD)
// and nvcc (NVIDIA), reads the compilers' resource reports and the ISA, and
// sets them next to the plan's figures, an occupancy model (the sprint
// report's formulas, per architecture) and the roofline.
//
// The parsers and the models are pure functions of text and numbers, so
// that tests can feed them canned compiler output.
//
//===----------------------------------------------------------------------===//
#ifndef STENCILC_INSPECT_INSPECT_H
#define STENCILC_INSPECT_INSPECT_H

#include "check/Model.h"
#include "emit/Emit.h"
#include "plan/Plan.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace stencilc {

enum class Vendor { AMD, NVIDIA };

/// The limits and peaks of one compilation target.
struct TargetInfo {
  std::string target; ///< "gfx908", "gfx90a", "sm_90"
  std::string gpu;    ///< "MI100", ...
  Vendor vendor = Vendor::AMD;
  // AMD (per SIMD; a CU has `simdsPerCU` of them)
  int waveSize = 64;
  int simdsPerCU = 4;
  int maxWavesPerSimd = 10;
  int vgprFile = 256;   ///< VGPRs per lane a SIMD holds for waves' use
  int vgprGranule = 4;
  bool unifiedAgprs = false; ///< gfx90a: VGPRs and AGPRs share one file
  int ldsPerCU = 65536;
  // NVIDIA (per SM)
  int registersPerSM = 65536;
  int registerGranulePerWarp = 256;
  int maxThreadsPerSM = 2048;
  int maxBlocksPerSM = 32;
  int sharedPerSM = 233472;
  int sharedReservedPerBlock = 1024;
  // Roofline (vendor figures; override with measured values)
  double peakGBs = 0.0;
  double peakGflopsFloat = 0.0;
  double peakGflopsDouble = 0.0;
};

/// gfx908 (MI100), gfx90a (MI250X, one GCD), sm_90 (H100 SXM).
const std::vector<TargetInfo> &knownTargets();
const TargetInfo *findTarget(llvm::StringRef name);

/// What a compiler reported and the ISA showed for one kernel.
struct KernelResources {
  // AMD: -Rpass-analysis=kernel-resource-usage
  int vgprs = 0, sgprs = 0, agprs = 0;
  int scratchBytesPerLane = 0;
  int vgprSpills = 0, sgprSpills = 0;
  int ldsBytes = 0;
  int compilerOccupancy = -1; ///< waves per SIMD; -1: not reported
  // NVIDIA: ptxas -v
  int registers = 0;
  int spillStoreBytes = 0, spillLoadBytes = 0;
  int stackBytes = 0;
  int sharedBytes = 0;
  // The ISA: global memory instructions by mnemonic (for example
  // "global_load_dwordx4", "LDG.E.128", "ld.global.v4.f32").
  std::map<std::string, int> loads, stores;
  int nontemporalStores = 0;
  std::string isaKind; ///< "amdgcn", "sass" or "ptx"
  std::string isa;     ///< the kernel's listing
};

/// Parses hipcc's kernel-resource-usage remarks: mangled name -> figures.
std::map<std::string, KernelResources>
parseAmdRemarks(llvm::StringRef remarks);
/// Adds each function's global loads and stores from AMDGPU assembly.
void parseAmdAssembly(llvm::StringRef assembly,
                      std::map<std::string, KernelResources> &kernels);
/// Parses `ptxas -v` output: mangled name -> figures.
std::map<std::string, KernelResources>
parsePtxasInfo(llvm::StringRef output);
/// Adds each function's global loads and stores from `cuobjdump -sass`.
void parseSass(llvm::StringRef sass,
               std::map<std::string, KernelResources> &kernels);
/// Adds each entry's global loads and stores from PTX.
void parsePtx(llvm::StringRef ptx,
              std::map<std::string, KernelResources> &kernels);

/// Waves per SIMD (AMD) or warps per SM (NVIDIA) each resource allows, the
/// result, and the resource that sets it.
struct Occupancy {
  std::vector<std::pair<std::string, int>> limits; ///< resource, limit
  int value = 0;
  int maximum = 0; ///< the hardware's
  std::string limitedBy;
};

/// The sprint report's occupancy formulas for `threads` per block.
Occupancy amdOccupancy(const TargetInfo &target, const KernelResources &r,
                       int threads);
Occupancy nvidiaOccupancy(const TargetInfo &target, const KernelResources &r,
                          int threads);
/// The figure hipcc prints (LLVM's AMDGPU back end): the same, except that
/// its LDS limit counts the work-groups' waves per CU without dividing by
/// the SIMDs (AMDGPUSubtarget::getOccupancyWithLocalMemSize), so that it
/// overstates LDS-limited kernels four times; `inspect --check` compares
/// the compiler with this, the report gives the model's.
int amdCompilerOccupancy(const TargetInfo &target, const KernelResources &r,
                         int threads);

/// Attainable GFLOP/s: min(peak compute, intensity x peak bandwidth).
struct Roofline {
  double intensity = 0.0; ///< flop per byte
  double peakGBs = 0.0, peakGflops = 0.0;
  double attainableGflops = 0.0;
  bool memoryBound = true;
};
/// What the planner says of one generated kernel, as inspect reports it:
/// from a stencil kernel's plan or from the clover kernel's.
struct KernelFigures {
  std::string name;
  /// "apply", "adjoint", "hopping", "hopping, adjoint" or "clover".
  std::string role;
  std::string hop = "none"; ///< hopName() of a hopping kernel
  bool adjoint = false;
  double loadsPerSite = 0.0, storesPerSite = 0.0;
  int bytesPerSite = 0, flopsPerSite = 0;
  /// kernel.staging: shared: the loads read the block's box, this many
  /// bytes of shared memory per block (0: they read global memory).
  long long stagedBytes = 0;
  /// Link taps: links read per tile and per site, their storage and share.
  bool hasLinks = false;
  int linksPerTile = 0;
  double linksPerSite = 0.0;
  int realsPerLink = 0, linkVector = 1, linkBytesPerSite = 0;
  bool compressedLinks = false;

  double intensity() const {
    return bytesPerSite ? static_cast<double>(flopsPerSite) / bytesPerSite
                        : 0.0;
  }
};
KernelFigures figuresOf(const KernelPlan &plan);
KernelFigures figuresOf(const CloverKernelPlan &plan);

Roofline roofline(const TargetInfo &target, const KernelFigures &kernel,
                  Precision precision);

struct InspectOptions {
  /// From knownTargets(), with any measured peaks put in.
  std::vector<TargetInfo> targets;
  std::string runtimeInclude;       ///< runtime/include for the compiles
  bool keepIsa = false;
};

struct KernelReport {
  KernelFigures kernel;
  std::map<std::string, KernelResources> byTarget;
};

struct SpecReport {
  StencilModel model;
  std::vector<KernelReport> kernels;
};

/// Generates the spec's kernels into a temporary directory and compiles
/// them for every target. Errors name the missing tool and its package, or
/// quote the compiler's output. With `variants` (the planner's kernel sets
/// compiled beside the spec's: NAME_xW, NAME_h200...), their kernels are
/// reported too, after the spec's own.
llvm::Expected<SpecReport>
inspectSpec(const StencilModel &model, const InspectOptions &options,
            const TunedKernels &variants = TunedKernels());

/// The report as text, or as JSON (docs/inspect.md documents the fields).
void printText(const std::vector<SpecReport> &reports,
               const InspectOptions &options, llvm::raw_ostream &os);
void printJson(const std::vector<SpecReport> &reports,
               const InspectOptions &options, llvm::raw_ostream &os);
/// Writes the roofline chart of every kernel and target with gnuplot: SVG,
/// or PNG when `path` ends in .png.
llvm::Error writeRoofline(const std::vector<SpecReport> &reports,
                             const InspectOptions &options,
                             llvm::StringRef path);

/// Problems `--check` fails on: spills, scratch, spill stores, and an
/// occupancy model that disagrees with the compiler. One line each.
std::vector<std::string> findProblems(const std::vector<SpecReport> &reports);

} // namespace stencilc

#endif
