//===- CostModel.h - Predicted time of a planned kernel ---------*- C++ -*-===//
//
// An analytic model of a planned kernel's time per site on a GPU, from the
// plan alone, so that the planner can choose the options a spec leaves open
// (ChooseOptions.h) without running anything. It charges four things, each
// from a figure of the plan and the device:
//
//   - DRAM: the minimal bytes per site (the plan's) at the copy bandwidth;
//   - latency: a multiprocessor keeps only as many bytes in flight as its
//     resident threads have independent loads (Little's law), so few sites
//     per thread or low occupancy (registers from the tile's accumulators
//     and loads) stretch the DRAM time;
//   - L2: each block reads its box of sites with the stencil's halo, in
//     32-byte sectors of the field's layout, from L2;
//   - L1: each warp's memory instruction costs one pass (wavefront) per
//     128-byte line its lanes touch: lanes a whole site apart (site-major
//     storage, a site or a share by block per thread) touch a line each;
//     the even/odd kernels' warps read 32 consecutive sites of a parity,
//     so this term ranks the storage of their fields too;
//   - issue: memory instructions per site, which wide accesses and tiles
//     reduce, partly hidden behind the memory time.
//
// CG's fold pass reads two arrays at every load (r and p) and is charged
// for both, with two terms of its own (DeviceModel::foldIssueFactor and
// foldL2Overlap).
//
// The constants of a device are measured (the copy and L2 roofs from
// stencil_bench) or fitted once to the H100 searches recorded under
// docs/results/tune-*.json; tests/unit/CostModelTest.cpp checks the model's
// ranking against those measurements.
//
//===----------------------------------------------------------------------===//
#ifndef STENCILC_PLAN_COSTMODEL_H
#define STENCILC_PLAN_COSTMODEL_H

#include "check/Model.h"
#include "plan/Plan.h"

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace stencilc {

/// What the cost model knows of a GPU.
struct DeviceModel {
  /// As the runtime's stencil::device_name() gives it (the tuning cache's
  /// and the compiled-in choices' key), and a short tag for kernel names
  /// and the command line.
  std::string name;
  std::string tag;
  int multiprocessors = 132;
  int maxThreadsPerMultiprocessor = 2048;
  int maxBlocksPerMultiprocessor = 32;
  int registersPerMultiprocessor = 65536;
  /// The L2's capacity as the runtime reads it (stencil::device_l2_bytes,
  /// cudaDevAttrL2CacheSize): what the large lattices' kernels are chosen
  /// by (plan/MarchRules.h). The H100 SXM's 50 MiB.
  long long l2Bytes = 50LL << 20;
  /// The streaming copy's bandwidth and the L2's (GB/s).
  double dramGBs = 3000;
  double l2GBs = 11000;
  /// Bytes a multiprocessor must keep in flight to reach dramGBs (the
  /// bandwidth times the memory latency, shared by the multiprocessors).
  double bytesInFlightPerMultiprocessor = 20000;
  /// Picoseconds of the whole GPU per thread memory instruction, and per
  /// address computed (a row of neighbours along x, or a site's components,
  /// share one). Fitted to the 3-D Laplacian in float at 512^3: 69% of the
  /// copy with one site per thread (8 accesses, 5 rows a site), 81% with
  /// four-site tiles along y (6.5 accesses, 3.5 rows), 93% with four sites
  /// per 16-byte access (2 accesses, 1.25 rows).
  double picosecondsPerAccess = 0.4;
  double picosecondsPerAddress = 0.07;
  /// A thread's fixed work (its coordinates, guard, block index), in
  /// addresses, shared by its tile's sites.
  double threadAddresses = 4;
  /// Addresses an access to a field in subdomains costs (the index of its
  /// subdomain and of the site in it), in plain addresses.
  double subdomainAddressCost = 10;
  /// Resident threads per multiprocessor below which instructions wait on
  /// each other (too few warps to issue from every cycle).
  int threadsToIssue = 512;
  /// How memory time and instruction time overlap: their p-norm (p large:
  /// the larger alone; p = 1: their sum).
  double overlap = 4;
  /// DRAM efficiency lost per row (a distinct y, z, t) a thread's loads
  /// touch: concurrent address streams, which long tiles multiply (fitted:
  /// 8-site tiles measured 3-9% slower than 2-site ones in every search).
  double lossPerRow = 0.006;
  /// Link stencils: registers per thread the compiler allows itself when a
  /// kernel names no minimum of resident blocks, and the cost of a thread
  /// wanting more: the memory time grows by spillCost times the share of
  /// its registers past the budget. nvcc gives the covariant Laplacian 72
  /// registers then and 240 with 'min_blocks_per_sm: 1' (no spills either
  /// way: `stencilc inspect --target sm_90`), and the latter ran 1.07-1.63x
  /// faster in every case of the probe (docs/results/probe-h100-link-
  /// options.log): a link tap's product wants its link and its neighbour
  /// in registers together. Fields without links showed no such effect.
  int linkRegisterBudget = 96;
  /// Picoseconds of the whole GPU per L1 wavefront (a 128-byte line one
  /// warp instruction touches). Fitted to the 4-D vector fields in
  /// site-major storage at 32^3 x 64, where lanes a 96-byte site apart
  /// touch 24 lines per instruction: a site per thread ran at 57-61% of
  /// the copy, with 2.8-3.0 ps per wavefront; the same fields with a
  /// site's shares side by side in a warp (4-5 lines) at 92-93%
  /// (docs/results/tune-laplacian4d_*-shares-h100.json).
  double picosecondsPerWavefront = 2.9;
  double spillCost = 1.2;
  /// A multiprocessor that holds a single block (registers or threads)
  /// idles while that block's last warps finish before the next starts:
  /// the memory time grows by this share (the covariant Laplacian in float,
  /// 256 threads at up to 255 registers each, ran 1.2-1.7x slower than in
  /// blocks of 128; docs/results/bench-h100-planner-second.log).
  double singleBlockDrain = 0.4;
  /// CG's fold pass (r and p read at every tap, p' = r + beta p computed
  /// from each pair): its memory instructions cost this many times a
  /// stencil's, and its L2 traffic (both arrays' boxes with their halo)
  /// overlaps its DRAM time only in part, their p-norm with this p rather
  /// than the larger alone. Fitted to the H100 fold searches
  /// (docs/results/tune-laplacian3d_f64*-fold-256-h100.json), which
  /// measured tile z x 2 fastest in every block: without the two terms the
  /// model ranked untiled kernels first (the fewest rows a thread), and
  /// they measured 2-4% slower; the stencil searches need neither (an L2
  /// overlap of 3-8 there moved two picks 9-17% off their best).
  double foldIssueFactor = 2;
  double foldL2Overlap = 4;
  /// The stencil's L2 traffic against its DRAM time: their p-norm with
  /// this p, or 0 for the larger alone. The H100's searches want the
  /// larger alone (an overlap of 3-8 moved two of their picks 9-17% off
  /// their best); on the H200, whose DRAM is 1.41 times faster and whose
  /// L2 is not, blocks and tiles of the same predicted latency measured
  /// 3-6% apart at 512^3, in the order of their L2 bytes.
  double l2Overlap = 0;
  /// A rule of this device for stencils its constants were not fitted to
  /// (plan/DeviceRules.h): the threads a multiprocessor keeps resident for
  /// the first device's kernels of 4-D site-major vector fields that do not
  /// march; 0 for none.
  int vectorSiteResidentThreads = 0;
  /// The stencils whose choices the constants were fitted to and checked
  /// on: of this many dimensions (0: any), and vector fields (several
  /// components a site) and link stencils or not. Elsewhere the planner
  /// does not plan for this device (its spec's kernels serve it).
  int fittedDims = 0;
  bool fittedVectorFields = true;
  bool fittedLinks = true;
  bool fitted(const StencilModel &model) const {
    return (fittedDims == 0 || model.dims == fittedDims) &&
           (fittedVectorFields || model.components == 1) &&
           (fittedLinks || !model.hasLinkTaps());
  }
  /// Those stencils in words: "3-D stencils, one component a site, without
  /// links".
  std::string fittedText() const {
    return (fittedDims ? std::to_string(fittedDims) + "-D stencils"
                       : std::string("stencils")) +
           (fittedVectorFields ? "" : ", one component a site") +
           (fittedLinks ? "" : ", without links");
  }
};

/// The H100 SXM (80 GB HBM3), the GPU the shipped tuning entries are for:
/// 3011 GB/s copy and 11060 GB/s L2 copy measured by stencil_bench
/// (docs/results/bench-h100-l2.log).
const DeviceModel &h100Device();

/// The H200 (141 GB HBM3e): the H100's multiprocessors and clocks, 4250
/// GB/s copy and 12500 GB/s L2 copy measured by stencil_bench, the other
/// constants the H100's (docs/performance.md, "The planner on the H200").
const DeviceModel &h200Device();

/// Every device the planner has a model of, the default first (the one the
/// spec's own kernels are planned for; the others' choices are compiled
/// beside them where they differ: tune/DevicePlans.h).
const std::vector<const DeviceModel *> &knownDevices();

/// The known device with this tag ("h200") or name ("NVIDIA H200"); null
/// if none.
const DeviceModel *findDevice(llvm::StringRef tagOrName);

/// The predicted cost of one kernel, per output site: the p-norm of the
/// memory time (the largest of latency, L2 and L1) and the instruction
/// time.
struct KernelCost {
  double dramPs = 0;      ///< the minimal bytes at the copy bandwidth
  double latencyPs = 0;   ///< dramPs stretched by too few bytes in flight
  double l2Ps = 0;        ///< the blocks' boxes with halo, from L2
  double l1Ps = 0;        ///< warp instructions' lines through L1
  double issuePs = 0;     ///< memory instructions and their arithmetic
  double picosecondsPerSite = 0;
  int registers = 0;      ///< estimated per thread, after any cap
  int spilledRegisters = 0; ///< link kernels: wanted past the budget
  int residentThreads = 0; ///< per multiprocessor
  int residentBlocks = 0;  ///< per multiprocessor
  double bytesInFlight = 0; ///< per multiprocessor
  double l2BytesPerSite = 0;
  int rowsPerThread = 0;
  double accessesPerSite = 0;  ///< memory instructions
  double wavefrontsPerSite = 0; ///< of the field's accesses, per warp
  double addressesPerSite = 0;
  /// "DRAM", "latency", "L2", "L1" or "instructions": the largest term.
  std::string limit;
  /// The share of the copy bandwidth the kernel would reach.
  double predictedFraction() const { return dramPs / picosecondsPerSite; }
};

/// The cost of `plan` (a kernel of `model`) on `device`.
KernelCost estimateCost(const StencilModel &model, const KernelPlan &plan,
                        const DeviceModel &device);

/// A predicted fraction as the planner's notes print it: "65%".
std::string percentText(double fraction);

} // namespace stencilc

#endif
