// The benchmark's stencils: each shipped spec's kernels, its naive
// baseline (no tile, loads as written) and the planner's own choice of its
// kernel options (the spec's kernel section ignored). Defined by the generated
// BenchRegistry.cpp.
#ifndef STENCILC_BENCH_REGISTRY_H
#define STENCILC_BENCH_REGISTRY_H

#include "stencil/kernel_info.hpp"

#include <vector>

struct BenchPair {
  const stencil::KernelInfo *tuned;
  const stencil::KernelInfo *naive;
  /// The planner's choice of every kernel option (NAME_auto).
  const stencil::KernelInfo *automatic;
};

const std::vector<BenchPair> &benchPairs();

#endif
