//===- CostModel.cpp - Predicted time of a planned kernel -----------------===//

#include "plan/CostModel.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>
#include <vector>

namespace stencilc {

const DeviceModel &h100Device() {
  static const DeviceModel device = [] {
    DeviceModel d;
    d.name = "NVIDIA H100 80GB HBM3";
    d.tag = "h100";
    d.multiprocessors = 132;
    d.dramGBs = 3011;
    d.l2GBs = 11060;
    return d;
  }();
  return device;
}

const DeviceModel &h200Device() {
  static const DeviceModel device = [] {
    // The H100's multiprocessors, clocks and fitted constants, with the
    // H200's measured roofs.
    const DeviceModel &h100 = h100Device();
    DeviceModel d = h100;
    d.name = "NVIDIA H200";
    d.tag = "h200";
    d.dramGBs = 4250;
    d.l2GBs = 12500;
    d.l2Bytes = 60LL << 20; // read on an H200 (driver 580.159.04)
    // The same memory latency as the H100's HBM3 at 1.41 times the
    // bandwidth: 1.41 times the bytes in flight (Little's law).
    d.bytesInFlightPerMultiprocessor =
        h100.bytesInFlightPerMultiprocessor * d.dramGBs / h100.dramGBs;
    // Fitted to the H200 searches (docs/results/tune-h200-*-512*.json):
    // L2 traffic that the larger DRAM time does not hide (blocks and tiles
    // of the same predicted latency measured 3-6% apart, in the order of
    // their L2 bytes), and tiles of 4 along z 4-6% slower than tiles of 2
    // for the 7- and 13-point stencils (rows a thread touches at once).
    d.l2Overlap = 4;
    d.lossPerRow = 0.04;
    // Checked against the H100 model's choices on an H200, same run: 3-D
    // single-component stencils gained 3.8-10% (the 13-point none, the
    // 27-point lost 4%); 4-D and vector fields lost 1-22% (bigger blocks
    // and tiles than the measured best) and link stencils -2 to +6%, so
    // those keep the default device's; 1-D and 2-D ones were not measured.
    d.fittedDims = 3;
    d.fittedVectorFields = false;
    d.fittedLinks = false;
    // Not fitted to vector fields, the H200 runs the H100's choice for
    // them, with its own rule for unmarched site-major kernels
    // (plan/DeviceRules.cpp).
    d.vectorSiteResidentThreads = 512;
    return d;
  }();
  return device;
}

const std::vector<const DeviceModel *> &knownDevices() {
  static const std::vector<const DeviceModel *> devices = {&h100Device(),
                                                           &h200Device()};
  return devices;
}

const DeviceModel *findDevice(llvm::StringRef tagOrName) {
  for (const DeviceModel *device : knownDevices())
    if (tagOrName.equals_insensitive(device->tag) ||
        tagOrName == device->name)
      return device;
  return nullptr;
}

namespace {

constexpr int kSectorBytes = 32;

/// GB/s as bytes per picosecond.
double bytesPerPs(double gbs) { return gbs * 1e-3; }

/// The sectors a contiguous run of `bytes` touches, starting `aligned` on a
/// sector boundary or not (a halo row starts mid-sector).
double sectors(double bytes, bool aligned) {
  return std::ceil(bytes / kSectorBytes) + (aligned ? 0 : 1);
}

/// Bytes a block moves from L2 for one row of `sites` sites of the field,
/// of which it computes `perThread` of `components` per site.
double rowBytes(const StencilModel &model, const FieldLayout &layout,
                int sites, int perThread, bool aligned) {
  const int b = model.elementBytes();
  const int nc = model.components;
  switch (layout.order) {
  case LayoutOrder::SiteMajor: {
    // A site's components are adjacent: a block sharing the site with
    // others still touches the sectors of its share.
    const double share = std::max<double>(perThread * b,
                                          std::min(nc * b, kSectorBytes));
    const double bytes = sites * (perThread == nc ? nc * b : share);
    return kSectorBytes * sectors(bytes, aligned);
  }
  case LayoutOrder::ComponentMajor:
  case LayoutOrder::Blocked:
    // One run per component (blocks of sites: the same, a block at a time).
    return perThread * kSectorBytes * sectors(double(sites) * b, aligned);
  }
  return 0;
}

/// The L2 bytes per site of the field the blocks of a whole-lattice plan
/// read: the union of the block's box shifted by each load, in rows along
/// x, over the sites the block updates.
double fieldL2BytesPerSite(const StencilModel &model, const KernelPlan &plan) {
  const LatticeThreads &lattice = plan.threads.lattice;
  std::array<int, kMaxDims> span{1, 1, 1, 1};
  for (int axis = 0; axis < model.dims; ++axis)
    span[axis] = lattice.block[axis] * lattice.sitesPerThread[axis];
  // Shares side by side: a block reads whole sites, block x / groups of
  // them along x (rounded up for the rows it touches).
  const int groups = lattice.shares.groups;
  const bool byLane = lattice.shares.byLane();
  double xSites = span[0];
  if (byLane) {
    xSites = double(span[0]) / groups;
    span[0] = static_cast<int>(std::ceil(xSites));
  }
  // Rows by their (y, z, t) coordinates: the x intervals read in each.
  std::map<std::array<int, 3>, std::vector<std::pair<int, int>>> rows;
  for (const PlannedLoad &load : plan.loads) {
    const Offset &o = load.offset;
    const int x0 = o[0], x1 = o[0] + span[0] - 1 + (load.width - 1);
    std::array<int, 3> lo{0, 0, 0}, hi{0, 0, 0};
    for (int axis = 1; axis < model.dims; ++axis) {
      lo[axis - 1] = o[axis];
      hi[axis - 1] = o[axis] + span[axis] - 1;
    }
    for (int y = lo[0]; y <= hi[0]; ++y)
      for (int z = lo[1]; z <= hi[1]; ++z)
        for (int t = lo[2]; t <= hi[2]; ++t)
          rows[{y, z, t}].push_back({x0, x1});
  }
  const int perThread = byLane ? model.components : plan.access.perThread;
  double bytes = 0;
  for (auto &[coordinates, intervals] : rows) {
    std::sort(intervals.begin(), intervals.end());
    int start = intervals.front().first, end = intervals.front().second;
    auto flush = [&] {
      bytes += rowBytes(model, model.layout, end - start + 1, perThread,
                        start % 4 == 0);
    };
    for (const auto &[first, last] : intervals) {
      if (first > end + 1) {
        flush();
        start = first;
        end = last;
      } else {
        end = std::max(end, last);
      }
    }
    flush();
  }
  double sites = xSites;
  for (int axis = 1; axis < model.dims; ++axis)
    sites *= span[axis];
  // Shares by block: every group of threads sharing a site reads its own.
  return bytes * (byLane ? 1 : groups) / sites;
}

/// Registers a thread of `plan` needs: indices, the tile's accumulators and
/// the loads the compiler keeps in flight before their products.
int estimateRegisters(const StencilModel &model, const KernelPlan &plan) {
  // Narrow storage is widened to float in registers.
  const int wordsPerReal = model.precision == Precision::Double ? 2 : 1;
  const int perThread = plan.access.perThread;
  const int accumulators = plan.sitesPerTile() * perThread * wordsPerReal;
  // A load moves a group's row of each of the thread's components.
  const int valuesPerLoad = plan.xWidth * perThread * wordsPerReal;
  // The compiler issues a tile's loads early, as far as registers allow.
  int loads = std::min<int>(plan.loadsPerTile() * valuesPerLoad, 64);
  // A site-major site shared side by side in a warp: nvcc sums each load
  // into the accumulators as it arrives and keeps about 16 words of loads
  // per tile site waiting (sm_90, aos fields of 24 floats, 4 to 12 floats a
  // thread: 32-56 registers untiled, 56-80 with a tile of 2). A whole site
  // a thread: about 16 registers per tile site, floats or doubles (whole
  // sites of 24 floats: 48-64 registers untiled, 96-112 with a tile of 2;
  // 12 doubles: 56-64 and 96-114; 6 floats: 32-40 and 64;
  // docs/results/registers-site-major-sm90.txt).
  if (plan.threads.kind == ThreadMappingKind::Lattice) {
    const ComponentShares &shares = plan.threads.lattice.shares;
    if (shares.byLane())
      loads = std::min(loads, 16 * plan.sitesPerTile() * wordsPerReal);
    else if (!shares.split() && !plan.hasLinks && model.components > 1 &&
             model.layout.order == LayoutOrder::SiteMajor)
      loads = std::min(loads, 16 * plan.sitesPerTile());
  }
  int links = 0;
  if (plan.hasLinks) {
    links = std::min<int>(2 * plan.linkStorage.realsPerLink * wordsPerReal,
                          2 * 18 * wordsPerReal);
    // In ascending order every neighbour's values are loaded before the
    // links that multiply them arrive, and wait in registers; in the order
    // written each tap's link and neighbour are used together.
    if (model.kernel.loadOrder == LoadOrder::Ascending)
      loads = std::min<int>(plan.loadsPerTile() * valuesPerLoad, 128);
  }
  const int indices = 12 + 2 * model.dims;
  return std::min(255, indices + accumulators + loads + links);
}

/// The distinct rows (y, z, t) that a thread's loads touch.
int rowsPerThread(const KernelPlan &plan) {
  std::set<std::array<int, 3>> rows;
  for (const PlannedLoad &load : plan.loads)
    rows.insert({load.offset[1], load.offset[2], load.offset[3]});
  return static_cast<int>(rows.size());
}

/// Memory instructions and addresses per site: each load and store moves
/// `width` values of the thread's components per instruction, the loads of
/// each of a thread's `rows` from one address; links and clover terms in
/// their own accesses.
std::pair<double, double> accessesPerSite(const StencilModel &model,
                                          const KernelPlan &plan, int rows,
                                          const DeviceModel &device) {
  const FieldAccess &access = plan.access;
  const double perSite =
      plan.xWidth > 1 ? double(access.perThread) // a group's row each
                      : std::ceil(double(access.perThread) /
                                  std::max(1, access.width));
  // Loads of one row (neighbours along x) share an address and differ by
  // an immediate offset; CG's fold pass loads two arrays at each.
  double accesses =
      (double(plan.loadsPerTile()) + plan.storesPerTile()) * perSite;
  double addresses = device.threadAddresses + rows;
  // In subdomains every access finds its site's subdomain and the site's
  // place in it (stencil::layout_site), x neighbours too.
  if (model.layout.hasSubdomains())
    addresses = device.threadAddresses +
                device.subdomainAddressCost *
                    double(plan.loads.size() + plan.storesPerTile());
  if (plan.hasLinks) {
    accesses += plan.links.size() * double(plan.linkStorage.realsPerLink) /
                std::max(1, plan.linkStorage.layout.vector);
    addresses += plan.links.size();
  }
  if (plan.hasClover) {
    accesses += plan.clovers.size() * double(plan.cloverStorage.reals) /
                std::max(1, plan.cloverStorage.layout.vector);
    addresses += plan.clovers.size();
  }
  const double threadsPerSite =
      double(model.componentGroups()) / plan.sitesPerTile();
  return {accesses * threadsPerSite, addresses * threadsPerSite};
}

/// The bytes between adjacent lanes' accesses to a site-major field: a
/// share where shares sit side by side, else a whole site.
double siteMajorStride(const StencilModel &model, const KernelPlan &plan) {
  return double(plan.threads.shares().byLane() ? plan.access.perThread
                                               : model.components) *
         model.elementBytes();
}

/// L1 wavefronts per site of the field's loads and stores: each warp
/// instruction passes once per 128-byte line its lanes touch. A warp holds
/// min(32, block x) lanes of a row; adjacent lanes' accesses lie `stride`
/// bytes apart: one value or group (single-component fields, a component's
/// row in soa and aosoa), a share (site-major, shares side by side), or a
/// whole site (site-major, a site or a share by block per thread).
double fieldWavefrontsPerSite(const StencilModel &model,
                              const KernelPlan &plan) {
  constexpr double kLine = 128;
  const FieldAccess &access = plan.access;
  const LatticeThreads &lattice = plan.threads.lattice;
  const ComponentShares &shares = plan.threads.shares();
  const int b = model.elementBytes();
  double bytes = b, stride = b; // per lane and instruction, and apart
  switch (access.kind) {
  case AccessKind::RowGroup:
  case AccessKind::LayoutRowGroup:
    bytes = stride = double(access.width) * b;
    break;
  case AccessKind::SiteMajor:
  case AccessKind::SiteMajorVector:
    bytes = double(std::max(1, access.width)) * b;
    stride = siteMajorStride(model, plan);
    break;
  case AccessKind::LayoutElement:
  case AccessKind::HalfOrder:
    // Subdomains keep a site's components together; soa and aosoa keep a
    // component's row together, or a row of groups (field.layout.vector).
    if (model.layout.order == LayoutOrder::SiteMajor)
      stride = siteMajorStride(model, plan);
    else
      bytes = stride = double(std::max(1, access.width)) * b;
    break;
  default:
    break;
  }
  const int lanesPerRow =
      plan.threads.kind == ThreadMappingKind::Lattice
          ? std::max(1, std::min(32, lattice.block[0]))
          : 32;
  const double rowsPerWarp = 32.0 / lanesPerRow;
  const double span = (lanesPerRow - 1) * stride + bytes;
  // Lanes further apart than a line touch a line each; a run of adjacent
  // ones its lines, and one more half the time (it starts anywhere).
  const double linesPerRow =
      stride >= kLine ? lanesPerRow * std::ceil(bytes / kLine)
                      : std::ceil(span / kLine) + 0.5;
  const double perInstruction = rowsPerWarp * linesPerRow;
  const double perThreadInstructions =
      plan.xWidth > 1 ? double(access.perThread)
                      : std::ceil(double(access.perThread) /
                                  std::max(1, access.width));
  // Loads from a staged box read shared memory, not L1.
  const auto global = std::count_if(
      plan.loads.begin(), plan.loads.end(), [](const PlannedLoad &load) {
        return load.source != LoadSource::SharedBox;
      });
  const double instructions =
      double(global * plan.arraysPerAccess() + plan.storesPerTile()) *
      perThreadInstructions;
  // Per site: a warp's 32 threads cover 32 tiles' sites, shared by the
  // threads of a site's component groups.
  const double sitesPerWarp = 32.0 * plan.sitesPerTile() / shares.groups;
  return instructions * perInstruction / sitesPerWarp;
}

int threadsPerBlock(const KernelPlan &plan) {
  if (plan.threads.oneDimensionalGrid())
    return plan.threads.half.threadsPerBlock;
  const auto &block = plan.threads.lattice.block;
  return block[0] * block[1] * block[2] * block[3];
}

} // namespace

KernelCost estimateCost(const StencilModel &model, const KernelPlan &plan,
                        const DeviceModel &device) {
  KernelCost cost;
  const double bytes = plan.bytesPerSite();
  cost.dramPs = bytes / bytesPerPs(device.dramGBs);

  // Occupancy: blocks per multiprocessor by threads, blocks and registers
  // (allocated in groups of 8 per thread); launch bounds with a minimum of
  // resident blocks cap the registers instead.
  const int threads = threadsPerBlock(plan);
  const int demand = estimateRegisters(model, plan);
  // Given a minimum of resident blocks, the compiler spends the registers
  // it is allowed (measured: 240 a thread for the covariant Laplacian);
  // else link kernels keep to its own budget.
  const bool minimum = plan.launchBounds > 0 && plan.minBlocksPerSm > 0;
  int registers = demand;
  if (minimum)
    registers = std::min(255, device.registersPerMultiprocessor /
                                  (plan.launchBounds * plan.minBlocksPerSm) /
                                  8 * 8);
  else if (plan.hasLinks)
    registers = std::min(demand, device.linkRegisterBudget);
  cost.registers = registers;
  cost.spilledRegisters = std::max(0, demand - registers);
  const int allocated = (registers + 7) / 8 * 8;
  const int blocks = std::max(
      1, std::min({device.maxBlocksPerMultiprocessor,
                   device.maxThreadsPerMultiprocessor / threads,
                   device.registersPerMultiprocessor / (allocated * threads)}));
  cost.residentThreads = blocks * threads;
  cost.residentBlocks = blocks;

  // Little's law: each thread has its tile's new bytes in flight at once.
  const double threadBytes = double(plan.bytesReadPerSite) *
                             plan.sitesPerTile() / model.componentGroups();
  cost.bytesInFlight = cost.residentThreads * threadBytes;
  const double flight =
      std::min(1.0, cost.bytesInFlight / device.bytesInFlightPerMultiprocessor);
  cost.rowsPerThread = rowsPerThread(plan);
  const double spill =
      1 + device.spillCost * double(cost.spilledRegisters) / demand;
  const double drain = blocks == 1 ? 1 + device.singleBlockDrain : 1.0;
  cost.latencyPs = cost.dramPs * (1 + device.lossPerRow * cost.rowsPerThread) *
                   spill * drain / flight;

  // L2: the field's boxes with their halo (CG's fold pass: r's and p's),
  // everything else once.
  const double fieldBytes = double(model.components) * model.elementBytes();
  double l2Bytes = bytes;
  if (plan.threads.kind == ThreadMappingKind::Lattice && !plan.loads.empty())
    l2Bytes += plan.arraysPerAccess() *
               (fieldL2BytesPerSite(model, plan) - fieldBytes);
  cost.l2BytesPerSite = l2Bytes;
  cost.l2Ps = l2Bytes / bytesPerPs(device.l2GBs);

  // The even/odd kernels' warps read 32 consecutive sites of one parity,
  // as a row of 32 sites along x would be read.
  if (!plan.loads.empty())
    cost.wavefrontsPerSite = fieldWavefrontsPerSite(model, plan);
  cost.l1Ps = cost.wavefrontsPerSite * device.picosecondsPerWavefront;

  std::tie(cost.accessesPerSite, cost.addressesPerSite) =
      accessesPerSite(model, plan, cost.rowsPerThread, device);
  const double issueEfficiency =
      std::min(1.0, double(cost.residentThreads) / device.threadsToIssue);
  cost.issuePs = (cost.accessesPerSite * device.picosecondsPerAccess +
                  cost.addressesPerSite * device.picosecondsPerAddress) /
                 issueEfficiency;
  if (plan.foldsDirection())
    cost.issuePs *= device.foldIssueFactor;

  // L1's wavefronts overlap DRAM's transfers only in part: a site-major
  // field whose warp instructions span twice the lines ran 5% slower at the
  // same DRAM bytes (docs/results/tune-laplacian4d_vec24_aos-shares-h100.json).
  const double p = device.overlap;
  auto norm = [](double a, double b, double q) {
    return std::pow(std::pow(a, q) + std::pow(b, q), 1 / q);
  };
  const double dramAndL2 =
      plan.foldsDirection()
          ? norm(cost.latencyPs, cost.l2Ps, device.foldL2Overlap)
      : device.l2Overlap > 0 ? norm(cost.latencyPs, cost.l2Ps, device.l2Overlap)
                             : std::max(cost.latencyPs, cost.l2Ps);
  const double memory = norm(dramAndL2, cost.l1Ps, p);
  cost.picosecondsPerSite = norm(memory, cost.issuePs, p);
  if (cost.issuePs > memory)
    cost.limit = "instructions";
  else if (cost.l1Ps > std::max(cost.latencyPs, cost.l2Ps))
    cost.limit = "L1";
  else if (cost.l2Ps > cost.latencyPs)
    cost.limit = "L2";
  else
    cost.limit = cost.latencyPs > 1.05 * cost.dramPs ? "latency" : "DRAM";
  return cost;
}

std::string percentText(double fraction) {
  char text[16];
  std::snprintf(text, sizeof text, "%.0f%%", 100 * fraction);
  return text;
}

} // namespace stencilc
