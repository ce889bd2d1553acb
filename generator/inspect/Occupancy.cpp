//===- Occupancy.cpp - Targets, occupancy models and the roofline ---------===//
//
// AMD (the sprint report's formulas, as LLVM's AMDGPU back end applies them):
//   waves/SIMD limited by VGPRs = VGPR file / VGPRs allocated per wave
//     gfx908: 256 VGPRs per lane for waves (AGPRs have their own 256), the
//             larger of VGPRs and AGPRs rounded up to 4;
//     gfx90a: one file of 512 for both, VGPRs rounded to 4 plus AGPRs,
//             rounded up to 8;
//   by SGPRs (GFX9: 800 per SIMD, granule 16): 10 up to 80, 9 up to 88,
//     8 up to 100, else 7;
//   by LDS: work-groups per CU (64 KiB / LDS per group) x waves per group /
//     SIMDs per CU, at least 1 where a group fits (LLVM 15's own figure
//     leaves out the division by the SIMDs: amdCompilerOccupancy);
//   capped by the wave slots (10 on gfx908, 8 on gfx90a).
// NVIDIA sm_90: warps per SM limited by registers (allocated per warp in
// units of 256), threads (2048), blocks (32) and shared memory (228 KiB,
// 1 KiB reserved per block); whole blocks only.
//
//===----------------------------------------------------------------------===//
#include "inspect/Inspect.h"

#include <algorithm>

using namespace llvm;

namespace stencilc {

const std::vector<TargetInfo> &knownTargets() {
  static const std::vector<TargetInfo> targets = [] {
    TargetInfo mi100;
    mi100.target = "gfx908";
    mi100.gpu = "MI100";
    mi100.maxWavesPerSimd = 10;
    mi100.vgprFile = 256;
    mi100.vgprGranule = 4;
    mi100.peakGBs = 1228.8;
    mi100.peakGflopsFloat = 23100;
    mi100.peakGflopsDouble = 11500;
    TargetInfo mi250x = mi100;
    mi250x.target = "gfx90a";
    mi250x.gpu = "MI250X, one GCD";
    mi250x.maxWavesPerSimd = 8;
    mi250x.vgprFile = 512;
    mi250x.vgprGranule = 8;
    mi250x.unifiedAgprs = true;
    mi250x.peakGBs = 1638.4;
    mi250x.peakGflopsFloat = 23900;
    mi250x.peakGflopsDouble = 23900;
    TargetInfo h100;
    h100.target = "sm_90";
    h100.gpu = "H100 SXM";
    h100.vendor = Vendor::NVIDIA;
    h100.waveSize = 32;
    h100.peakGBs = 3350;
    h100.peakGflopsFloat = 66900;
    h100.peakGflopsDouble = 33500;
    return std::vector<TargetInfo>{mi100, mi250x, h100};
  }();
  return targets;
}

const TargetInfo *findTarget(StringRef name) {
  for (const TargetInfo &target : knownTargets())
    if (target.target == name)
      return &target;
  return nullptr;
}

namespace {

int roundUp(int value, int granule) {
  return (value + granule - 1) / granule * granule;
}

void settle(Occupancy &o) {
  o.value = o.maximum;
  o.limitedBy = "wave slots";
  for (const auto &[resource, limit] : o.limits)
    if (limit < o.value) {
      o.value = limit;
      o.limitedBy = resource;
    }
}

} // namespace

Occupancy amdOccupancy(const TargetInfo &t, const KernelResources &r,
                       int threads) {
  Occupancy o;
  o.maximum = t.maxWavesPerSimd;
  int allocated =
      t.unifiedAgprs
          ? roundUp(roundUp(std::max(r.vgprs, 1), 4) + r.agprs, t.vgprGranule)
          : roundUp(std::max({r.vgprs, r.agprs, 1}), t.vgprGranule);
  o.limits.push_back({"VGPRs", std::min(o.maximum, t.vgprFile / allocated)});
  int bySgprs = r.sgprs <= 80 ? 10 : r.sgprs <= 88 ? 9 : r.sgprs <= 100 ? 8 : 7;
  o.limits.push_back({"SGPRs", std::min(o.maximum, bySgprs)});
  if (r.ldsBytes > 0) {
    int wavesPerGroup = (threads + t.waveSize - 1) / t.waveSize;
    int groups = t.ldsPerCU / r.ldsBytes;
    // A group smaller than the SIMDs still puts a wave on some of them.
    const int waves = groups * wavesPerGroup;
    o.limits.push_back(
        {"LDS", std::min(o.maximum, waves == 0 ? 0
                                    : std::max(1, waves / t.simdsPerCU))});
  }
  settle(o);
  return o;
}

int amdCompilerOccupancy(const TargetInfo &t, const KernelResources &r,
                         int threads) {
  Occupancy o = amdOccupancy(t, r, threads);
  int value = o.maximum;
  for (auto &[resource, limit] : o.limits) {
    if (resource == "LDS") {
      const int wavesPerGroup = (threads + t.waveSize - 1) / t.waveSize;
      const int groups = t.ldsPerCU / r.ldsBytes;
      limit = groups == 0 ? 1 : std::min(o.maximum, groups * wavesPerGroup);
    }
    value = std::min(value, limit);
  }
  return value;
}

Occupancy nvidiaOccupancy(const TargetInfo &t, const KernelResources &r,
                          int threads) {
  Occupancy o;
  o.maximum = t.maxThreadsPerSM / t.waveSize;
  const int warpsPerBlock = (threads + t.waveSize - 1) / t.waveSize;
  auto warpsOf = [&](int blocks) {
    return std::min(o.maximum, blocks * warpsPerBlock);
  };
  int perWarp = roundUp(std::max(r.registers, 1) * t.waveSize,
                        t.registerGranulePerWarp);
  o.limits.push_back(
      {"registers", warpsOf((t.registersPerSM / perWarp) / warpsPerBlock)});
  o.limits.push_back(
      {"threads", warpsOf(t.maxThreadsPerSM / (warpsPerBlock * t.waveSize))});
  o.limits.push_back({"blocks", warpsOf(t.maxBlocksPerSM)});
  if (r.sharedBytes > 0)
    o.limits.push_back(
        {"shared memory",
         warpsOf(t.sharedPerSM / (r.sharedBytes + t.sharedReservedPerBlock))});
  settle(o);
  return o;
}

KernelFigures figuresOf(const KernelPlan &plan) {
  KernelFigures k;
  k.name = plan.kernelName;
  k.adjoint = plan.role == KernelRole::Adjoint;
  if (plan.hop == Hop::None) {
    k.role = k.adjoint ? "adjoint" : "apply";
  } else {
    k.role = k.adjoint ? "hopping, adjoint" : "hopping";
    k.hop = hopName(plan.hop);
  }
  k.loadsPerSite = plan.loadsPerSite();
  k.stagedBytes = plan.staging ? plan.staging->bytes() : 0;
  k.storesPerSite =
      static_cast<double>(plan.storesPerTile()) / plan.storedSites();
  k.bytesPerSite = plan.bytesPerSite();
  k.flopsPerSite = plan.flopsPerSite;
  k.hasLinks = plan.hasLinks;
  if (plan.hasLinks) {
    k.linksPerTile = static_cast<int>(plan.links.size());
    k.linksPerSite = static_cast<double>(plan.links.size()) /
                     plan.sitesPerTile();
    k.realsPerLink = plan.linkStorage.realsPerLink;
    k.linkVector = plan.linkStorage.layout.vector;
    k.compressedLinks = plan.linkStorage.compressed;
    k.linkBytesPerSite = plan.linkBytesPerSite;
  }
  return k;
}

KernelFigures figuresOf(const CloverKernelPlan &plan) {
  KernelFigures k;
  k.name = plan.kernelName;
  k.role = "clover";
  // The spinor and the clover term (or its inverse) in, the spinor out.
  k.loadsPerSite = 2.0;
  k.storesPerSite = 1.0;
  k.bytesPerSite = plan.bytesPerSite;
  k.flopsPerSite = plan.flopsPerSite;
  return k;
}

Roofline roofline(const TargetInfo &t, const KernelFigures &kernel,
                  Precision precision) {
  Roofline r;
  r.intensity = kernel.intensity();
  r.peakGBs = t.peakGBs;
  r.peakGflops = precision == Precision::Double ? t.peakGflopsDouble
                                                : t.peakGflopsFloat;
  double memory = r.intensity * r.peakGBs;
  r.memoryBound = memory < r.peakGflops;
  r.attainableGflops = std::min(memory, r.peakGflops);
  return r;
}

} // namespace stencilc
