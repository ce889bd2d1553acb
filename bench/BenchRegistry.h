// The benchmark's stencils: each shipped spec's kernels and its naive
// baseline (no tile, loads as written). Defined by the generated
// BenchRegistry.cpp.
#ifndef STENCILC_BENCH_REGISTRY_H
#define STENCILC_BENCH_REGISTRY_H

#include "stencil/kernel_info.hpp"

#include <vector>

struct BenchPair {
  const stencil::KernelInfo *tuned;
  const stencil::KernelInfo *naive;
};

const std::vector<BenchPair> &benchPairs();

#endif
