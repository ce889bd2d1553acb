// stencilc inspect's parsers and models on canned compiler output (the
// formats of ROCm 5.2's hipcc, CUDA's ptxas, cuobjdump and PTX).
#include "TestSupport.h"

#include "inspect/Inspect.h"

#include <gtest/gtest.h>

using namespace stencilc;
using namespace stencilc::testing;

namespace {

const char *kRemarks = R"(
k.hip:29:1: remark: Function Name: _ZN1k8a_kernelEPdPKdi [-Rpass-analysis=kernel-resource-usage]
k.hip:29:1: remark:     SGPRs: 25 [-Rpass-analysis=kernel-resource-usage]
k.hip:29:1: remark:     VGPRs: 47 [-Rpass-analysis=kernel-resource-usage]
k.hip:29:1: remark:     AGPRs: 3 [-Rpass-analysis=kernel-resource-usage]
k.hip:29:1: remark:     ScratchSize [bytes/lane]: 16 [-Rpass-analysis=kernel-resource-usage]
k.hip:29:1: remark:     Occupancy [waves/SIMD]: 5 [-Rpass-analysis=kernel-resource-usage]
k.hip:29:1: remark:     SGPRs Spill: 1 [-Rpass-analysis=kernel-resource-usage]
k.hip:29:1: remark:     VGPRs Spill: 2 [-Rpass-analysis=kernel-resource-usage]
k.hip:29:1: remark:     LDS Size [bytes/block]: 4096 [-Rpass-analysis=kernel-resource-usage]
)";

const char *kAssembly = R"(
_ZN1k8a_kernelEPdPKdi:                 ; @_ZN1k8a_kernelEPdPKdi
	s_load_dwordx4 s[0:3], s[4:5], 0x0
	global_load_dwordx2 v[10:11], v[0:1], off
	global_load_dwordx4 v[4:7], v[24:25], off offset:-8
	global_load_dwordx4 v[0:3], v[22:23], off offset:-8
	global_store_dwordx2 v[0:1], v[2:3], off glc slc
	global_store_dword v[0:1], v2, off
	s_endpgm
.Lfunc_end0:
_ZN1k5otherEv:
	global_load_dword v1, v[0:1], off
)";

TEST(Inspect, ParsesAmdRemarksAndAssembly) {
  auto kernels = parseAmdRemarks(kRemarks);
  ASSERT_EQ(kernels.size(), 1u);
  const KernelResources &r = kernels.at("_ZN1k8a_kernelEPdPKdi");
  EXPECT_EQ(r.sgprs, 25);
  EXPECT_EQ(r.vgprs, 47);
  EXPECT_EQ(r.agprs, 3);
  EXPECT_EQ(r.scratchBytesPerLane, 16);
  EXPECT_EQ(r.compilerOccupancy, 5);
  EXPECT_EQ(r.sgprSpills, 1);
  EXPECT_EQ(r.vgprSpills, 2);
  EXPECT_EQ(r.ldsBytes, 4096);
  parseAmdAssembly(kAssembly, kernels);
  const KernelResources &a = kernels.at("_ZN1k8a_kernelEPdPKdi");
  EXPECT_EQ(a.isaKind, "amdgcn");
  EXPECT_EQ(a.loads.at("global_load_dwordx2"), 1);
  EXPECT_EQ(a.loads.at("global_load_dwordx4"), 2);
  EXPECT_EQ(a.stores.at("global_store_dwordx2"), 1);
  EXPECT_EQ(a.stores.at("global_store_dword"), 1);
  EXPECT_EQ(a.nontemporalStores, 1);
  // The next function's code is not counted.
  EXPECT_EQ(a.loads.count("global_load_dword"), 0u);
}

const char *kPtxas = R"(
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_ZN1k8a_kernelEPdPKdi' for 'sm_90'
ptxas info    : Function properties for _ZN1k8a_kernelEPdPKdi
    8 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads
ptxas info    : Used 48 registers, used 0 barriers, 8 bytes cumulative stack size, 1024 bytes smem, 392 bytes cmem[0]
)";

TEST(Inspect, ParsesPtxasSassAndPtx) {
  auto kernels = parsePtxasInfo(kPtxas);
  ASSERT_EQ(kernels.size(), 1u);
  const KernelResources &r = kernels.at("_ZN1k8a_kernelEPdPKdi");
  EXPECT_EQ(r.registers, 48);
  EXPECT_EQ(r.stackBytes, 8);
  EXPECT_EQ(r.spillStoreBytes, 8);
  EXPECT_EQ(r.spillLoadBytes, 4);
  EXPECT_EQ(r.sharedBytes, 1024);

  auto sass = kernels;
  // Lines of `cuobjdump -sass` (CUDA 13) on generated kernels: vector
  // loads, a predicated load, a vector store and a streaming store.
  parseSass(R"sass(
	code for sm_90
		Function : _ZN1k8a_kernelEPdPKdi
	.headerflags	@"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0af0*/                   LDG.E.128.CONSTANT R24, desc[UR4][R52.64] ;       /* 0x0000000434187981 */
                                                                                     /* 0x000ff00000000800 */
        /*0b20*/                   LDG.E.128.CONSTANT R28, desc[UR4][R34.64] ;       /* 0x00000004221c7981 */
        /*18e0*/              @!P0 LDG.E.CONSTANT R14, desc[UR8][R14.64] ;             /* 0x000000080e0e8981 */
        /*0fc0*/                   STG.E.128 desc[UR4][R46.64], R20 ;                /* 0x000000142e007986 */
        /*1a00*/                   STG.E.EF desc[UR8][R8.64], R3 ;                     /* 0x0000000308007986 */
		Function : _ZN1k5otherEv
        /*0080*/                   LDG.E R4, desc[UR4][R2.64] ;
)sass",
            sass);
  const KernelResources &s = sass.at("_ZN1k8a_kernelEPdPKdi");
  EXPECT_EQ(s.isaKind, "sass");
  EXPECT_EQ(s.loads.at("LDG.E.128.CONSTANT"), 2);
  EXPECT_EQ(s.loads.at("LDG.E.CONSTANT"), 1);
  EXPECT_EQ(s.stores.at("STG.E.128"), 1);
  EXPECT_EQ(s.stores.at("STG.E.EF"), 1);
  EXPECT_EQ(s.nontemporalStores, 1);
  EXPECT_EQ(s.loads.count("LDG.E"), 0u);

  parsePtx(R"(
.visible .entry _ZN1k8a_kernelEPdPKdi(
	.param .u64 _ZN1k8a_kernelEPdPKdi_param_0
)
{
	ld.global.nc.v4.f32 	{%f1, %f2, %f3, %f4}, [%rd4];
	@%p1 ld.global.nc.f64 	%fd1, [%rd5];
	st.global.cs.v2.f64 	[%rd6], {%fd1, %fd2};
	st.global.f64 	[%rd7], %fd3;
}
)",
           kernels);
  const KernelResources &p = kernels.at("_ZN1k8a_kernelEPdPKdi");
  EXPECT_EQ(p.isaKind, "ptx");
  EXPECT_EQ(p.loads.at("ld.global.nc.v4.f32"), 1);
  EXPECT_EQ(p.loads.at("ld.global.nc.f64"), 1);
  EXPECT_EQ(p.stores.at("st.global.cs.v2.f64"), 1);
  EXPECT_EQ(p.nontemporalStores, 1);
}

KernelResources amd(int vgprs, int sgprs, int agprs = 0, int lds = 0) {
  KernelResources r;
  r.vgprs = vgprs;
  r.sgprs = sgprs;
  r.agprs = agprs;
  r.ldsBytes = lds;
  return r;
}

TEST(Inspect, AmdOccupancyFollowsTheRegisterFiles) {
  const TargetInfo &mi100 = *findTarget("gfx908");
  const TargetInfo &mi250x = *findTarget("gfx90a");
  // Figures hipcc reported for shipped kernels (laplacian3d_f64, the
  // 24-float hopping kernels, labnote_tile_y8 without launch bounds).
  EXPECT_EQ(amdOccupancy(mi100, amd(47, 25), 256).value, 5);
  EXPECT_EQ(amdOccupancy(mi100, amd(47, 25), 256).limitedBy, "VGPRs");
  EXPECT_EQ(amdOccupancy(mi250x, amd(52, 23), 256).value, 8);
  EXPECT_EQ(amdOccupancy(mi250x, amd(52, 23), 256).limitedBy, "wave slots");
  EXPECT_EQ(amdOccupancy(mi100, amd(203, 30), 128).value, 1);
  EXPECT_EQ(amdOccupancy(mi250x, amd(203, 30), 128).value, 2);
  EXPECT_EQ(amdOccupancy(mi100, amd(63, 23, 20), 256).value, 4);
  EXPECT_EQ(amdOccupancy(mi250x, amd(96, 23), 256).value, 5);
  // gfx90a counts AGPRs in the same file: 64 + 64 -> 128 -> 4 waves.
  EXPECT_EQ(amdOccupancy(mi250x, amd(64, 20, 64), 256).value, 4);
  // SGPRs and LDS.
  Occupancy sgpr = amdOccupancy(mi100, amd(16, 96), 256);
  EXPECT_EQ(sgpr.value, 8);
  EXPECT_EQ(sgpr.limitedBy, "SGPRs");
  Occupancy lds = amdOccupancy(mi100, amd(16, 20, 0, 32768), 256);
  EXPECT_EQ(lds.value, 2); // 2 groups of 4 waves on 4 SIMDs
  EXPECT_EQ(lds.limitedBy, "LDS");
  // hipcc's own figure for an LDS-limited kernel counts the CU's waves
  // (laplacian4d_vec24_aos_lds: 34560 bytes, one block of 4 waves per CU,
  // which hipcc reports as 4 waves/SIMD); registers limit both alike.
  EXPECT_EQ(amdOccupancy(mi100, amd(34, 41, 0, 34560), 256).value, 1);
  EXPECT_EQ(amdCompilerOccupancy(mi100, amd(34, 41, 0, 34560), 256), 4);
  EXPECT_EQ(amdCompilerOccupancy(mi250x, amd(31, 64, 0, 34560), 256), 4);
  EXPECT_EQ(amdCompilerOccupancy(mi100, amd(47, 25), 256), 5);
  // One 128-thread group of 2 waves per CU: a wave on 2 of the 4 SIMDs.
  EXPECT_EQ(amdOccupancy(mi100, amd(34, 41, 0, 39168), 128).value, 1);
}

TEST(Inspect, CheckFailsOnSpillsToMemoryOnly) {
  // hipcc's figures for the site-major Wilson-clover whole-lattice kernel
  // on gfx90a: 4 VGPRs spilled, no scratch, so into AGPRs.
  SpecReport spec;
  spec.model.kernel.block = {128, 1, 1, 1};
  KernelReport kernel;
  kernel.kernel.name = "k_kernel";
  KernelResources agprSpills = amd(256, 22, 201);
  agprSpills.vgprSpills = 4;
  agprSpills.compilerOccupancy =
      amdCompilerOccupancy(*findTarget("gfx90a"), agprSpills, 128);
  kernel.byTarget["gfx90a"] = agprSpills;
  spec.kernels.push_back(kernel);
  EXPECT_TRUE(findProblems({spec}).empty());
  // The same spills with scratch, or SGPR spills, reach memory.
  KernelResources scratch = agprSpills;
  scratch.scratchBytesPerLane = 16;
  spec.kernels[0].byTarget["gfx90a"] = scratch;
  std::vector<std::string> problems = findProblems({spec});
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[0], "k_kernel on gfx90a: spills 4 VGPRs and 0 SGPRs");
  EXPECT_EQ(problems[1], "k_kernel on gfx90a: uses 16 bytes of scratch per lane");
  KernelResources sgpr = agprSpills;
  sgpr.sgprSpills = 1;
  spec.kernels[0].byTarget["gfx90a"] = sgpr;
  problems = findProblems({spec});
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0], "k_kernel on gfx90a: spills 4 VGPRs and 1 SGPRs");
}

TEST(Inspect, NvidiaOccupancyCountsWholeBlocks) {
  const TargetInfo &h100 = *findTarget("sm_90");
  KernelResources r;
  r.registers = 32;
  EXPECT_EQ(nvidiaOccupancy(h100, r, 256).value, 64);
  r.registers = 66; // 2304 registers per warp: 28 warps, 3 blocks of 8
  Occupancy o = nvidiaOccupancy(h100, r, 256);
  EXPECT_EQ(o.value, 24);
  EXPECT_EQ(o.limitedBy, "registers");
  r.registers = 16;
  EXPECT_EQ(nvidiaOccupancy(h100, r, 32).value, 32); // 32 blocks of 1 warp
  EXPECT_EQ(nvidiaOccupancy(h100, r, 32).limitedBy, "blocks");
  r.sharedBytes = 48 * 1024;
  EXPECT_EQ(nvidiaOccupancy(h100, r, 256).value, 32); // 4 blocks
  EXPECT_EQ(nvidiaOccupancy(h100, r, 256).limitedBy, "shared memory");
}

TEST(Inspect, RooflineIsTheLowerRoof) {
  CheckResult result = checkYaml(laplacianSpec());
  ASSERT_TRUE(result.model.has_value()) << result.output;
  KernelFigures plan = figuresOf(planKernel(*result.model));
  const TargetInfo &h100 = *findTarget("sm_90");
  Roofline r = roofline(h100, plan, Precision::Double);
  EXPECT_DOUBLE_EQ(r.intensity, 13.0 / 16.0);
  EXPECT_DOUBLE_EQ(r.attainableGflops, 13.0 / 16.0 * 3350);
  EXPECT_TRUE(r.memoryBound);
  TargetInfo fast = h100;
  fast.peakGBs = 1e9;
  EXPECT_DOUBLE_EQ(roofline(fast, plan, Precision::Double).attainableGflops,
                   33500);
  EXPECT_FALSE(roofline(fast, plan, Precision::Double).memoryBound);
}

// The clover kernel's figures come from its own plan: the spinor and the
// clover term in, the spinor out.
TEST(Inspect, CloverKernelFigures) {
  CloverKernelPlan plan;
  plan.kernelName = "w_clover_kernel";
  plan.bytesPerSite = 480;
  plan.flopsPerSite = 528;
  KernelFigures k = figuresOf(plan);
  EXPECT_EQ(k.name, "w_clover_kernel");
  EXPECT_EQ(k.role, "clover");
  EXPECT_EQ(k.hop, "none");
  EXPECT_FALSE(k.hasLinks);
  EXPECT_DOUBLE_EQ(k.loadsPerSite, 2.0);
  EXPECT_DOUBLE_EQ(k.storesPerSite, 1.0);
  EXPECT_DOUBLE_EQ(k.intensity(), 528.0 / 480.0);
}

} // namespace
